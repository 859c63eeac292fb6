package dev.txnrocksdb.it;

import static dev.txnrocksdb.it.BrokerFixture.ms;
import static dev.txnrocksdb.it.BrokerFixture.say;

import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * The kill -9 scenario shared by the crash tests: {@link EosCrashApp} runs in a child JVM on one
 * state directory while the input arrives in chunks; it is killed with SIGKILL at a random moment
 * {@code cycles} times and restarted each time; each restart's restored record count (from its
 * {@code StateRestoreListener}) is recorded against the changelogs' size at that moment. Finally
 * the app drains the input and the three output topics are read with {@code read_committed}.
 */
final class CrashCycles {

    /** One restart: records restored in total and per store, against the changelogs' size. */
    record Restart(int cycle, long restored, long changelogTotal, Map<String, Long> restoredByStore) {}

    record Result(
            List<Restart> restarts,
            Map<String, List<Long>> kv,
            Map<String, List<Long>> window,
            Map<String, List<Long>> session,
            List<String> summary) {}

    private CrashCycles() {}

    /** Records {@code store} restored over all restarts. */
    static long restored(Result r, String store) {
        return r.restarts().stream()
                .mapToLong(x -> x.restoredByStore().getOrDefault(store, 0L))
                .sum();
    }

    static Result run(
            BrokerFixture kafka,
            WordInput input,
            int partitions,
            String appId,
            boolean txn,
            int cycles,
            long seed,
            String... overrides)
            throws Exception {
        long started = System.nanoTime();
        int records = input.size();
        List<String> summary = new ArrayList<>();
        kafka.createTopics(
                partitions, EosCrashApp.kvOut(appId), EosCrashApp.windowOut(appId), EosCrashApp.sessionOut(appId));
        String stateDir =
                Files.createDirectories(kafka.tmp.resolve(appId + "-state")).toString();
        List<String> changelogs = EosCrashApp.changelogs(appId);
        Random rnd = new Random(seed * 31 + appId.hashCode());

        // The input arrives in chunks while the app runs (and gets killed); the first chunk before the start.
        int chunk = (records + cycles) / (cycles + 1);
        input.produceUpTo(kafka, Math.min(chunk, records));
        List<Restart> restarts = new ArrayList<>();
        AppProcess app = AppProcess.start(appId + "#0", kafka, appId, stateDir, txn, overrides);
        try {
            for (int cycle = 1; cycle <= cycles; cycle++) {
                app.awaitLine(l -> l.equals("RUNNING"), Duration.ofSeconds(90));
                if (cycle == 1) {
                    // the first kill only once the first chunk is processed: the tail a restart may
                    // replay is up to one poll batch per partition (about 3,000 changelog records
                    // here), so "restored far below the changelog size" needs a changelog several
                    // times that size to mean something from the first restart on (the app reports
                    // PROCESSED every 500 records)
                    long firstChunk = chunk - chunk % 500;
                    app.awaitLine(
                            l -> l.startsWith("PROCESSED ") && Long.parseLong(l.substring(10)) >= firstChunk,
                            Duration.ofSeconds(90));
                }
                // a random moment while it processes its backlog: between 0.05 and 1.5 s after it is RUNNING
                Thread.sleep(50 + rnd.nextInt(1450));
                long processed = app.lastProcessed();
                int exit = app.kill();
                // the next chunk of input arrives while the app is down
                input.produceUpTo(kafka, Math.min(records, (cycle + 1) * chunk));
                long changelogTotal = BrokerFixture.sum(kafka.endOffsets(changelogs, partitions));

                app = AppProcess.start(appId + "#" + cycle, kafka, appId, stateDir, txn, overrides);
                app.awaitLine(l -> l.equals("RUNNING"), Duration.ofSeconds(120));
                long restored = app.restoredTotal();
                Map<String, Long> byStore = new TreeMap<>();
                app.restoredSince(0)
                        .forEach((tpStore, n) ->
                                byStore.merge(tpStore.substring(tpStore.indexOf(' ') + 1), n, Long::sum));
                restarts.add(new Restart(cycle, restored, changelogTotal, byStore));
                String line = String.format(
                        "[%s] cycle %2d: killed %s (exit %d) at ~%d processed; restart restored %d records"
                                + " of %d changelog records (%.1f%%)%s",
                        appId,
                        cycle,
                        appId + "#" + (cycle - 1),
                        exit,
                        processed,
                        restored,
                        changelogTotal,
                        changelogTotal == 0 ? 0.0 : 100.0 * restored / changelogTotal,
                        app.restoredDetail());
                say(line);
                summary.add(line);
            }
            input.produceUpTo(kafka, records);

            // let it drain, then read
            kafka.awaitGroupCaughtUp(appId, EosCrashApp.INPUT, partitions, Duration.ofSeconds(180));
            Map<String, List<Long>> kv =
                    kafka.readCommitted(EosCrashApp.kvOut(appId), partitions, records, Duration.ofSeconds(60));
            Map<String, List<Long>> win =
                    kafka.readCommitted(EosCrashApp.windowOut(appId), partitions, records, Duration.ofSeconds(60));
            Map<String, List<Long>> ses =
                    kafka.readCommitted(EosCrashApp.sessionOut(appId), partitions, 0, Duration.ofSeconds(60));
            String line = String.format(
                    "[%s] %d cycles, %d records, restored per restart %s, %d s",
                    appId,
                    cycles,
                    records,
                    restarts.stream()
                            .map(x -> x.restored + "/" + x.changelogTotal)
                            .toList(),
                    ms(started) / 1000);
            say(line);
            summary.add(line);
            return new Result(restarts, kv, win, ses, summary);
        } finally {
            app.stop();
        }
    }
}
