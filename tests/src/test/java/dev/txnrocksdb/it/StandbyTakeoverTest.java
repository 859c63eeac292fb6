package dev.txnrocksdb.it;

import static dev.txnrocksdb.it.BrokerFixture.say;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Standby replicas on a real KRaft broker: two instances of {@link EosCrashApp} (child JVMs, own state
 * directories, {@code num.standby.replicas=1}, exactly-once, {@code enable.transactional.statestores=true},
 * our stores for the whole DSL). Once both run and the standbys have caught up, the instance with the
 * most active tasks is killed with SIGKILL in the middle of a burst of input. The survivor must take
 * over every active task, restore only a small tail of the taken-over tasks' changelogs (its
 * {@code StateRestoreListener}: under 25% of those changelog partitions), and the read_committed
 * output must still be exactly-once.
 */
class StandbyTakeoverTest {

    static final int PARTITIONS = 2;
    static final int RECORDS = 20_000;
    static final long SEED = 11L;
    static final String APP = "standby";
    static final Pattern TASKS = Pattern.compile("TASKS active=\\[(.*)] standby=\\[(.*)] lags=\\{(.*)}");

    static BrokerFixture kafka;

    @BeforeAll
    static void startBroker() throws Exception {
        kafka = BrokerFixture.start("standby");
        kafka.createTopics(
                PARTITIONS,
                EosCrashApp.INPUT,
                EosCrashApp.kvOut(APP),
                EosCrashApp.windowOut(APP),
                EosCrashApp.sessionOut(APP));
    }

    @AfterAll
    static void stopBroker() throws Exception {
        if (kafka != null) kafka.close();
    }

    /** One answer to the {@code tasks} command. */
    record Tasks(Set<String> active, Set<String> standby, Map<String, Long> lags) {
        static Tasks of(String line) {
            Matcher m = TASKS.matcher(line);
            assertTrue(m.matches(), line);
            Map<String, Long> lags = new TreeMap<>();
            for (String kv : m.group(3).split(", ")) {
                if (!kv.isEmpty())
                    lags.put(kv.substring(0, kv.indexOf('=')), Long.parseLong(kv.substring(kv.indexOf('=') + 1)));
            }
            return new Tasks(split(m.group(1)), split(m.group(2)), lags);
        }

        private static Set<String> split(String s) {
            Set<String> r = new TreeSet<>();
            for (String t : s.split(", ")) if (!t.isEmpty()) r.add(t);
            return r;
        }

        /** The largest lag of the local store partitions of {@code tasks} ("0_1" -> partition 1). */
        long maxLag(Set<String> tasks) {
            long max = 0;
            for (Map.Entry<String, Long> e : lags.entrySet()) {
                String partition = e.getKey().substring(e.getKey().lastIndexOf('/') + 1);
                if (tasks.contains("0_" + partition)) max = Math.max(max, e.getValue());
            }
            return max;
        }
    }

    static Tasks tasks(AppProcess app) throws Exception {
        return Tasks.of(app.ask("tasks", "TASKS ", Duration.ofSeconds(30)));
    }

    @Test
    void survivorTakesOverFromItsStandbysWithOnlyATailToRestore() throws Exception {
        long started = System.nanoTime();
        WordInput input = new WordInput(RECORDS, SEED);
        input.produceUpTo(kafka, RECORDS / 2);
        List<AppProcess> apps = new ArrayList<>();
        for (String instance : List.of("A", "B")) {
            String stateDir = Files.createDirectories(kafka.tmp.resolve(APP + "-" + instance + "-state"))
                    .toString();
            apps.add(AppProcess.start(
                    APP + "-" + instance,
                    kafka,
                    APP,
                    stateDir,
                    true,
                    "num.standby.replicas=1",
                    "main.consumer.group.instance.id=" + APP + "-" + instance));
        }
        try {
            for (AppProcess app : apps) app.awaitLine(l -> l.equals("RUNNING"), Duration.ofSeconds(90));
            kafka.awaitGroupCaughtUp(APP, EosCrashApp.INPUT, PARTITIONS, Duration.ofSeconds(120));

            // every task is active on one instance and standby on the other, and the standbys have caught up
            Tasks[] t = new Tasks[2];
            BrokerFixture.await(
                    "both instances RUNNING with every task active once and standby once, standbys caught up",
                    Duration.ofSeconds(90),
                    () -> {
                        try {
                            t[0] = tasks(apps.get(0));
                            t[1] = tasks(apps.get(1));
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                        Set<String> all = Set.of("0_0", "0_1");
                        boolean assigned = union(t[0].active(), t[1].active()).equals(all)
                                && t[0].active().equals(t[1].standby())
                                && t[1].active().equals(t[0].standby());
                        // under exactly-once a caught-up standby still lags by the commit markers it skips
                        return assigned && t[0].maxLag(t[0].standby()) <= 10 && t[1].maxLag(t[1].standby()) <= 10;
                    });
            int v = t[0].active().size() >= t[1].active().size() ? 0 : 1;
            AppProcess victim = apps.get(v);
            AppProcess survivor = apps.get(1 - v);
            Set<String> takenOver = t[v].active();
            say("before the kill: " + victim.name + " " + t[v] + "; " + survivor.name + " " + t[1 - v]);

            // a burst of input; kill the victim while it processes it
            int victimMark = victim.mark();
            input.produceUpTo(kafka, RECORDS);
            victim.awaitLine(victimMark, l -> l.startsWith("PROCESSED "), Duration.ofSeconds(60));
            long processed = victim.lastProcessed();
            int survivorMark = survivor.mark();
            long killedAt = System.nanoTime();
            int exit = victim.kill();

            // the survivor takes over every task
            survivor.awaitLine(survivorMark, l -> l.equals("STATE REBALANCING"), Duration.ofSeconds(60));
            BrokerFixture.await(survivor.name + " RUNNING with both tasks active", Duration.ofSeconds(90), () -> {
                try {
                    return tasks(survivor).active().equals(Set.of("0_0", "0_1"))
                            && survivor.linesFrom(survivorMark).contains("RUNNING");
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            long takeoverMs = BrokerFixture.ms(killedAt);
            kafka.awaitGroupCaughtUp(APP, EosCrashApp.INPUT, PARTITIONS, Duration.ofSeconds(120));

            // restored: only the tail the standby had not applied yet
            Map<String, Long> restored = survivor.restoredSince(survivorMark);
            Map<TopicPartition, Long> ends = kafka.endOffsets(EosCrashApp.changelogs(APP), PARTITIONS);
            long restoredTakenOver = 0;
            long changelogTakenOver = 0;
            for (Map.Entry<TopicPartition, Long> e : ends.entrySet()) {
                if (!takenOver.contains("0_" + e.getKey().partition())) continue;
                changelogTakenOver += e.getValue();
                for (Map.Entry<String, Long> r : restored.entrySet()) {
                    if (r.getKey().startsWith(e.getKey() + " ")) restoredTakenOver += r.getValue();
                }
            }
            List<String> promoted = survivor.linesFrom(survivorMark).stream()
                    .filter(l -> l.startsWith("STANDBY-SUSPENDED"))
                    .toList();
            say(String.format(
                    "[standby] killed %s (exit %d) at ~%d processed, active %s; %s took over in %d ms and restored %d"
                            + " records of the taken-over tasks' %d changelog records (%.1f%%) %s; standby events: %s",
                    victim.name,
                    exit,
                    processed,
                    takenOver,
                    survivor.name,
                    takeoverMs,
                    restoredTakenOver,
                    changelogTakenOver,
                    100.0 * restoredTakenOver / Math.max(1, changelogTakenOver),
                    restored,
                    promoted));
            assertFalse(restored.isEmpty(), "the survivor reported no restoration of the taken-over tasks");
            for (String changelog : EosCrashApp.changelogs(APP)) {
                for (String task : takenOver) {
                    String tp = changelog + "-" + task.substring(task.indexOf('_') + 1);
                    assertTrue(
                            promoted.stream()
                                    .anyMatch(l ->
                                            l.startsWith("STANDBY-SUSPENDED " + tp + " ") && l.contains(" PROMOTED ")),
                            tp + ": the survivor's standby was not promoted: " + promoted);
                }
            }
            assertTrue(
                    restoredTakenOver * 4 < changelogTakenOver,
                    "the survivor restored " + restoredTakenOver + " of " + changelogTakenOver
                            + " changelog records: its standby state was not used");

            // exactly-once output
            Map<String, List<Long>> kv =
                    kafka.readCommitted(EosCrashApp.kvOut(APP), PARTITIONS, RECORDS, Duration.ofSeconds(60));
            Map<String, List<Long>> win =
                    kafka.readCommitted(EosCrashApp.windowOut(APP), PARTITIONS, RECORDS, Duration.ofSeconds(60));
            Map<String, List<Long>> ses =
                    kafka.readCommitted(EosCrashApp.sessionOut(APP), PARTITIONS, 0, Duration.ofSeconds(60));
            List<String> problems = input.checkExactlyOnce(kv, win, ses);
            if (!problems.isEmpty()) kafka.showLogs(APP);
            assertTrue(problems.isEmpty(), "output is not exactly-once:\n  " + String.join("\n  ", problems));
            say("[standby] output exactly-once OK, " + BrokerFixture.ms(started) / 1000 + " s");
        } finally {
            for (AppProcess app : apps) app.stop();
        }
    }

    static Set<String> union(Set<String> a, Set<String> b) {
        Set<String> s = new TreeSet<>(a);
        s.addAll(b);
        return s;
    }
}
