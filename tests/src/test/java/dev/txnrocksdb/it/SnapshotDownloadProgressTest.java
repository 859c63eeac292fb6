package dev.txnrocksdb.it;

import static dev.txnrocksdb.it.BrokerFixture.say;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A snapshot download that takes a while shows its progress as it happens, in its log lines and in
 * the store's metrics, while the stream thread waits in it: a new host restores three stores from
 * the tests' S3 server behind a link of {@link UnreliableProxy#THROTTLED_BYTES_PER_SECOND}, with
 * the progress interval at 500 ms (an internal setting; 10 s in production). Each store's lines add
 * up (bytes done never past the total, growing, the summary's bytes the total), and the metrics
 * read on another thread meanwhile show bytes left and the estimated time left, back to 0 once the
 * application runs. Exactly-once output after the restore.
 */
class SnapshotDownloadProgressTest {
    static final int PARTITIONS = 1;
    static final int STORES = 3;
    static final int RECORDS = 12_000;
    static final String APP = "snap-progress";
    static final Pattern LINE = Pattern.compile(
            "store (\\S+): downloading snapshot (\\d+): ([0-9.]+ \\S+) of ([0-9.]+ \\S+) \\((\\d+)%\\), .*/s, .* left");
    static final Pattern DONE = Pattern.compile("store (\\S+): downloading snapshot (\\d+): done, ([0-9.]+ \\S+) in ");

    @Test
    void aSlowDownloadShowsItsProgressInLinesAndMetrics() throws Exception {
        long t0 = System.nanoTime();
        try (BrokerFixture kafka = BrokerFixture.start(APP);
                S3Server s3 = S3Server.start(kafka.tmp.resolve("s3"));
                UnreliableProxy proxy = new UnreliableProxy(s3.port(), UnreliableProxy.Mode.FORWARD, 0)) {
            kafka.createTopicsWithLeaders(
                    PARTITIONS,
                    List.of(
                            APP + "-input",
                            EosCrashApp.kvOut(APP),
                            EosCrashApp.windowOut(APP),
                            EosCrashApp.sessionOut(APP)));
            WordInput input = new WordInput(RECORDS, 31L).topic(APP + "-input");
            Path snapshots = s3.bucketDir().resolve(APP);
            List<String> settings = new ArrayList<>(List.of(
                    EosCrashApp.INPUT_ARG + "=" + APP + "-input",
                    "txn.rocksdb.snapshot.interval.ms=300",
                    "__txn.rocksdb.restore.progress.interval.ms__=500",
                    "txn.rocksdb.snapshot.location=" + s3.uri(APP)));
            settings.addAll(s3.settings(proxy.port()));
            String[] overrides = settings.toArray(String[]::new);

            // the first host: the whole input, a snapshot of each store after it
            input.produceUpTo(kafka, RECORDS);
            AppProcess first = AppProcess.start(
                    APP + "#0", kafka, APP, kafka.tmp.resolve("host1").toString(), true, overrides);
            try {
                kafka.awaitGroupCaughtUp(APP, APP + "-input", PARTITIONS, Duration.ofSeconds(120));
                BrokerFixture.await(
                        "a snapshot of each store",
                        Duration.ofSeconds(60),
                        () -> SnapshotRestoreTest.storesWithSnapshots(snapshots) >= STORES);
                SnapshotRestoreTest.settledNewest(snapshots);
            } finally {
                first.stop();
            }

            // a new host behind the slow link; its metrics read while its stream thread downloads
            proxy.mode(UnreliableProxy.Mode.THROTTLED);
            String name = APP + "#1";
            AppProcess second = AppProcess.start(
                    List.of("-Xmx512m", "-Dorg.slf4j.simpleLogger.log.dev.txnrocksdb.native=info"),
                    name,
                    kafka,
                    APP,
                    kafka.tmp.resolve("host2").toString(),
                    true,
                    overrides);
            long samplesWithBytesLeft = 0;
            long mostSecondsLeft = 0;
            long mostBytesLeft = 0;
            try {
                long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
                while (!second.linesFrom(0).contains("RUNNING")) {
                    assertTrue(System.nanoTime() < deadline, "RUNNING within 120 s");
                    long[] bytesLeft = second.metric("snapshot-download-remaining-bytes");
                    long[] secondsLeft = second.metric("snapshot-download-remaining-seconds");
                    if (bytesLeft[0] > 0) {
                        samplesWithBytesLeft++;
                        mostBytesLeft = Math.max(mostBytesLeft, bytesLeft[0]);
                        mostSecondsLeft = Math.max(mostSecondsLeft, secondsLeft[0]);
                    }
                    Thread.sleep(100);
                }
                // the stores run: nothing left to download, and every store has the gauges
                long[] after = second.metric("snapshot-download-remaining-bytes");
                assertEquals(0, after[0], "nothing left once running");
                assertEquals(STORES, after[1], "every store's gauge");
                long[] ratio = second.metric("snapshot-download-progress-ratio");
                assertEquals(STORES, ratio[0], "each store's ratio is 1 once no download runs");
                assertEquals(STORES, second.metric("snapshot-restored")[1]);
                assertTrue(second.metric("snapshot-restored")[0] > 0, "every store restored a snapshot");
                SnapshotRestoreTest.assertExactlyOnce(
                        kafka, APP, input, PARTITIONS, RECORDS, "after restores over the slow link");
            } finally {
                second.stop();
                proxy.mode(UnreliableProxy.Mode.FORWARD);
            }
            say(String.format(
                    "[%s] metrics during the downloads: %d samples with bytes left (at most %d bytes, %d s left)",
                    APP, samplesWithBytesLeft, mostBytesLeft, mostSecondsLeft));
            assertTrue(samplesWithBytesLeft >= 3, "the gauges showed the downloads as they ran");
            assertTrue(mostSecondsLeft > 0, "and the time left");

            // the lines: per store and snapshot, growing, never past the total; a summary of the total
            String log = Files.readString(kafka.tmp.resolve(name.replace('#', '-') + ".log"));
            List<String> lines =
                    log.lines().filter(l -> l.contains("downloading snapshot")).toList();
            lines.forEach(l -> say("  " + l.substring(l.indexOf("store "))));
            int stores = 0;
            for (String dir : lines.stream()
                    .map(l -> l.substring(l.indexOf("store ") + 6, l.indexOf(": downloading")))
                    .distinct()
                    .toList()) {
                List<String> of = lines.stream()
                        .filter(l -> l.contains("store " + dir + ":"))
                        .toList();
                double previous = -1;
                String total = null;
                int progress = 0;
                for (String l : of) {
                    Matcher m = LINE.matcher(l);
                    if (m.find()) {
                        progress++;
                        double done = bytes(m.group(3));
                        assertTrue(done >= previous, "growing: " + of);
                        assertTrue(done <= bytes(m.group(4)) + 0.05 * bytes(m.group(4)), "not past its total: " + l);
                        previous = done;
                        total = m.group(4);
                    }
                }
                Matcher summary = DONE.matcher(of.get(of.size() - 1));
                assertTrue(summary.find(), "a summary last: " + of);
                if (progress >= 2) stores++;
                assertEquals(total, summary.group(3), "the summary's bytes are the total: " + of);
            }
            assertTrue(stores >= 1, "a download long enough to log twice: " + lines);
        }
        say("  SnapshotDownloadProgressTest took " + BrokerFixture.ms(t0) + " ms");
    }

    /** "1.5 KiB" as bytes. */
    static double bytes(String text) {
        String[] parts = text.split(" ");
        double value = Double.parseDouble(parts[0]);
        return switch (parts[1]) {
            case "B" -> value;
            case "KiB" -> value * 1024;
            case "MiB" -> value * 1024 * 1024;
            default -> value * 1024 * 1024 * 1024;
        };
    }
}
