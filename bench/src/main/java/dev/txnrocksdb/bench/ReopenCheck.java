package dev.txnrocksdb.bench;

import java.util.function.BiConsumer;
import java.util.function.BiPredicate;
import java.util.function.Supplier;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.StateStore;

/**
 * {@link TransactionalCheck}'s proof for the store types it does not cover (headers and versioned
 * key-value stores), run in the trial setup of the benchmarks that use them, on a fresh store of
 * the column's kind opened exactly as the benchmark opens its own: a write is committed, a second
 * left uncommitted (it must be readable by the writer, and a store opened with the transactional
 * flag must report uncommitted bytes), the store is closed and reopened on the same directory. The
 * benchmark fails unless the committed write is there and, for a transactional column, the
 * uncommitted one gone, so that no ratio is ever against a Kafka store that silently wrote
 * through. The flag-off {@code kafka} column may keep the uncommitted write; in-memory stores keep
 * nothing across a close and are not checked.
 */
final class ReopenCheck {
    private static final Bytes COMMITTED = Keys.sequential(1);
    private static final Bytes UNCOMMITTED = Keys.sequential(2);

    private ReopenCheck() {}

    /**
     * @param type what the store is, for the failure message
     * @param open opens a fresh store of the column's kind
     * @param write writes some value of the store's format under a key
     * @param present whether the store returns a value for a key
     */
    static <S extends StateStore> void run(
            String type, Supplier<BenchStore<S>> open, BiConsumer<S, Bytes> write, BiPredicate<S, Bytes> present) {
        BenchStore<S> bench = open.get();
        try {
            StoreKind kind = bench.kind;
            if (!kind.persistent) {
                return;
            }
            write.accept(bench.store, COMMITTED);
            bench.commit(1);
            write.accept(bench.store, UNCOMMITTED);
            if (!present.test(bench.store, UNCOMMITTED)) {
                throw new IllegalStateException(
                        kind.id + " " + type + ": the writer cannot read its own uncommitted write");
            }
            if (kind.transactionalFlag && bench.uncommittedBytes() == 0) {
                throw new IllegalStateException(
                        kind.id + " " + type + " reports no uncommitted bytes after an uncommitted "
                                + "put: it is not staging writes, so it is not the store this column claims to be");
            }
            bench = bench.reopen();
            if (!present.test(bench.store, COMMITTED)) {
                throw new IllegalStateException(
                        kind.id + " " + type + ": a committed write was lost on close and reopen");
            }
            if (kind.expectTransactional() && present.test(bench.store, UNCOMMITTED)) {
                throw new IllegalStateException(
                        kind.id + " " + type + ": an uncommitted write survived close and reopen, "
                                + "so the store is not transactional (is enable.transactional.statestores=true reaching it?)");
            }
        } finally {
            bench.close();
        }
    }
}
