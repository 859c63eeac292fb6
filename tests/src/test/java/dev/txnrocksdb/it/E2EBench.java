package dev.txnrocksdb.it;

import static dev.txnrocksdb.it.BrokerFixture.say;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.txnrocksdb.examples.wordcount.KafkaBroker;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * The end-to-end benchmarks of issues 10 and 22, run by {@code bench/e2e.sh} (see bench/README.md),
 * which write one JSON file ({@link E2EResults}) that {@code bench/report_e2e.py} turns into Markdown
 * and plots:
 * <ol>
 * <li><b>recovery</b>: per state size N, an exactly-once word count ({@link EosCrashApp} with
 * {@code eos-app.topology=kv}: one key-value store) is given N distinct keys of state
 * ({@link RecoveryLoad}: through its changelog, restored by its first start, or by processing N input
 * records) and checked ({@link RecoveryLoad#probe}); while a trickle of updates keeps it busy it is
 * killed with SIGKILL and restarted, {@code kills} times. Per restart: process launch to the first
 * record processed, launch to RUNNING, and the changelog records restored (its
 * {@code StateRestoreListener}'s RESTORE-END lines).</li>
 * <li><b>throughput</b>: {@link EosCrashApp}'s full topology (count, windowed count, session count)
 * over the same pre-produced {@link WordInput}; records/s from the first record processed until the
 * group's committed offsets reach the input's end, and the CPU the app, the broker and the machine
 * used meanwhile ({@link CpuSample}).</li>
 * <li><b>memory</b>: peak RSS of one JVM per column holding many bare key-value stores under puts and
 * commits ({@code dev.txnrocksdb.bench.StoreMemory} from the bench module's jar).</li>
 * <li><b>ttl</b>: a deduplication with a time-to-live against the punctuator workaround, the
 * time-to-live's own cost and a mass expiry ({@link TtlBench}, its own columns and properties).</li>
 * </ol>
 * Columns ({@link #COLUMNS}): {@code txn} (ours, indexed-batch, the default), {@code txn-secondary}
 * (ours, secondary-store), {@code kafka-txn} (Kafka 4.4's RocksDB stores with
 * {@code enable.transactional.statestores=true}: the reference), {@code kafka} (the same, flag off);
 * in the throughput part also {@code kafka-memory} (Kafka's in-memory stores: the ceiling of a store
 * inside the JVM) and {@code no-state} (the same input and outputs with no stores: the ceiling of the
 * Streams runtime and the broker).
 *
 * <p>System properties (defaults in brackets): {@code e2e.out} (JSON file, required),
 * {@code e2e.parts} [recovery,throughput,memory,ttl], {@code e2e.merge} [true: keep the parts of an
 * existing {@code e2e.out} that this run does not measure], {@code e2e.smoke} [false: tiny sizes],
 * {@code e2e.partitions} [2], {@code e2e.recovery.sizes} [100000,1000000,3000000,10000000],
 * {@code e2e.recovery.kills} [3], {@code e2e.recovery.columns} [txn,kafka-txn,kafka],
 * {@code e2e.recovery.load} [changelog, or app], {@code e2e.recovery.trickle} [500 records/s],
 * {@code e2e.recovery.newHost} [false; true: every restart on an empty state directory, a task landing
 * on a host without its state: with the column {@code txn-snapshots}, the snapshots' benchmark],
 * {@code e2e.snapshot.intervalMs} [10000: {@code txn-snapshots}' snapshot interval],
 * {@code e2e.throughput.records} [1000000], {@code e2e.throughput.runs} [1],
 * {@code e2e.throughput.warmup} [true: one unrecorded run of {@code kafka-memory} first, warming the broker up],
 * {@code e2e.throughput.columns} [all six], {@code e2e.memory.stores} [50],
 * {@code e2e.memory.keysPerStore} [100000], {@code e2e.memory.commitEvery} [1000],
 * {@code e2e.memory.repeats} [3], {@code e2e.memory.columns} [the four with persistent stores],
 * {@code e2e.rocksdb.options} [none: our stores' RocksDB options, see {@link #ROCKSDB_OPTIONS}],
 * {@code e2e.benchJar} [bench/target/benchmarks.jar], {@code e2e.command}, {@code e2e.gitCommit}
 * (recorded as given).
 */
public final class E2EBench {

    /** What a column's app keeps its state in: decides the parts it runs in and what its state directory must hold. */
    enum StateKind {
        /** Stores on disk (ours or Kafka's RocksDB ones): every part. */
        PERSISTENT,
        /**
         * Kafka's in-memory stores: throughput only. A restart has nothing on disk to recover from, and
         * the memory part's bare stores would hold their 50 x 100,000 keys on the JVM's 512 MiB heap
         * (about 1 GiB with the maps' overhead), measuring the heap limit rather than a store.
         */
        IN_MEMORY,
        /** No stores at all ({@link EosCrashApp.Shape#PASSTHROUGH}): throughput only. */
        NONE
    }

    /**
     * A column: which stores the app gets, as {@link EosCrashApp}'s txn argument plus its
     * {@code key=value} arguments (Streams configs, or the app's own {@code eos-app.*} ones).
     */
    record Column(String id, boolean txn, List<String> appArgs, StateKind state, String description) {
        /** Whether the column makes sense in {@code part}. */
        boolean runsIn(String part) {
            if (part.equals("memory") && id.equals(SNAPSHOTS)) {
                // the memory part's bare stores run outside Kafka Streams: no changelog, no snapshots
                return false;
            }
            return state == StateKind.PERSISTENT || part.equals("throughput");
        }
    }

    static final String REFERENCE = "kafka-txn";
    /** Our column with snapshots: {@link #SNAPSHOT_LOCATION} in its arguments stands for a directory of the run. */
    static final String SNAPSHOTS = "txn-snapshots";

    static final String SNAPSHOT_LOCATION = "@snapshot-location@";
    /** The column of Kafka's in-memory stores: the ceiling of a store inside the JVM, which ours should be within 1.2x of. */
    static final String IN_MEMORY = "kafka-memory";

    static final Map<String, Column> COLUMNS = new LinkedHashMap<>();
    /**
     * {@code e2e.rocksdb.options}: RocksDB options for our columns' stores in this run
     * ({@code txn.rocksdb.options}; Kafka's stores ignore it), for an A/B run of an option against the
     * default, e.g. {@code compaction_style=kCompactionStyleLevel}; the memory part's JVMs get it as
     * {@code bench.rocksdb.options}. Recorded in each part's settings.
     */
    static final String ROCKSDB_OPTIONS = System.getProperty("e2e.rocksdb.options");

    static {
        for (Column c : List.of(
                new Column(
                        "txn",
                        true,
                        ours(),
                        StateKind.PERSISTENT,
                        "ours, indexed-batch strategy (the default): "
                                + "dsl.store.suppliers.class=TxnRocksDBDslStoreSuppliers, enable.transactional.statestores=true"),
                new Column(
                        SNAPSHOTS,
                        true,
                        ours(
                                "txn.rocksdb.snapshot.location=" + SNAPSHOT_LOCATION,
                                "txn.rocksdb.snapshot.interval.ms=" + Long.getLong("e2e.snapshot.intervalMs", 10_000L)),
                        StateKind.PERSISTENT,
                        "ours, indexed-batch, with snapshots (txn.rocksdb.snapshot.location on a "
                                + "file:// directory of the run, txn.rocksdb.snapshot.interval.ms="
                                + Long.getLong("e2e.snapshot.intervalMs", 10_000L)
                                + ")"),
                new Column(
                        "txn-secondary",
                        true,
                        ours("txn.rocksdb.transaction.strategy=secondary-store"),
                        StateKind.PERSISTENT,
                        "ours, secondary-store strategy (txn.rocksdb.transaction.strategy=secondary-store)"),
                new Column(
                        REFERENCE,
                        false,
                        List.of("enable.transactional.statestores=true"),
                        StateKind.PERSISTENT,
                        "Kafka 4.4's RocksDB stores with enable.transactional.statestores=true: the reference"),
                new Column(
                        "kafka",
                        false,
                        List.of(),
                        StateKind.PERSISTENT,
                        "Kafka 4.4's RocksDB stores with the flag off "
                                + "(enable.transactional.statestores=false, Kafka's default)"),
                new Column(
                        IN_MEMORY,
                        false,
                        List.of(
                                "dsl.store.suppliers.class="
                                        + "org.apache.kafka.streams.state.BuiltInDslStoreSuppliers$InMemoryDslStoreSuppliers",
                                "enable.transactional.statestores=true"),
                        StateKind.IN_MEMORY,
                        "Kafka 4.4's in-memory stores (dsl.store.suppliers.class=BuiltInDslStoreSuppliers$InMemoryDslStoreSuppliers, "
                                + "enable.transactional.statestores=true as ours): the ceiling of a store inside the JVM; "
                                + "throughput only"),
                new Column(
                        "no-state",
                        false,
                        List.of(EosCrashApp.TOPOLOGY_ARG + "=passthrough"),
                        StateKind.NONE,
                        "no stores: the same input, every record sent to the same three output topics as a count of 1 "
                                + "(EosCrashApp eos-app.topology=passthrough; no stores, no changelogs): the ceiling "
                                + "of the Streams runtime and the broker; throughput only"))) {
            COLUMNS.put(c.id(), c);
        }
    }

    /**
     * The app arguments of one of our columns: {@code args}, and {@code txn.rocksdb.options} from
     * {@link #ROCKSDB_OPTIONS} when it is set.
     */
    private static List<String> ours(String... args) {
        List<String> r = new ArrayList<>(List.of(args));
        if (ROCKSDB_OPTIONS != null) r.add("txn.rocksdb.options=" + ROCKSDB_OPTIONS);
        return List.copyOf(r);
    }

    private static final boolean SMOKE = Boolean.getBoolean("e2e.smoke");
    private static final int PARTITIONS = Integer.getInteger("e2e.partitions", 2);
    private static final Duration RESTART_TIMEOUT = Duration.ofMinutes(15);

    /** The results file, rewritten after every run. */
    private static E2EResults results;

    private static long started;

    private E2EBench() {}

    public static void main(String[] args) {
        try {
            run();
        } catch (Throwable t) {
            // exit even if a client thread of a failed part is still alive
            System.err.println("e2e: FAILED: " + t);
            t.printStackTrace();
            System.exit(1);
        }
        System.exit(0);
    }

    static void run() throws Exception {
        String out = System.getProperty("e2e.out");
        if (out == null) throw new IllegalArgumentException("-De2e.out=<json file> is required");
        List<String> parts = list("e2e.parts", String.join(",", E2EResults.PARTS));
        for (String p : parts) {
            if (!E2EResults.PARTS.contains(p)) {
                throw new IllegalArgumentException("e2e.parts: unknown part " + p + " " + E2EResults.PARTS);
            }
        }
        started = System.nanoTime();
        results = E2EResults.open(
                new File(out),
                Boolean.parseBoolean(System.getProperty("e2e.merge", "true")),
                SMOKE,
                E2EResults.provenance(
                        System.getProperty("e2e.command", "bench/e2e.sh"),
                        System.getProperty("e2e.gitCommit", ""),
                        machine()),
                parts);
        results.put("reference", REFERENCE);
        Map<String, String> columns = new LinkedHashMap<>();
        COLUMNS.values().forEach(c -> columns.put(c.id(), c.description()));
        results.describeColumns(columns);
        results.checkpoint();
        if (parts.contains("recovery") || parts.contains("throughput") || parts.contains("ttl")) {
            try (BrokerFixture kafka = BrokerFixture.start("e2e")) {
                if (parts.contains("recovery")) recovery(kafka, results.start("recovery"));
                if (parts.contains("throughput")) throughput(kafka, results.start("throughput"));
                if (parts.contains("ttl")) TtlBench.run(kafka, results.start("ttl"), results, SMOKE);
            }
        }
        if (parts.contains("memory")) memory(results.start("memory"));
        say("e2e: wrote " + results.file() + " in " + seconds(started) + " s");
    }

    // ---------------------------------------------------------------- recovery after kill -9

    static void recovery(BrokerFixture kafka, Map<String, Object> r) throws Exception {
        long t0 = System.nanoTime();
        List<Long> sizes = list("e2e.recovery.sizes", SMOKE ? "2000" : "100000,1000000,3000000,10000000").stream()
                .map(s -> (long) Double.parseDouble(s))
                .toList();
        int kills = Integer.getInteger("e2e.recovery.kills", SMOKE ? 1 : 3);
        int trickle = Integer.getInteger("e2e.recovery.trickle", 500);
        boolean newHost = Boolean.getBoolean("e2e.recovery.newHost");
        RecoveryLoad load = RecoveryLoad.of(System.getProperty("e2e.recovery.load", "changelog"));
        List<Column> columns = columns("e2e.recovery.columns", "recovery", "txn,kafka-txn,kafka");
        Map<String, Object> settings = new LinkedHashMap<>();
        settings.put("sizes", sizes);
        settings.put("kills", kills);
        settings.put("partitions", PARTITIONS);
        settings.put("trickleRecordsPerSecond", trickle);
        settings.put("newHost", newHost);
        settings.put("columns", columns.stream().map(Column::id).toList());
        if (ROCKSDB_OPTIONS != null) settings.put("rocksdbOptions", ROCKSDB_OPTIONS);
        settings.put(
                "topology",
                "EosCrashApp with eos-app.topology=kv: stream -> groupByKey -> count (store " + EosCrashApp.KV_STORE
                        + ", no record cache, commit.interval.ms=100, exactly_once_v2) -> output topic");
        settings.put("load", load.id());
        settings.put("loadDescription", load.description());
        List<Map<String, Object>> runs = new ArrayList<>();
        r.put("settings", settings);
        r.put("results", runs);
        Random rnd = new Random(42);
        for (long n : sizes) {
            for (Column c : columns) {
                runs.add(recoveryRun(kafka, c, load, n, kills, trickle, newHost, rnd));
                r.put("seconds", seconds(t0));
                results.checkpoint();
            }
        }
        results.finish("recovery");
    }

    /**
     * One column at one state size: load ({@code load}), check, then {@code kills} kill -9 / restart
     * cycles under a trickle. Every run has its own topics (input, changelog, output), deleted after it.
     * With {@code newHost} each restart is on an empty state directory (a task landing on a host
     * without its state); a column with snapshots then waits, before the first kill, for a snapshot
     * of every partition taken after the load.
     */
    static Map<String, Object> recoveryRun(
            BrokerFixture kafka,
            Column c,
            RecoveryLoad load,
            long n,
            int kills,
            int trickle,
            boolean newHost,
            Random rnd)
            throws Exception {
        String appId = "e2e-rec-" + c.id() + "-" + n;
        String input = appId + "-input";
        String output = EosCrashApp.kvOut(appId);
        String changelog = appId + "-" + EosCrashApp.KV_STORE + "-changelog";
        kafka.createTopics(PARTITIONS, input, output);
        Path stateDir = Files.createDirectories(kafka.tmp.resolve(appId + "-state"));
        Path snapshots = kafka.tmp.resolve(appId + "-snapshots");
        List<String> args = new ArrayList<>(appArgs(c, snapshots));
        args.add(EosCrashApp.INPUT_ARG + "=" + input);
        args.add(EosCrashApp.TOPOLOGY_ARG + "=kv");
        String[] argv = args.toArray(String[]::new);

        AppProcess app = null;
        List<Map<String, Object>> restarts = new ArrayList<>();
        Map<String, Object> r = new LinkedHashMap<>();
        try (Trickle updates = new Trickle(kafka, input, n, trickle)) {
            long t = System.nanoTime();
            double produce = load.produce(kafka, input, changelog, PARTITIONS, n);
            long launch = System.nanoTime();
            app = AppProcess.start(appId + "#0", kafka, appId, stateDir.toString(), c.txn(), argv);
            load.awaitLoaded(kafka, app, appId, input, PARTITIONS, n);
            long loaded = System.nanoTime();
            Map<String, Object> loadResult = new LinkedHashMap<>();
            loadResult.put("method", load.id());
            loadResult.put("seconds", (loaded - t) / 1e9);
            loadResult.put("recordsPerSecond", n / ((loaded - t) / 1e9));
            loadResult.put("produceSeconds", produce);
            loadResult.put("launchToLoadedSeconds", (loaded - launch) / 1e9);
            double restore = restoreMs(app) / 1000;
            if (load == RecoveryLoad.CHANGELOG) {
                loadResult.put("restoreSeconds", restore);
                loadResult.put("restoreRecordsPerSecond", restore > 0 ? n / restore : null);
            }
            RecoveryLoad.probe(kafka, input, output, PARTITIONS, n);
            long changelogAfterLoad = BrokerFixture.sum(kafka.endOffsets(List.of(changelog), PARTITIONS));
            say(String.format(
                    "recovery [%s, %,d keys]: loaded (%s) in %.1f s: produced in %.1f s, app launch to loaded %.1f s%s; "
                            + "probe ok; changelog %,d records",
                    c.id(),
                    n,
                    load.id(),
                    (loaded - t) / 1e9,
                    produce,
                    (loaded - launch) / 1e9,
                    load == RecoveryLoad.CHANGELOG ? String.format(" (restore %.1f s)", restore) : "",
                    changelogAfterLoad));
            r.put("column", c.id());
            r.put("keys", n);
            r.put("load", loadResult);
            r.put("changelogAfterLoad", changelogAfterLoad);
            updates.start();
            if (newHost && c.id().equals(SNAPSHOTS)) {
                long since = System.currentTimeMillis();
                BrokerFixture.await(
                        "a snapshot of every partition after the load",
                        RESTART_TIMEOUT,
                        () -> SnapshotRestoreTest.storesWrittenSince(snapshots, since) >= PARTITIONS);
                say(String.format(
                        "recovery [%s, %,d keys]: a snapshot of every partition %.1f s after the load",
                        c.id(), n, (System.currentTimeMillis() - since) / 1e3));
                r.put("snapshots", snapshotCost(app, n));
            }
            for (int kill = 1; kill <= kills; kill++) {
                // mid-run: the app is processing the trickle
                Thread.sleep(1000 + rnd.nextInt(1000));
                if (!app.process.isAlive())
                    throw new IllegalStateException(app.name + " died before the kill; see its log");
                app.kill();
                if (newHost) {
                    // a new host: the task's state directory is gone
                    KafkaBroker.deleteRecursively(stateDir);
                    Files.createDirectories(stateDir);
                }
                Map<TopicPartition, Long> endsAtKill = kafka.endOffsets(List.of(changelog), PARTITIONS);
                long changelogAtKill = BrokerFixture.sum(endsAtKill);
                launch = System.nanoTime();
                DanglingTransaction dangling = new DanglingTransaction(kafka, changelog, endsAtKill);
                app = AppProcess.start(appId + "#" + kill, kafka, appId, stateDir.toString(), c.txn(), argv);
                app.awaitLine(l -> l.equals("FIRST-PROCESSED"), RESTART_TIMEOUT);
                app.awaitLine(l -> l.equals("RUNNING"), RESTART_TIMEOUT);
                double stableMs = dangling.stop(launch);
                Map<String, Object> k = new LinkedHashMap<>();
                k.put("launchToFirstProcessedMs", (app.arrivalOf(0, l -> l.equals("FIRST-PROCESSED")) - launch) / 1e6);
                k.put("launchToRunningMs", (app.arrivalOf(0, l -> l.equals("RUNNING")) - launch) / 1e6);
                k.put("restoreMs", restoreMs(app));
                k.put("restored", app.restoredTotal());
                k.put("changelogAtKill", changelogAtKill);
                k.put("restoreStarts", restoreStarts(app));
                k.put("openTransactionAtKill", dangling.openAtKill);
                k.put("launchToChangelogStableMs", stableMs);
                restarts.add(k);
                say(String.format(
                        "recovery [%s, %,d keys] kill %d: first record processed %.0f ms after launch "
                                + "(RUNNING %.0f ms), restored %,d of %,d changelog records%s%s",
                        c.id(),
                        n,
                        kill,
                        k.get("launchToFirstProcessedMs"),
                        k.get("launchToRunningMs"),
                        app.restoredTotal(),
                        changelogAtKill,
                        app.restoredDetail(),
                        dangling.openAtKill
                                ? String.format(
                                        "; the killed instance's open transaction on the changelog aborted %.0f ms after launch",
                                        stableMs)
                                : ""));
            }
            r.put("restarts", restarts);
            return r;
        } catch (Exception | AssertionError e) {
            kafka.showLogs(appId);
            throw new IllegalStateException("recovery run " + appId + " failed: " + e.getMessage(), e);
        } finally {
            if (app != null) app.stop();
            KafkaBroker.deleteRecursively(stateDir);
            KafkaBroker.deleteRecursively(snapshots);
            deleteTopics(kafka, input, output, changelog);
        }
    }

    /**
     * Whether the killed instance left a transaction open on the changelog (its last stable offset
     * below its end), and when the broker aborted it. Kafka Streams restores a changelog up to its
     * end offset read uncommitted (KAFKA-10167) with a read_committed consumer, so a restore cannot
     * finish before then. An instance restarted on the same host fences its own transactions at
     * once (the same transactional.id, kept in the state directory's process id); one on a new host
     * has a new id and waits for the transaction's timeout (Kafka Streams' transaction.timeout.ms,
     * 10 s) and the broker's next check for timed-out transactions (every 10 s by default), whatever
     * the store.
     */
    static final class DanglingTransaction {
        final boolean openAtKill;
        private final Thread watcher;
        private volatile long stableAt = -1;

        DanglingTransaction(BrokerFixture kafka, String changelog, Map<TopicPartition, Long> endsAtKill)
                throws Exception {
            Admin admin = kafka.admin();
            boolean open;
            try {
                open = !isStable(kafka, admin, changelog, endsAtKill);
            } catch (Exception e) {
                admin.close();
                throw e;
            }
            openAtKill = open;
            if (!open) {
                admin.close();
                watcher = null;
                return;
            }
            watcher = new Thread(
                    () -> {
                        try (admin) {
                            while (!Thread.currentThread().isInterrupted()) {
                                if (isStable(kafka, admin, changelog, endsAtKill)) {
                                    stableAt = System.nanoTime();
                                    return;
                                }
                                Thread.sleep(50);
                            }
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        } catch (Exception e) {
                            say("recovery: watching the changelog's last stable offset failed: " + e);
                        }
                    },
                    "dangling-transaction-watcher");
            watcher.setDaemon(true);
            watcher.start();
        }

        private static boolean isStable(
                BrokerFixture kafka, Admin admin, String changelog, Map<TopicPartition, Long> ends) throws Exception {
            Map<TopicPartition, Long> stable = kafka.stableOffsets(admin, List.of(changelog), ends.size());
            return ends.entrySet().stream().allMatch(e -> stable.getOrDefault(e.getKey(), -1L) >= e.getValue());
        }

        /** Milliseconds from {@code launch} to the abort (0: none was open; -1: not seen by now). */
        double stop(long launch) throws InterruptedException {
            if (watcher == null) return 0;
            watcher.interrupt();
            watcher.join(5000);
            return stableAt < 0 ? -1 : Math.max(0, (stableAt - launch) / 1e6);
        }
    }

    /** Our column's app arguments, with {@link #SNAPSHOT_LOCATION} replaced by {@code snapshots}' URI. */
    private static List<String> appArgs(Column c, Path snapshots) {
        return c.appArgs().stream()
                .map(a -> a.replace(SNAPSHOT_LOCATION, snapshots.toUri().toString()))
                .toList();
    }

    /** The sum of a store metric over the app's stores. */
    private static long metric(AppProcess app, String name) throws Exception {
        return app.metric(name)[0];
    }

    /**
     * What snapshots cost while a trickle of updates runs: the bytes sent by the snapshots taken over
     * {@code e2e.snapshot.observeMs} (default 30 s) against the state's SST bytes, and the bytes sent
     * until then (the first snapshots hold the whole state).
     */
    private static Map<String, Object> snapshotCost(AppProcess app, long n) throws Exception {
        long sentBefore = metric(app, "snapshot-bytes-sent-total");
        long takenBefore = metric(app, "snapshots-total");
        Thread.sleep(Long.getLong("e2e.snapshot.observeMs", SMOKE ? 3_000L : 30_000L));
        long sent = metric(app, "snapshot-bytes-sent-total") - sentBefore;
        long taken = metric(app, "snapshots-total") - takenBefore;
        long state = metric(app, "live-sst-files-size");
        Map<String, Object> cost = new LinkedHashMap<>();
        cost.put("bytesSentUntilLoaded", sentBefore);
        cost.put("snapshotsObserved", taken);
        cost.put("bytesSentObserved", sent);
        cost.put("bytesPerSnapshot", taken == 0 ? null : sent / taken);
        cost.put("stateSstBytes", state);
        say(String.format(
                "recovery [txn-snapshots, %,d keys]: %d snapshots under the trickle sent %,d bytes (%,d per snapshot) "
                        + "of a state of %,d SST bytes; %,d bytes sent until then",
                n, taken, sent, taken == 0 ? 0 : sent / taken, state, sentBefore));
        return cost;
    }

    static long directoryBytes(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) return 0;
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile)
                    .mapToLong(p -> p.toFile().length())
                    .sum();
        }
    }

    /** First RESTORE-START to last RESTORE-END line of the app (ms), 0 if it restored nothing. */
    private static double restoreMs(AppProcess app) {
        long restoreStart = app.arrivalOf(0, l -> l.startsWith("RESTORE-START "));
        long restoreEnd = app.lastArrivalOf(0, l -> l.startsWith("RESTORE-END "));
        return restoreStart < 0 || restoreEnd < 0 ? 0 : (restoreEnd - restoreStart) / 1e6;
    }

    /** Changelog partition and store to the offset each restore started from, e.g. {@code {"...-changelog-0 word-counts": 0}}. */
    private static Map<String, Long> restoreStarts(AppProcess app) {
        Map<String, Long> starts = new TreeMap<>();
        for (String l : app.linesFrom(0)) {
            if (l.startsWith("RESTORE-START ")) {
                String[] f = l.split(" ");
                starts.put(f[1] + " " + f[2], Long.parseLong(f[3]));
            }
        }
        return starts;
    }

    /** Deletes a finished run's topics (best effort: they only take the broker's disk and page cache). */
    static void deleteTopics(BrokerFixture kafka, String... topics) {
        try (Admin admin = kafka.admin()) {
            admin.deleteTopics(List.of(topics)).topicNameValues().values().forEach(f -> {
                try {
                    f.get(30, TimeUnit.SECONDS);
                } catch (Exception ignored) {
                    // not there (never created) or not deleted: harmless
                }
            });
        }
    }

    /** Updates of random existing keys at a steady rate, from {@link #start} until closed: keeps the app busy across kills. */
    static final class Trickle implements AutoCloseable {
        private final KafkaProducer<String, String> producer;
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final Thread thread;

        Trickle(BrokerFixture kafka, String topic, long keys, int perSecond) {
            producer = kafka.stringProducer();
            thread = new Thread(
                    () -> {
                        Random rnd = new Random(7);
                        long periodNanos = 1_000_000_000L / Math.max(1, perSecond);
                        long next = System.nanoTime();
                        while (running.get()) {
                            producer.send(new ProducerRecord<>(
                                    topic, RecoveryLoad.key(Math.floorMod(rnd.nextLong(), keys)), "t"));
                            next += periodNanos;
                            long sleep = next - System.nanoTime();
                            if (sleep > 0) {
                                try {
                                    Thread.sleep(sleep / 1_000_000, (int) (sleep % 1_000_000));
                                } catch (InterruptedException e) {
                                    return;
                                }
                            }
                        }
                    },
                    "trickle-" + topic);
            thread.setDaemon(true);
        }

        void start() {
            thread.start();
        }

        @Override
        public void close() throws Exception {
            running.set(false);
            if (thread.isAlive()) thread.join(10_000);
            producer.close(Duration.ofSeconds(10));
        }
    }

    // ---------------------------------------------------------------- end-to-end throughput

    static void throughput(BrokerFixture kafka, Map<String, Object> out) throws Exception {
        long t0 = System.nanoTime();
        int records = Integer.getInteger("e2e.throughput.records", SMOKE ? 2_000 : 1_000_000);
        int runs = Integer.getInteger("e2e.throughput.runs", 1);
        List<Column> columns = columns("e2e.throughput.columns", "throughput", null);
        kafka.createTopics(PARTITIONS, EosCrashApp.INPUT);
        // the whole input in the past (an hour before now at its end): the broker refuses timestamps over 1 h ahead
        long firstTs = System.currentTimeMillis() / 60_000 * 60_000
                - Duration.ofHours(1).toMillis()
                - records * WordInput.STEP_MS;
        WordInput input = new WordInput(records, 42, firstTs);
        long t = System.nanoTime();
        input.produceUpTo(kafka, records);
        long produced = BrokerFixture.sum(kafka.endOffsets(List.of(EosCrashApp.INPUT), PARTITIONS));
        if (produced != records) {
            throw new IllegalStateException(EosCrashApp.INPUT + " holds " + produced + " records, not " + records
                    + ": the producer's sends failed (see the broker log)");
        }
        say(String.format("throughput: %,d records produced to %s in %.1f s", records, EosCrashApp.INPUT, seconds(t)));
        Map<String, Object> settings = new LinkedHashMap<>();
        settings.put("records", records);
        settings.put("runs", runs);
        settings.put("partitions", PARTITIONS);
        settings.put("columns", columns.stream().map(Column::id).toList());
        if (ROCKSDB_OPTIONS != null) settings.put("rocksdbOptions", ROCKSDB_OPTIONS);
        settings.put(
                "topology",
                "EosCrashApp: stream -> groupByKey -> count (KV), 10 s tumbling-window count, "
                        + "5 s-gap session count, each to an output topic; no record cache, commit.interval.ms=100, exactly_once_v2; "
                        + WordInput.WORDS + " skewed words, one record every " + WordInput.STEP_MS
                        + " ms of event time");
        settings.put(
                "cpu",
                "CPU used from the first record processed to the end, in cores (CPU seconds per second): the "
                        + "app JVM's and the broker JVM's (user + system, /proc/<pid>/stat), and the machine's busy time "
                        + "(/proc/stat: everything on it, the driver and other processes included)");
        boolean warmup = Boolean.parseBoolean(System.getProperty("e2e.throughput.warmup", "true"));
        settings.put(
                "warmup",
                warmup
                        ? "one unrecorded run of " + IN_MEMORY + " before the first measured one: the broker's "
                                + "JIT warms up in it (without it the first column measured ran up to 13% slower than in a later run)"
                        : "none");
        out.put("settings", settings);
        Map<String, List<Map<String, Object>>> byColumn = byColumn(out, columns);
        if (warmup) {
            say("throughput: warm-up run (not recorded)");
            throughputRun(kafka, COLUMNS.get(IN_MEMORY), records, 0);
        }
        for (int run = 1; run <= runs; run++) {
            // later runs rotate the order, so a slow drift of the machine falls on every column
            List<Column> order = new ArrayList<>(columns);
            Collections.rotate(order, -(run - 1));
            for (Column c : order) {
                byColumn.get(c.id()).add(throughputRun(kafka, c, records, run));
                out.put("seconds", seconds(t0));
                results.checkpoint();
            }
        }
        results.finish("throughput");
    }

    /** {@code out.results}: per column {@code {column, runs: [...]}}; returns the runs lists by column. */
    private static Map<String, List<Map<String, Object>>> byColumn(Map<String, Object> out, List<Column> columns) {
        Map<String, List<Map<String, Object>>> byColumn = new LinkedHashMap<>();
        List<Map<String, Object>> results = new ArrayList<>();
        for (Column c : columns) {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("column", c.id());
            List<Map<String, Object>> runs = new ArrayList<>();
            r.put("runs", runs);
            byColumn.put(c.id(), runs);
            results.add(r);
        }
        out.put("results", results);
        return byColumn;
    }

    /**
     * One run of one column: a fresh app processes the whole input. After it stopped (cleanly), its
     * state directory must hold a directory per store if the column's stores are persistent and none
     * otherwise ({@link #checkStateDir}): proof that an in-memory column really ran in memory.
     */
    static Map<String, Object> throughputRun(BrokerFixture kafka, Column c, int records, int run) throws Exception {
        String appId = "e2e-tput-" + c.id() + "-r" + run;
        List<String> outputs =
                List.of(EosCrashApp.kvOut(appId), EosCrashApp.windowOut(appId), EosCrashApp.sessionOut(appId));
        kafka.createTopics(PARTITIONS, outputs.toArray(String[]::new));
        Path stateDir = Files.createDirectories(kafka.tmp.resolve(appId + "-state"));
        long launch = System.nanoTime();
        Path snapshots = kafka.tmp.resolve(appId + "-snapshots");
        AppProcess app = AppProcess.start(
                appId,
                kafka,
                appId,
                stateDir.toString(),
                c.txn(),
                appArgs(c, snapshots).toArray(String[]::new));
        try {
            app.awaitLine(l -> l.equals("FIRST-PROCESSED"), Duration.ofSeconds(120));
            CpuSample cpuAtFirst = CpuSample.take(app.process.pid(), kafka.broker.pid());
            long first = app.arrivalOf(0, l -> l.equals("FIRST-PROCESSED"));
            kafka.awaitGroupCaughtUp(appId, EosCrashApp.INPUT, PARTITIONS, Duration.ofSeconds(120 + records / 1_000));
            long end = System.nanoTime();
            Map<String, Object> cpu =
                    CpuSample.take(app.process.pid(), kafka.broker.pid()).since(cpuAtFirst);
            double secs = (end - first) / 1e9;
            app.stop();
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("run", run);
            r.put("recordsPerSecond", records / secs);
            r.put("seconds", secs);
            r.put("launchToFirstProcessedMs", (first - launch) / 1e6);
            r.put("cpu", cpu);
            r.put("stateDirMiB", checkStateDir(c, stateDir) / 1048576.0);
            if (c.id().equals(SNAPSHOTS)) r.put("snapshotMiB", directoryBytes(snapshots) / 1048576.0);
            say(String.format(
                    "throughput [%s] run %d: %,d records in %.1f s from the first record processed: %,.0f records/s "
                            + "(cores: app %s, broker %s, machine busy %s of %s); state dir %.1f MiB",
                    c.id(),
                    run,
                    records,
                    secs,
                    records / secs,
                    cpu.get("appCores"),
                    cpu.get("brokerCores"),
                    cpu.get("machineBusyCores"),
                    cpu.get("machineCores"),
                    r.get("stateDirMiB")));
            return r;
        } catch (Exception | AssertionError e) {
            kafka.showLogs(appId);
            throw new IllegalStateException("throughput run " + appId + " failed: " + e.getMessage(), e);
        } finally {
            app.stop();
            KafkaBroker.deleteRecursively(stateDir);
            KafkaBroker.deleteRecursively(snapshots);
            List<String> topics = new ArrayList<>(outputs);
            topics.addAll(EosCrashApp.changelogs(appId));
            deleteTopics(kafka, topics.toArray(String[]::new));
        }
    }

    /**
     * The stores' directories in a stopped app's state directory: every store of {@link EosCrashApp}
     * must have one (a directory named after it, wherever the store puts it) if the column's stores are
     * persistent, and none may if they are in memory or absent. Returns the directory's size in bytes.
     */
    static long checkStateDir(Column c, Path stateDir) throws IOException {
        Set<String> stores = Set.of(EosCrashApp.KV_STORE, EosCrashApp.WINDOW_STORE, EosCrashApp.SESSION_STORE);
        Set<String> found = new TreeSet<>();
        long bytes = 0;
        try (Stream<Path> paths = Files.walk(stateDir)) {
            for (Path p : paths.toList()) {
                if (Files.isDirectory(p) && stores.contains(p.getFileName().toString()))
                    found.add(p.getFileName().toString());
                if (Files.isRegularFile(p)) bytes += Files.size(p);
            }
        }
        boolean persistent = c.state() == StateKind.PERSISTENT;
        if (persistent ? !found.equals(stores) : !found.isEmpty()) {
            throw new IllegalStateException(
                    c.id() + ": the state directory holds store directories " + found + ", expected "
                            + (persistent ? stores + " (persistent stores)" : "none (" + c.state() + ")")
                            + ": the column did not run with the stores it claims");
        }
        return bytes;
    }

    // ---------------------------------------------------------------- memory: peak RSS with many stores

    static void memory(Map<String, Object> out) throws Exception {
        long t0 = System.nanoTime();
        int stores = Integer.getInteger("e2e.memory.stores", SMOKE ? 5 : 50);
        int keysPerStore = Integer.getInteger("e2e.memory.keysPerStore", SMOKE ? 2_000 : 100_000);
        int commitEvery = Integer.getInteger("e2e.memory.commitEvery", 1_000);
        int repeats = Integer.getInteger("e2e.memory.repeats", SMOKE ? 1 : 3);
        List<Column> columns = columns("e2e.memory.columns", "memory", null);
        out.put("settings", memorySettings(stores, keysPerStore, commitEvery, repeats, columns));
        Map<String, List<Map<String, Object>>> byColumn = byColumn(out, columns);
        for (int rep = 1; rep <= repeats; rep++) {
            List<Column> order = new ArrayList<>(columns);
            Collections.rotate(order, -(rep - 1));
            for (Column c : order) {
                Map<String, String> result = parseResult(runBench(
                        "RESULT ",
                        "StoreMemory-" + c.id() + "-" + rep,
                        c.id(),
                        Integer.toString(stores),
                        Integer.toString(keysPerStore),
                        Integer.toString(commitEvery)));
                Map<String, Object> r = new LinkedHashMap<>();
                r.put("repeat", rep);
                r.put("vmHwmMiB", Long.parseLong(result.get("vmHwmKiB")) / 1024.0);
                r.put("vmRssMiB", Long.parseLong(result.get("vmRssKiB")) / 1024.0);
                r.put("heapUsedMiB", Long.parseLong(result.get("heapUsedKiB")) / 1024.0);
                r.put("seconds", Double.parseDouble(result.get("seconds")));
                byColumn.get(c.id()).add(r);
                say(String.format(
                        "memory [%s] repeat %d: peak RSS %.0f MiB (RSS at the end %.0f MiB, heap used %.0f MiB), %s s",
                        c.id(),
                        rep,
                        r.get("vmHwmMiB"),
                        r.get("vmRssMiB"),
                        r.get("heapUsedMiB"),
                        result.get("seconds")));
                out.put("seconds", seconds(t0));
                results.checkpoint();
            }
        }
        results.finish("memory");
    }

    private static Map<String, Object> memorySettings(
            int stores, int keysPerStore, int commitEvery, int repeats, List<Column> columns) {
        Map<String, Object> settings = new LinkedHashMap<>();
        settings.put("stores", stores);
        settings.put("keysPerStore", keysPerStore);
        settings.put("commitEvery", commitEvery);
        settings.put("repeats", repeats);
        settings.put("jvm", "-Xmx512m (as the Streams app JVMs)");
        settings.put("columns", columns.stream().map(Column::id).toList());
        if (ROCKSDB_OPTIONS != null) settings.put("rocksdbOptions", ROCKSDB_OPTIONS);
        settings.put(
                "workload",
                "one JVM per column and repeat: " + stores + " bare key-value stores (bench module's "
                        + "BenchStore, exactly_once_v2 app configs), " + keysPerStore
                        + " distinct 16-byte keys each, a get then "
                        + "a put of a 100-byte value per key, every store committed after each " + commitEvery
                        + " records per store, then a get of every 10th key; peak RSS = VmHWM of /proc/self/status; "
                        + "seconds = the whole run in that JVM");
        return settings;
    }

    /** The machine, as the JMH harness describes it ({@code StoreMemory machine}). */
    static Object machine() throws Exception {
        String line = runBench("MACHINE ", "machine", "machine");
        return new ObjectMapper().readValue(line, Map.class);
    }

    /** Runs {@code StoreMemory <args>} from the bench jar in its own JVM; returns its line starting with {@code prefix}, stripped. */
    static String runBench(String prefix, String logName, String... args) throws Exception {
        String jar = System.getProperty("e2e.benchJar", "bench/target/benchmarks.jar");
        if (!new File(jar).isFile())
            throw new IllegalStateException(jar + " missing: build the bench module (bench/e2e.sh without --no-build)");
        List<String> cmd = new ArrayList<>(
                List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m"));
        if (ROCKSDB_OPTIONS != null) cmd.add("-Dbench.rocksdb.options=" + ROCKSDB_OPTIONS);
        cmd.addAll(List.of("-cp", jar, "dev.txnrocksdb.bench.StoreMemory"));
        cmd.addAll(Arrays.asList(args));
        Path log = Files.createTempFile("txn-rocksdb-e2e-" + logName + "-", ".log");
        Process p = new ProcessBuilder(cmd).redirectError(log.toFile()).start();
        String found = null;
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String l;
            while ((l = r.readLine()) != null) {
                if (l.startsWith(prefix)) found = l.substring(prefix.length());
            }
        }
        if (!p.waitFor(30, TimeUnit.MINUTES)) p.destroyForcibly();
        if (p.exitValue() != 0 || found == null) {
            List<String> lines = Files.readAllLines(log);
            throw new IllegalStateException("StoreMemory " + String.join(" ", args) + " failed (exit " + p.exitValue()
                    + "); last lines of " + log + ":\n"
                    + String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size())));
        }
        Files.delete(log);
        return found;
    }

    private static Map<String, String> parseResult(String line) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String f : line.trim().split(" ")) {
            int eq = f.indexOf('=');
            m.put(f.substring(0, eq), f.substring(eq + 1));
        }
        return m;
    }

    // ---------------------------------------------------------------- helpers

    static List<String> list(String property, String defaults) {
        return Arrays.stream(System.getProperty(property, defaults).split(","))
                .map(String::trim)
                .filter(s -> !s.isEmpty())
                .toList();
    }

    /**
     * The columns {@code property} names, else {@code defaults}, else (null) every column that runs
     * in {@code part}; refuses unknown columns and columns that do not run in {@code part}.
     */
    private static List<Column> columns(String property, String part, String defaults) {
        List<String> all = COLUMNS.values().stream()
                .filter(c -> c.runsIn(part))
                .map(Column::id)
                .toList();
        List<Column> r = new ArrayList<>();
        for (String id : list(property, defaults != null ? defaults : String.join(",", all))) {
            Column c = COLUMNS.get(id);
            if (c == null)
                throw new IllegalArgumentException(property + ": unknown column " + id + " (" + COLUMNS.keySet() + ")");
            if (!c.runsIn(part)) {
                throw new IllegalArgumentException(property + ": " + id + " (" + c.state() + ") does not run in the "
                        + part + " part (it runs " + all + ")");
            }
            r.add(c);
        }
        return r;
    }

    static double seconds(long startNanos) {
        return Math.round((System.nanoTime() - startNanos) / 1e8) / 10.0;
    }
}
