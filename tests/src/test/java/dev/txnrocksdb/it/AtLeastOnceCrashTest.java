package dev.txnrocksdb.it;

import static dev.txnrocksdb.it.BrokerFixture.say;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * At-least-once crash survival on a real KRaft broker: {@link EosCrashApp} with
 * {@code processing.guarantee=at_least_once} on our transactional stores is killed with SIGKILL
 * several times ({@link CrashCycles}). The output must be at-least-once correct (per key the last
 * count is at least n: no update lost, duplicates and over-counts allowed; count values missing from
 * the output no more often than records were restored from the changelog, see
 * {@link WordInput#checkAtLeastOnce}), and every restart must resume the stores from their committed
 * offsets: it restores only a small tail of the changelogs, as its {@code StateRestoreListener} reports.
 *
 * <p>Kafka 4.4 commits state stores at every commit interval under at-least-once whatever
 * {@code enable.transactional.statestores} says (the flag only changes what happens under
 * exactly-once), so both settings are run. System property {@code it.alos.cycles} (default 4).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class AtLeastOnceCrashTest {

    static final int PARTITIONS = 2;
    static final int RECORDS = 20_000;
    static final long SEED = 7L;

    static BrokerFixture kafka;
    static WordInput input;
    static final List<String> SUMMARY = new ArrayList<>();

    @BeforeAll
    static void startBroker() throws Exception {
        kafka = BrokerFixture.start("alos");
        kafka.createTopics(PARTITIONS, EosCrashApp.INPUT);
        input = new WordInput(RECORDS, SEED);
    }

    @AfterAll
    static void stopBroker() throws Exception {
        say("==== summary at-least-once ====");
        SUMMARY.forEach(BrokerFixture::say);
        if (kafka != null) kafka.close();
    }

    @Test
    @Order(1)
    void atLeastOnceWithTransactionalFlagOff() throws Exception {
        runAndCheck("alos-flag-off", Integer.getInteger("it.alos.cycles", 4), "false");
    }

    @Test
    @Order(2)
    void atLeastOnceWithTransactionalFlagOn() throws Exception {
        runAndCheck("alos-flag-on", Math.max(1, Integer.getInteger("it.alos.cycles", 4) / 2), "true");
    }

    void runAndCheck(String appId, int cycles, String flag) throws Exception {
        say("==== " + appId + " (txn-rocksdb, at_least_once, enable.transactional.statestores=" + flag + "): " + cycles
                + " kill -9 cycles, " + RECORDS + " input records ====");
        CrashCycles.Result r = CrashCycles.run(
                kafka,
                input,
                PARTITIONS,
                appId,
                true,
                cycles,
                SEED,
                "processing.guarantee=at_least_once",
                "enable.transactional.statestores=" + flag);
        List<String> problems = input.checkAtLeastOnce(
                r.kv(),
                r.window(),
                CrashCycles.restored(r, EosCrashApp.KV_STORE),
                CrashCycles.restored(r, EosCrashApp.WINDOW_STORE));
        SUMMARY.addAll(r.summary());
        SUMMARY.add(String.format(
                "[%s] output %s; surplus output records (duplicates/over-counts): kv %d, window %d",
                appId,
                problems.isEmpty() ? "at-least-once OK" : problems.size() + " problems",
                WordInput.surplus(r.kv(), input.expKv),
                WordInput.surplus(r.window(), input.expWin)));
        if (!problems.isEmpty()) kafka.showLogs(appId);
        assertTrue(problems.isEmpty(), "output lost updates:\n  " + String.join("\n  ", problems));
        assertEquals(cycles, r.restarts().size());
        for (CrashCycles.Restart s : r.restarts()) {
            assertTrue(
                    s.restored() * 4 < Math.max(1, s.changelogTotal()),
                    "restart " + s.cycle() + " restored " + s.restored() + " records of a changelog of "
                            + s.changelogTotal() + ": the store did not resume from its committed offset");
        }
    }
}
