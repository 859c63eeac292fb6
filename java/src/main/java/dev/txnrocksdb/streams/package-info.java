/**
 * The API of txn-rocksdb: transactional state stores for Kafka Streams, in the shape of Kafka's
 * own {@code org.apache.kafka.streams.state} API.
 *
 * <ul>
 *   <li>{@link dev.txnrocksdb.streams.TxnStores}: store suppliers, as Kafka's {@code Stores}; the
 *       key-value ones are {@link dev.txnrocksdb.streams.TxnKeyValueStoreSupplier}s, whose stores
 *       take a time-to-live ({@code withTtl}, counted in {@link dev.txnrocksdb.streams.TimeBasis});</li>
 *   <li>{@link dev.txnrocksdb.streams.TxnRocksDBDslStoreSuppliers}: every DSL operator's stores at
 *       once ({@code dsl.store.suppliers.class}), as Kafka's {@code BuiltInDslStoreSuppliers};</li>
 *   <li>{@link dev.txnrocksdb.streams.TxnStoreTypes}: KIP-844's {@code TXN_ROCKS_DB} store type
 *       for one operator ({@code Materialized.withStoreType}); {@link dev.txnrocksdb.streams.TxnStreamsConfig}:
 *       KIP-844's {@code default.dsl.store=txn_rocksDB}, translated;</li>
 *   <li>{@link dev.txnrocksdb.streams.TxnRocksDBConfig}: the stores' settings, as a
 *       {@code ConfigDef}; {@link dev.txnrocksdb.streams.TransactionStrategy}: where a store keeps
 *       uncommitted writes;</li>
 *   <li>{@link dev.txnrocksdb.streams.TransactionalStateStore}: what every store of ours is, for
 *       code that needs to tell.</li>
 * </ul>
 *
 * <p>This package is the whole API. The stores, their suppliers and everything else live in
 * {@code dev.txnrocksdb.streams.internals}, as Kafka keeps its own in {@code state.internals}:
 * public for Java's sake, but not API, and free to change in any release.
 */
package dev.txnrocksdb.streams;
