package dev.txnrocksdb.tool;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@link LockHolderMain} in a child JVM, holding an exclusive lock on a file until closed. POSIX
 * locks belong to the process, so a lock this JVM took would not keep this JVM's tool out: an
 * application's lock has to be another process's.
 */
final class LockHolder implements AutoCloseable {
    private final Process process;
    private final String firstLine;

    private LockHolder(Process process, String firstLine) {
        this.process = process;
        this.firstLine = firstLine;
    }

    /** Starts a child that tries to lock {@code file}, and waits (up to a minute) for its answer. */
    static LockHolder start(Path file) throws IOException, InterruptedException {
        List<String> command = List.of(
                Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                LockHolderMain.class.getName(),
                file.toString());
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        BufferedReader output =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        try {
            String line = CompletableFuture.supplyAsync(() -> {
                        try {
                            return output.readLine();
                        } catch (IOException e) {
                            return "failed to read the child's output: " + e;
                        }
                    })
                    .get(60, TimeUnit.SECONDS);
            return new LockHolder(process, line);
        } catch (ExecutionException | TimeoutException e) {
            process.destroyForcibly();
            throw new AssertionError("the lock holder did not answer within a minute", e);
        }
    }

    /** Starts a child that locks {@code file}, failing unless it holds the lock. */
    static LockHolder holding(Path file) throws IOException, InterruptedException {
        LockHolder holder = start(file);
        if (!holder.locked()) {
            holder.close();
            throw new AssertionError("the child could not lock " + file + ": " + holder.firstLine);
        }
        return holder;
    }

    /** Whether the child got the lock. */
    boolean locked() {
        return "LOCKED".equals(firstLine);
    }

    /** What the child printed first. */
    String answer() {
        return firstLine;
    }

    /** Closes the child's standard input (it releases the lock and ends), and waits for it. */
    @Override
    public void close() throws IOException, InterruptedException {
        process.getOutputStream().close();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }
    }
}
