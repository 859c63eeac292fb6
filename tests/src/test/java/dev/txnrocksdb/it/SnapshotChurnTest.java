package dev.txnrocksdb.it;

import static dev.txnrocksdb.it.BrokerFixture.say;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Snapshots cost a few threads and little memory per process, not a pool per store: a long-lived
 * instance owning 32 key-value stores (32 partitions) while a second instance joins and leaves
 * ({@code it.churn.cycles}, default 20, every other one by {@code kill -9}), once with snapshots off
 * and once on (a {@code file://} location, a snapshot every 300 ms). With snapshots on, the first
 * instance's threads stay within 10 of snapshots off and flat across the cycles, and its peak resident
 * memory within 48 MiB ({@code /proc/<pid>/status}, sampled after each cycle once it runs its tasks; its
 * heap pinned, so the two runs differ by what lives outside the heap).
 */
class SnapshotChurnTest {
    static final int PARTITIONS = 32;
    static final int CYCLES = Integer.getInteger("it.churn.cycles", 20);

    static BrokerFixture kafka;

    @BeforeAll
    static void start() throws Exception {
        kafka = BrokerFixture.start("snapshots-churn");
    }

    @AfterAll
    static void stop() throws Exception {
        if (kafka != null) kafka.close();
    }

    /** An instance's threads and resident set size (KiB) after each cycle. */
    record Samples(List<Long> threads, List<Long> rssKiB) {
        long maxThreads() {
            return threads.stream().mapToLong(Long::longValue).max().orElse(0);
        }

        /** The peak resident set size. */
        long maxRss() {
            return rssKiB.stream().mapToLong(Long::longValue).max().orElse(0);
        }
    }

    @Test
    void threadsAndMemoryWithSnapshotsStayThoseOfAnInstanceWithout() throws Exception {
        Samples off = churn("churn-off", false);
        Samples on = churn("churn-on", true);
        say(String.format(
                "churn, %d stores, %d cycles: threads off %s, on %s; RSS KiB off %s, on %s",
                PARTITIONS, CYCLES, off.threads(), on.threads(), off.rssKiB(), on.rssKiB()));
        say(String.format(
                "churn: threads at most %d off, %d on; peak RSS %d MiB off, %d MiB on (%+d MiB, heap pinned at 512 MiB)",
                off.maxThreads(),
                on.maxThreads(),
                off.maxRss() >> 10,
                on.maxRss() >> 10,
                (on.maxRss() - off.maxRss()) >> 10));
        assertTrue(
                on.maxThreads() <= off.maxThreads() + 10,
                "threads with snapshots " + on.threads() + ", without " + off.threads());
        int half = on.threads().size() / 2;
        long firstHalf = on.threads().subList(0, half).stream()
                .mapToLong(Long::longValue)
                .max()
                .orElse(0);
        long secondHalf = on.threads().subList(half, on.threads().size()).stream()
                .mapToLong(Long::longValue)
                .max()
                .orElse(0);
        assertTrue(secondHalf <= firstHalf + 3, "threads flat across the cycles: " + on.threads());
        // 48 MiB: the process's snapshot threads, client and buffers (19 MiB measured); a cost per
        // store, as before issue 46 (about 12 MB each), would be 384 MB for 32 stores.
        assertTrue(
                on.maxRss() - off.maxRss() <= 48 << 10,
                "peak RSS with snapshots " + on.rssKiB() + " KiB, without " + off.rssKiB());
    }

    /** Runs the churn for one app and returns the long-lived instance's samples. */
    static Samples churn(String appId, boolean snapshots) throws Exception {
        String input = appId + "-input";
        List<String> topics = List.of(input, EosCrashApp.kvOut(appId));
        kafka.createTopicsWithLeaders(PARTITIONS, topics);
        WordInput words = new WordInput(200 * (CYCLES + 2), 31L).topic(input);
        List<String> settings = new ArrayList<>(List.of(
                EosCrashApp.INPUT_ARG + "=" + input,
                EosCrashApp.TOPOLOGY_ARG + "=kv",
                "txn.rocksdb.snapshot.interval.ms=300"));
        if (snapshots) {
            Path location = kafka.tmp.resolve(appId + "-snapshots");
            Files.createDirectories(location);
            settings.add("txn.rocksdb.snapshot.location=" + location.toUri());
        }
        String[] first = settings.toArray(String[]::new);
        settings.add("consumer.group.instance.id=" + appId + "-instance-2");
        String[] second = settings.toArray(String[]::new);

        words.produceUpTo(kafka, 200);
        // The heap is committed and touched at start, so the resident sets of the two runs differ
        // by what lives outside the heap, not by when each JVM chose to grow its heap.
        AppProcess a = AppProcess.start(
                List.of("-Xms512m", "-Xmx512m", "-XX:+AlwaysPreTouch"),
                appId + "#a",
                kafka,
                appId,
                kafka.tmp.resolve(appId + "-a").toString(),
                true,
                first);
        List<Long> threads = new ArrayList<>();
        List<Long> rss = new ArrayList<>();
        try {
            a.awaitLine(l -> l.equals("RUNNING"), Duration.ofSeconds(120));
            for (int cycle = 0; cycle < CYCLES; cycle++) {
                Path bState = kafka.tmp.resolve(appId + "-b" + cycle);
                AppProcess b = AppProcess.start(appId + "#b" + cycle, kafka, appId, bState.toString(), true, second);
                try {
                    b.awaitLine(l -> l.equals("RUNNING"), Duration.ofSeconds(120));
                    words.produceUpTo(kafka, 200 * (cycle + 2));
                    Thread.sleep(1_000);
                } finally {
                    int mark = a.mark();
                    if (cycle % 2 == 0) {
                        b.stop();
                    } else {
                        b.kill();
                    }
                    a.awaitLine(mark, l -> l.equals("RUNNING"), Duration.ofSeconds(120));
                }
                // settled: its tasks running again, snapshots of them taken
                Thread.sleep(2_000);
                long[] sample = status(a.process.pid());
                threads.add(sample[0]);
                rss.add(sample[1]);
            }
        } finally {
            a.stop();
        }
        return new Samples(threads, rss);
    }

    /** {Threads, VmRSS in KiB} of a process, from /proc/<pid>/status. */
    static long[] status(long pid) throws Exception {
        long threads = -1;
        long rss = -1;
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
            if (line.startsWith("Threads:")) {
                threads = Long.parseLong(line.substring(8).trim());
            } else if (line.startsWith("VmRSS:")) {
                rss = Long.parseLong(line.substring(6).replace("kB", "").trim());
            }
        }
        return new long[] {threads, rss};
    }
}
