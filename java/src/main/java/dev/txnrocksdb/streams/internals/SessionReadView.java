package dev.txnrocksdb.streams.internals;

import static org.apache.kafka.streams.internals.ApiUtils.prepareMillisCheckFailMsgPrefix;
import static org.apache.kafka.streams.internals.ApiUtils.validateMillisecondInstant;

import dev.txnrocksdb.streams.internals.nativeapi.NativeIterator;
import dev.txnrocksdb.streams.internals.nativeapi.NativeSessionStore;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.Arrays;
import java.util.Objects;
import java.util.function.Supplier;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlySessionStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reads of a native session store, as Kafka's {@code RocksDBSessionStore} does them: either
 * everything a writer sees (committed data plus staged writes) or committed data only (the
 * {@code READ_COMMITTED} view). Every {@link ReadOnlySessionStore} method is implemented, the
 * {@link Instant} overloads included. Order: segment by segment (by session end), then store key
 * bytes {@code [key][end][start]}; backward is the exact reverse.
 */
public final class SessionReadView implements ReadOnlySessionStore<Bytes, byte[]> {
    private static final Logger log = LoggerFactory.getLogger(SessionReadView.class);

    private final Supplier<NativeSessionStore> store;
    private final boolean committedOnly;

    /**
     * @param store the open store; throws {@code InvalidStateStoreException} when there is none
     * @param committedOnly true: ignore uncommitted writes
     */
    public SessionReadView(Supplier<NativeSessionStore> store, boolean committedOnly) {
        this.store = store;
        this.committedOnly = committedOnly;
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> findSessions(
            Bytes key, long earliestSessionEndTime, long latestSessionStartTime) {
        Objects.requireNonNull(key, "key cannot be null");
        return sessions(key.get(), key.get(), earliestSessionEndTime, latestSessionStartTime, false);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> backwardFindSessions(
            Bytes key, long earliestSessionEndTime, long latestSessionStartTime) {
        Objects.requireNonNull(key, "key cannot be null");
        return sessions(key.get(), key.get(), earliestSessionEndTime, latestSessionStartTime, true);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> findSessions(
            Bytes keyFrom, Bytes keyTo, long earliestSessionEndTime, long latestSessionStartTime) {
        return keyRange(keyFrom, keyTo, earliestSessionEndTime, latestSessionStartTime, false);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> backwardFindSessions(
            Bytes keyFrom, Bytes keyTo, long earliestSessionEndTime, long latestSessionStartTime) {
        return keyRange(keyFrom, keyTo, earliestSessionEndTime, latestSessionStartTime, true);
    }

    @Override
    public byte[] fetchSession(Bytes key, long sessionStartTime, long sessionEndTime) {
        Objects.requireNonNull(key, "key cannot be null");
        return store.get().fetchSession(key.get(), sessionStartTime, sessionEndTime, committedOnly);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> fetch(Bytes key) {
        return findSessions(key, 0L, Long.MAX_VALUE);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> backwardFetch(Bytes key) {
        return backwardFindSessions(key, 0L, Long.MAX_VALUE);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> fetch(Bytes keyFrom, Bytes keyTo) {
        return findSessions(keyFrom, keyTo, 0L, Long.MAX_VALUE);
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> backwardFetch(Bytes keyFrom, Bytes keyTo) {
        return backwardFindSessions(keyFrom, keyTo, 0L, Long.MAX_VALUE);
    }

    /**
     * The sessions of every key with {@code earliestSessionEndTime <= end <= latestSessionEndTime},
     * in the order of Kafka's time-ordered session store, {@code (end, start, key bytes)}: what
     * emit-final session aggregations read to emit closed sessions. As in that store there is no
     * retention filter: every session still stored in the segments of the range is returned (Kafka
     * drops whole segments; the native engine drops the same segments). Kafka's byte bounds are
     * kept exactly, {@code [max(0, earliest)][0] .. [max(0, latest + 1)][0]} over the store's
     * {@code [end][start][key]} bytes, including their overflow: a {@code latestSessionEndTime} of
     * {@link Long#MAX_VALUE} finds nothing, as in Kafka.
     *
     * <p>The engine returns the sessions of the range in live segments
     * ({@link NativeSessionStore#newTimeRangeIterator}); this view applies Kafka's byte bounds and
     * sorts them into Kafka's order.
     */
    public KeyValueIterator<Windowed<Bytes>, byte[]> findSessions(
            long earliestSessionEndTime, long latestSessionEndTime) {
        byte[] lowerBound = timeFirstBound(Math.max(0L, earliestSessionEndTime));
        byte[] upperBound = timeFirstBound(Math.max(0L, latestSessionEndTime + 1));
        NativeIterator source =
                store.get().newTimeRangeIterator(earliestSessionEndTime, latestSessionEndTime, committedOnly);
        SortedEntries entries = new SortedEntries(
                source,
                entry -> {
                    byte[] order = SegmentedKeys.timeFirstSessionOrder(entry.key.get());
                    boolean inRange = Arrays.compareUnsigned(order, lowerBound) >= 0
                            && Arrays.compareUnsigned(order, upperBound) <= 0;
                    return inRange ? entry : null;
                },
                SegmentedKeys::timeFirstSessionOrder,
                false);
        return new StoreKeyIterator<>(source, entries, SegmentedKeys::sessionWindowedKey);
    }

    /** Kafka's {@code TimeFirstSessionKeySchema.lowerRangeFixedSize(null, end)} without its prefix: {@code [end][start=0]}. */
    private static byte[] timeFirstBound(long end) {
        return ByteBuffer.allocate(SegmentedKeys.SESSION_SUFFIX)
                .putLong(end)
                .putLong(0L)
                .array();
    }

    // ---------------------------------------------------------------- Instant overloads

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> findSessions(
            Bytes key, Instant earliestSessionEndTime, Instant latestSessionStartTime) {
        return findSessions(
                key,
                millis(earliestSessionEndTime, "earliestSessionEndTime"),
                millis(latestSessionStartTime, "latestSessionStartTime"));
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> backwardFindSessions(
            Bytes key, Instant earliestSessionEndTime, Instant latestSessionStartTime) {
        return backwardFindSessions(
                key,
                millis(earliestSessionEndTime, "earliestSessionEndTime"),
                millis(latestSessionStartTime, "latestSessionStartTime"));
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> findSessions(
            Bytes keyFrom, Bytes keyTo, Instant earliestSessionEndTime, Instant latestSessionStartTime) {
        return findSessions(
                keyFrom,
                keyTo,
                millis(earliestSessionEndTime, "earliestSessionEndTime"),
                millis(latestSessionStartTime, "latestSessionStartTime"));
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> backwardFindSessions(
            Bytes keyFrom, Bytes keyTo, Instant earliestSessionEndTime, Instant latestSessionStartTime) {
        return backwardFindSessions(
                keyFrom,
                keyTo,
                millis(earliestSessionEndTime, "earliestSessionEndTime"),
                millis(latestSessionStartTime, "latestSessionStartTime"));
    }

    @Override
    public byte[] fetchSession(Bytes key, Instant sessionStartTime, Instant sessionEndTime) {
        return fetchSession(
                key, millis(sessionStartTime, "sessionStartTime"), millis(sessionEndTime, "sessionEndTime"));
    }

    // ---------------------------------------------------------------- helpers

    private static long millis(Instant instant, String name) {
        return validateMillisecondInstant(instant, prepareMillisCheckFailMsgPrefix(instant, name));
    }

    private KeyValueIterator<Windowed<Bytes>, byte[]> keyRange(
            Bytes keyFrom, Bytes keyTo, long earliestSessionEndTime, long latestSessionStartTime, boolean reverse) {
        if (KeyRanges.isInvertedRange(keyFrom, keyTo, log)) {
            return new EmptyKeyValueIterator<>();
        }
        return sessions(
                keyFrom == null ? null : keyFrom.get(),
                keyTo == null ? null : keyTo.get(),
                earliestSessionEndTime,
                latestSessionStartTime,
                reverse);
    }

    private KeyValueIterator<Windowed<Bytes>, byte[]> sessions(
            byte[] keyFrom, byte[] keyTo, long earliestSessionEndTime, long latestSessionStartTime, boolean reverse) {
        NativeIterator source = store.get()
                .newIterator(keyFrom, keyTo, earliestSessionEndTime, latestSessionStartTime, reverse, committedOnly);
        return new StoreKeyIterator<>(source, source, SegmentedKeys::sessionWindowedKey);
    }
}
