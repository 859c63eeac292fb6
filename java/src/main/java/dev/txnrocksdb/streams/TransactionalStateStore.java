package dev.txnrocksdb.streams;

import org.apache.kafka.streams.processor.StateStore;

/**
 * A state store that stages writes and makes them durable atomically with its changelog offset:
 * the store-side interface proposed by
 * <a href="https://cwiki.apache.org/confluence/display/KAFKA/KIP-844%3A+Transactional+State+Stores">KIP-844</a>.
 *
 * <p>Kafka Streams 4.4 does not call these methods; it drives stores through
 * {@link StateStore#commit(java.util.Map)}, {@link StateStore#committedOffset} and
 * {@code managesOffsets()}, which txn-rocksdb stores implement with the same semantics. This
 * interface is for callers that manage a store themselves (tests, custom runtimes, tools).
 *
 * <p><b>Single changelog partition.</b> {@link #commit(Long)} and {@link #recover(long)} take one
 * offset, so they assume the store has exactly one changelog partition, as every store of a stream
 * task has. The store knows that partition from its {@code StateStoreContext} once it is
 * initialized by Kafka Streams, or else as the only partition with a committed offset (after a
 * {@code commit(Map)} or when it opened). Until it knows one, {@link #commit(Long)} commits the data
 * and leaves the committed offsets as they are.
 *
 * <p><b>Exactly-once.</b> Under {@code processing.guarantee=exactly_once_v2}, a transactional store
 * requires {@code enable.transactional.statestores=true}: without it Kafka Streams commits stores only
 * on suspend and close, so staged writes would grow without bound. The store refuses to initialize
 * in that case.
 */
public interface TransactionalStateStore extends StateStore {
    /**
     * Whether writes are staged until a commit.
     *
     * @return {@code true} if writes become durable (and visible to {@code READ_COMMITTED} reads)
     *     only at a commit; {@code false} if every write goes straight to the store
     */
    boolean transactional();

    /**
     * Atomically makes every staged write durable together with {@code changelogOffset} as the
     * committed offset of the store's changelog partition (see the class documentation for which
     * partition that is).
     *
     * @param changelogOffset the changelog offset the staged writes correspond to; {@code null} for
     *     a store without a changelog, which commits the data and leaves the offsets as they are
     * @throws org.apache.kafka.streams.errors.InvalidStateStoreException if the store is not open
     * @throws org.apache.kafka.streams.errors.ProcessorStateException if the commit fails. Under
     *     {@link TransactionStrategy#INDEXED_BATCH} nothing of it is then durable. Under
     *     {@link TransactionStrategy#SECONDARY_STORE} a commit that fails after its commit record was
     *     written (with the first write of a copy) is decided: the store refuses further writes until {@link #recover(long)} rolls
     *     it forward (or the store is reopened)
     */
    void commit(Long changelogOffset);

    /**
     * Recovers the store after a failure, leaving the state of the last decided commit: drops
     * every write not yet committed. Under {@link TransactionStrategy#SECONDARY_STORE}, if the
     * last commit failed after its commit record was written, that commit was decided, so it is
     * rolled forward instead: its writes, offset and position become committed, and the offset
     * returned is the one it committed.
     *
     * @param changelogOffset the offset to assume when the store has no committed offset for its
     *     changelog partition
     * @return the committed offset of the store's changelog partition (after any roll-forward),
     *     or {@code changelogOffset} if there is none; the caller replays the changelog from there
     * @throws org.apache.kafka.streams.errors.InvalidStateStoreException if the store is not open
     * @throws org.apache.kafka.streams.errors.ProcessorStateException if dropping the writes or
     *     rolling the commit forward fails
     */
    long recover(long changelogOffset);
}
