package dev.txnrocksdb.streams.keyvalue;

import static dev.txnrocksdb.streams.fixtures.StoreFixture.drain;
import static dev.txnrocksdb.streams.fixtures.StoreFixture.key;
import static dev.txnrocksdb.streams.fixtures.StoreFixture.string;
import static dev.txnrocksdb.streams.fixtures.StoreFixture.value;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.txnrocksdb.streams.fixtures.StoreFixture;
import dev.txnrocksdb.streams.fixtures.TestStateStoreContext;
import dev.txnrocksdb.streams.internals.TxnKeyValueStore;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.internals.ChangelogRecordDeserializationHelper;
import org.apache.kafka.streams.processor.internals.RecordBatchingStateRestoreCallback;
import org.apache.kafka.streams.query.KeyQuery;
import org.apache.kafka.streams.query.Position;
import org.apache.kafka.streams.query.PositionBound;
import org.apache.kafka.streams.query.QueryConfig;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.query.RangeQuery;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.internals.PositionSerde;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Changelog restore, position tracking and persistence, and IQv2 queries. */
class TxnKeyValueStoreRestoreAndPositionTest {
    private static final String CHANGELOG_TOPIC = "app-store-changelog";

    @TempDir
    Path dir;

    private TxnKeyValueStore store;

    @AfterEach
    void close() {
        if (store != null) {
            store.close();
        }
    }

    private TestStateStoreContext openWith(TestStateStoreContext context) {
        if (store != null) {
            store.close();
        }
        store = StoreFixture.open(new TxnKeyValueStore("store", true), context);
        return context;
    }

    private static ConsumerRecord<byte[], byte[]> changelogRecord(
            long offset, String k, String v, RecordHeaders headers) {
        return new ConsumerRecord<>(
                CHANGELOG_TOPIC,
                0,
                offset,
                0L,
                TimestampType.CREATE_TIME,
                -1,
                -1,
                k.getBytes(StandardCharsets.UTF_8),
                v == null ? null : v.getBytes(StandardCharsets.UTF_8),
                headers,
                Optional.empty());
    }

    private static RecordHeaders positionHeaders(String topic, int partition, long offset) {
        RecordHeaders headers = new RecordHeaders();
        headers.add(ChangelogRecordDeserializationHelper.CHANGELOG_VERSION_HEADER_RECORD_CONSISTENCY);
        ByteBuffer position = PositionSerde.serialize(Position.emptyPosition().withComponent(topic, partition, offset));
        byte[] bytes = new byte[position.remaining()];
        position.get(bytes);
        headers.add(new RecordHeader(ChangelogRecordDeserializationHelper.CHANGELOG_POSITION_HEADER_KEY, bytes));
        return headers;
    }

    @Test
    void restoreBatchWritesStraightToCommittedData() {
        TestStateStoreContext context = openWith(new TestStateStoreContext(dir.toFile()));
        RecordBatchingStateRestoreCallback restore = (RecordBatchingStateRestoreCallback) context.restoreCallback();
        store.put(key("staged"), value("s"));
        restore.restoreBatch(List.of(
                changelogRecord(0, "a", "1", new RecordHeaders()),
                changelogRecord(1, "b", "2", new RecordHeaders()),
                changelogRecord(2, "a", "3", new RecordHeaders())));
        restore.restoreBatch(List.of(changelogRecord(3, "b", null, new RecordHeaders())));
        restore.restoreBatch(List.of());

        assertEquals(
                List.of("a=3"),
                drain(store.readOnly(IsolationLevel.READ_COMMITTED).all()));
        assertEquals(List.of("a=3", "staged=s"), drain(store.all()));

        // Kafka commits the store with the restored offset afterwards; the restored data was never staged.
        store.close();
        openWith(context);
        assertEquals(List.of("a=3"), drain(store.all()));
    }

    @Test
    void restoreReadsPositionHeadersWhenConsistencyIsEnabled() {
        TestStateStoreContext context = openWith(new TestStateStoreContext(dir.toFile())
                .config(StreamsConfig.InternalConfig.IQ_CONSISTENCY_OFFSET_VECTOR_ENABLED, true));
        RecordBatchingStateRestoreCallback restore = (RecordBatchingStateRestoreCallback) context.restoreCallback();
        restore.restoreBatch(List.of(
                changelogRecord(0, "a", "1", positionHeaders("input", 0, 10)),
                changelogRecord(1, "b", "2", positionHeaders("input", 0, 11)),
                changelogRecord(2, "c", "3", positionHeaders("input", 1, 5))));
        Position expected =
                Position.emptyPosition().withComponent("input", 0, 11).withComponent("input", 1, 5);
        assertEquals(expected, store.getPosition());

        store.commit(Map.of(new TopicPartition(CHANGELOG_TOPIC, 0), 2L));
        store.close();
        openWith(context);
        assertEquals(expected, store.getPosition());
    }

    @Test
    void restoreIgnoresPositionHeadersWhenConsistencyIsDisabled() {
        TestStateStoreContext context = openWith(new TestStateStoreContext(dir.toFile()));
        ((RecordBatchingStateRestoreCallback) context.restoreCallback())
                .restoreBatch(List.of(changelogRecord(0, "a", "1", positionHeaders("input", 0, 10))));
        assertEquals(Position.emptyPosition(), store.getPosition());
        assertEquals("1", string(store.get(key("a"))));
    }

    @Test
    void positionFollowsWritesAndOnlyCommittedPositionSurvivesReopen() {
        TestStateStoreContext context = openWith(new TestStateStoreContext(dir.toFile()));
        store.put(key("no-metadata"), value("x"));
        assertEquals(Position.emptyPosition(), store.getPosition());

        context.processing("input", 0, 41);
        store.put(key("a"), value("1"));
        context.processing("input", 0, 42);
        store.putAll(List.of(org.apache.kafka.streams.KeyValue.pair(key("b"), value("2"))));
        context.processing("input", 2, 7);
        store.delete(key("a"));
        Position committed =
                Position.emptyPosition().withComponent("input", 0, 42).withComponent("input", 2, 7);
        assertEquals(committed, store.getPosition());
        store.commit(Map.of(new TopicPartition(CHANGELOG_TOPIC, 0), 3L));

        context.processing("input", 0, 43);
        store.putIfAbsent(key("c"), value("3"));
        assertEquals(
                Position.emptyPosition().withComponent("input", 0, 43).withComponent("input", 2, 7),
                store.getPosition());

        openWith(context);
        assertEquals(committed, store.getPosition());
    }

    @Test
    void recoverDropsUncommittedPosition() {
        TestStateStoreContext context = openWith(new TestStateStoreContext(dir.toFile()));
        context.processing("input", 0, 1);
        store.put(key("a"), value("1"));
        store.commit(Map.of());
        context.processing("input", 0, 2);
        store.put(key("b"), value("2"));
        store.recover(0L);
        assertEquals(Position.emptyPosition().withComponent("input", 0, 1), store.getPosition());
    }

    @Test
    void keyAndRangeQueriesHonourTheIsolationLevel() {
        TestStateStoreContext context = openWith(new TestStateStoreContext(dir.toFile()));
        context.processing("input", 0, 1);
        store.put(key("a"), value("1"));
        store.commit(Map.of());
        context.processing("input", 0, 2);
        store.put(key("a"), value("staged"));
        store.put(key("b"), value("2"));

        QueryResult<byte[]> uncommitted =
                store.query(KeyQuery.withKey(key("a")), PositionBound.unbounded(), new QueryConfig(false));
        assertTrue(uncommitted.isSuccess(), uncommitted.toString());
        assertEquals("staged", string(uncommitted.getResult()));
        assertEquals(Position.emptyPosition().withComponent("input", 0, 2), uncommitted.getPosition());

        QueryResult<byte[]> committed = store.query(
                KeyQuery.withKey(key("a")),
                PositionBound.unbounded(),
                new QueryConfig(false, IsolationLevel.READ_COMMITTED));
        assertEquals("1", string(committed.getResult()));
        assertEquals(Position.emptyPosition().withComponent("input", 0, 1), committed.getPosition());

        QueryResult<byte[]> missing = store.query(
                KeyQuery.withKey(key("b")),
                PositionBound.unbounded(),
                new QueryConfig(false, IsolationLevel.READ_COMMITTED));
        assertNull(missing.getResult());

        QueryResult<KeyValueIterator<Bytes, byte[]>> range = store.query(
                RangeQuery.withRange(key("a"), key("z")), PositionBound.unbounded(), new QueryConfig(false));
        assertEquals(List.of("a=staged", "b=2"), drain(range.getResult()));
        QueryResult<KeyValueIterator<Bytes, byte[]>> committedRange = store.query(
                RangeQuery.withNoBounds(),
                PositionBound.unbounded(),
                new QueryConfig(false, IsolationLevel.READ_COMMITTED));
        assertEquals(List.of("a=1"), drain(committedRange.getResult()));

        QueryResult<byte[]> tooNew = store.query(
                KeyQuery.withKey(key("a")),
                PositionBound.at(Position.emptyPosition().withComponent("input", 0, 2)),
                new QueryConfig(false, IsolationLevel.READ_COMMITTED));
        assertTrue(tooNew.isFailure(), tooNew.toString());
    }
}
