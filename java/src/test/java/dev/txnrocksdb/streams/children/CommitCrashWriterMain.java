package dev.txnrocksdb.streams.children;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.txnrocksdb.streams.TransactionStrategy;
import dev.txnrocksdb.streams.TxnRocksDBConfig;
import dev.txnrocksdb.streams.fixtures.TestStateStoreContext;
import dev.txnrocksdb.streams.internals.ConfigValues;
import dev.txnrocksdb.streams.internals.TxnKeyValueStore;
import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;

/**
 * The child process of {@link CommitCrashTest}: opens a key-value store with the given strategy,
 * commits {@value #BASE} keys at offset {@value #BASE_OFFSET}, then stages a large transaction
 * ({@code bigCount} new keys of {@code valueBytes} bytes each, overwrites of the first base keys
 * and deletes of the next ones), prints {@value #COMMITTING}, commits it at offset
 * {@value #BIG_OFFSET} and prints {@value #COMMITTED}; then waits to be killed (the parent kills
 * it during or after that commit).
 *
 * <p>Arguments: state dir, store name, strategy, bigCount, valueBytes.
 */
public final class CommitCrashWriterMain {
    public static final String COMMITTING = "COMMITTING";
    public static final String COMMITTED = "COMMITTED";
    public static final int BASE = 1_000;
    public static final int OVERWRITTEN = 100;
    public static final int DELETED = 100;
    public static final long BASE_OFFSET = 10L;
    public static final long BIG_OFFSET = 20L;

    private CommitCrashWriterMain() {}

    public static String baseKey(int i) {
        return String.format("base-%05d", i);
    }

    public static String bigKey(int i) {
        return String.format("big-%07d", i);
    }

    /** The value of big key i: valueBytes bytes, starting with the key's number. */
    public static byte[] bigValue(int i, int valueBytes) {
        byte[] v = new byte[valueBytes];
        byte[] prefix = Integer.toString(i).getBytes(UTF_8);
        System.arraycopy(prefix, 0, v, 0, Math.min(prefix.length, v.length));
        return v;
    }

    public static void main(String[] args) throws InterruptedException {
        File stateDir = new File(args[0]);
        String storeName = args[1];
        TransactionStrategy strategy =
                ConfigValues.transactionStrategy(TxnRocksDBConfig.TRANSACTION_STRATEGY_CONFIG, args[2]);
        int bigCount = Integer.parseInt(args[3]);
        int valueBytes = Integer.parseInt(args[4]);
        TopicPartition changelog = new TopicPartition(storeName + "-changelog", 0);

        TxnKeyValueStore store = new TxnKeyValueStore(storeName, true, strategy);
        store.init(new TestStateStoreContext(stateDir), store);
        for (int i = 0; i < BASE; i++) {
            store.put(Bytes.wrap(baseKey(i).getBytes(UTF_8)), ("base-value-" + i).getBytes(UTF_8));
        }
        store.commit(Map.of(changelog, BASE_OFFSET));

        List<KeyValue<Bytes, byte[]>> batch = new ArrayList<>();
        for (int i = 0; i < bigCount; i++) {
            batch.add(KeyValue.pair(Bytes.wrap(bigKey(i).getBytes(UTF_8)), bigValue(i, valueBytes)));
            if (batch.size() == 1_000) {
                store.putAll(batch);
                batch.clear();
            }
        }
        store.putAll(batch);
        for (int i = 0; i < OVERWRITTEN; i++) {
            store.put(Bytes.wrap(baseKey(i).getBytes(UTF_8)), "overwritten".getBytes(UTF_8));
        }
        for (int i = OVERWRITTEN; i < OVERWRITTEN + DELETED; i++) {
            store.delete(Bytes.wrap(baseKey(i).getBytes(UTF_8)));
        }
        System.out.println(COMMITTING);
        System.out.flush();
        long start = System.nanoTime();
        store.commit(Map.of(changelog, BIG_OFFSET));
        System.out.println(COMMITTED + " in " + (System.nanoTime() - start) / 1_000_000 + " ms");
        System.out.println(COMMITTED);
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
