package dev.txnrocksdb.streams;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;

/** Helpers shared by the direct store tests. */
final class StoreFixture {
    private StoreFixture() {}

    static Bytes key(String s) {
        return Bytes.wrap(s.getBytes(UTF_8));
    }

    static byte[] value(String s) {
        return s.getBytes(UTF_8);
    }

    static String string(byte[] b) {
        return b == null ? null : new String(b, UTF_8);
    }

    /** The three ways a store can hold writes: write-through, or transactional with either strategy. */
    enum Mode {
        WRITE_THROUGH(false, null),
        INDEXED_BATCH(true, TransactionStrategy.INDEXED_BATCH),
        SECONDARY_STORE(true, TransactionStrategy.SECONDARY_STORE);

        final boolean transactional;
        final TransactionStrategy strategy;

        Mode(boolean transactional, TransactionStrategy strategy) {
            this.transactional = transactional;
            this.strategy = strategy;
        }
    }

    /** Opens a store named "store" under dir with a fresh context, in the given mode. */
    static TxnKeyValueStore open(Path dir, Mode mode) {
        return open(new TxnKeyValueStore("store", mode.transactional, mode.strategy), new TestStateStoreContext(dir.toFile()));
    }

    /** Opens a store named "store" under dir with a fresh context. */
    static TxnKeyValueStore open(Path dir, boolean transactional) {
        return open(new TxnKeyValueStore("store", transactional), new TestStateStoreContext(dir.toFile()));
    }

    static <S extends TxnKeyValueStore> S open(S store, TestStateStoreContext context) {
        store.init(context, store);
        return store;
    }

    /** Drains and closes an iterator into "key=value" strings. */
    static List<String> drain(KeyValueIterator<Bytes, byte[]> iterator) {
        List<String> out = new ArrayList<>();
        try (iterator) {
            while (iterator.hasNext()) {
                KeyValue<Bytes, byte[]> kv = iterator.next();
                out.add(new String(kv.key.get(), UTF_8) + "=" + string(kv.value));
            }
        }
        return out;
    }
}
