package dev.txnrocksdb.streams.keyvalue;

import static dev.txnrocksdb.streams.fixtures.StoreFixture.drain;
import static dev.txnrocksdb.streams.fixtures.StoreFixture.key;
import static dev.txnrocksdb.streams.fixtures.StoreFixture.string;
import static dev.txnrocksdb.streams.fixtures.StoreFixture.value;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.txnrocksdb.streams.fixtures.StoreFixture;
import dev.txnrocksdb.streams.fixtures.StoreFixture.Mode;
import dev.txnrocksdb.streams.internals.TxnKeyValueStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import org.apache.kafka.common.serialization.BytesSerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Every KeyValueStore operation, on the write-through store and the transactional store with either strategy. */
class TxnKeyValueStoreOperationsTest {
    @TempDir
    Path dir;

    private TxnKeyValueStore store;

    @AfterEach
    void close() {
        if (store != null) {
            store.close();
        }
    }

    private TxnKeyValueStore open(Mode mode) {
        store = StoreFixture.open(dir, mode);
        return store;
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void putGetOverwriteAndNullValueDeletes(Mode mode) {
        open(mode);
        assertNull(store.get(key("a")));
        store.put(key("a"), value("1"));
        assertEquals("1", string(store.get(key("a"))));
        store.put(key("a"), value("2"));
        assertEquals("2", string(store.get(key("a"))));
        store.put(key("a"), null);
        assertNull(store.get(key("a")));
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void emptyKeyAndEmptyValueAreOrdinaryEntries(Mode mode) {
        open(mode);
        store.put(key(""), new byte[0]);
        assertArrayEquals(new byte[0], store.get(key("")));
        assertEquals(List.of("="), drain(store.all()));
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void putIfAbsentWritesOnlyWhenAbsent(Mode mode) {
        open(mode);
        assertNull(store.putIfAbsent(key("a"), value("1")));
        assertEquals("1", string(store.get(key("a"))));
        assertEquals("1", string(store.putIfAbsent(key("a"), value("2"))));
        assertEquals("1", string(store.get(key("a"))));
        // A null value is never written, as in Kafka's stores: it returns the current value.
        assertEquals("1", string(store.putIfAbsent(key("a"), null)));
        assertNull(store.putIfAbsent(key("b"), null));
        assertNull(store.get(key("b")));
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void putAllWritesAndDeletesInOneBatch(Mode mode) {
        open(mode);
        store.put(key("gone"), value("x"));
        store.putAll(Arrays.asList(
                KeyValue.pair(key("a"), value("1")),
                KeyValue.pair(key("b"), value("2")),
                KeyValue.pair(key("gone"), null),
                KeyValue.pair(key("a"), value("3"))));
        assertEquals(List.of("a=3", "b=2"), drain(store.all()));
        store.putAll(List.of());
        assertEquals(List.of("a=3", "b=2"), drain(store.all()));
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void deleteReturnsTheOldValue(Mode mode) {
        open(mode);
        store.put(key("a"), value("1"));
        assertEquals("1", string(store.delete(key("a"))));
        assertNull(store.get(key("a")));
        assertNull(store.delete(key("a")));
        assertNull(store.delete(key("never")));
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void rangesAreInclusiveOrderedAndAcceptNullBounds(Mode mode) {
        open(mode);
        for (String k : List.of("d", "a", "c", "e", "b")) {
            store.put(key(k), value(k.toUpperCase()));
        }
        assertEquals(List.of("b=B", "c=C", "d=D"), drain(store.range(key("b"), key("d"))));
        assertEquals(List.of("d=D", "c=C", "b=B"), drain(store.reverseRange(key("b"), key("d"))));
        assertEquals(List.of("a=A", "b=B", "c=C"), drain(store.range(null, key("c"))));
        assertEquals(List.of("c=C", "d=D", "e=E"), drain(store.range(key("c"), null)));
        assertEquals(List.of("e=E", "d=D", "c=C"), drain(store.reverseRange(key("c"), null)));
        assertEquals(List.of("c=C", "b=B", "a=A"), drain(store.reverseRange(null, key("c"))));
        assertEquals(List.of("a=A", "b=B", "c=C", "d=D", "e=E"), drain(store.range(null, null)));
        assertEquals(List.of("b=B", "c=C"), drain(store.range(key("aa"), key("cc"))));
        assertEquals(List.of("c=C"), drain(store.range(key("c"), key("c"))));
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void rangeWithFromAfterToIsEmpty(Mode mode) {
        open(mode);
        store.put(key("a"), value("1"));
        store.put(key("z"), value("2"));
        assertEquals(List.of(), drain(store.range(key("z"), key("a"))));
        assertEquals(List.of(), drain(store.reverseRange(key("z"), key("a"))));
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void allAndReverseAll(Mode mode) {
        open(mode);
        assertEquals(List.of(), drain(store.all()));
        store.put(key("b"), value("2"));
        store.put(key("a"), value("1"));
        store.put(key("c"), value("3"));
        store.delete(key("b"));
        assertEquals(List.of("a=1", "c=3"), drain(store.all()));
        assertEquals(List.of("c=3", "a=1"), drain(store.reverseAll()));
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void prefixScanReturnsKeysWithThePrefixOnly(Mode mode) {
        open(mode);
        for (String k : List.of("p", "pa", "pb", "pzz", "q", "o", "p\u0000")) {
            store.put(key(k), value("v"));
        }
        assertEquals(
                List.of("p=v", "p\u0000=v", "pa=v", "pb=v", "pzz=v"),
                drain(store.prefixScan("p", new StringSerializer())));
        assertEquals(List.of(), drain(store.prefixScan("x", new StringSerializer())));
        assertEquals(7, drain(store.prefixScan("", new StringSerializer())).size());
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void prefixScanHandlesTrailingFfBytes(Mode mode) {
        open(mode);
        byte[][] keys = {{1, (byte) 0xFF}, {1, (byte) 0xFF, 0}, {2}, {1, (byte) 0xFE}, {(byte) 0xFF}, {(byte) 0xFF, 7}};
        for (byte[] k : keys) {
            store.put(Bytes.wrap(k), value("v"));
        }
        List<Bytes> found = keys(store.prefixScan(Bytes.wrap(new byte[] {1, (byte) 0xFF}), new BytesSerializer()));
        assertEquals(
                List.of(Bytes.wrap(new byte[] {1, (byte) 0xFF}), Bytes.wrap(new byte[] {1, (byte) 0xFF, 0})), found);
        List<Bytes> allFf = keys(store.prefixScan(Bytes.wrap(new byte[] {(byte) 0xFF}), new BytesSerializer()));
        assertEquals(List.of(Bytes.wrap(new byte[] {(byte) 0xFF}), Bytes.wrap(new byte[] {(byte) 0xFF, 7})), allFf);
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void iteratorSupportsPeekAndSignalsTheEnd(Mode mode) {
        open(mode);
        store.put(key("a"), value("1"));
        store.put(key("b"), value("2"));
        try (KeyValueIterator<Bytes, byte[]> it = store.all()) {
            assertEquals(key("a"), it.peekNextKey());
            assertEquals(key("a"), it.peekNextKey());
            assertEquals(key("a"), it.next().key);
            assertTrue(it.hasNext());
            assertEquals(key("b"), it.peekNextKey());
            assertEquals("2", string(it.next().value));
            assertFalse(it.hasNext());
            assertFalse(it.hasNext());
            assertThrows(NoSuchElementException.class, it::next);
            assertThrows(NoSuchElementException.class, it::peekNextKey);
            it.close();
            it.close();
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void iteratorsSpanManyChunks(Mode mode) {
        open(mode);
        int n = 3000;
        byte[] big = new byte[4096];
        List<KeyValue<Bytes, byte[]>> batch = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            big[0] = (byte) i;
            batch.add(KeyValue.pair(key(String.format("k%05d", i)), big.clone()));
        }
        store.putAll(batch);
        int count = 0;
        try (KeyValueIterator<Bytes, byte[]> it = store.all()) {
            while (it.hasNext()) {
                KeyValue<Bytes, byte[]> kv = it.next();
                assertEquals(key(String.format("k%05d", count)), kv.key);
                assertEquals((byte) count, kv.value[0]);
                assertEquals(4096, kv.value.length);
                count++;
            }
        }
        assertEquals(n, count);
        List<Bytes> reversed = keys(store.reverseRange(key("k00100"), key("k02999")));
        assertEquals(2900, reversed.size());
        assertEquals(key("k02999"), reversed.get(0));
        assertEquals(key("k00100"), reversed.get(2899));
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void approximateNumEntriesCountsWrites(Mode mode) {
        open(mode);
        assertEquals(0, store.approximateNumEntries());
        for (int i = 0; i < 100; i++) {
            store.put(key("k" + i), value("v"));
        }
        assertTrue(store.approximateNumEntries() > 0, "estimate after 100 puts: " + store.approximateNumEntries());
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void nullArgumentsThrowNullPointerExceptionLikeKafkaStores(Mode mode) {
        open(mode);
        assertEquals(
                "key cannot be null",
                assertThrows(NullPointerException.class, () -> store.get(null)).getMessage());
        assertEquals(
                "key cannot be null",
                assertThrows(NullPointerException.class, () -> store.put(null, value("v")))
                        .getMessage());
        assertEquals(
                "key cannot be null",
                assertThrows(NullPointerException.class, () -> store.putIfAbsent(null, value("v")))
                        .getMessage());
        assertEquals(
                "key cannot be null",
                assertThrows(NullPointerException.class, () -> store.delete(null))
                        .getMessage());
        assertEquals(
                "entries cannot be null",
                assertThrows(NullPointerException.class, () -> store.putAll(null))
                        .getMessage());
        assertEquals(
                "entry cannot be null",
                assertThrows(
                                NullPointerException.class,
                                () -> store.putAll(Arrays.asList(KeyValue.pair(key("a"), value("1")), null)))
                        .getMessage());
        assertEquals(
                "key cannot be null",
                assertThrows(NullPointerException.class, () -> store.putAll(List.of(KeyValue.pair(null, value("1")))))
                        .getMessage());
        assertEquals(
                "prefix cannot be null",
                assertThrows(NullPointerException.class, () -> store.prefixScan(null, new StringSerializer()))
                        .getMessage());
        assertEquals(
                "prefixKeySerializer cannot be null",
                assertThrows(NullPointerException.class, () -> store.prefixScan("p", null))
                        .getMessage());
        assertEquals(
                "isolationLevel cannot be null",
                assertThrows(NullPointerException.class, () -> store.readOnly(null))
                        .getMessage());
        // A rejected batch writes nothing.
        assertNull(store.get(key("a")));
    }

    private static List<Bytes> keys(KeyValueIterator<Bytes, byte[]> iterator) {
        List<Bytes> out = new ArrayList<>();
        try (iterator) {
            iterator.forEachRemaining(kv -> out.add(kv.key));
        }
        return out;
    }

    /** Entries bigger than an iterator's chunk buffer grow it; nothing is lost or reordered. */
    @ParameterizedTest
    @EnumSource(Mode.class)
    void aScanReturnsEntriesBiggerThanItsChunkBuffer(Mode mode) {
        open(mode);
        byte[] big = new byte[200_000];
        Arrays.fill(big, (byte) 7);
        byte[] bigger = new byte[700_000];
        Arrays.fill(bigger, (byte) 9);
        for (int i = 0; i < 300; i++) {
            store.put(key(String.format("k%03d", i)), value("v" + i));
        }
        store.put(key("k100"), big);
        store.put(key("k200"), bigger);
        if (mode.transactional) {
            store.commit(Map.of());
            store.put(key("k150"), big);
        }
        int n = 0;
        try (KeyValueIterator<Bytes, byte[]> it = store.all()) {
            while (it.hasNext()) {
                KeyValue<Bytes, byte[]> entry = it.next();
                String k = string(entry.key.get());
                assertEquals(String.format("k%03d", n), k);
                if (k.equals("k100") || (mode.transactional && k.equals("k150"))) {
                    assertArrayEquals(big, entry.value);
                } else if (k.equals("k200")) {
                    assertArrayEquals(bigger, entry.value);
                } else {
                    assertEquals("v" + n, string(entry.value));
                }
                n++;
            }
        }
        assertEquals(300, n);
    }
}
