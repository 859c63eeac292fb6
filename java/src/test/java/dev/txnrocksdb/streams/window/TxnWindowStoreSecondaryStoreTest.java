package dev.txnrocksdb.streams.window;

import dev.txnrocksdb.streams.TransactionStrategy;

/** Kafka's window store cases on transactional txn-rocksdb window stores with the secondary-store strategy. */
class TxnWindowStoreSecondaryStoreTest extends AbstractTxnWindowStoreTest {
    @Override
    boolean transactional() {
        return true;
    }

    @Override
    TransactionStrategy strategy() {
        return TransactionStrategy.SECONDARY_STORE;
    }
}
