package dev.txnrocksdb.streams.internals;

import java.util.NoSuchElementException;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;

/** The iterator of an empty range (Kafka's own is package-private). */
public final class EmptyKeyValueIterator implements KeyValueIterator<Bytes, byte[]> {
    @Override
    public boolean hasNext() {
        return false;
    }

    @Override
    public KeyValue<Bytes, byte[]> next() {
        throw new NoSuchElementException();
    }

    @Override
    public Bytes peekNextKey() {
        throw new NoSuchElementException();
    }

    @Override
    public void close() {}
}
