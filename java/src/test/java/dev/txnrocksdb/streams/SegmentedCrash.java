package dev.txnrocksdb.streams;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Runs {@link SegmentedCrashWriterMain} in a child JVM and kills it with SIGKILL once it is ready. */
final class SegmentedCrash {
    /** 128 + SIGKILL(9): how a JVM killed by SIGKILL exits on Linux. */
    private static final int SIGKILL_EXIT = 137;

    private SegmentedCrash() {}

    static void runAndKill(String kind, Path stateDir, String storeName, long offset) throws Exception {
        String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder builder = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
            SegmentedCrashWriterMain.class.getName(), kind, stateDir.toString(), storeName, Long.toString(offset));
        builder.redirectErrorStream(true);
        Process child = builder.start();
        List<String> output = new ArrayList<>();
        try {
            CompletableFuture<Boolean> ready = CompletableFuture.supplyAsync(() -> awaitReady(child, output));
            assertTrue(ready.get(120, TimeUnit.SECONDS), "child never printed READY: " + output);
        } finally {
            child.destroyForcibly();
            assertTrue(child.waitFor(60, TimeUnit.SECONDS), "child did not die");
        }
        assertEquals(SIGKILL_EXIT, child.exitValue(), "child was not killed by SIGKILL; output: " + output);
    }

    private static boolean awaitReady(Process child, List<String> output) {
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = reader.readLine()) != null) {
                synchronized (output) {
                    output.add(line);
                }
                if (line.equals(SegmentedCrashWriterMain.READY)) {
                    return true;
                }
            }
            return false;
        } catch (IOException e) {
            return false;
        }
    }
}
