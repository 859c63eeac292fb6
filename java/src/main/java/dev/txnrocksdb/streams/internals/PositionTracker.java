package dev.txnrocksdb.streams.internals;

import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.query.Position;
import org.apache.kafka.streams.state.internals.StoreQueryUtils;

/**
 * The input positions a store has seen, split like Kafka 4.4's transactional RocksDB store does:
 * the committed position (persisted with the offsets) and the deltas of uncommitted writes, which
 * a rollback drops. A write-through store has no uncommitted writes, so its writes move the
 * committed position directly.
 */
public final class PositionTracker {
    private final boolean transactional;
    private final Position committed;
    private Position uncommitted = Position.emptyPosition();

    /**
     * @param committed the position loaded from the store (kept and updated in place)
     * @param transactional whether writes are staged until commit
     */
    public PositionTracker(Position committed, boolean transactional) {
        this.committed = committed;
        this.transactional = transactional;
    }

    /** Records the position of the record being processed, if the context has one (as Kafka's stores do on every write). */
    public synchronized void recordWrite(StateStoreContext context) {
        StoreQueryUtils.updatePosition(transactional ? uncommitted : committed, context);
    }

    /** Merges a position that reached committed data directly (a restored changelog batch). */
    public synchronized void mergeCommitted(Position restored) {
        committed.merge(restored);
    }

    /** A copy of the committed position. */
    public synchronized Position committed() {
        return committed.copy();
    }

    /** A copy of the position including uncommitted writes. */
    public synchronized Position current() {
        return committed.copy().merge(uncommitted);
    }

    /** The position a commit would persist, encoded. */
    public synchronized byte[] encodeForCommit() {
        return PositionCodec.encode(current());
    }

    /** The uncommitted deltas became durable. */
    public synchronized void markCommitted() {
        committed.merge(uncommitted);
        uncommitted = Position.emptyPosition();
    }

    /** The uncommitted writes were dropped, and with them their positions. */
    public synchronized void rollback() {
        uncommitted = Position.emptyPosition();
    }
}
