/**
 * The implementation of the txn-rocksdb stores, as Kafka's {@code state.internals} holds its own:
 * the stores ({@link dev.txnrocksdb.streams.internals.AbstractTxnStore} and one class per kind and
 * format), their suppliers ({@link dev.txnrocksdb.streams.internals.TxnSupplierBase} and below,
 * built by {@link dev.txnrocksdb.streams.internals.SupplierFactory}), what every store kind shares
 * ({@link dev.txnrocksdb.streams.internals.StoreCore}), their read views, restore, settings,
 * metrics and key formats, and (in {@code nativeapi}) the native bindings.
 *
 * <p><b>Not API.</b> This package and its subpackages are implementation details of txn-rocksdb;
 * their classes may change or disappear in any release without notice, even though some are
 * public (Java has no other way to share them with {@code dev.txnrocksdb.streams}). Use
 * {@code dev.txnrocksdb.streams}.
 */
package dev.txnrocksdb.streams.internals;
