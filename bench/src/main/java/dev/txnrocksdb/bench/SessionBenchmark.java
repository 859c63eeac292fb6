package dev.txnrocksdb.bench;

import java.util.SplittableRandom;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.kstream.internals.SessionWindow;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.SessionStore;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Session stores (1-day retention): ours ({@code TxnStores.persistentTransactionalSessionStore}),
 * Kafka's {@code Stores.persistentSessionStore} with and without the transactional flag, and
 * {@code Stores.inMemorySessionStore}, loaded with {@link Sizes#SESSION_KEYS} (10,000) keys x
 * {@link Sizes#SESSIONS_PER_KEY} (10) sessions of 10 s, one a minute per key, 100-byte
 * aggregates, committed. One op = the lookup a session aggregation makes for a record:
 * {@code findSessions(key, t - gap, t + gap)} with a 5 s gap around a random session's middle,
 * which finds that one session.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class SessionBenchmark {
    static final long SESSION_MS = 10_000;
    static final long GAP_MS = 5_000;

    @Param({"txn", "txn-secondary", "kafka-txn", "kafka", "kafka-memory"})
    public String store;

    private BenchStore<SessionStore<Bytes, byte[]>> bench;
    private SessionStore<Bytes, byte[]> ss;
    private Bytes[] keys;

    static long sessionStart(int key, int session) {
        return WindowBenchmark.BASE + session * 60_000L + (key % 1_000) * 10L;
    }

    @Setup(Level.Trial)
    public void load() {
        bench = BenchStore.session(store);
        ss = bench.store;
        try {
            SplittableRandom random = new SplittableRandom(13);
            keys = new Bytes[Sizes.SESSION_KEYS];
            for (int k = 0; k < keys.length; k++) {
                keys[k] = Keys.sequential(k);
            }
            long n = 0;
            for (int j = 0; j < Sizes.SESSIONS_PER_KEY; j++) {
                for (int k = 0; k < keys.length; k++) {
                    long start = sessionStart(k, j);
                    ss.put(new Windowed<>(keys[k], new SessionWindow(start, start + SESSION_MS)), Keys.value(random));
                    if (++n % Sizes.LOAD_COMMIT_INTERVAL == 0) {
                        bench.commit(n);
                    }
                }
            }
            bench.commit(n);
            int found = find(null, keys.length / 2, Sizes.SESSIONS_PER_KEY / 2);
            if (found != 1) {
                throw new IllegalStateException(store + ": findSessions found " + found + " sessions, expected 1");
            }
        } catch (RuntimeException | Error e) {
            bench.close();
            throw e;
        }
    }

    @Benchmark
    public int findSessions(Blackhole bh) {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        return find(bh, r.nextInt(keys.length), r.nextInt(Sizes.SESSIONS_PER_KEY));
    }

    private int find(Blackhole bh, int key, int session) {
        long t = sessionStart(key, session) + SESSION_MS / 2;
        int n = 0;
        try (KeyValueIterator<Windowed<Bytes>, byte[]> it = ss.findSessions(keys[key], t - GAP_MS, t + GAP_MS)) {
            while (it.hasNext()) {
                Object kv = it.next();
                if (bh != null) {
                    bh.consume(kv);
                }
                n++;
            }
        }
        return n;
    }

    @TearDown(Level.Trial)
    public void close() {
        bench.close();
    }
}
