package dev.txnrocksdb.streams.internals;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The threads that send the snapshots of every store of the process
 * ({@link dev.txnrocksdb.streams.TxnRocksDBConfig#SNAPSHOT_IO_THREADS_CONFIG}): one pool per
 * process, as the block cache is one per process, so that snapshots cost a few threads however many
 * stores a process opens and closes. Each store has at most one snapshot in it at a time; the others
 * wait their turn. Its threads are daemons and end after 30 s without work.
 */
final class SnapshotSenders {
    private static final Logger log = LoggerFactory.getLogger(SnapshotSenders.class);
    private static ThreadPoolExecutor pool;

    private SnapshotSenders() {}

    /** The pool, started with {@code threads} threads by the first call; later calls get it as it is. */
    static synchronized ThreadPoolExecutor pool(int threads) {
        if (pool == null) {
            AtomicInteger started = new AtomicInteger();
            pool = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), task -> {
                Thread thread = new Thread(task, "txn-rocksdb-snapshot-" + started.incrementAndGet());
                thread.setDaemon(true);
                return thread;
            });
            pool.allowCoreThreadTimeOut(true);
        } else if (pool.getMaximumPoolSize() != threads) {
            log.warn(
                    "Snapshots are sent by {} threads, fixed by the first store that opened with snapshots; {} threads asked"
                            + " for now are not",
                    pool.getMaximumPoolSize(),
                    threads);
        }
        return pool;
    }
}
