package dev.txnrocksdb.streams.internals;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.txnrocksdb.streams.TransactionStrategy;
import dev.txnrocksdb.streams.fixtures.SegmentedStoreTestContext;
import dev.txnrocksdb.streams.internals.StoreSnapshots.ChangelogLookup;
import dev.txnrocksdb.streams.internals.StoreSnapshots.ChangelogState;
import dev.txnrocksdb.streams.internals.nativeapi.NativeKeyValueStore;
import dev.txnrocksdb.streams.internals.nativeapi.OpenOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.streams.query.Position;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link RestoreProgress} with a fake clock, a fake changelog lookup and the INFO lines captured:
 * a long restore logs every interval with figures that add up and a summary whose count is the
 * batches'; a standby that keeps up logs nothing and rarely looks up; one that falls behind logs
 * until it catches up; a lookup that throws or never answers leaves lines without a total and the
 * restore untouched (also through {@link ChangelogRestorer} on a real store); a global store's
 * partitions are restores of their own; the gauges say what the lines say.
 */
class RestoreProgressTest {
    private static final TopicPartition CHANGELOG = new TopicPartition("app-counts-changelog", 3);
    private static final long INTERVAL_MS = 10_000;
    private static final Uuid TOPIC_ID = Uuid.randomUuid();

    private static final Pattern PROGRESS = Pattern.compile(
            "Restoring store counts partition 3 \\(changelog app-counts-changelog\\): (\\d+) of (\\d+) offsets"
                    + " \\(([\\d.]+)%, (\\d+) left\\), (\\d+) records in ([\\d.]+) s \\((\\d+) records/s\\), about (\\d+)"
                    + " s left");
    private static final Pattern WITHOUT_TOTAL = Pattern.compile(
            "Restoring store counts partition 3 \\(changelog app-counts-changelog\\): (\\d+) offsets done \\(to (\\d+)\\),"
                    + " (\\d+) records in ([\\d.]+) s \\((\\d+) records/s\\); total unknown: the changelog's end offset"
                    + " could not be looked up \\((.+)\\)");
    private static final Pattern SUMMARY = Pattern.compile(
            "Restored (\\d+) records of store counts partition 3 in ([\\d.]+) s \\(changelog app-counts-changelog,"
                    + " offsets (\\d+) to (\\d+), (\\d+) records/s\\)");

    @TempDir
    Path tmp;

    private final AtomicLong nanos = new AtomicLong(TimeUnit.HOURS.toNanos(5));
    private final List<String> lines = new ArrayList<>();
    private final AtomicInteger lookups = new AtomicInteger();

    private RestoreProgress progress(Map<TopicPartition, Long> committed, ChangelogLookup lookup, Executor executor) {
        return new RestoreProgress("counts", committed, lookup, INTERVAL_MS, nanos::get, executor, lines::add);
    }

    /** A lookup answering with the end offset {@code end} holds when it is called. */
    private ChangelogLookup endAt(AtomicLong end) {
        return (partition, withOffsets) -> {
            lookups.incrementAndGet();
            assertEquals(CHANGELOG, partition);
            assertTrue(withOffsets);
            return new ChangelogState(TOPIC_ID, 0, end.get());
        };
    }

    private void advanceMs(long ms) {
        nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(ms));
    }

    private static double seconds(String s) {
        return Double.parseDouble(s);
    }

    @Test
    void aLongRestoreLogsEveryIntervalWithFiguresThatAddUpAndASummary() {
        // Exactly-once: 500 records and a commit marker per transaction, one transaction per batch,
        // from the offset after the committed one; 150 batches, one every 200 ms: 30 s.
        long committed = 999;
        long start = committed + 1;
        int batches = 150;
        int perBatch = 500;
        long end = start + (long) batches * (perBatch + 1);
        RestoreProgress progress = progress(Map.of(CHANGELOG, committed), endAt(new AtomicLong(end)), Runnable::run);
        assertEquals(0, progress.remainingOffsets(), "nothing restoring yet");

        long offset = start;
        long recordsSoFar = 0;
        List<long[]> gaugesAtLines = new ArrayList<>();
        List<Long> recordsAtLines = new ArrayList<>();
        for (int i = 0; i < batches; i++) {
            advanceMs(200);
            progress.restored(CHANGELOG, offset, offset + perBatch - 1, perBatch);
            recordsSoFar += perBatch;
            offset += perBatch + 1;
            if (lines.size() > gaugesAtLines.size()
                    && !lines.get(lines.size() - 1).startsWith("Restored")) {
                gaugesAtLines.add(new long[] {progress.remainingOffsets(), progress.remainingSeconds()});
                recordsAtLines.add(recordsSoFar);
            }
        }

        List<String> progressLines = lines.subList(0, lines.size() - 1);
        assertTrue(progressLines.size() >= 2, "at least two progress lines: " + lines);
        assertEquals(2, progressLines.size(), "one every 10 s of a 30 s restore: " + lines);
        for (int i = 0; i < progressLines.size(); i++) {
            Matcher m = PROGRESS.matcher(progressLines.get(i));
            assertTrue(m.matches(), progressLines.get(i));
            long done = Long.parseLong(m.group(1));
            long total = Long.parseLong(m.group(2));
            long left = Long.parseLong(m.group(4));
            long records = Long.parseLong(m.group(5));
            double elapsed = seconds(m.group(6));
            long rate = Long.parseLong(m.group(7));
            long secondsLeft = Long.parseLong(m.group(8));
            assertEquals(end - start, total, "total: the end looked up less the start after the committed offset");
            assertEquals(total, done + left, "done + left = total");
            assertEquals(recordsAtLines.get(i), records, "records: the batches' sizes so far");
            assertEquals(
                    records / perBatch * (perBatch + 1) - 1,
                    done,
                    "offsets count the markers too (all but the last batch's, not delivered yet)");
            assertEquals(records, rate * elapsed, records * 0.01, "rate x elapsed = records");
            double expectedLeft = left / (done / elapsed);
            assertEquals(expectedLeft, secondsLeft, 1.0, "time left at the average rate");
            assertEquals(100.0 * done / total, Double.parseDouble(m.group(3)), 0.05);
            assertEquals(left, gaugesAtLines.get(i)[0], "restore-remaining-offsets says what the line says");
            assertEquals(
                    (double) secondsLeft,
                    (double) gaugesAtLines.get(i)[1],
                    1.0,
                    "restore-remaining-seconds says what the line says");
            if (i > 0) {
                double previous = seconds(PROGRESS.matcher(progressLines.get(i - 1))
                        .results()
                        .findFirst()
                        .orElseThrow()
                        .group(6));
                assertEquals(INTERVAL_MS / 1000.0, elapsed - previous, 0.25, "a line every interval");
            }
        }
        Matcher summary = SUMMARY.matcher(lines.get(lines.size() - 1));
        assertTrue(summary.matches(), lines.get(lines.size() - 1));
        assertEquals((long) batches * perBatch, Long.parseLong(summary.group(1)), "the summary counts every batch");
        assertEquals(start, Long.parseLong(summary.group(3)));
        assertEquals(end - 1, Long.parseLong(summary.group(4)), "one offset short: the last commit marker");
        assertEquals(29.8, seconds(summary.group(2)), 0.05);

        assertEquals(0, progress.remainingOffsets(), "caught up");
        assertEquals(1.0, progress.progressRatio());
        assertEquals(0, progress.remainingSeconds());
        assertTrue(lookups.get() <= 3, "a lookup at 5 s, one at 15 s, then none while the end stays: " + lookups);
    }

    @Test
    void aRestoreShorterThanAnIntervalLogsNothing() {
        RestoreProgress progress = progress(Map.of(), endAt(new AtomicLong(40_000)), Runnable::run);
        for (long offset = 0; offset < 40_000; offset += 1_000) {
            advanceMs(200);
            progress.restored(CHANGELOG, offset, offset + 999, 1_000);
        }
        assertEquals(List.of(), lines);
        assertEquals(1, lookups.get(), "one lookup, at half an interval");
        assertEquals(0, progress.remainingOffsets());
    }

    @Test
    void aStandbyThatKeepsUpLogsNothingAndLooksUpRarely() {
        // The active writes 200 offsets every 100 ms; the standby gets each batch 300 ms later.
        AtomicLong end = new AtomicLong(50_000);
        RestoreProgress progress = progress(Map.of(CHANGELOG, 49_999L), endAt(end), Runnable::run);
        long applied = 50_000;
        List<Long> gauges = new ArrayList<>();
        for (int tick = 0; tick < 10 * 60 * 10; tick++) { // 10 minutes
            advanceMs(100);
            long written = end.get();
            end.addAndGet(200);
            if (tick >= 3) {
                long batchEnd = written - 400; // three ticks behind the writer
                progress.restored(CHANGELOG, applied, batchEnd - 1, (int) (batchEnd - applied));
                applied = batchEnd;
            }
            gauges.add(progress.remainingOffsets());
        }
        assertEquals(List.of(), lines, "a standby that keeps up logs nothing");
        assertTrue(gauges.stream().allMatch(g -> g == 0), "and its gauges say nothing to restore");
        assertTrue(lookups.get() <= 10, "lookups back off to one every 5 minutes: " + lookups);
    }

    @Test
    void aStandbyThatFallsBehindLogsUntilItCatchesUpThenNothing() {
        // The active writes 1,000 offsets a second; the standby starts 100,000 behind and applies 3,000 a second.
        AtomicLong end = new AtomicLong(200_000);
        RestoreProgress progress = progress(Map.of(CHANGELOG, 99_999L), endAt(end), Runnable::run);
        long applied = 100_000;
        long records = 0;
        long recordsWhenCaughtUp = -1;
        for (int tick = 0; tick < 10 * 60 * 5; tick++) { // 5 minutes
            advanceMs(100);
            end.addAndGet(100);
            long batchEnd = Math.min(end.get(), applied + 300);
            if (batchEnd > applied) {
                progress.restored(CHANGELOG, applied, batchEnd - 1, (int) (batchEnd - applied));
                records += batchEnd - applied;
                applied = batchEnd;
            }
            if (recordsWhenCaughtUp < 0
                    && !lines.isEmpty()
                    && lines.get(lines.size() - 1).startsWith("Restored")) {
                recordsWhenCaughtUp = records;
            }
        }
        List<String> progressLines =
                lines.stream().filter(l -> l.startsWith("Restoring")).toList();
        List<String> summaries =
                lines.stream().filter(l -> l.startsWith("Restored")).toList();
        assertTrue(progressLines.size() >= 3, "about 50 s behind: a line every 10 s: " + lines);
        long previousTotal = 0;
        for (String line : progressLines) {
            Matcher m = PROGRESS.matcher(line);
            assertTrue(m.matches(), line);
            long total = Long.parseLong(m.group(2));
            assertEquals(total, Long.parseLong(m.group(1)) + Long.parseLong(m.group(4)));
            assertTrue(total >= previousTotal, "a standby's end grows: " + lines);
            previousTotal = total;
        }
        assertEquals(1, summaries.size(), "one summary, then nothing while it keeps up: " + lines);
        Matcher summary = SUMMARY.matcher(summaries.get(0));
        assertTrue(summary.matches(), summaries.get(0));
        assertEquals(recordsWhenCaughtUp, Long.parseLong(summary.group(1)), "the summary counts every batch");
        double caughtUpAt = seconds(summary.group(2));
        for (String line : progressLines.subList(1, progressLines.size())) {
            // from the second lookup on, the estimate counts the end's growth (3,000 a second less 1,000)
            Matcher m = PROGRESS.matcher(line);
            assertTrue(m.matches(), line);
            assertEquals(
                    caughtUpAt, seconds(m.group(6)) + Long.parseLong(m.group(8)), 3.0, "time left, estimated: " + line);
        }
        assertEquals(lines.get(lines.size() - 1), summaries.get(0), "nothing logged after the catch-up");
    }

    @Test
    void aLookupThatThrowsLeavesLinesWithoutATotalAndTheRestoreGoesOn() {
        ChangelogLookup failing = (partition, withOffsets) -> {
            lookups.incrementAndGet();
            throw new IllegalStateException("cluster unreachable");
        };
        RestoreProgress progress = progress(Map.of(), failing, Runnable::run);
        long records = 0;
        for (long offset = 0; offset < 300 * 1_000; offset += 1_000) { // 300 batches, 200 ms apart: 60 s
            advanceMs(200);
            progress.restored(CHANGELOG, offset, offset + 999, 1_000);
            records += 1_000;
            if (!lines.isEmpty()) {
                assertEquals(-1, progress.remainingOffsets(), "unknown while the end is");
                assertEquals(-1.0, progress.progressRatio());
                assertEquals(-1, progress.remainingSeconds());
            }
        }
        assertTrue(lines.size() >= 2, "progress without a total: " + lines);
        long previousDone = -1;
        for (String line : lines) {
            Matcher m = WITHOUT_TOTAL.matcher(line);
            assertTrue(m.matches(), line);
            long done = Long.parseLong(m.group(1));
            assertEquals(done, Long.parseLong(m.group(2)), "from offset 0");
            assertEquals(done, Long.parseLong(m.group(3)), "one record per offset");
            assertEquals(Long.parseLong(m.group(3)), Long.parseLong(m.group(5)) * seconds(m.group(4)), done * 0.01);
            assertTrue(m.group(6).contains("cluster unreachable"), line);
            assertTrue(done > previousDone);
            previousDone = done;
        }
        assertTrue(lookups.get() <= lines.size() + 1, "failing lookups back off: " + lookups + " for " + lines);
        assertEquals(300_000, records);
    }

    @Test
    void aLookupThatNeverAnswersTimesOutAndTheLineHasNoTotal() {
        List<FutureTask<?>> held = new ArrayList<>();
        Executor never = task -> held.add((FutureTask<?>) task);
        RestoreProgress progress = progress(Map.of(), endAt(new AtomicLong(1_000_000)), never);
        for (long offset = 0; offset < 100 * 1_000; offset += 1_000) { // 20 s
            advanceMs(200);
            progress.restored(CHANGELOG, offset, offset + 999, 1_000);
        }
        assertFalse(lines.isEmpty(), "a line without a total once the lookup timed out");
        Matcher m = WITHOUT_TOTAL.matcher(lines.get(0));
        assertTrue(m.matches(), lines.get(0));
        assertTrue(m.group(6).contains("no answer within 10000 ms"), lines.get(0));
        assertTrue(seconds(m.group(4)) >= 14.9, "half an interval, then the lookup's interval: " + lines.get(0));
        assertNotNull(held.get(0));
        assertTrue(held.get(0).isCancelled(), "the lookup given up is cancelled");
        assertEquals(0, lookups.get(), "never ran");
    }

    @Test
    void eachPartitionOfAGlobalStoreIsARestoreOfItsOwn() {
        TopicPartition p0 = new TopicPartition("global-topic", 0);
        TopicPartition p1 = new TopicPartition("global-topic", 1);
        Map<TopicPartition, Long> ends = Map.of(p0, 30_000L, p1, 60_000L);
        ChangelogLookup lookup = (partition, withOffsets) -> new ChangelogState(TOPIC_ID, 0, ends.get(partition));
        RestoreProgress progress = progress(Map.of(p1, 29_999L), lookup, Runnable::run);
        for (TopicPartition partition : List.of(p0, p1)) {
            long from = partition.equals(p0) ? 0 : 30_000;
            for (long offset = from; offset < ends.get(partition); offset += 200) { // 150 batches: 30 s
                advanceMs(200);
                progress.restored(partition, offset, offset + 199, 200);
            }
        }
        Pattern line = Pattern.compile(
                "Restoring store counts partition (\\d) \\(changelog global-topic\\): (\\d+) of 30000 offsets .*");
        Pattern summary = Pattern.compile(
                "Restored 30000 records of store counts partition (\\d) in 29.8 s \\(changelog global-topic, offsets"
                        + " (\\d+) to (\\d+), .*");
        assertEquals(6, lines.size(), "two lines and a summary each: " + lines);
        for (int i = 0; i < 6; i++) {
            Matcher m = (i % 3 == 2 ? summary : line).matcher(lines.get(i));
            assertTrue(m.matches(), lines.get(i));
            assertEquals(i < 3 ? "0" : "1", m.group(1));
        }
    }

    @Test
    void theRestorerTellsItsBatchesAndStillRestoresWhenTheLookupFails() throws Exception {
        ChangelogLookup failing = (partition, withOffsets) -> {
            throw new IllegalStateException("no cluster");
        };
        RestoreProgress progress = progress(Map.of(), failing, Runnable::run);
        try (NativeKeyValueStore store = openCounts()) {
            ChangelogRestorer restorer = new ChangelogRestorer(
                    () -> store, new PositionTracker(Position.emptyPosition(), true), false, n -> {}, progress);
            for (int batch = 0; batch < 60; batch++) { // 12 s
                advanceMs(200);
                List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
                for (int i = 0; i < 10; i++) {
                    long offset = batch * 11L + i; // a marker after every ten records
                    records.add(new ConsumerRecord<>(
                            CHANGELOG.topic(),
                            CHANGELOG.partition(),
                            offset,
                            0L,
                            TimestampType.CREATE_TIME,
                            -1,
                            -1,
                            ("key-" + offset).getBytes(StandardCharsets.UTF_8),
                            ("value-" + offset).getBytes(StandardCharsets.UTF_8),
                            new RecordHeaders(),
                            Optional.empty()));
                }
                restorer.restoreBatch(records);
            }
            assertEquals(1, lines.size(), lines.toString());
            Matcher m = WITHOUT_TOTAL.matcher(lines.get(0));
            assertTrue(m.matches(), lines.get(0));
            assertEquals("560", m.group(1), "offsets from the first record to after the last of 51 batches");
            assertEquals("510", m.group(3), "records: 51 batches of 10");
            assertTrue(m.group(6).contains("no cluster"));
            assertEquals(
                    "value-649",
                    new String(store.get("key-649".getBytes(StandardCharsets.UTF_8), true), StandardCharsets.UTF_8));
        }
    }

    @Test
    void theGaugesAreTheStoresRestoreMetrics() throws Exception {
        SegmentedStoreTestContext context =
                new SegmentedStoreTestContext(tmp.resolve("task").toFile());
        AtomicLong end = new AtomicLong(100_000);
        RestoreProgress progress = progress(Map.of(), endAt(end), Runnable::run);
        try (NativeKeyValueStore store = openCounts()) {
            StoreMetrics metrics = StoreMetrics.register(context, "counts", StoreMetrics.KEY_VALUE_SCOPE, store, false);
            metrics.addRestoreMetrics(progress);
            assertEquals(0L, metric(context, "restore-remaining-offsets"));
            assertEquals(1.0, metric(context, "restore-progress-ratio"));
            assertEquals(0L, metric(context, "restore-remaining-seconds"));
            for (long offset = 0; offset < 12_000; offset += 200) { // 60 batches, 200 ms apart: 12 s
                advanceMs(200);
                progress.restored(CHANGELOG, offset, offset + 199, 200);
            }
            assertEquals(1, lines.size(), lines.toString());
            assertEquals(88_000L, metric(context, "restore-remaining-offsets"));
            assertEquals(0.12, (Double) metric(context, "restore-progress-ratio"), 1e-9);
            // 12,000 offsets in the 11.8 s since the first batch: 88,000 more take 86.5 s, rounded up
            assertEquals(87L, metric(context, "restore-remaining-seconds"));
            advanceMs(RestoreProgress.QUIET_INTERVALS * INTERVAL_MS);
            assertEquals(0L, metric(context, "restore-remaining-offsets"), "no batch for 30 s: not restoring");
            metrics.close();
            assertTrue(context.metrics().metrics().keySet().stream()
                    .noneMatch(n -> n.name().startsWith("restore-remaining")));
        }
    }

    private static Object metric(SegmentedStoreTestContext context, String name) {
        return context.metrics().metrics().entrySet().stream()
                .filter(e -> e.getKey().name().equals(name)
                        && "stream-state-metrics".equals(e.getKey().group())
                        && "counts".equals(e.getKey().tags().get("txn-rocksdb-state-id")))
                .map(e -> e.getValue().metricValue())
                .findFirst()
                .orElseThrow(() -> new AssertionError("no metric " + name));
    }

    /** The store {@code counts} in the test's directory (indexed-batch). */
    private NativeKeyValueStore openCounts() {
        return NativeKeyValueStore.open(
                "counts",
                tmp.resolve("counts"),
                OpenOptions.builder()
                        .strategy(TransactionStrategy.INDEXED_BATCH)
                        .build());
    }
}
