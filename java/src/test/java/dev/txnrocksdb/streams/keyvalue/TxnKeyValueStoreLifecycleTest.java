package dev.txnrocksdb.streams.keyvalue;

import static dev.txnrocksdb.streams.fixtures.StoreFixture.drain;
import static dev.txnrocksdb.streams.fixtures.StoreFixture.key;
import static dev.txnrocksdb.streams.fixtures.StoreFixture.string;
import static dev.txnrocksdb.streams.fixtures.StoreFixture.value;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.txnrocksdb.streams.TxnRocksDBConfig;
import dev.txnrocksdb.streams.fixtures.StoreFixture;
import dev.txnrocksdb.streams.fixtures.TestStateStoreContext;
import dev.txnrocksdb.streams.internals.TxnKeyValueStore;
import dev.txnrocksdb.streams.internals.TxnTimestampedKeyValueStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.apache.kafka.streams.state.TimestampedBytesStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/** Opening, closing, use after close, and the settings checked at init. */
class TxnKeyValueStoreLifecycleTest {
    @TempDir
    Path dir;

    private TxnKeyValueStore store;

    @AfterEach
    void close() {
        if (store != null) {
            store.close();
        }
    }

    @Test
    void initOpensUnderStateDirSlashNameAndRegistersTheRoot() {
        TestStateStoreContext context = new TestStateStoreContext(dir.toFile());
        store = StoreFixture.open(new TxnKeyValueStore("my-store", true), context);
        assertTrue(store.isOpen());
        assertTrue(store.persistent());
        assertTrue(managesOffsets(store));
        assertEquals("my-store", store.name());
        assertTrue(Files.isDirectory(dir.resolve("my-store")));
        assertSame(store, context.registeredRoot());
        assertTrue(
                context.restoreCallback()
                        instanceof org.apache.kafka.streams.processor.internals.RecordBatchingStateRestoreCallback);
    }

    @SuppressWarnings("deprecation")
    private static boolean managesOffsets(TxnKeyValueStore store) {
        return store.managesOffsets();
    }

    @Test
    void initTwiceIsRejected() {
        TestStateStoreContext context = new TestStateStoreContext(dir.toFile());
        store = StoreFixture.open(new TxnKeyValueStore("store", true), context);
        ProcessorStateException e = assertThrows(ProcessorStateException.class, () -> store.init(context, store));
        assertTrue(e.getMessage().contains("store"), e.getMessage());
        assertTrue(store.isOpen());
    }

    @Test
    void storeCanBeReinitializedAfterClose() {
        TestStateStoreContext context = new TestStateStoreContext(dir.toFile());
        store = StoreFixture.open(new TxnKeyValueStore("store", true), context);
        store.put(key("a"), value("1"));
        store.commit(Map.of());
        store.close();
        store.init(context, store);
        assertEquals("1", string(store.get(key("a"))));
    }

    @Test
    void closeIsIdempotentAndUseAfterCloseThrowsNamingTheStore() {
        store = StoreFixture.open(new TxnKeyValueStore("closing-store", true), new TestStateStoreContext(dir.toFile()));
        ReadOnlyKeyValueStore<Bytes, byte[]> committedView = store.readOnly(IsolationLevel.READ_COMMITTED);
        store.close();
        store.close();
        assertFalse(store.isOpen());
        List<Executable> uses = List.of(
                () -> store.get(key("a")),
                () -> store.put(key("a"), value("1")),
                () -> store.putIfAbsent(key("a"), value("1")),
                () -> store.putAll(List.of()),
                () -> store.delete(key("a")),
                () -> store.range(key("a"), key("b")),
                () -> store.reverseRange(key("a"), key("b")),
                () -> store.all(),
                () -> store.reverseAll(),
                () -> store.prefixScan("a", new StringSerializer()),
                () -> store.approximateNumEntries(),
                () -> store.committedOffset(new TopicPartition("t", 0)),
                () -> store.readOnly(IsolationLevel.READ_COMMITTED),
                () -> store.commit(5L),
                () -> store.recover(5L),
                () -> committedView.get(key("a")),
                () -> committedView.all());
        for (Executable use : uses) {
            InvalidStateStoreException e = assertThrows(InvalidStateStoreException.class, use);
            assertEquals("Store closing-store is currently closed", e.getMessage());
        }
        // As Kafka's RocksDB store: a closed store has nothing to commit and no uncommitted bytes.
        assertDoesNotThrow(() -> store.commit(Map.of()));
        assertEquals(0L, store.approximateNumUncommittedBytes());
    }

    @Test
    void unopenedStoreBehavesAsClosed() {
        TxnKeyValueStore unopened = new TxnKeyValueStore("never-opened", true);
        assertFalse(unopened.isOpen());
        assertEquals(
                "Store never-opened is currently closed",
                assertThrows(InvalidStateStoreException.class, () -> unopened.get(key("a")))
                        .getMessage());
        assertDoesNotThrow(() -> unopened.commit(Map.of()));
        assertDoesNotThrow(unopened::close);
    }

    @Test
    void closingTheStoreClosesItsOpenIterators() {
        store = StoreFixture.open(new TxnKeyValueStore("iter-store", true), new TestStateStoreContext(dir.toFile()));
        for (int i = 0; i < 600; i++) {
            store.put(key(String.format("k%03d", i)), value("v"));
        }
        KeyValueIterator<Bytes, byte[]> started = store.all();
        assertEquals(key("k000"), started.next().key);
        KeyValueIterator<Bytes, byte[]> untouched = store.range(key("k100"), key("k200"));
        KeyValueIterator<Bytes, byte[]> committedOnly =
                store.readOnly(IsolationLevel.READ_COMMITTED).all();
        store.close();
        for (KeyValueIterator<Bytes, byte[]> it : List.of(started, untouched, committedOnly)) {
            InvalidStateStoreException e = assertThrows(InvalidStateStoreException.class, it::hasNext);
            assertTrue(e.getMessage().contains("iter-store"), e.getMessage());
            assertThrows(InvalidStateStoreException.class, it::next);
            assertThrows(InvalidStateStoreException.class, it::peekNextKey);
            assertDoesNotThrow(it::close);
        }
    }

    @Test
    void concurrentReadersSeeOnlyInvalidStateStoreExceptionWhenTheStoreCloses() throws Exception {
        store = StoreFixture.open(new TxnKeyValueStore("race-store", true), new TestStateStoreContext(dir.toFile()));
        for (int i = 0; i < 2000; i++) {
            store.put(key(String.format("k%04d", i)), value("v"));
        }
        store.commit(Map.of());
        java.util.concurrent.atomic.AtomicReference<Throwable> unexpected =
                new java.util.concurrent.atomic.AtomicReference<>();
        java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(4);
        List<Thread> readers = new java.util.ArrayList<>();
        for (int t = 0; t < 4; t++) {
            boolean committedOnly = t % 2 == 0;
            Thread reader = new Thread(() -> {
                started.countDown();
                try {
                    while (true) {
                        ReadOnlyKeyValueStore<Bytes, byte[]> view = store.readOnly(
                                committedOnly ? IsolationLevel.READ_COMMITTED : IsolationLevel.READ_UNCOMMITTED);
                        try (KeyValueIterator<Bytes, byte[]> it = view.all()) {
                            while (it.hasNext()) {
                                it.next();
                                view.get(key("k0001"));
                            }
                        }
                    }
                } catch (InvalidStateStoreException expected) {
                    // the store closed under us
                } catch (Throwable e) {
                    unexpected.set(e);
                }
            });
            readers.add(reader);
            reader.start();
        }
        started.await();
        Thread.sleep(200);
        store.close();
        for (Thread reader : readers) {
            reader.join(30_000);
            assertFalse(reader.isAlive(), "reader still running after close");
        }
        assertNull(unexpected.get(), () -> "unexpected failure: " + unexpected.get());
    }

    @Test
    void closedIteratorThrowsInvalidStateStoreException() {
        store = StoreFixture.open(new TxnKeyValueStore("store", true), new TestStateStoreContext(dir.toFile()));
        store.put(key("a"), value("1"));
        KeyValueIterator<Bytes, byte[]> it = store.all();
        it.close();
        assertThrows(InvalidStateStoreException.class, it::hasNext);
        // The store stays usable.
        assertEquals(List.of("a=1"), drain(store.all()));
    }

    @Test
    void exactlyOnceWithoutTransactionalStateStoresFlagIsRejected() {
        TestStateStoreContext context = new TestStateStoreContext(dir.toFile())
                .config(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        TxnKeyValueStore candidate = new TxnKeyValueStore("eos-store", true);
        ProcessorStateException e =
                assertThrows(ProcessorStateException.class, () -> candidate.init(context, candidate));
        assertTrue(e.getMessage().contains("enable.transactional.statestores=true"), e.getMessage());
        assertTrue(e.getMessage().contains("eos-store"), e.getMessage());
        assertFalse(candidate.isOpen());

        context.config(StreamsConfig.TRANSACTIONAL_STATE_STORES_CONFIG, false);
        assertThrows(ProcessorStateException.class, () -> candidate.init(context, candidate));

        context.config(StreamsConfig.TRANSACTIONAL_STATE_STORES_CONFIG, "true");
        store = StoreFixture.open(candidate, context);
        assertTrue(store.isOpen());
    }

    @Test
    void exactlyOnceWithFlagRejectsAWriteThroughStore() {
        TestStateStoreContext context = new TestStateStoreContext(dir.toFile())
                .config(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2)
                .config(StreamsConfig.TRANSACTIONAL_STATE_STORES_CONFIG, true);
        TxnKeyValueStore candidate = new TxnKeyValueStore("wt-store", false);
        ProcessorStateException e =
                assertThrows(ProcessorStateException.class, () -> candidate.init(context, candidate));
        assertTrue(e.getMessage().contains("wt-store"), e.getMessage());
        assertTrue(e.getMessage().contains("transactional=true"), e.getMessage());
    }

    @Test
    void atLeastOnceAcceptsEitherKindOfStore() {
        TestStateStoreContext context = new TestStateStoreContext(dir.toFile())
                .config(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.AT_LEAST_ONCE);
        store = StoreFixture.open(new TxnKeyValueStore("a", true), context);
        TxnKeyValueStore writeThrough = StoreFixture.open(new TxnKeyValueStore("b", false), context);
        writeThrough.close();
    }

    @Test
    void malformedTxnRocksDbSettingsAreRejectedWithTheirName() {
        TestStateStoreContext context =
                new TestStateStoreContext(dir.toFile()).config(TxnRocksDBConfig.COMMIT_SYNC_CONFIG, "sometimes");
        TxnKeyValueStore candidate = new TxnKeyValueStore("store", true);
        ConfigException e = assertThrows(ConfigException.class, () -> candidate.init(context, candidate));
        assertTrue(e.getMessage().contains(TxnRocksDBConfig.COMMIT_SYNC_CONFIG), e.getMessage());

        TestStateStoreContext negative =
                new TestStateStoreContext(dir.toFile()).config(TxnRocksDBConfig.MEMORY_BLOCK_CACHE_BYTES_CONFIG, -1);
        e = assertThrows(ConfigException.class, () -> candidate.init(negative, candidate));
        assertTrue(e.getMessage().contains(TxnRocksDBConfig.MEMORY_BLOCK_CACHE_BYTES_CONFIG), e.getMessage());
    }

    @Test
    void syncCommitStoreCommitsAndReopens() {
        TestStateStoreContext context =
                new TestStateStoreContext(dir.toFile()).config(TxnRocksDBConfig.COMMIT_SYNC_CONFIG, "true");
        store = StoreFixture.open(new TxnKeyValueStore("store", true), context);
        store.put(key("a"), value("1"));
        store.commit(Map.of(new TopicPartition("c", 0), 1L));
        store.close();
        store = StoreFixture.open(new TxnKeyValueStore("store", true), context);
        assertEquals("1", string(store.get(key("a"))));
    }

    @Test
    void timestampedStoreCarriesTheMarkerAndStoresBytesVerbatim() {
        TxnTimestampedKeyValueStore timestamped =
                StoreFixture.open(new TxnTimestampedKeyValueStore("ts", true), new TestStateStoreContext(dir.toFile()));
        store = timestamped;
        assertTrue(timestamped instanceof TimestampedBytesStore);
        byte[] withTimestamp = {0, 0, 0, 0, 0, 0, 0, 42, 'v'};
        timestamped.put(key("a"), withTimestamp);
        assertEquals(
                List.of("a=" + new String(withTimestamp, java.nio.charset.StandardCharsets.UTF_8)),
                drain(timestamped.all()));
        assertNull(timestamped.get(key("b")));
    }
}
