package dev.txnrocksdb.streams.children;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.txnrocksdb.streams.TransactionStrategy;
import dev.txnrocksdb.streams.TxnRocksDBConfig;
import dev.txnrocksdb.streams.fixtures.TestStateStoreContext;
import dev.txnrocksdb.streams.internals.ConfigValues;
import dev.txnrocksdb.streams.internals.TxnKeyValueStore;
import java.io.File;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Bytes;

/**
 * The child process of {@link CrashRecoveryTest}: opens a store, commits N keys with an offset,
 * stages M more writes, prints {@value #READY} and waits to be killed.
 *
 * <p>Arguments: state dir, store name, N, M, committed offset, transaction strategy.
 */
public final class CrashWriterMain {
    public static final String READY = "READY";

    private CrashWriterMain() {}

    public static void main(String[] args) throws InterruptedException {
        File stateDir = new File(args[0]);
        String storeName = args[1];
        int committed = Integer.parseInt(args[2]);
        int uncommitted = Integer.parseInt(args[3]);
        long offset = Long.parseLong(args[4]);
        TransactionStrategy strategy =
                ConfigValues.transactionStrategy(TxnRocksDBConfig.TRANSACTION_STRATEGY_CONFIG, args[5]);

        TxnKeyValueStore store = new TxnKeyValueStore(storeName, true, strategy);
        store.init(new TestStateStoreContext(stateDir), store);
        for (int i = 0; i < committed; i++) {
            store.put(Bytes.wrap(("committed-" + i).getBytes(UTF_8)), ("value-" + i).getBytes(UTF_8));
        }
        store.commit(Map.of(new TopicPartition(storeName + "-changelog", 0), offset));
        for (int i = 0; i < uncommitted; i++) {
            store.put(Bytes.wrap(("uncommitted-" + i).getBytes(UTF_8)), ("value-" + i).getBytes(UTF_8));
        }
        // Staged changes to committed keys must vanish too.
        store.put(Bytes.wrap("committed-0".getBytes(UTF_8)), "overwritten".getBytes(UTF_8));
        store.delete(Bytes.wrap("committed-1".getBytes(UTF_8)));

        System.out.println(READY);
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
