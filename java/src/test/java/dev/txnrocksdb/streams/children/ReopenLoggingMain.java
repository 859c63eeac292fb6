package dev.txnrocksdb.streams.children;

import dev.txnrocksdb.streams.TxnRocksDBConfig;
import dev.txnrocksdb.streams.fixtures.TestStateStoreContext;
import dev.txnrocksdb.streams.internals.ConfigValues;
import dev.txnrocksdb.streams.internals.TxnKeyValueStore;
import java.io.File;

/**
 * The child process of {@link NativeLoggingTest}: with slf4j-simple's level for
 * {@code dev.txnrocksdb.native} set to {@code level}, opens (recovers) and closes the key-value
 * store {@code storeName} under {@code stateDir}, prints {@value #CLOSED} and exits normally.
 *
 * <p>Arguments: state dir, store name, strategy, level.
 */
public final class ReopenLoggingMain {
    public static final String CLOSED = "CLOSED";

    private ReopenLoggingMain() {}

    public static void main(String[] args) {
        // Before anything touches SLF4J: slf4j-simple reads its configuration once.
        System.setProperty("org.slf4j.simpleLogger.log.dev.txnrocksdb.native", args[3]);
        TxnKeyValueStore store = new TxnKeyValueStore(
                args[1], true, ConfigValues.transactionStrategy(TxnRocksDBConfig.TRANSACTION_STRATEGY_CONFIG, args[2]));
        store.init(new TestStateStoreContext(new File(args[0])), store);
        store.close();
        System.out.println(CLOSED);
    }
}
