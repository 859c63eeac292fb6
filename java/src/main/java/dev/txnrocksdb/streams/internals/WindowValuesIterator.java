package dev.txnrocksdb.streams.internals;

import dev.txnrocksdb.streams.internals.nativeapi.NativeIterator;
import org.apache.kafka.streams.state.WindowStoreIterator;

/** The windows of one key: window start to value (see {@link StoreKeyIterator}). */
public final class WindowValuesIterator extends StoreKeyIterator<Long> implements WindowStoreIterator<byte[]> {
    /** @param source a native iterator over window store keys of one key */
    public WindowValuesIterator(NativeIterator source) {
        super(source, source, SegmentedKeys::windowStart);
    }
}
