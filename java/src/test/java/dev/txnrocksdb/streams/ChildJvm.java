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

/** Runs a main class in a child JVM and kills it with SIGKILL once it prints a ready line. */
final class ChildJvm {
    /** 128 + SIGKILL(9): how a JVM killed by SIGKILL exits on Linux. */
    static final int SIGKILL_EXIT = 137;

    private ChildJvm() {}

    /**
     * Starts {@code main} with {@code args} on this JVM's class path, waits (up to 2 minutes) for
     * the line {@code readyLine}, kills the child with SIGKILL and asserts it died of it.
     */
    static void runUntilReadyThenKill(Class<?> main, String readyLine, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(
            Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
            "-cp", System.getProperty("java.class.path"), main.getName()));
        command.addAll(List.of(args));
        Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        List<String> output = new ArrayList<>();
        try {
            CompletableFuture<Boolean> ready = CompletableFuture.supplyAsync(() -> awaitLine(child, readyLine, output));
            assertTrue(ready.get(120, TimeUnit.SECONDS), "child never printed " + readyLine + ": " + output);
        } finally {
            child.destroyForcibly();
            assertTrue(child.waitFor(60, TimeUnit.SECONDS), "child did not die");
        }
        assertEquals(SIGKILL_EXIT, child.exitValue(), "child was not killed by SIGKILL; output: " + output);
    }

    private static boolean awaitLine(Process child, String readyLine, List<String> output) {
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = reader.readLine()) != null) {
                synchronized (output) {
                    output.add(line);
                }
                if (line.equals(readyLine)) {
                    return true;
                }
            }
            return false;
        } catch (IOException e) {
            return false;
        }
    }
}
