package dev.txnrocksdb.streams.internals;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;

/**
 * The entries of a source iterator in another order: at the first {@link #hasNext()}, reads every
 * entry of the source (so, like Kafka's lazily opened segment iterators, writes made between the
 * call that created the iterator and the first {@code hasNext()} are seen), keeps the ones a
 * mapper returns, and sorts them by an order key compared as unsigned bytes.
 *
 * <p>Used where the native engine's order (segment, then store-key bytes) differs from the
 * order Kafka's time-ordered stores iterate in; the ranges concerned (closed windows or sessions
 * about to be emitted) are small.
 */
public final class SortedEntries implements KeyValueIterator<Bytes, byte[]> {
    private final KeyValueIterator<Bytes, byte[]> source;
    private final UnaryOperator<KeyValue<Bytes, byte[]>> mapper;
    private final Function<byte[], byte[]> orderKey;
    private final boolean descending;
    private Iterator<KeyValue<Bytes, byte[]>> sorted;
    private KeyValue<Bytes, byte[]> next;

    /**
     * @param source the entries, in any order; closed once read
     * @param mapper an entry to return (possibly rewritten), or null to skip it
     * @param orderKey the order key of a (mapped) entry's key
     * @param descending whether to return the largest order key first
     */
    public SortedEntries(
            KeyValueIterator<Bytes, byte[]> source,
            UnaryOperator<KeyValue<Bytes, byte[]>> mapper,
            Function<byte[], byte[]> orderKey,
            boolean descending) {
        this.source = source;
        this.mapper = mapper;
        this.orderKey = orderKey;
        this.descending = descending;
    }

    @Override
    public boolean hasNext() {
        if (next != null) {
            return true;
        }
        if (sorted == null) {
            sorted = readAndSort();
        }
        if (!sorted.hasNext()) {
            return false;
        }
        next = sorted.next();
        return true;
    }

    @Override
    public KeyValue<Bytes, byte[]> next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        KeyValue<Bytes, byte[]> entry = next;
        next = null;
        return entry;
    }

    @Override
    public Bytes peekNextKey() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        return next.key;
    }

    @Override
    public void close() {
        sorted = List.<KeyValue<Bytes, byte[]>>of().iterator();
        next = null;
        source.close();
    }

    private Iterator<KeyValue<Bytes, byte[]>> readAndSort() {
        List<Ordered> entries = new ArrayList<>();
        try (source) {
            while (source.hasNext()) {
                KeyValue<Bytes, byte[]> entry = mapper.apply(source.next());
                if (entry != null) {
                    entries.add(new Ordered(orderKey.apply(entry.key.get()), entry));
                }
            }
        }
        Comparator<Ordered> order = (a, b) -> Arrays.compareUnsigned(a.order, b.order);
        entries.sort(descending ? order.reversed() : order);
        List<KeyValue<Bytes, byte[]>> result = new ArrayList<>(entries.size());
        for (Ordered entry : entries) {
            result.add(entry.entry);
        }
        return result.iterator();
    }

    private static final class Ordered {
        final byte[] order;
        final KeyValue<Bytes, byte[]> entry;

        Ordered(byte[] order, KeyValue<Bytes, byte[]> entry) {
            this.order = order;
            this.entry = entry;
        }
    }
}
