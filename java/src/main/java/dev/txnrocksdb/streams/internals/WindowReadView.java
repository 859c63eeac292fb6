package dev.txnrocksdb.streams.internals;

import static org.apache.kafka.streams.internals.ApiUtils.prepareMillisCheckFailMsgPrefix;
import static org.apache.kafka.streams.internals.ApiUtils.validateMillisecondInstant;

import dev.txnrocksdb.streams.internals.nativeapi.NativeIterator;
import dev.txnrocksdb.streams.internals.nativeapi.NativeWindowStore;
import java.time.Instant;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyWindowStore;
import org.apache.kafka.streams.state.WindowStoreIterator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reads of a native window store, as Kafka's {@code RocksDBWindowStore} does them: either
 * everything a writer sees (committed data plus staged writes) or committed data only (the
 * {@code READ_COMMITTED} view). Every {@link ReadOnlyWindowStore} method is implemented, including
 * the {@link Instant} overloads Kafka's caching and metered views and {@code StoreQueryUtils} call.
 *
 * <p>Order: the native engine's, which is Kafka's key-first order (segment by segment, then store
 * key bytes), unless the store asks for the order of Kafka's time-ordered store (emit-final
 * windows): then multi-key scans return {@code (window start, key bytes, seqnum)} order.
 */
public final class WindowReadView implements ReadOnlyWindowStore<Bytes, byte[]> {
    private static final Logger log = LoggerFactory.getLogger(WindowReadView.class);

    private final Supplier<NativeWindowStore> store;
    private final boolean committedOnly;
    private final long windowSize;
    private final IntSupplier seqnum;
    private final BooleanSupplier timeFirstScans;
    private final BooleanSupplier timeFirstKeyRanges;

    /**
     * @param store the open store; throws {@code InvalidStateStoreException} when there is none
     * @param committedOnly true: ignore uncommitted writes
     * @param windowSize the size of the windows, for the window ends of returned keys
     * @param seqnum the store's current seqnum, for {@link #fetch(Bytes, long)}
     * @param timeFirstScans whether {@code fetchAll} and {@code all} return time-first order
     * @param timeFirstKeyRanges whether key-range fetches return time-first order
     */
    public WindowReadView(
            Supplier<NativeWindowStore> store,
            boolean committedOnly,
            long windowSize,
            IntSupplier seqnum,
            BooleanSupplier timeFirstScans,
            BooleanSupplier timeFirstKeyRanges) {
        this.store = store;
        this.committedOnly = committedOnly;
        this.windowSize = windowSize;
        this.seqnum = seqnum;
        this.timeFirstScans = timeFirstScans;
        this.timeFirstKeyRanges = timeFirstKeyRanges;
    }

    // ---------------------------------------------------------------- long-based reads (WindowStore)

    /** The window of {@code key} starting at {@code windowStart} with the store's current seqnum, or null. */
    @Override
    public byte[] fetch(Bytes key, long windowStart) {
        Objects.requireNonNull(key, "key cannot be null");
        int seq = seqnum.getAsInt();
        return store.get().fetch(key.get(), windowStart, seq, committedOnly);
    }

    public WindowStoreIterator<byte[]> fetch(Bytes key, long timeFrom, long timeTo) {
        return values(key, timeFrom, timeTo, false);
    }

    public WindowStoreIterator<byte[]> backwardFetch(Bytes key, long timeFrom, long timeTo) {
        return values(key, timeFrom, timeTo, true);
    }

    public KeyValueIterator<Windowed<Bytes>, byte[]> fetch(Bytes keyFrom, Bytes keyTo, long timeFrom, long timeTo) {
        return keyRange(keyFrom, keyTo, timeFrom, timeTo, false);
    }

    public KeyValueIterator<Windowed<Bytes>, byte[]> backwardFetch(
            Bytes keyFrom, Bytes keyTo, long timeFrom, long timeTo) {
        return keyRange(keyFrom, keyTo, timeFrom, timeTo, true);
    }

    public KeyValueIterator<Windowed<Bytes>, byte[]> fetchAll(long timeFrom, long timeTo) {
        return windows(null, null, timeFrom, timeTo, false, timeFirstScans.getAsBoolean());
    }

    public KeyValueIterator<Windowed<Bytes>, byte[]> backwardFetchAll(long timeFrom, long timeTo) {
        return windows(null, null, timeFrom, timeTo, true, timeFirstScans.getAsBoolean());
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> all() {
        return windows(null, null, 0L, Long.MAX_VALUE, false, timeFirstScans.getAsBoolean());
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> backwardAll() {
        return windows(null, null, 0L, Long.MAX_VALUE, true, timeFirstScans.getAsBoolean());
    }

    // ---------------------------------------------------------------- Instant overloads (ReadOnlyWindowStore)

    @Override
    public WindowStoreIterator<byte[]> fetch(Bytes key, Instant timeFrom, Instant timeTo) {
        return fetch(key, millis(timeFrom, "timeFrom"), millis(timeTo, "timeTo"));
    }

    @Override
    public WindowStoreIterator<byte[]> backwardFetch(Bytes key, Instant timeFrom, Instant timeTo) {
        return backwardFetch(key, millis(timeFrom, "timeFrom"), millis(timeTo, "timeTo"));
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> fetch(
            Bytes keyFrom, Bytes keyTo, Instant timeFrom, Instant timeTo) {
        return fetch(keyFrom, keyTo, millis(timeFrom, "timeFrom"), millis(timeTo, "timeTo"));
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> backwardFetch(
            Bytes keyFrom, Bytes keyTo, Instant timeFrom, Instant timeTo) {
        return backwardFetch(keyFrom, keyTo, millis(timeFrom, "timeFrom"), millis(timeTo, "timeTo"));
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> fetchAll(Instant timeFrom, Instant timeTo) {
        return fetchAll(millis(timeFrom, "timeFrom"), millis(timeTo, "timeTo"));
    }

    @Override
    public KeyValueIterator<Windowed<Bytes>, byte[]> backwardFetchAll(Instant timeFrom, Instant timeTo) {
        return backwardFetchAll(millis(timeFrom, "timeFrom"), millis(timeTo, "timeTo"));
    }

    // ---------------------------------------------------------------- helpers

    private static long millis(Instant instant, String name) {
        return validateMillisecondInstant(instant, prepareMillisCheckFailMsgPrefix(instant, name));
    }

    private WindowStoreIterator<byte[]> values(Bytes key, long timeFrom, long timeTo, boolean reverse) {
        Objects.requireNonNull(key, "key cannot be null");
        byte[] k = key.get();
        return new WindowValuesIterator(open(k, k, timeFrom, timeTo, reverse));
    }

    private KeyValueIterator<Windowed<Bytes>, byte[]> keyRange(
            Bytes keyFrom, Bytes keyTo, long timeFrom, long timeTo, boolean reverse) {
        if (KeyRanges.isInvertedRange(keyFrom, keyTo, log)) {
            return new EmptyKeyValueIterator<>();
        }
        return windows(keyFrom, keyTo, timeFrom, timeTo, reverse, timeFirstKeyRanges.getAsBoolean());
    }

    private KeyValueIterator<Windowed<Bytes>, byte[]> windows(
            Bytes keyFrom, Bytes keyTo, long timeFrom, long timeTo, boolean reverse, boolean timeFirst) {
        NativeIterator source = open(
                keyFrom == null ? null : keyFrom.get(), keyTo == null ? null : keyTo.get(), timeFrom, timeTo, reverse);
        KeyValueIterator<Bytes, byte[]> entries = timeFirst
                ? new SortedEntries(source, UnaryOperator.identity(), SegmentedKeys::timeFirstWindowOrder, reverse)
                : source;
        return new StoreKeyIterator<>(source, entries, storeKey -> SegmentedKeys.windowedKey(storeKey, windowSize));
    }

    private NativeIterator open(byte[] keyFrom, byte[] keyTo, long timeFrom, long timeTo, boolean reverse) {
        return store.get().newIterator(keyFrom, keyTo, timeFrom, timeTo, reverse, committedOnly);
    }
}
