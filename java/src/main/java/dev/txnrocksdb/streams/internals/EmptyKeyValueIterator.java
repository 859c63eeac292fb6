package dev.txnrocksdb.streams.internals;

import java.util.NoSuchElementException;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;

/**
 * The iterator of an empty range (Kafka's own is package-private).
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public final class EmptyKeyValueIterator<K, V> implements KeyValueIterator<K, V> {
    @Override
    public boolean hasNext() {
        return false;
    }

    @Override
    public KeyValue<K, V> next() {
        throw new NoSuchElementException();
    }

    @Override
    public K peekNextKey() {
        throw new NoSuchElementException();
    }

    @Override
    public void close() {}
}
