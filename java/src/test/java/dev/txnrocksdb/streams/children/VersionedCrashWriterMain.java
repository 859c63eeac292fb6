package dev.txnrocksdb.streams.children;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.txnrocksdb.streams.TransactionStrategy;
import dev.txnrocksdb.streams.TxnRocksDBConfig;
import dev.txnrocksdb.streams.fixtures.TestStateStoreContext;
import dev.txnrocksdb.streams.internals.ConfigValues;
import dev.txnrocksdb.streams.internals.TxnVersionedKeyValueStore;
import java.io.File;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Map.Entry;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.VersionedKeyValueStore;
import org.apache.kafka.streams.state.VersionedRecord;

/**
 * The child process of {@link VersionedStoreCrashTest}: opens a {@link TxnVersionedKeyValueStore}
 * directly (history retention {@value #RETENTION} ms, segments of {@value #SEGMENT} ms, so a
 * history spans about ten segments) and runs {@value #ROUNDS} rounds of {@value #OPS_PER_ROUND}
 * random writes to {@value #KEYS} keys: puts at the stream time, puts and tombstones (by
 * {@code put(key, null, ts)} and by {@code delete}) out of order anywhere within the grace period,
 * and replacements of existing versions at their own timestamp. Every put moves versions from the
 * latest value into segments or between segments, and the stream time passes many segments, so
 * commits also drop expired ones. Before it stages a write it prints it ({@code PUT key ts value},
 * {@code TOMBSTONE key ts}, {@code DELETE key ts}); after each round it commits with offset
 * {@link #offsetOfRound} and, once the commit returned, prints {@code COMMITTED offset}. Every
 * write's result (a put's validTo, the version a delete ended) is checked against the child's own
 * model of the history; a mismatch ends the child with an exception (and not by SIGKILL).
 *
 * <p>Then, without committing again, it stages {@value #STAGED_BEFORE_READY} more writes, printed
 * nowhere, whose values all start with {@value #UNCOMMITTED_PREFIX}: out-of-order versions,
 * tombstones and replacements inside the committed history, new latest versions, a brand-new key
 * {@value #FRESH_KEY}, and a jump of the stream time by three history retentions (which, staged,
 * drops every committed segment); it prints {@value #READY} and goes on staging writes until it is
 * killed.
 *
 * <p>Arguments: state dir, strategy, seed.
 */
public final class VersionedCrashWriterMain {
    public static final String READY = "READY";
    static final String STORE = "versioned-crash";
    public static final long RETENTION = 10_000L;
    public static final long SEGMENT = 1_000L;
    public static final int KEYS = 5;
    public static final int ROUNDS = 30;
    static final int OPS_PER_ROUND = 40;
    static final int STAGED_BEFORE_READY = 3_000;
    /** How far before the stream time an out-of-order write may go: well within the grace period. */
    static final long MAX_BACK = RETENTION - 1_000L;

    public static final String UNCOMMITTED_PREFIX = "uncommitted-";
    /** A key only uncommitted writes touch. */
    public static final String FRESH_KEY = "fresh";

    public static final TopicPartition CHANGELOG = new TopicPartition(STORE + "-changelog", 0);

    private VersionedCrashWriterMain() {}

    public static String key(int k) {
        return "k" + k;
    }

    /** The changelog offset committed after round {@code round}. */
    public static long offsetOfRound(int round) {
        return 1_000L + 17L * round;
    }

    /** A store with this test's geometry, opened on {@code stateDir} (the parent reopens it so). */
    public static TxnVersionedKeyValueStore open(File stateDir, TransactionStrategy strategy) {
        TxnVersionedKeyValueStore store = new TxnVersionedKeyValueStore(STORE, strategy, RETENTION, SEGMENT);
        store.init(new TestStateStoreContext(stateDir), store);
        return store;
    }

    /** A key's history: timestamp to value, null for a tombstone (Kafka's KIP-889 semantics). */
    public static final class History {
        public final TreeMap<Long, String> versions = new TreeMap<>();

        /** The version valid at {@code t}: value, validFrom, validTo (empty for the latest); null if none. */
        public Expected asOf(long t) {
            Entry<Long, String> floor = versions.floorEntry(t);
            if (floor == null || floor.getValue() == null) {
                return null;
            }
            return new Expected(
                    floor.getValue(), floor.getKey(), Optional.ofNullable(versions.higherKey(floor.getKey())));
        }

        /** The latest version, or null (none, or a tombstone). */
        public Expected latest() {
            if (versions.isEmpty() || versions.lastEntry().getValue() == null) {
                return null;
            }
            return new Expected(versions.lastEntry().getValue(), versions.lastKey(), Optional.empty());
        }

        /** The put return code of a new version at {@code t}: its validTo, or -1 when it is the latest. */
        long validToOfNew(long t) {
            Long higher = versions.higherKey(t);
            return higher == null ? VersionedKeyValueStore.PUT_RETURN_CODE_VALID_TO_UNDEFINED : higher;
        }
    }

    /** A version as the model predicts it. */
    public static final class Expected {
        final String value;
        final long timestamp;
        public final Optional<Long> validTo;

        public Expected(String value, long timestamp, Optional<Long> validTo) {
            this.value = value;
            this.timestamp = timestamp;
            this.validTo = validTo;
        }

        /** Whether {@code actual} is this version (or both are absent); compares the value's bytes. */
        public static boolean matches(Expected expected, VersionedRecord<byte[]> actual) {
            if (expected == null || actual == null) {
                return expected == null && actual == null;
            }
            return actual.value() != null
                    && expected.value.equals(new String(actual.value(), UTF_8))
                    && expected.timestamp == actual.timestamp()
                    && expected.validTo.equals(actual.validTo());
        }

        public static String render(Expected expected) {
            return expected == null
                    ? "null"
                    : expected.value + "@" + expected.timestamp + " validTo=" + expected.validTo;
        }

        public static String render(VersionedRecord<byte[]> actual) {
            return actual == null
                    ? "null"
                    : (actual.value() == null ? "<null value>" : new String(actual.value(), UTF_8)) + "@"
                            + actual.timestamp() + " validTo=" + actual.validTo();
        }
    }

    /** Whether {@code line} is a printed write ({@code PUT}, {@code TOMBSTONE} or {@code DELETE}). */
    public static boolean isWrite(String line) {
        return line.startsWith("PUT ") || line.startsWith("TOMBSTONE ") || line.startsWith("DELETE ");
    }

    /**
     * Applies one printed write line ({@code PUT key ts value}, {@code TOMBSTONE key ts},
     * {@code DELETE key ts}) to a model; returns false for any other line.
     */
    public static boolean applyLine(Map<String, History> model, String line) {
        String[] f = line.split(" ", 4);
        switch (f[0]) {
            case "PUT":
                model.computeIfAbsent(f[1], k -> new History()).versions.put(Long.parseLong(f[2]), f[3]);
                return true;
            case "TOMBSTONE":
            case "DELETE":
                model.computeIfAbsent(f[1], k -> new History()).versions.put(Long.parseLong(f[2]), null);
                return true;
            default:
                return false;
        }
    }

    /** The child's store and model, and the stream time it has observed. */
    private static final class Writer {
        final TxnVersionedKeyValueStore store;
        final Map<String, History> model = new HashMap<>();
        boolean print;
        long streamTime = -1;

        Writer(TxnVersionedKeyValueStore store, boolean print) {
            this.store = store;
            this.print = print;
        }

        void put(String key, String value, long ts) {
            write(value == null ? "TOMBSTONE " + key + " " + ts : "PUT " + key + " " + ts + " " + value);
            History history = model.computeIfAbsent(key, k -> new History());
            long expected = history.validToOfNew(ts);
            long returned =
                    store.put(Bytes.wrap(key.getBytes(UTF_8)), value == null ? null : value.getBytes(UTF_8), ts);
            check(returned == expected, "put " + key + "@" + ts + " returned " + returned + ", expected " + expected);
            history.versions.put(ts, value);
            streamTime = Math.max(streamTime, ts);
        }

        void delete(String key, long ts) {
            write("DELETE " + key + " " + ts);
            History history = model.computeIfAbsent(key, k -> new History());
            Expected expected = history.asOf(ts);
            VersionedRecord<byte[]> returned = store.delete(Bytes.wrap(key.getBytes(UTF_8)), ts);
            check(
                    Expected.matches(expected, returned),
                    "delete " + key + "@" + ts + " returned " + Expected.render(returned) + ", expected "
                            + Expected.render(expected));
            history.versions.put(ts, null);
            streamTime = Math.max(streamTime, ts);
        }

        private void write(String line) {
            if (print) {
                System.out.println(line);
            }
        }

        /** An existing timestamp of {@code key} within the grace period, or -1. */
        long existingTimestamp(String key, Random random) {
            History history = model.get(key);
            if (history == null) {
                return -1;
            }
            List<Long> candidates = List.copyOf(
                    history.versions.tailMap(streamTime - MAX_BACK, true).keySet());
            return candidates.isEmpty() ? -1 : candidates.get(random.nextInt(candidates.size()));
        }

        /** One random write at or before {@code clock} (never older than the grace period allows). */
        void randomWrite(Random random, long clock, String key, String value) {
            long back = Math.min(clock, (long) (random.nextDouble() * MAX_BACK));
            int dice = random.nextInt(100);
            if (dice < 50) {
                put(key, value, clock);
            } else if (dice < 75) {
                put(key, value, clock - back);
            } else if (dice < 83) {
                put(key, null, random.nextBoolean() ? clock : clock - back);
            } else if (dice < 91) {
                delete(key, random.nextBoolean() ? clock : clock - back);
            } else {
                long existing = existingTimestamp(key, random);
                if (existing >= 0) {
                    put(key, random.nextInt(4) == 0 ? null : value, existing);
                } else {
                    put(key, value, clock - back);
                }
            }
        }
    }

    private static void check(boolean condition, String message) {
        if (!condition) {
            throw new IllegalStateException(message);
        }
    }

    public static void main(String[] args) throws InterruptedException {
        File stateDir = new File(args[0]);
        TransactionStrategy strategy =
                ConfigValues.transactionStrategy(TxnRocksDBConfig.TRANSACTION_STRATEGY_CONFIG, args[1]);
        Random random = new Random(Long.parseLong(args[2]));
        Writer writer = new Writer(open(stateDir, strategy), true);

        long clock = 0;
        for (int round = 0; round < ROUNDS; round++) {
            for (int i = 0; i < OPS_PER_ROUND; i++) {
                clock += random.nextInt(121);
                writer.randomWrite(random, clock, key(random.nextInt(KEYS)), "v-r" + round + "-" + i);
            }
            long offset = offsetOfRound(round);
            writer.store.commit(Map.of(CHANGELOG, offset));
            System.out.println("COMMITTED " + offset);
            System.out.flush();
        }

        // From here on nothing is committed and nothing is printed but READY.
        Writer staged = writer;
        staged.print = false;
        int count = 0;
        // 1. inside the committed history: out-of-order versions, tombstones, replacements, new latest versions
        for (int i = 0; i < 200; i++, count++) {
            staged.randomWrite(random, clock, key(random.nextInt(KEYS)), UNCOMMITTED_PREFIX + count);
        }
        for (int k = 0; k < KEYS; k++, count++) {
            staged.put(key(k), UNCOMMITTED_PREFIX + count, clock + 1 + k);
        }
        staged.put(FRESH_KEY, UNCOMMITTED_PREFIX + count++, clock);
        // 2. the stream time jumps past the whole committed history: its segments expire (staged)
        clock += 3 * RETENTION;
        for (int k = 0; k < KEYS; k++, count++) {
            staged.put(key(k), UNCOMMITTED_PREFIX + count, clock);
        }
        // 3. on and on, until killed
        while (true) {
            clock += random.nextInt(121);
            staged.randomWrite(
                    random,
                    clock,
                    random.nextInt(KEYS + 1) == KEYS ? FRESH_KEY : key(random.nextInt(KEYS)),
                    UNCOMMITTED_PREFIX + count);
            count++;
            if (count == STAGED_BEFORE_READY) {
                System.out.println(READY);
                System.out.flush();
            }
            if (count > STAGED_BEFORE_READY && count % 50 == 0) {
                // still writing when the kill comes, without filling memory if it comes late
                Thread.sleep(count > 100 * STAGED_BEFORE_READY ? Long.MAX_VALUE : 1);
            }
        }
    }
}
