package dev.txnrocksdb.streams.internals.nativeapi;

import dev.txnrocksdb.streams.TransactionStrategy;
import java.util.Objects;

/**
 * What opening any native store takes besides its directory (the engine's {@code StoreOptions}).
 *
 * @param transactional true: writes are staged until {@link NativeStore#commit}; false: write-through
 * @param syncCommit true: fsync the write-ahead log on every commit (survives power loss)
 * @param strategy where a transactional store keeps uncommitted writes (ignored when not
 *     transactional, but checked)
 * @param recoverCorruptedWal what opening does with a write-ahead log damaged before its end:
 *     true opens at the last commit before the damage (the later commits are lost from the store;
 *     a changelog restores them), false refuses with a {@code ProcessorStateException}
 */
public record OpenOptions(boolean transactional, boolean syncCommit, TransactionStrategy strategy,
                          boolean recoverCorruptedWal) {
    /** @throws NullPointerException if {@code strategy} is null */
    public OpenOptions {
        Objects.requireNonNull(strategy, "strategy");
    }
}
