package dev.txnrocksdb.streams.internals;

import dev.txnrocksdb.streams.internals.nativeapi.NativeKeyValueStore;
import java.util.Objects;
import java.util.function.Supplier;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reads of a native key-value store, as Kafka's {@code RocksDBStore} does them: either
 * everything a writer sees (committed data plus the staged writes) or committed data only (the
 * {@code READ_COMMITTED} view of interactive queries). Argument checks and edge cases follow
 * Kafka's {@code RocksDBStore}.
 */
public final class KeyValueReadView implements ReadOnlyKeyValueStore<Bytes, byte[]> {
    private static final Logger log = LoggerFactory.getLogger(KeyValueReadView.class);

    private final Supplier<NativeKeyValueStore> store;
    private final boolean committedOnly;

    /**
     * @param store the open store; throws {@code InvalidStateStoreException} when there is none
     * @param committedOnly true: ignore uncommitted writes
     */
    public KeyValueReadView(Supplier<NativeKeyValueStore> store, boolean committedOnly) {
        this.store = store;
        this.committedOnly = committedOnly;
    }

    @Override
    public byte[] get(Bytes key) {
        Objects.requireNonNull(key, "key cannot be null");
        return store.get().get(key.get(), committedOnly);
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> range(Bytes from, Bytes to) {
        return range(from, to, false);
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> reverseRange(Bytes from, Bytes to) {
        return range(from, to, true);
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> all() {
        return store.get().newIterator(null, null, true, false, committedOnly);
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> reverseAll() {
        return store.get().newIterator(null, null, true, true, committedOnly);
    }

    @Override
    public <PS extends Serializer<P>, P> KeyValueIterator<Bytes, byte[]> prefixScan(P prefix, PS prefixKeySerializer) {
        Objects.requireNonNull(prefix, "prefix cannot be null");
        Objects.requireNonNull(prefixKeySerializer, "prefixKeySerializer cannot be null");
        NativeKeyValueStore open = store.get();
        byte[] from = prefixKeySerializer.serialize(null, prefix);
        return open.newIterator(from, KeyRanges.prefixSuccessor(from), false, false, committedOnly);
    }

    /** Kafka's estimate semantics: an estimate that overflows a signed long is {@link Long#MAX_VALUE}. */
    @Override
    public long approximateNumEntries() {
        long entries = store.get().approximateNumEntries();
        return entries < 0 ? Long.MAX_VALUE : entries;
    }

    private KeyValueIterator<Bytes, byte[]> range(Bytes from, Bytes to, boolean reverse) {
        if (KeyRanges.isInvertedRange(from, to, log)) {
            return new EmptyKeyValueIterator<>();
        }
        return store.get()
                .newIterator(
                        from == null ? null : from.get(), to == null ? null : to.get(), true, reverse, committedOnly);
    }
}
