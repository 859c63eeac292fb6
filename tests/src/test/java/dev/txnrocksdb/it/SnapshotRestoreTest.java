package dev.txnrocksdb.it;

import static dev.txnrocksdb.it.BrokerFixture.say;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.RemoveMembersFromConsumerGroupOptions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A task that lands on a host without its state restores a snapshot plus the changelog's tail, on
 * a real broker under exactly-once ({@link EosCrashApp}: key-value, window and session counts).
 * The app runs with {@code txn.rocksdb.snapshot.location} on a {@code file://} directory, takes
 * snapshots while it processes, and is killed with SIGKILL; its state directory is then deleted
 * (a new host) while more input arrives, and it restarts on an empty state directory. Every
 * changelog partition's restore must start past offset 0 (at a snapshot's offset + 1) and restore
 * less than half of the changelog, and the read_committed output must still be exactly-once.
 */
class SnapshotRestoreTest {
    static final int PARTITIONS = 2;
    static final int RECORDS = Integer.getInteger("it.snapshot.records", 20_000);
    /** strategy, location kind: each an app of its own. */
    static final List<String[]> CASES = List.of(
            new String[] {"indexed-batch", "file"},
            new String[] {"secondary-store", "file"},
            new String[] {"indexed-batch", "s3"},
            new String[] {"down", "s3"},
            new String[] {"scale-out", "file"},
            new String[] {"recreated", "file"},
            new String[] {"standby", "file"},
            new String[] {"damaged", "file"});

    static BrokerFixture kafka;
    static S3Server s3;

    @BeforeAll
    static void startBroker() throws Exception {
        kafka = BrokerFixture.start("snapshots");
        // every topic up front, each partition with its leader before anything is produced (an
        // idempotent producer racing a topic's first leader election can retry forever)
        List<String> topics = new ArrayList<>();
        for (String[] c : CASES) {
            String appId = appId(c[0], c[1]);
            topics.addAll(List.of(
                    appId + "-input",
                    EosCrashApp.kvOut(appId),
                    EosCrashApp.windowOut(appId),
                    EosCrashApp.sessionOut(appId)));
        }
        kafka.createTopicsWithLeaders(PARTITIONS, topics);
    }

    @AfterAll
    static void stopBroker() throws Exception {
        if (s3 != null) s3.close();
        if (kafka != null) kafka.close();
    }

    static String appId(String strategy, String location) {
        return "snap-" + strategy + "-" + location;
    }

    @ParameterizedTest(name = "{0} strategy, {1} location")
    @CsvSource({"indexed-batch, file", "secondary-store, file", "indexed-batch, s3"})
    void aTaskOnANewHostRestoresTheSnapshotAndOnlyTheTail(String strategy, String locationKind) throws Exception {
        String appId = appId(strategy, locationKind);
        // each app its own input: WordInput's expectations cover exactly what it produced
        String inputTopic = appId + "-input";
        WordInput input = new WordInput(RECORDS, 7L);
        input.topic(inputTopic);
        // where the snapshots' objects can be looked at: the location's directory, or the S3
        // server's file system backend
        Path snapshots;
        List<String> settings = new ArrayList<>(List.of(
                EosCrashApp.INPUT_ARG + "=" + inputTopic,
                "txn.rocksdb.snapshot.interval.ms=300",
                "txn.rocksdb.transaction.strategy=" + strategy,
                // secondary-store: transactions spill to the temporary store
                "txn.rocksdb.secondary.store.spill.bytes=4096"));
        if (locationKind.equals("s3")) {
            if (s3 == null) s3 = S3Server.start(kafka.tmp.resolve("s3"));
            snapshots = s3.bucketDir().resolve(appId);
            settings.add("txn.rocksdb.snapshot.location=" + s3.uri(appId));
            settings.addAll(s3.settings());
        } else {
            snapshots = Files.createDirectories(kafka.tmp.resolve(appId + "-snapshots"));
            settings.add("txn.rocksdb.snapshot.location=" + snapshots.toUri());
        }
        String[] overrides = settings.toArray(String[]::new);
        List<String> changelogs = EosCrashApp.changelogs(appId);

        input.produceUpTo(kafka, RECORDS / 2);
        Path firstHost = kafka.tmp.resolve(appId + "-host1");
        AppProcess app = AppProcess.start(appId + "#0", kafka, appId, firstHost.toString(), true, overrides);
        try {
            snapshotEveryStoreAfterTheFirstHalf(app, input, snapshots);
            say("[" + appId + "] snapshots: " + manifests(snapshots).size() + " manifests kept");
            app.kill();
        } catch (Throwable t) {
            app.kill();
            throw t;
        }
        // a new host: no state directory at all; the input goes on meanwhile
        deleteTree(firstHost);
        input.produceUpTo(kafka, RECORDS);
        long changelogTotal = BrokerFixture.sum(kafka.endOffsets(changelogs, PARTITIONS));

        Path secondHost = kafka.tmp.resolve(appId + "-host2");
        app = AppProcess.start(appId + "#1", kafka, appId, secondHost.toString(), true, overrides);
        try {
            app.awaitLine(l -> l.equals("RUNNING"), Duration.ofSeconds(120));
            List<String> starts = app.linesFrom(0).stream()
                    .filter(l -> l.startsWith("RESTORE-START "))
                    .toList();
            long restored = app.restoredTotal();
            say(String.format(
                    "[%s] new host restored %d of %d changelog records (%.1f%%); %s",
                    appId, restored, changelogTotal, 100.0 * restored / Math.max(1, changelogTotal), starts));
            Map<String, Long> startOffsets = new TreeMap<>();
            for (String line : starts) {
                String[] parts = line.split(" ");
                startOffsets.put(parts[1] + " " + parts[2], Long.parseLong(parts[3]));
            }
            assertEquals(3 * PARTITIONS, startOffsets.size(), "every store of every partition restored: " + starts);
            startOffsets.forEach((store, start) ->
                    assertTrue(start > 0, store + " restored from offset " + start + ", not from a snapshot"));
            assertTrue(
                    restored * 4 < changelogTotal,
                    "restored " + restored + " of " + changelogTotal
                            + " changelog records: more than the tail after the snapshots");

            assertExactlyOnce(appId, input, "after the restore from snapshots");
        } finally {
            app.stop();
        }
    }

    /**
     * The object store down: processing goes on while snapshots fail, and a task on a new host
     * restores from the changelog alone (every restore from offset 0), still exactly-once; once the
     * store is back, snapshots are taken again.
     */
    @org.junit.jupiter.api.Test
    void theObjectStoreDownStopsNeitherProcessingNorARestore() throws Exception {
        String appId = appId("down", "s3");
        String inputTopic = appId + "-input";
        WordInput input = new WordInput(RECORDS, 11L).topic(inputTopic);
        if (s3 == null) s3 = S3Server.start(kafka.tmp.resolve("s3"));
        Path snapshots = s3.bucketDir().resolve(appId);
        List<String> settings = new ArrayList<>(List.of(
                EosCrashApp.INPUT_ARG + "=" + inputTopic,
                "txn.rocksdb.snapshot.interval.ms=300",
                "txn.rocksdb.snapshot.location=" + s3.uri(appId)));
        settings.addAll(s3.settings());
        String[] overrides = settings.toArray(String[]::new);
        List<String> changelogs = EosCrashApp.changelogs(appId);

        input.produceUpTo(kafka, RECORDS / 4);
        Path firstHost = kafka.tmp.resolve(appId + "-host1");
        AppProcess app = startUntilEveryStoreHasASnapshot(appId, firstHost, snapshots, overrides);
        try {
            s3.stop();
            long before = app.lastProcessed();
            input.produceUpTo(kafka, RECORDS / 2);
            long target = (RECORDS / 2) - (RECORDS / 2) % 500;
            app.awaitLine(
                    l -> l.startsWith("PROCESSED ") && Long.parseLong(l.substring(10)) >= target,
                    Duration.ofSeconds(120));
            say("[" + appId + "] processed " + before + " -> " + app.lastProcessed() + " with the object store down");
            app.kill();
        } catch (Throwable t) {
            app.kill();
            throw t;
        }
        deleteTree(firstHost);
        input.produceUpTo(kafka, RECORDS * 3 / 4);
        long changelogTotal = BrokerFixture.sum(kafka.endOffsets(changelogs, PARTITIONS));
        Path secondHost = kafka.tmp.resolve(appId + "-host2");
        app = AppProcess.start(appId + "#1", kafka, appId, secondHost.toString(), true, overrides);
        try {
            app.awaitLine(l -> l.equals("RUNNING"), Duration.ofSeconds(180));
            long restored = app.restoredTotal();
            List<String> starts = app.linesFrom(0).stream()
                    .filter(l -> l.startsWith("RESTORE-START "))
                    .toList();
            say(String.format(
                    "[%s] new host, object store down: restored %d of %d changelog records; %s",
                    appId, restored, changelogTotal, starts));
            assertEquals(3 * PARTITIONS, starts.size(), "every store restored: " + starts);
            for (String line : starts) {
                assertEquals(0L, Long.parseLong(line.split(" ")[3]), "from the changelog's start: " + line);
            }

            // the store back, with more input: snapshots are taken again
            Map<Path, Long> before = newest(snapshots);
            s3.start();
            input.produceUpTo(kafka, RECORDS);
            BrokerFixture.await(
                    "new snapshots once the object store is back",
                    Duration.ofSeconds(90),
                    () -> newer(newest(snapshots), before) >= 1);
            assertExactlyOnce(appId, input, "with the object store down");
        } finally {
            app.stop();
        }
    }

    /**
     * Every object of one store's snapshots damaged in place (a byte flipped, the size kept), the
     * objects every kept snapshot shares among them: each snapshot reads two objects back and sends
     * a damaged one again, so within 2 x (objects / 2) snapshots the store's newest snapshot restores
     * again (checked with the native restore into a scratch directory); then a new host restores
     * every store from the snapshots, not the changelog, exactly-once.
     */
    @org.junit.jupiter.api.Test
    void aDamagedObjectEverySnapshotSharesHealsAndANewHostRestoresTheSnapshots() throws Exception {
        String appId = appId("damaged", "file");
        String inputTopic = appId + "-input";
        WordInput input = new WordInput(RECORDS, 13L).topic(inputTopic);
        Path snapshots = Files.createDirectories(kafka.tmp.resolve(appId + "-snapshots"));
        String[] overrides = {
            EosCrashApp.INPUT_ARG + "=" + inputTopic,
            "txn.rocksdb.snapshot.interval.ms=300",
            "txn.rocksdb.snapshot.location=" + snapshots.toUri()
        };
        input.produceUpTo(kafka, RECORDS / 2);
        Path firstHost = kafka.tmp.resolve(appId + "-host1");
        AppProcess app = AppProcess.start(appId + "#0", kafka, appId, firstHost.toString(), true, overrides);
        try {
            snapshotEveryStoreAfterTheFirstHalf(app, input, snapshots);
            // the input paused, no commit, no snapshot: damage every object of one store's snapshots
            Map<Path, Long> settled = settledNewest(snapshots);
            Path store = settled.keySet().stream()
                    .filter(p -> p.toString().contains(EosCrashApp.KV_STORE))
                    .findFirst()
                    .orElseThrow();
            long damagedAt = settled.get(store);
            int objects = 0;
            try (Stream<Path> files = Files.list(store.resolve("files"))) {
                for (Path object : files.toList()) {
                    byte[] bytes = Files.readAllBytes(object);
                    if (bytes.length > 0) {
                        bytes[bytes.length / 2] ^= 0x10;
                        Files.write(object, bytes);
                        objects++;
                    }
                }
            }
            String storeId = snapshots.relativize(store).toString();
            String partition = store.getFileName().toString().split("-")[0];
            org.apache.kafka.common.TopicPartition changelog = new org.apache.kafka.common.TopicPartition(
                    appId + "-" + EosCrashApp.KV_STORE + "-changelog", Integer.parseInt(partition));
            // the input going on, snapshots go on: once 2 x (objects / 2) more were taken, each having
            // read two objects back (in rounds that check each object once), the newest restores (no restore before it,
            // which would delete
            // the damaged objects it found and so heal them sooner)
            long bound = 2 * ((objects + 1) / 2) + 1;
            for (int step = 1; step <= 60 && newest(snapshots).getOrDefault(store, 0L) < damagedAt + bound; step++) {
                input.produceUpTo(kafka, RECORDS / 2 + 200 + step * 20);
                Thread.sleep(500);
            }
            Map<Path, Long> after = settledNewest(snapshots);
            long usable = newestUsable(snapshots, storeId, changelog);
            say(String.format(
                    "[%s] %d objects of %s damaged after snapshot %d: snapshot %d restores (%d snapshots later,"
                            + " bound %d)",
                    appId, objects, storeId, damagedAt, usable, after.get(store) - damagedAt, bound));
            assertTrue(after.get(store) >= damagedAt + bound, "snapshots went on: " + after.get(store));
            assertEquals(after.get(store), usable, "the newest snapshot restores");
            // the healing as an operator sees it: the store metrics, summed over the app's stores
            long[] damaged = app.metric("snapshot-objects-damaged-total");
            long[] resent = app.metric("snapshot-objects-resent-total");
            say(String.format(
                    "[%s] metrics: snapshot-objects-damaged-total %d, snapshot-objects-resent-total %d (over %d"
                            + " and %d stores)",
                    appId, damaged[0], resent[0], damaged[1], resent[1]));
            assertEquals(3 * PARTITIONS, damaged[1], "every store has snapshot-objects-damaged-total");
            assertEquals(3 * PARTITIONS, resent[1], "every store has snapshot-objects-resent-total");
            assertTrue(damaged[0] >= 1, "objects found damaged: " + damaged[0]);
            assertTrue(resent[0] >= 1, "objects sent again: " + resent[0]);
            app.kill();
        } catch (Throwable t) {
            app.kill();
            throw t;
        }
        deleteTree(firstHost);
        input.produceUpTo(kafka, RECORDS);
        app = AppProcess.start(
                appId + "#1", kafka, appId, kafka.tmp.resolve(appId + "-host2").toString(), true, overrides);
        try {
            app.awaitLine(l -> l.equals("RUNNING"), Duration.ofSeconds(120));
            List<String> starts = app.linesFrom(0).stream()
                    .filter(l -> l.startsWith("RESTORE-START "))
                    .toList();
            say("[" + appId + "] new host after the healing: " + starts);
            assertEquals(3 * PARTITIONS, starts.size(), "every store restored: " + starts);
            for (String line : starts) {
                assertTrue(Long.parseLong(line.split(" ")[3]) > 0, "restored from a snapshot, not from 0: " + line);
            }
            assertExactlyOnce(appId, input, "after the healing");
        } finally {
            app.stop();
        }
    }

    /**
     * The number of the snapshot of {@code storeId} a new host would restore now, or -1 where none
     * would (restored into a scratch directory, deleted after; the changelog's offsets taken as
     * covering every snapshot's).
     */
    static long newestUsable(Path location, String storeId, org.apache.kafka.common.TopicPartition changelog)
            throws IOException {
        Path scratch = Files.createTempDirectory(kafka.tmp, "restore-check");
        try (dev.txnrocksdb.streams.internals.nativeapi.NativeSnapshotLocation snapshots =
                dev.txnrocksdb.streams.internals.nativeapi.NativeSnapshotLocation.open(
                        location.toUri().toString(), Map.of())) {
            var restored = snapshots.restoreNewest(
                    dev.txnrocksdb.streams.internals.nativeapi.SnapshotCalls.RestoreRequest.builder(
                                    storeId, scratch.resolve("store"))
                            .changelog(changelog, 0, Long.MAX_VALUE)
                            .waiting(10_000, 60_000)
                            .build());
            return restored == null ? -1 : restored.seq;
        } finally {
            deleteTree(scratch);
        }
    }

    /** Store directories at the location with a manifest written at or after {@code sinceMillis}. */
    static long storesWrittenSince(Path location, long sinceMillis) {
        if (!Files.isDirectory(location)) return 0;
        try (Stream<Path> files = Files.walk(location)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".manifest"))
                    .filter(p -> {
                        try {
                            return Files.getLastModifiedTime(p).toMillis() >= sinceMillis;
                        } catch (IOException e) {
                            return false;
                        }
                    })
                    .map(p -> p.getParent().getParent())
                    .distinct()
                    .count();
        } catch (IOException | java.io.UncheckedIOException e) {
            return 0;
        }
    }

    /**
     * Scale-out: a second instance joins with an empty state directory, and the task it takes over
     * restores its stores from the snapshots the first instance took, plus the changelog's tail;
     * the output stays exactly-once. ({@code acceptable.recovery.lag} is raised so that Kafka
     * Streams moves the task at once rather than warming a standby up first.)
     */
    @org.junit.jupiter.api.Test
    void aTaskMovingToANewInstanceRestoresTheSnapshotAndOnlyTheTail() throws Exception {
        String appId = appId("scale-out", "file");
        String inputTopic = appId + "-input";
        WordInput input = new WordInput(RECORDS, 13L).topic(inputTopic);
        Path snapshots = Files.createDirectories(kafka.tmp.resolve(appId + "-snapshots"));
        String[] overrides = {
            EosCrashApp.INPUT_ARG + "=" + inputTopic,
            "txn.rocksdb.snapshot.interval.ms=300",
            "txn.rocksdb.snapshot.location=" + snapshots.toUri(),
            "acceptable.recovery.lag=1000000000"
        };
        List<String> changelogs = EosCrashApp.changelogs(appId);

        int half = RECORDS / 2;
        input.produceUpTo(kafka, half);
        AppProcess first = AppProcess.start(
                appId + "#a", kafka, appId, kafka.tmp.resolve(appId + "-a").toString(), true, overrides);
        AppProcess second = null;
        try {
            snapshotEveryStoreAfterTheFirstHalf(first, input, snapshots);
            long changelogTotal = BrokerFixture.sum(kafka.endOffsets(changelogs, PARTITIONS));

            // a second instance, on a host without state (a static member of its own: EosCrashApp
            // gives every instance the same group.instance.id, which would fence the first)
            List<String> secondOverrides = new ArrayList<>(List.of(overrides));
            secondOverrides.add("consumer.group.instance.id=" + appId + "-instance-2");
            second = AppProcess.start(
                    appId + "#b",
                    kafka,
                    appId,
                    kafka.tmp.resolve(appId + "-b").toString(),
                    true,
                    secondOverrides.toArray(String[]::new));
            AppProcess joined = second;
            BrokerFixture.await(
                    "the second instance restored a task",
                    Duration.ofSeconds(120),
                    () -> joined.linesFrom(0).stream()
                                    .filter(l -> l.startsWith("RESTORE-END "))
                                    .count()
                            >= 3);
            List<String> starts = second.linesFrom(0).stream()
                    .filter(l -> l.startsWith("RESTORE-START "))
                    .toList();
            long restored = second.restoredTotal();
            say(String.format(
                    "[%s] the second instance restored %d records (changelogs: %d); %s",
                    appId, restored, changelogTotal, starts));
            assertTrue(starts.size() >= 3, "it restored the stores of at least one task: " + starts);
            for (String line : starts) {
                assertTrue(Long.parseLong(line.split(" ")[3]) > 0, "restored from a snapshot, not from 0: " + line);
            }
            assertTrue(
                    restored * 4 < changelogTotal / 2,
                    "restored " + restored + " records of the moved task's changelogs" + " (about " + changelogTotal / 2
                            + "): more than the tail");

            input.produceUpTo(kafka, RECORDS);
            assertExactlyOnce(appId, input, "after the scale-out");
        } finally {
            if (second != null) second.stop();
            first.stop();
        }
    }

    /**
     * A standby on a host without state: a second instance joins while the first holds every active
     * task ({@code num.standby.replicas=1}, {@code acceptable.recovery.lag=0}, so it gets standbys,
     * not an active task), and its standby stores open from the first instance's snapshots: every
     * standby starts updating past offset 0. Once they caught up, the first instance is killed
     * (SIGKILL): the second takes over from its standbys with only a tail to restore, and the
     * output stays exactly-once.
     */
    @org.junit.jupiter.api.Test
    void aStandbyOnANewHostStartsFromTheSnapshotsAndTakesOverWithOnlyATail() throws Exception {
        String appId = appId("standby", "file");
        WordInput input = new WordInput(RECORDS, 19L).topic(appId + "-input");
        Path snapshots = Files.createDirectories(kafka.tmp.resolve(appId + "-snapshots"));
        String[] overrides = {
            EosCrashApp.INPUT_ARG + "=" + input.topic(),
            "txn.rocksdb.snapshot.interval.ms=300",
            "txn.rocksdb.snapshot.location=" + snapshots.toUri(),
            "num.standby.replicas=1",
            "acceptable.recovery.lag=0"
        };
        List<String> changelogs = EosCrashApp.changelogs(appId);

        int half = RECORDS / 2;
        input.produceUpTo(kafka, half);
        AppProcess first = AppProcess.start(
                appId + "#a", kafka, appId, kafka.tmp.resolve(appId + "-a").toString(), true, overrides);
        AppProcess second = null;
        try {
            snapshotEveryStoreAfterTheFirstHalf(first, input, snapshots);

            // a second instance on a host without state (a static member of its own)
            List<String> secondOverrides = new ArrayList<>(List.of(overrides));
            secondOverrides.add("consumer.group.instance.id=" + appId + "-instance-2");
            second = AppProcess.start(
                    appId + "#b",
                    kafka,
                    appId,
                    kafka.tmp.resolve(appId + "-b").toString(),
                    true,
                    secondOverrides.toArray(String[]::new));
            AppProcess joined = second;
            BrokerFixture.await(
                    "the second instance's standbys of the 6 stores started",
                    Duration.ofSeconds(120),
                    () -> standbyStarts(joined).size() >= 3 * PARTITIONS);
            Map<String, Long> standbyStarts = standbyStarts(second);
            long changelogTotal = BrokerFixture.sum(kafka.endOffsets(changelogs, PARTITIONS));
            say(String.format(
                    "[%s] the second instance's standbys start at %s (changelogs: %d records)",
                    appId, standbyStarts, changelogTotal));
            standbyStarts.forEach((store, start) -> assertTrue(
                    start > 0, store + ": the standby updates from offset " + start + ", not from a snapshot"));
            BrokerFixture.await("the second instance's standbys caught up", Duration.ofSeconds(90), () -> {
                StandbyTakeoverTest.Tasks t = tasks(joined);
                return t.standby().equals(Set.of("0_0", "0_1")) && t.maxLag(t.standby()) <= 10;
            });

            // the first instance killed in the middle of more input: the second takes over
            int mark = second.mark();
            int firstMark = first.mark();
            input.produceUpTo(kafka, RECORDS * 3 / 4);
            first.awaitLine(firstMark, l -> l.startsWith("PROCESSED "), Duration.ofSeconds(60));
            first.kill();
            BrokerFixture.await(
                    second.name + " RUNNING with both tasks active",
                    Duration.ofSeconds(90),
                    () -> tasks(joined).active().equals(Set.of("0_0", "0_1"))
                            && joined.linesFrom(mark).contains("RUNNING"));
            long restored = second.restoredSince(mark).values().stream()
                    .mapToLong(Long::longValue)
                    .sum();
            long changelogNow = BrokerFixture.sum(kafka.endOffsets(changelogs, PARTITIONS));
            say(String.format(
                    "[%s] the second instance took over and restored %d of %d changelog records",
                    appId, restored, changelogNow));
            assertTrue(
                    restored * 4 < changelogNow,
                    "restored " + restored + " of " + changelogNow
                            + " changelog records on taking over: its standbys' state was not used");

            input.produceUpTo(kafka, RECORDS);
            assertExactlyOnce(appId, input, "after the takeover from standbys restored from snapshots");
        } catch (Throwable t) {
            kafka.showLogs(appId);
            throw t;
        } finally {
            if (second != null) second.stop();
            first.stop();
        }
    }

    /** The app's active and standby tasks and its stores' lags, now. */
    static StandbyTakeoverTest.Tasks tasks(AppProcess app) {
        try {
            return StandbyTakeoverTest.tasks(app);
        } catch (Exception e) {
            throw new IllegalStateException(app.name + " did not answer the tasks command", e);
        }
    }

    /** The first STANDBY-START offset of each "topic-partition store" the app printed. */
    static Map<String, Long> standbyStarts(AppProcess app) {
        Map<String, Long> starts = new TreeMap<>();
        for (String line : app.linesFrom(0)) {
            if (!line.startsWith("STANDBY-START ")) continue;
            String[] parts = line.split(" ");
            starts.putIfAbsent(parts[1] + " " + parts[2], Long.parseLong(parts[3]));
        }
        return starts;
    }

    /**
     * The application reset while it is down (its group and changelog topics deleted) and started
     * again on a new host: Kafka Streams creates the changelogs again, with new topic ids, and no
     * store restores a snapshot of the old ones (their state is not in the new changelogs): the
     * stores open empty, the input is counted again from the start, and their next snapshots are
     * filed under the new topics.
     */
    @org.junit.jupiter.api.Test
    void aChangelogDeletedAndCreatedAgainNeverRestoresTheOldTopicsSnapshots() throws Exception {
        String appId = appId("recreated", "file");
        WordInput input = new WordInput(RECORDS, 17L).topic(appId + "-input");
        Path snapshots = Files.createDirectories(kafka.tmp.resolve(appId + "-snapshots"));
        String[] overrides = {
            EosCrashApp.INPUT_ARG + "=" + input.topic(),
            "txn.rocksdb.snapshot.interval.ms=300",
            "txn.rocksdb.snapshot.location=" + snapshots.toUri()
        };
        List<String> changelogs = EosCrashApp.changelogs(appId);

        input.produceUpTo(kafka, RECORDS / 4);
        Path firstHost = kafka.tmp.resolve(appId + "-host1");
        startUntilEveryStoreHasASnapshot(appId, firstHost, snapshots, overrides).kill();
        deleteTree(firstHost);
        Map<Path, Long> oldTopics = settledNewest(snapshots);
        // an application reset, as kafka-streams-application-reset --force does it: the group's
        // members removed, its offsets gone (the input is processed again from the start), the
        // internal topics deleted (Kafka Streams, finding its group's changelogs gone, does not
        // create them again: it waits for them)
        try (Admin admin = kafka.admin()) {
            try {
                admin.removeMembersFromConsumerGroup(appId, new RemoveMembersFromConsumerGroupOptions())
                        .all()
                        .get();
            } catch (java.util.concurrent.ExecutionException e) {
                say("[" + appId + "] no member to remove: " + e.getCause());
            }
            admin.deleteConsumerGroups(List.of(appId)).all().get();
            admin.deleteTopics(changelogs).all().get();
            BrokerFixture.await("the changelogs deleted", Duration.ofSeconds(60), () -> {
                try {
                    return admin.listTopics().names().get().stream().noneMatch(changelogs::contains);
                } catch (Exception e) {
                    return false;
                }
            });
        }

        AppProcess app = AppProcess.start(
                appId + "#1", kafka, appId, kafka.tmp.resolve(appId + "-host2").toString(), true, overrides);
        try {
            app.awaitLine(l -> l.equals("RUNNING"), Duration.ofSeconds(120));
            long[] restored = app.metric("snapshot-restored");
            say(String.format(
                    "[%s] changelogs created again: snapshot-restored sum %d over %d stores; %s",
                    appId,
                    restored[0],
                    restored[1],
                    app.linesFrom(0).stream()
                            .filter(l -> l.startsWith("RESTORE-"))
                            .toList()));
            assertEquals(3 * PARTITIONS, restored[1], "every store of every partition opened");
            assertEquals(-restored[1], restored[0], "a store restored a snapshot of a deleted changelog");
            input.produceUpTo(kafka, RECORDS / 2);
            kafka.awaitGroupCaughtUp(appId, input.topic(), PARTITIONS, Duration.ofSeconds(180));
            // the stores opened empty: each word's count is 1 or its previous count + 1, and the
            // words seen before the reset start over at 1 (an old snapshot restored would go on
            // from the count it held: neither)
            Map<String, List<Long>> counts =
                    kafka.readCommitted(EosCrashApp.kvOut(appId), PARTITIONS, RECORDS / 2, Duration.ofSeconds(60));
            long startedOver = 0;
            for (Map.Entry<String, List<Long>> word : counts.entrySet()) {
                List<Long> c = word.getValue();
                for (int i = 1; i < c.size(); i++) {
                    long count = c.get(i);
                    assertTrue(count == 1 || count == c.get(i - 1) + 1, word.getKey() + "'s counts: " + c);
                    if (count == 1) startedOver++;
                }
            }
            assertTrue(startedOver > 0, "no word's count started over: the stores were not empty");
            BrokerFixture.await(
                    "snapshots of the 6 stores filed under the new changelogs",
                    Duration.ofSeconds(90),
                    () -> newest(snapshots).keySet().stream()
                                    .filter(store -> !oldTopics.containsKey(store))
                                    .count()
                            >= 3 * PARTITIONS);
            assertEquals(
                    oldTopics,
                    newest(snapshots).entrySet().stream()
                            .filter(e -> oldTopics.containsKey(e.getKey()))
                            .collect(java.util.stream.Collectors.toMap(
                                    Map.Entry::getKey, Map.Entry::getValue, (a, b) -> a, TreeMap::new)),
                    "the old changelogs' snapshots are left as they were");
        } catch (Throwable t) {
            kafka.showLogs(appId);
            throw t;
        } finally {
            app.stop();
        }
    }

    /**
     * Starts the app on its first host and waits until it runs and every store of every partition
     * has a snapshot; kills it if that does not happen.
     */
    static AppProcess startUntilEveryStoreHasASnapshot(String appId, Path host, Path snapshots, String[] overrides)
            throws Exception {
        AppProcess app = AppProcess.start(appId + "#0", kafka, appId, host.toString(), true, overrides);
        try {
            app.awaitLine(l -> l.equals("RUNNING"), Duration.ofSeconds(90));
            BrokerFixture.await(
                    "a snapshot of each of the " + 3 * PARTITIONS + " stores",
                    Duration.ofSeconds(90),
                    () -> storesWithSnapshots(snapshots) >= 3 * PARTITIONS);
            return app;
        } catch (Throwable t) {
            app.kill();
            throw t;
        }
    }

    /**
     * Waits until the app runs, has processed the first half of the input and every store of every
     * partition (3 stores x 2 partitions) has a snapshot; then, once the uploads settled, produces a
     * little more input, whose commits take a snapshot of every store holding everything before it,
     * and waits for those.
     */
    static void snapshotEveryStoreAfterTheFirstHalf(AppProcess app, WordInput input, Path snapshots) throws Exception {
        int half = RECORDS / 2;
        app.awaitLine(l -> l.equals("RUNNING"), Duration.ofSeconds(90));
        long processedHalf = half - half % 500;
        app.awaitLine(
                l -> l.startsWith("PROCESSED ") && Long.parseLong(l.substring(10)) >= processedHalf,
                Duration.ofSeconds(120));
        BrokerFixture.await(
                "a snapshot of each of the 6 stores",
                Duration.ofSeconds(90),
                () -> storesWithSnapshots(snapshots) >= 3 * PARTITIONS);
        Map<Path, Long> settled = settledNewest(snapshots);
        input.produceUpTo(kafka, half + 200);
        BrokerFixture.await(
                "a newer snapshot of each of the 6 stores",
                Duration.ofSeconds(90),
                () -> newer(newest(snapshots), settled) >= 3 * PARTITIONS);
    }

    /**
     * Waits until the app consumed its whole input, then asserts that its read_committed output
     * (key-value, window and session counts) is exactly-once for that input.
     */
    static void assertExactlyOnce(String appId, WordInput input, String when) throws Exception {
        assertExactlyOnce(kafka, appId, input, PARTITIONS, RECORDS, when);
    }

    /** {@link #assertExactlyOnce(String, WordInput, String)} for an app of {@code partitions} and {@code records}. */
    static void assertExactlyOnce(
            BrokerFixture kafka, String appId, WordInput input, int partitions, int records, String when)
            throws Exception {
        kafka.awaitGroupCaughtUp(appId, input.topic(), partitions, Duration.ofSeconds(180));
        List<String> problems = input.checkExactlyOnce(
                kafka.readCommitted(EosCrashApp.kvOut(appId), partitions, records, Duration.ofSeconds(60)),
                kafka.readCommitted(EosCrashApp.windowOut(appId), partitions, records, Duration.ofSeconds(60)),
                kafka.readCommitted(EosCrashApp.sessionOut(appId), partitions, 0, Duration.ofSeconds(60)));
        if (!problems.isEmpty()) kafka.showLogs(appId);
        assertTrue(problems.isEmpty(), "output is not exactly-once " + when + ":\n  " + String.join("\n  ", problems));
    }

    /** Each store directory at the location with its newest snapshot's number. */
    static Map<Path, Long> newest(Path location) {
        Map<Path, Long> newest = new TreeMap<>();
        if (!Files.isDirectory(location)) return newest;
        try (Stream<Path> files = Files.walk(location)) {
            files.filter(p -> p.getFileName().toString().endsWith(".manifest"))
                    .forEach(p -> newest.merge(
                            p.getParent().getParent(),
                            Long.parseLong(p.getFileName().toString().replace(".manifest", "")),
                            Math::max));
        } catch (IOException | java.io.UncheckedIOException e) {
            // a file deleted by retention while walking: the next look sees the rest
        }
        return newest;
    }

    /** How many stores have a snapshot newer than in {@code before}. */
    static long newer(Map<Path, Long> now, Map<Path, Long> before) {
        return now.entrySet().stream()
                .filter(e -> e.getValue() > before.getOrDefault(e.getKey(), 0L))
                .count();
    }

    /** The newest snapshots once no new one has appeared for 2 seconds (at most 30 s). */
    static Map<Path, Long> settledNewest(Path location) throws InterruptedException {
        Map<Path, Long> last = newest(location);
        long deadline = System.nanoTime() + 30_000_000_000L;
        long stableSince = System.nanoTime();
        while (System.nanoTime() < deadline && System.nanoTime() - stableSince < 2_000_000_000L) {
            Thread.sleep(200);
            Map<Path, Long> now = newest(location);
            if (!now.equals(last)) {
                last = now;
                stableSince = System.nanoTime();
            }
        }
        return last;
    }

    /** Store directories at the location with at least one manifest. */
    static long storesWithSnapshots(Path location) {
        if (!Files.isDirectory(location)) return 0;
        try (Stream<Path> files = Files.walk(location)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".manifest"))
                    .map(p -> p.getParent().getParent())
                    .distinct()
                    .count();
        } catch (IOException | java.io.UncheckedIOException e) {
            return 0;
        }
    }

    static List<String> manifests(Path location) throws IOException {
        try (Stream<Path> files = Files.walk(location)) {
            return new ArrayList<>(files.filter(p -> p.getFileName().toString().endsWith(".manifest"))
                    .map(p -> location.relativize(p).toString())
                    .sorted()
                    .toList());
        }
    }

    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) return;
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
