package dev.txnrocksdb.streams;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** Runs a main class in a child JVM and kills it with SIGKILL at a chosen moment. */
final class ChildJvm {
    /** 128 + SIGKILL(9): how a JVM killed by SIGKILL exits on Linux. */
    static final int SIGKILL_EXIT = 137;

    private final Process child;
    private final List<String> output = new ArrayList<>();
    private final CompletableFuture<Void> reader;
    private volatile String awaitedLine;
    private final CompletableFuture<Boolean> lineSeen = new CompletableFuture<>();

    private ChildJvm(Process child) {
        this.child = child;
        this.reader = CompletableFuture.runAsync(this::readOutput);
    }

    /**
     * Starts {@code main} with {@code args} on this JVM's class path, waits (up to 2 minutes) for
     * the line {@code readyLine}, kills the child with SIGKILL and asserts it died of it.
     */
    static void runUntilReadyThenKill(Class<?> main, String readyLine, String... args) throws Exception {
        ChildJvm child = start(main, args);
        try {
            child.awaitLine(readyLine);
        } finally {
            child.killAndAssertSigkill();
        }
    }

    /** Starts {@code main} with {@code args} on this JVM's class path; its output is collected. */
    static ChildJvm start(Class<?> main, String... args) throws IOException {
        return start(Launcher.THIS_JVM, main, args);
    }

    /** Starts {@code main} with {@code args} in a JVM that {@code launcher} describes; its output is collected. */
    static ChildJvm start(Launcher launcher, Class<?> main, String... args) throws IOException {
        return startWrapped(List.of(), launcher, main, args);
    }

    /**
     * As {@link #start(Launcher, Class, String...)}, with the JVM's command line appended to
     * {@code wrapper} (e.g. {@code unshare -m sh -c '<mount> && exec "$@"' ...}).
     */
    static ChildJvm startWrapped(List<String> wrapper, Launcher launcher, Class<?> main, String... args) throws IOException {
        List<String> command = new ArrayList<>(wrapper);
        command.add(launcher.java());
        command.addAll(launcher.jvmOptions());
        command.addAll(List.of("-cp", launcher.classPath(), main.getName()));
        command.addAll(List.of(args));
        return new ChildJvm(new ProcessBuilder(command).redirectErrorStream(true).start());
    }

    /**
     * Which JVM a child runs in: its {@code java} executable, class path and options. Children
     * normally run this JVM on its class path; the platform smoke test runs another architecture's
     * JVM (under emulation) on the release jar.
     */
    record Launcher(String java, String classPath, List<String> jvmOptions) {
        static final Launcher THIS_JVM = new Launcher(
            Paths.get(System.getProperty("java.home"), "bin", "java").toString(), System.getProperty("java.class.path"), List.of());
    }

    /** Waits (up to 2 minutes) until the child prints {@code line}; only one line can be awaited. */
    void awaitLine(String line) throws Exception {
        awaitedLine = line;
        synchronized (output) {
            if (output.contains(line)) {
                return;
            }
        }
        boolean seen;
        try {
            seen = lineSeen.get(120, TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            seen = false;
        }
        assertTrue(seen, "child never printed " + line + ": " + output());
    }

    /**
     * Polls {@code condition} as fast as it can (up to 2 minutes, or until the child exits) and
     * returns whether it became true.
     */
    boolean pollUntil(BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < deadline) {
            if (condition.getAsBoolean()) {
                return true;
            }
            if (!child.isAlive()) {
                return condition.getAsBoolean();
            }
            Thread.onSpinWait();
        }
        return false;
    }

    /** Kills the child with SIGKILL and asserts that it died of it (exit code {@value #SIGKILL_EXIT}). */
    void killAndAssertSigkill() throws Exception {
        child.destroyForcibly();
        assertTrue(child.waitFor(60, TimeUnit.SECONDS), "child did not die");
        reader.get(60, TimeUnit.SECONDS);
        assertEquals(SIGKILL_EXIT, child.exitValue(), "child was not killed by SIGKILL; output: " + output());
    }

    /** Waits (up to 2 minutes) for the child to exit by itself and for its output; returns its exit code. */
    int awaitExit() throws Exception {
        assertTrue(child.waitFor(120, TimeUnit.SECONDS), "child did not exit: " + output());
        reader.get(60, TimeUnit.SECONDS);
        return child.exitValue();
    }

    /** What the child printed so far. */
    List<String> output() {
        synchronized (output) {
            return new ArrayList<>(output);
        }
    }

    private void readOutput() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                synchronized (output) {
                    output.add(line);
                }
                if (line.equals(awaitedLine)) {
                    lineSeen.complete(true);
                }
            }
        } catch (IOException e) {
            // the child died; what it printed is in output
        } finally {
            lineSeen.complete(false);
        }
    }
}
