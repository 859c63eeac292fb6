package dev.txnrocksdb.streams.internals;

import dev.txnrocksdb.streams.internals.nativeapi.NativeIterator;
import java.util.NoSuchElementException;
import java.util.function.Function;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.KeyValueIterator;

/**
 * An iterator over the entries of a window or session store, with keys decoded from the store
 * keys the native iterator returns, and the behaviour of Kafka's {@code SegmentIterator}: once the
 * store has closed, {@link #hasNext()} returns {@code false} instead of throwing, and
 * {@link #next()} / {@link #peekNextKey()} throw {@link NoSuchElementException}.
 *
 * @param <K> the decoded key type
 */
public class StoreKeyIterator<K> implements KeyValueIterator<K, byte[]> {
    private final NativeIterator source;
    private final KeyValueIterator<Bytes, byte[]> entries;
    private final Function<byte[], K> decodeKey;
    private KeyValue<K, byte[]> next;

    /**
     * @param source the native iterator, which tells whether the store closed it
     * @param entries the entries to return: {@code source} itself, or a view of it (for example
     *     {@link SortedEntries})
     * @param decodeKey turns a store key into the returned key
     */
    public StoreKeyIterator(
            NativeIterator source, KeyValueIterator<Bytes, byte[]> entries, Function<byte[], K> decodeKey) {
        this.source = source;
        this.entries = entries;
        this.decodeKey = decodeKey;
    }

    @Override
    public boolean hasNext() {
        if (source.isClosedByStore()) {
            next = null;
            return false;
        }
        if (next != null) {
            return true;
        }
        KeyValue<Bytes, byte[]> entry;
        try {
            if (!entries.hasNext()) {
                return false;
            }
            entry = entries.next();
        } catch (InvalidStateStoreException e) {
            if (source.isClosedByStore()) {
                return false;
            }
            throw e;
        }
        next = KeyValue.pair(decodeKey.apply(entry.key.get()), entry.value);
        return true;
    }

    @Override
    public KeyValue<K, byte[]> next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        KeyValue<K, byte[]> entry = next;
        next = null;
        return entry;
    }

    @Override
    public K peekNextKey() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        return next.key;
    }

    @Override
    public void close() {
        next = null;
        entries.close();
        source.close();
    }
}
