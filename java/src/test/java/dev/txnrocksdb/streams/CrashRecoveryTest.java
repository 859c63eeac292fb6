package dev.txnrocksdb.streams;

import static dev.txnrocksdb.streams.StoreFixture.key;
import static dev.txnrocksdb.streams.StoreFixture.string;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
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
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** kill -9 of a process with staged writes: on reopen, exactly the committed state is there. */
class CrashRecoveryTest {
    private static final int COMMITTED = 2_000;
    private static final int UNCOMMITTED = 500;
    private static final long OFFSET = 4_242L;
    /** 128 + SIGKILL(9): how a JVM killed by SIGKILL exits on Linux. */
    private static final int SIGKILL_EXIT = 137;

    @TempDir
    Path stateDir;

    @Test
    void killDashNineKeepsCommittedDataAndDropsStagedWrites() throws Exception {
        String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder builder = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
            CrashWriterMain.class.getName(), stateDir.toString(), "crash-store",
            Integer.toString(COMMITTED), Integer.toString(UNCOMMITTED), Long.toString(OFFSET));
        builder.redirectErrorStream(true);
        Process child = builder.start();
        List<String> childOutput = new ArrayList<>();
        try {
            CompletableFuture<Boolean> ready = CompletableFuture.supplyAsync(() -> awaitReady(child, childOutput));
            assertTrue(ready.get(120, TimeUnit.SECONDS), "child never printed READY: " + childOutput);
        } finally {
            child.destroyForcibly();
            assertTrue(child.waitFor(60, TimeUnit.SECONDS), "child did not die");
        }
        assertEquals(SIGKILL_EXIT, child.exitValue(), "child was not killed by SIGKILL; output: " + childOutput);

        TxnKeyValueStore store = StoreFixture.open(new TxnKeyValueStore("crash-store", true),
            new TestStateStoreContext(stateDir.toFile()));
        try {
            assertEquals(OFFSET, store.committedOffset(new TopicPartition("crash-store-changelog", 0)));
            assertEquals("value-0", string(store.get(key("committed-0"))));
            assertEquals("value-1", string(store.get(key("committed-1"))));
            int count = 0;
            try (KeyValueIterator<Bytes, byte[]> all = store.all()) {
                while (all.hasNext()) {
                    String k = new String(all.next().key.get(), StandardCharsets.UTF_8);
                    assertTrue(k.startsWith("committed-"), "uncommitted key survived the crash: " + k);
                    count++;
                }
            }
            assertEquals(COMMITTED, count);
            assertNull(store.get(key("uncommitted-0")));
            assertEquals(0L, store.approximateNumUncommittedBytes());
        } finally {
            store.close();
        }
    }

    private static boolean awaitReady(Process child, List<String> output) {
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = reader.readLine()) != null) {
                synchronized (output) {
                    output.add(line);
                }
                if (line.equals(CrashWriterMain.READY)) {
                    return true;
                }
            }
            return false;
        } catch (IOException e) {
            return false;
        }
    }
}
