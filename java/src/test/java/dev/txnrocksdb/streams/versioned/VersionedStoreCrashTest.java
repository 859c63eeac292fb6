package dev.txnrocksdb.streams.versioned;

import static dev.txnrocksdb.streams.children.VersionedCrashWriterMain.CHANGELOG;
import static dev.txnrocksdb.streams.children.VersionedCrashWriterMain.FRESH_KEY;
import static dev.txnrocksdb.streams.children.VersionedCrashWriterMain.KEYS;
import static dev.txnrocksdb.streams.children.VersionedCrashWriterMain.RETENTION;
import static dev.txnrocksdb.streams.children.VersionedCrashWriterMain.ROUNDS;
import static dev.txnrocksdb.streams.children.VersionedCrashWriterMain.SEGMENT;
import static dev.txnrocksdb.streams.children.VersionedCrashWriterMain.UNCOMMITTED_PREFIX;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.txnrocksdb.streams.TransactionStrategy;
import dev.txnrocksdb.streams.children.VersionedCrashWriterMain;
import dev.txnrocksdb.streams.children.VersionedCrashWriterMain.Expected;
import dev.txnrocksdb.streams.children.VersionedCrashWriterMain.History;
import dev.txnrocksdb.streams.fixtures.ChildJvm;
import dev.txnrocksdb.streams.internals.TxnVersionedKeyValueStore;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Map.Entry;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.query.MultiVersionedKeyQuery;
import org.apache.kafka.streams.query.PositionBound;
import org.apache.kafka.streams.query.QueryConfig;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.state.VersionedKeyValueStore;
import org.apache.kafka.streams.state.VersionedRecord;
import org.apache.kafka.streams.state.VersionedRecordIterator;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code kill -9} of a process writing a {@link TxnVersionedKeyValueStore}
 * ({@link VersionedCrashWriterMain}), under either transaction strategy: reopened on the same
 * state directory, the store holds exactly the history of versions its last commit made durable.
 *
 * <p>The child commits {@value VersionedCrashWriterMain#ROUNDS} rounds of random writes (puts in
 * and out of order across about ten segments, tombstones by put and by delete, replacements at a
 * version's own timestamp: writes that move versions from the latest value into segments and
 * between segments, and let segments expire), printing every write and, after each commit has
 * returned, its changelog offset. Then it stages thousands of writes it never commits (versions
 * and tombstones inside the committed history, new latest versions, a key of its own, and a jump
 * of the stream time that, staged, drops every committed segment) and is killed with SIGKILL while
 * it goes on writing. The test rebuilds the committed history from the child's output (per key a
 * timeline of timestamp to value or tombstone) and asserts, on the reopened store and on its
 * {@code READ_COMMITTED} view:
 *
 * <ul>
 *   <li>the committed changelog offset is exactly the last one the child reported, and nothing is
 *       left uncommitted;
 *   <li>for every key, the latest version ({@code get(key)}) and the version as of every
 *       millisecond from the last committed stream time minus the history retention to a segment
 *       past that stream time ({@code get(key, asOf)}) are the model's: the floor version of that
 *       time, none if it is a tombstone, with its value, its timestamp and its validTo (the next
 *       version's timestamp, empty for the latest);
 *   <li>a {@code MultiVersionedKeyQuery} over that range, in both orders, returns exactly the
 *       model's versions valid in it;
 *   <li>no uncommitted version is visible anywhere (also implied by the above: the model knows
 *       only committed writes).
 * </ul>
 *
 * <p>Every write stays within the grace period and the reads start at the history's horizon, where
 * KIP-889's semantics make the model exact (older versions may already have expired). The seed of
 * the child's writes is in every failure message.
 */
class VersionedStoreCrashTest {
    private static final int MAX_REPORTED_MISMATCHES = 20;

    @TempDir
    Path stateDir;

    @ParameterizedTest(name = "versioned, {0}")
    @EnumSource(TransactionStrategy.class)
    void killDashNineKeepsExactlyTheCommittedHistory(TransactionStrategy strategy) throws Exception {
        long seed = System.nanoTime();
        String where = strategy + ", seed " + seed;
        ChildJvm child = ChildJvm.start(
                VersionedCrashWriterMain.class, stateDir.toString(), strategy.configName(), Long.toString(seed));
        try {
            child.awaitLine(VersionedCrashWriterMain.READY);
        } finally {
            child.killAndAssertSigkill();
        }

        // The committed history: the writes the child printed before each COMMITTED line.
        Map<String, History> model = new TreeMap<>();
        List<String> pending = new ArrayList<>();
        int commits = 0;
        long lastCommitted = -1;
        for (String line : child.output()) {
            if (line.startsWith("COMMITTED ")) {
                pending.forEach(write -> VersionedCrashWriterMain.applyLine(model, write));
                pending.clear();
                lastCommitted = Long.parseLong(line.substring("COMMITTED ".length()));
                commits++;
            } else if (VersionedCrashWriterMain.isWrite(line)) {
                pending.add(line);
            }
        }
        assertEquals(ROUNDS, commits, where + ": " + child.output());
        assertEquals(VersionedCrashWriterMain.offsetOfRound(ROUNDS - 1), lastCommitted, where);
        assertTrue(pending.isEmpty(), where + ": the child printed writes after its last commit: " + pending);

        long streamTime = model.values().stream()
                .mapToLong(h -> h.versions.lastKey())
                .max()
                .orElseThrow();
        long from = Math.max(0, streamTime - RETENTION);
        long to = streamTime + SEGMENT;
        assertTrue(streamTime > 5 * RETENTION, where + ": the history passed several retentions: " + streamTime);
        long tombstonesInRange = model.values().stream()
                .flatMap(h -> h.versions.subMap(from, true, streamTime, true).entrySet().stream())
                .filter(e -> e.getValue() == null)
                .count();
        assertTrue(tombstonesInRange > 0, where + ": some tombstones are in the history checked");

        TxnVersionedKeyValueStore store = VersionedCrashWriterMain.open(stateDir.toFile(), strategy);
        try {
            assertEquals(strategy, store.transactionStrategy(), where);
            assertEquals(lastCommitted, store.committedOffset(CHANGELOG), where + ": the committed offset");
            assertEquals(0L, store.approximateNumUncommittedBytes(), where);

            List<String> keys = new ArrayList<>();
            for (int k = 0; k < KEYS; k++) {
                keys.add(VersionedCrashWriterMain.key(k));
            }
            keys.add(FRESH_KEY);
            List<String> mismatches = new ArrayList<>();
            long reads = 0;
            long historyReads = 0;
            for (IsolationLevel level : IsolationLevel.values()) {
                VersionedKeyValueStore<Bytes, byte[]> view = store.readOnly(level);
                for (String key : keys) {
                    History history = model.getOrDefault(key, new History());
                    Bytes bytes = Bytes.wrap(key.getBytes(UTF_8));
                    compare(mismatches, level + " " + key + " latest", history.latest(), view.get(bytes));
                    reads++;
                    for (long t = from; t <= to; t++) {
                        Expected expected = history.asOf(t);
                        compare(mismatches, level + " " + key + " as of " + t, expected, view.get(bytes, t));
                        reads++;
                        if (expected != null && expected.validTo.isPresent()) {
                            historyReads++;
                        }
                    }
                    for (boolean ascending : new boolean[] {true, false}) {
                        List<Expected> expected = versions(history, from, to);
                        if (!ascending) {
                            Collections.reverse(expected);
                        }
                        List<VersionedRecord<byte[]>> actual = query(view, bytes, from, to, ascending);
                        String what = level + " " + key + " versions in [" + from + ", " + to + "]"
                                + (ascending ? "" : " descending");
                        if (actual.size() != expected.size()) {
                            mismatches.add(what + ": " + actual.size() + " versions, expected " + expected.size());
                        }
                        for (int i = 0; i < Math.min(actual.size(), expected.size()); i++) {
                            compare(mismatches, what + " #" + i, expected.get(i), actual.get(i));
                        }
                    }
                }
            }
            assertTrue(
                    mismatches.isEmpty(),
                    where + ": " + mismatches.size() + " reads differ from the committed history"
                            + " (stream time " + streamTime + "); the first: "
                            + String.join(
                                    "\n  ",
                                    mismatches.subList(0, Math.min(MAX_REPORTED_MISMATCHES, mismatches.size()))));
            assertTrue(
                    historyReads > reads / 10,
                    where + ": the reads hit superseded versions too: " + historyReads + " of " + reads);
        } finally {
            store.close();
        }
    }

    /** Records a mismatch of a read (null: none) with the model's version (null: none). */
    private static void compare(
            List<String> mismatches, String what, Expected expected, VersionedRecord<byte[]> actual) {
        if (actual != null
                && actual.value() != null
                && new String(actual.value(), UTF_8).startsWith(UNCOMMITTED_PREFIX)) {
            mismatches.add(what + ": an uncommitted version is visible: " + Expected.render(actual));
        } else if (!Expected.matches(expected, actual)) {
            mismatches.add(what + ": " + Expected.render(actual) + ", expected " + Expected.render(expected));
        }
    }

    /** The model's versions valid at some time in {@code [from, to]}, oldest first (tombstones are no version). */
    private static List<Expected> versions(History history, long from, long to) {
        List<Expected> out = new ArrayList<>();
        for (Entry<Long, String> version : history.versions.entrySet()) {
            Optional<Long> validTo = Optional.ofNullable(history.versions.higherKey(version.getKey()));
            if (version.getValue() != null
                    && version.getKey() <= to
                    && validTo.map(vt -> vt > from).orElse(true)) {
                out.add(new Expected(version.getValue(), version.getKey(), validTo));
            }
        }
        return out;
    }

    /** An IQv2 {@code MultiVersionedKeyQuery} on {@code view} (its isolation level's). */
    private static List<VersionedRecord<byte[]>> query(
            VersionedKeyValueStore<Bytes, byte[]> view, Bytes key, long from, long to, boolean ascending) {
        MultiVersionedKeyQuery<Bytes, byte[]> query = MultiVersionedKeyQuery.<Bytes, byte[]>withKey(key)
                .fromTime(Instant.ofEpochMilli(from))
                .toTime(Instant.ofEpochMilli(to));
        query = ascending ? query.withAscendingTimestamps() : query.withDescendingTimestamps();
        QueryResult<VersionedRecordIterator<byte[]>> result =
                view.query(query, PositionBound.unbounded(), new QueryConfig(false));
        assertTrue(result.isSuccess(), () -> "query failed: " + result.getFailureMessage());
        List<VersionedRecord<byte[]>> out = new ArrayList<>();
        try (VersionedRecordIterator<byte[]> records = result.getResult()) {
            records.forEachRemaining(out::add);
        }
        return out;
    }
}
