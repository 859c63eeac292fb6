package dev.txnrocksdb.streams.segmented;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.txnrocksdb.streams.TransactionStrategy;
import dev.txnrocksdb.streams.fixtures.TestStateStoreContext;
import dev.txnrocksdb.streams.internals.TxnSessionStore;
import dev.txnrocksdb.streams.internals.TxnWindowStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.kstream.internals.SessionWindow;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlySessionStore;
import org.apache.kafka.streams.state.ReadOnlyWindowStore;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Interactive queries on window and session stores from several threads (READ_COMMITTED and
 * READ_UNCOMMITTED views) while the stream thread writes, commits, lets segments expire and
 * finally closes the store: a committed view always shows whole transactions with no hole, never
 * goes back, and the only exceptions anyone sees come from the close: {@link InvalidStateStoreException},
 * or {@code NoSuchElementException} from an iterator the store closed between {@code hasNext()} and
 * {@code next()} (Kafka's segmented stores report such an iterator as exhausted).
 */
class SegmentedConcurrentQueriesTest {
    private static final int KEYS = 50;
    private static final long STEP = 1_000L;
    /** 8 transactions of retention in segments of 2: segments are dropped all the time. */
    private static final long RETENTION = 8 * STEP;

    private static final long SEGMENT = 2 * STEP;
    private static final TopicPartition CHANGELOG = new TopicPartition("store-changelog", 0);

    @TempDir
    Path dir;

    private static Bytes key(int k) {
        return Bytes.wrap(String.format("key-%03d", k).getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] value(long transaction) {
        return Long.toString(transaction).getBytes(StandardCharsets.UTF_8);
    }

    private static long transactionOf(byte[] value) {
        return Long.parseLong(new String(value, StandardCharsets.UTF_8));
    }

    /** Checks a committed view grouped by window start; returns its newest transaction. */
    private static long checkWhole(TreeMap<Long, List<Long>> byStart) {
        long previous = -1;
        for (Map.Entry<Long, List<Long>> e : byStart.entrySet()) {
            long transaction = e.getKey() / STEP;
            if (e.getValue().size() != KEYS) {
                throw new AssertionError(
                        "transaction " + transaction + " shows " + e.getValue().size() + " of " + KEYS + " keys");
            }
            for (long seen : e.getValue()) {
                if (seen != transaction) {
                    throw new AssertionError("a window of transaction " + transaction + " holds " + seen);
                }
            }
            if (previous >= 0 && transaction != previous + 1) {
                throw new AssertionError("transactions " + previous + " and " + transaction + " with a hole between");
            }
            previous = transaction;
        }
        return previous;
    }

    private interface Reader {
        /** One query; returns the newest committed transaction seen (or -1). */
        long read(boolean committed);
    }

    private interface Writer {
        void write(long transaction);
    }

    /**
     * Runs the writer (its own thread) and 4 readers for a while, closes the store meanwhile, and
     * checks that nobody saw anything but whole transactions and, after the close,
     * InvalidStateStoreException.
     */
    private static void race(Writer writer, Reader reader, Runnable close) throws Exception {
        AtomicReference<Throwable> unexpected = new AtomicReference<>();
        AtomicBoolean closing = new AtomicBoolean();
        AtomicLong queries = new AtomicLong();
        CountDownLatch started = new CountDownLatch(5);
        List<Thread> threads = new ArrayList<>();
        threads.add(new Thread(
                () -> {
                    started.countDown();
                    try {
                        for (long t = 1; ; t++) {
                            writer.write(t);
                        }
                    } catch (InvalidStateStoreException expected) {
                        // closed under the writer
                    } catch (Throwable e) {
                        unexpected.compareAndSet(null, e);
                    }
                },
                "writer"));
        for (int r = 0; r < 4; r++) {
            boolean committed = r % 2 == 0;
            threads.add(new Thread(
                    () -> {
                        started.countDown();
                        long newest = -1;
                        try {
                            while (true) {
                                long seen = reader.read(committed);
                                if (committed) {
                                    if (seen < newest) {
                                        throw new AssertionError(
                                                "the committed view went back from " + newest + " to " + seen);
                                    }
                                    newest = seen;
                                }
                                queries.incrementAndGet();
                            }
                        } catch (InvalidStateStoreException expected) {
                            // the store closed under us
                        } catch (NoSuchElementException e) {
                            // Kafka's segmented stores report an iterator the store closed as exhausted, so
                            // a close between hasNext() and next() ends in this, and only then.
                            if (!closing.get()) {
                                unexpected.compareAndSet(null, e);
                            }
                        } catch (Throwable e) {
                            unexpected.compareAndSet(null, e);
                        }
                    },
                    "reader-" + r));
        }
        threads.forEach(Thread::start);
        started.await();
        Thread.sleep(600);
        closing.set(true);
        close.run();
        for (Thread thread : threads) {
            thread.join(30_000);
            assertFalse(thread.isAlive(), thread.getName() + " still running after close");
        }
        assertNull(unexpected.get(), () -> "unexpected failure: " + unexpected.get());
        assertTrue(queries.get() >= 4, "readers hardly ran: " + queries.get());
    }

    @ParameterizedTest
    @EnumSource(TransactionStrategy.class)
    void windowStoreQueriesDuringCommitsExpiryAndClose(TransactionStrategy strategy) throws Exception {
        TxnWindowStore store = new TxnWindowStore("store", RETENTION, SEGMENT, STEP, false, true, strategy);
        store.init(new TestStateStoreContext(dir.toFile()), store);
        race(
                t -> {
                    for (int k = 0; k < KEYS; k++) {
                        store.put(key(k), value(t), t * STEP);
                    }
                    store.commit(Map.of(CHANGELOG, t));
                },
                committed -> {
                    ReadOnlyWindowStore<Bytes, byte[]> view =
                            store.readOnly(committed ? IsolationLevel.READ_COMMITTED : IsolationLevel.READ_UNCOMMITTED);
                    TreeMap<Long, List<Long>> byStart = new TreeMap<>();
                    try (KeyValueIterator<Windowed<Bytes>, byte[]> it =
                            view.fetchAll(Instant.EPOCH, Instant.ofEpochMilli(Long.MAX_VALUE / 2))) {
                        while (it.hasNext()) {
                            KeyValue<Windowed<Bytes>, byte[]> window = it.next();
                            byStart.computeIfAbsent(window.key.window().start(), s -> new ArrayList<>())
                                    .add(transactionOf(window.value));
                        }
                    }
                    try (KeyValueIterator<Long, byte[]> it =
                            view.fetch(key(7), Instant.EPOCH, Instant.ofEpochMilli(Long.MAX_VALUE / 2))) {
                        while (it.hasNext()) {
                            it.next();
                        }
                    }
                    return committed ? checkWhole(byStart) : -1;
                },
                store::close);
    }

    @ParameterizedTest
    @EnumSource(TransactionStrategy.class)
    void sessionStoreQueriesDuringCommitsExpiryAndClose(TransactionStrategy strategy) throws Exception {
        TxnSessionStore store = new TxnSessionStore("store", RETENTION, SEGMENT, true, strategy);
        store.init(new TestStateStoreContext(dir.toFile()), store);
        race(
                t -> {
                    for (int k = 0; k < KEYS; k++) {
                        if (t > 1) {
                            // the session grows into the next transaction's: the old one is removed
                            store.remove(new Windowed<>(
                                    key(k), new SessionWindow((t - 1) * STEP, (t - 1) * STEP + STEP / 2)));
                        }
                        store.put(new Windowed<>(key(k), new SessionWindow(t * STEP, t * STEP + STEP / 2)), value(t));
                    }
                    store.commit(Map.of(CHANGELOG, t));
                },
                committed -> {
                    ReadOnlySessionStore<Bytes, byte[]> view =
                            store.readOnly(committed ? IsolationLevel.READ_COMMITTED : IsolationLevel.READ_UNCOMMITTED);
                    TreeMap<Long, List<Long>> byStart = new TreeMap<>();
                    try (KeyValueIterator<Windowed<Bytes>, byte[]> it =
                            view.findSessions(key(0), key(KEYS - 1), 0L, Long.MAX_VALUE / 2)) {
                        while (it.hasNext()) {
                            KeyValue<Windowed<Bytes>, byte[]> session = it.next();
                            byStart.computeIfAbsent(session.key.window().start(), s -> new ArrayList<>())
                                    .add(transactionOf(session.value));
                        }
                    }
                    try (KeyValueIterator<Windowed<Bytes>, byte[]> it = view.fetch(key(7))) {
                        while (it.hasNext()) {
                            it.next();
                        }
                    }
                    if (!committed) {
                        return -1;
                    }
                    if (byStart.size() > 1) {
                        throw new AssertionError("sessions of transactions " + byStart.keySet() + " visible together");
                    }
                    return checkWhole(byStart);
                },
                store::close);
    }
}
