package dev.txnrocksdb.streams.crash;

import static dev.txnrocksdb.streams.fixtures.StoreFixture.key;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.txnrocksdb.streams.TransactionStrategy;
import dev.txnrocksdb.streams.TxnRocksDBConfig;
import dev.txnrocksdb.streams.fixtures.SegmentedStoreTestContext;
import dev.txnrocksdb.streams.fixtures.TestStateStoreContext;
import dev.txnrocksdb.streams.internals.TxnKeyValueStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.Properties;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Damaged files ({@link TxnRocksDBConfig#WAL_CORRUPTION_CONFIG}). A write-ahead log damaged in its
 * middle: a store without a changelog refuses to open rather than silently drop the commits after
 * the damage; one with a changelog, or configured to, opens at its last consistent commit. A
 * MANIFEST damaged so that no commit can be read: a store with a changelog deletes its files and
 * opens empty, without offsets, for Kafka Streams to restore (counted in {@code wipes-total}); one
 * without refuses, naming the store, the damage and the setting.
 */
class WalCorruptionTest {
    private static final byte[] VALUE = new byte[1000];

    @TempDir
    Path dir;

    /** Five commits of 20 KiB (offsets 0, 100, ..., 400), closed: the data only in the WAL. */
    private static void fiveCommits(TxnKeyValueStore store, TopicPartition changelog) {
        for (int commit = 0; commit < 5; commit++) {
            for (int i = 0; i < 20; i++) {
                store.put(key(commit + "-" + i), VALUE);
            }
            store.commit(Map.of(changelog, commit * 100L));
        }
        store.close();
    }

    /** Garbles 64 bytes in the middle of the store's newest WAL file (within commit 3 of 5). */
    private static void damageTheWal(Path storeDir) throws IOException {
        Path wal;
        try (Stream<Path> files = Files.list(storeDir)) {
            wal = files.filter(p -> p.getFileName().toString().endsWith(".log"))
                    .sorted()
                    .reduce((a, b) -> b)
                    .orElseThrow();
        }
        byte[] bytes = Files.readAllBytes(wal);
        for (int i = bytes.length / 2; i < bytes.length / 2 + 64; i++) {
            bytes[i] ^= 0x5A;
        }
        Files.write(wal, bytes);
    }

    private static TxnKeyValueStore open(StateStoreContext context, TransactionStrategy strategy) {
        TxnKeyValueStore store = new TxnKeyValueStore("store", true, strategy);
        store.init(context, store);
        return store;
    }

    private void writeAndDamage(
            Supplier<StateStoreContext> context, TransactionStrategy strategy, TopicPartition changelog)
            throws IOException {
        fiveCommits(open(context.get(), strategy), changelog);
        damageTheWal(dir.resolve("store"));
    }

    @ParameterizedTest
    @EnumSource(TransactionStrategy.class)
    void aStoreWithoutChangelogRefusesToOpenNamingTheStoreTheLossAndTheWayOut(TransactionStrategy strategy)
            throws IOException {
        TopicPartition changelog = new TopicPartition("store-changelog", 0);
        writeAndDamage(() -> new TestStateStoreContext(dir.toFile()), strategy, changelog);
        ProcessorStateException e = assertThrows(
                ProcessorStateException.class, () -> open(new TestStateStoreContext(dir.toFile()), strategy));
        String message = e.getMessage();
        assertTrue(message.contains(dir.resolve("store").toString()), message);
        assertTrue(message.contains("write-ahead log"), message);
        assertTrue(message.contains("refuses to open"), message);
        assertTrue(message.contains("100)"), "names the last consistent commit's offset: " + message);
        assertTrue(message.contains(TxnRocksDBConfig.WAL_CORRUPTION_CONFIG + "=recover"), message);
    }

    @ParameterizedTest
    @EnumSource(TransactionStrategy.class)
    void configuredToRecoverItOpensAtTheLastConsistentCommit(TransactionStrategy strategy) throws IOException {
        TopicPartition changelog = new TopicPartition("store-changelog", 0);
        writeAndDamage(() -> new TestStateStoreContext(dir.toFile()), strategy, changelog);
        TxnKeyValueStore store = open(
                new TestStateStoreContext(dir.toFile()).config(TxnRocksDBConfig.WAL_CORRUPTION_CONFIG, "recover"),
                strategy);
        assertEquals(100L, store.committedOffset(changelog));
        assertNotNull(store.get(key("1-19")));
        assertNull(store.get(key("2-0")));
        store.close();
    }

    @ParameterizedTest
    @EnumSource(TransactionStrategy.class)
    void aChangeloggedStoreRecoversByDefaultAndKafkaRestoresTheRest(TransactionStrategy strategy) throws IOException {
        // This context is Kafka's internal one: it names the store's changelog.
        Supplier<StateStoreContext> context = () -> new SegmentedStoreTestContext(dir.toFile());
        TopicPartition changelog = new TopicPartition(SegmentedStoreTestContext.APP_ID + "-store-changelog", 0);
        writeAndDamage(context, strategy, changelog);
        TxnKeyValueStore store = open(context.get(), strategy);
        assertEquals(100L, store.committedOffset(changelog));
        assertNull(store.get(key("2-0")));
        store.close();
    }

    @ParameterizedTest
    @EnumSource(TransactionStrategy.class)
    void configuredToFailEvenAChangeloggedStoreRefuses(TransactionStrategy strategy) throws IOException {
        Supplier<StateStoreContext> context = () -> new SegmentedStoreTestContext(dir.toFile());
        writeAndDamage(context, strategy, new TopicPartition(SegmentedStoreTestContext.APP_ID + "-store-changelog", 0));
        Properties fail = new Properties();
        fail.put(TxnRocksDBConfig.WAL_CORRUPTION_CONFIG, "fail");
        assertThrows(
                ProcessorStateException.class,
                () -> open(new SegmentedStoreTestContext(dir.toFile(), 0, fail), strategy));
    }

    @Test
    void aMisspelledPolicyIsAConfigExceptionNamingKeyValueAndChoices() {
        ConfigException e = assertThrows(
                ConfigException.class,
                () -> open(
                        new TestStateStoreContext(dir.toFile())
                                .config(TxnRocksDBConfig.WAL_CORRUPTION_CONFIG, "recovr"),
                        TransactionStrategy.INDEXED_BATCH));
        assertTrue(e.getMessage().contains(TxnRocksDBConfig.WAL_CORRUPTION_CONFIG), e.getMessage());
        assertTrue(e.getMessage().contains("recovr"), e.getMessage());
        assertTrue(
                Arrays.stream(new String[] {"recover-if-changelogged", "recover", "fail"})
                        .allMatch(e.getMessage()::contains),
                e.getMessage());
    }

    /** Five commits with 64 KiB memtables (the store flushes to SST files), closed; then its MANIFEST's start garbled. */
    private void writeFlushedThenDamageTheManifest(
            StateStoreContext context, TransactionStrategy strategy, TopicPartition changelog) throws IOException {
        TxnKeyValueStore store = open(context, strategy);
        for (int commit = 0; commit < 5; commit++) {
            for (int i = 0; i < 200; i++) {
                store.put(key(commit + "-" + i), VALUE);
            }
            store.commit(Map.of(changelog, commit * 100L));
        }
        store.close();
        Path manifest;
        try (Stream<Path> files = Files.list(dir.resolve("store"))) {
            manifest = files.filter(p -> p.getFileName().toString().startsWith("MANIFEST-"))
                    .findFirst()
                    .orElseThrow();
        }
        byte[] bytes = Files.readAllBytes(manifest);
        for (int i = 0; i < 64; i++) {
            bytes[i] ^= 0x5A;
        }
        Files.write(manifest, bytes);
    }

    private static Properties smallMemtables() {
        Properties props = new Properties();
        props.put(TxnRocksDBConfig.ROCKSDB_OPTIONS_STORE_PREFIX + "store", "write_buffer_size=65536");
        return props;
    }

    @ParameterizedTest
    @EnumSource(TransactionStrategy.class)
    void aChangeloggedStoreThatCannotProveACommitDeletesItsFilesForKafkaToRestore(TransactionStrategy strategy)
            throws IOException {
        TopicPartition changelog = new TopicPartition(SegmentedStoreTestContext.APP_ID + "-store-changelog", 0);
        writeFlushedThenDamageTheManifest(
                new SegmentedStoreTestContext(dir.toFile(), 0, smallMemtables()), strategy, changelog);
        SegmentedStoreTestContext context = new SegmentedStoreTestContext(dir.toFile(), 0, smallMemtables());
        TxnKeyValueStore store = open(context, strategy);
        try {
            assertNull(store.committedOffset(changelog), "no offset: Kafka restores the whole changelog");
            assertNull(store.get(key("4-0")));
            assertNull(store.get(key("0-0")));
            Object wipes = context.metrics().metrics().entrySet().stream()
                    .filter(e -> e.getKey().name().equals("wipes-total")
                            && e.getKey().tags().containsValue("store"))
                    .map(e -> e.getValue().metricValue())
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("no wipes-total metric"));
            assertEquals(1L, ((Number) wipes).longValue());
            // it restores and commits as any store
            store.put(key("restored"), VALUE);
            store.commit(Map.of(changelog, 500L));
        } finally {
            store.close();
        }
        TxnKeyValueStore reopened = open(new SegmentedStoreTestContext(dir.toFile(), 0, smallMemtables()), strategy);
        assertEquals(500L, reopened.committedOffset(changelog));
        reopened.close();
    }

    @ParameterizedTest
    @EnumSource(TransactionStrategy.class)
    void withoutAChangelogSuchAStoreRefusesNamingTheStoreTheDamageAndTheSetting(TransactionStrategy strategy)
            throws IOException {
        TopicPartition changelog = new TopicPartition("store-changelog", 0);
        TestStateStoreContext writing = new TestStateStoreContext(dir.toFile())
                .config(TxnRocksDBConfig.ROCKSDB_OPTIONS_STORE_PREFIX + "store", "write_buffer_size=65536");
        writeFlushedThenDamageTheManifest(writing, strategy, changelog);
        for (String policy : new String[] {"recover-if-changelogged", "recover", "fail"}) {
            ProcessorStateException e = assertThrows(
                    ProcessorStateException.class,
                    () -> open(
                            new TestStateStoreContext(dir.toFile())
                                    .config(TxnRocksDBConfig.WAL_CORRUPTION_CONFIG, policy),
                            strategy));
            String message = e.getMessage();
            assertTrue(message.contains(dir.resolve("store").toString()), message);
            assertTrue(message.contains("MANIFEST"), "names the damaged file: " + message);
            assertTrue(message.contains("refuses to open"), message);
            assertTrue(message.contains(TxnRocksDBConfig.WAL_CORRUPTION_CONFIG), message);
        }
    }
}
