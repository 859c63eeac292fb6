package dev.txnrocksdb.tool;

import dev.txnrocksdb.streams.internals.nativeapi.NativeStoreInspection;
import dev.txnrocksdb.streams.internals.nativeapi.StoreInspection;
import dev.txnrocksdb.streams.internals.nativeapi.StoreInspection.Facts;
import dev.txnrocksdb.streams.internals.nativeapi.StoreInspection.Finding;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * {@code inspect <dir>}: every store of ours under a directory ({@link StateLayout}), each read
 * with {@link NativeStoreInspection#facts} ({@link StoreReader}) under {@link StoreLocks}; Kafka's own stores and
 * unknown directories listed, never opened. A store an application has open is listed as refused
 * and not read; the others are still inspected.
 *
 * <p>Exit code: {@link TxnRocksDbTool#EXIT_FAILED} if a store could not be read,
 * {@link TxnRocksDbTool#EXIT_REFUSED} if one was in use, {@link TxnRocksDbTool#EXIT_DAMAGE} if one
 * has damage, else {@link TxnRocksDbTool#EXIT_OK} (the first that applies).
 */
final class InspectCommand {
    static final String COMMIT_PENDING = "a secondary-store commit is being copied: the next open rolls it forward";
    static final String UNCOMMITTED_PENDING = "uncommitted secondary-store writes: the next open throws them away";
    static final String UPGRADE_PENDING = "a value format upgrade was cut short: the next open finishes it";

    private InspectCommand() {}

    /** One store of ours: its facts, or why it was not read. */
    private record Inspected(StateLayout.Entry entry, Facts facts, long directoryBytes, String refused, String failed) {
        int exitCode() {
            if (failed != null) {
                return TxnRocksDbTool.EXIT_FAILED;
            }
            if (refused != null) {
                return TxnRocksDbTool.EXIT_REFUSED;
            }
            return facts.damaged() ? TxnRocksDbTool.EXIT_DAMAGE : TxnRocksDbTool.EXIT_OK;
        }
    }

    static int run(ToolArguments args, PrintStream out, StoreReader reader) throws IOException {
        StateLayout layout = StateLayout.scan(args.dir());
        List<Inspected> stores = new ArrayList<>();
        try (StoreLocks locks = new StoreLocks()) {
            for (StateLayout.Entry entry : layout.entries(StateLayout.Type.STORE)) {
                stores.add(inspect(entry, locks, reader));
            }
        }
        if (args.json()) {
            json(layout, stores, out);
        } else {
            text(layout, stores, out);
        }
        int exit = TxnRocksDbTool.EXIT_OK;
        for (Inspected store : stores) {
            exit = TxnRocksDbTool.worse(exit, store.exitCode());
        }
        return exit;
    }

    private static Inspected inspect(StateLayout.Entry entry, StoreLocks locks, StoreReader reader) throws IOException {
        String refused;
        try {
            refused = locks.lock(entry);
        } catch (IOException e) {
            return new Inspected(entry, null, -1, null, "cannot open a lock file to lock it: " + e);
        }
        if (refused != null) {
            return new Inspected(entry, null, -1, refused, null);
        }
        Facts facts;
        try {
            facts = reader.facts(entry.path());
        } catch (RuntimeException e) {
            return new Inspected(entry, null, -1, null, TxnRocksDbTool.describe(e));
        }
        long bytes;
        try {
            bytes = StateLayout.directoryBytes(entry.path());
        } catch (IOException e) {
            bytes = -1;
        }
        return new Inspected(entry, facts, bytes, null, null);
    }

    private static void text(StateLayout layout, List<Inspected> stores, PrintStream out) {
        for (Inspected store : stores) {
            StateLayout.Entry entry = store.entry();
            out.println(entry.name());
            out.println("  directory: " + entry.path());
            if (store.refused() != null) {
                out.println("  REFUSED: " + store.refused());
                out.println();
                continue;
            }
            if (store.failed() != null) {
                out.println("  FAILED: " + store.failed());
                out.println();
                continue;
            }
            Facts facts = store.facts();
            out.println("  kind: "
                    + (facts.kind() == null
                            ? "not recorded (a store written by an older version)"
                            : Words.kind(facts.kind())));
            out.println("  value format: "
                    + (facts.valueFormat() == null
                            ? "none recorded (an empty store)"
                            : Words.valueFormat(facts.valueFormat())));
            out.println("  time-to-live: " + timeToLive(facts));
            if (facts.offsets().isEmpty()) {
                out.println("  committed changelog offsets: none");
            } else {
                out.println("  committed changelog offsets:");
                for (Map.Entry<TopicPartition, Long> offset : facts.offsets().entrySet()) {
                    out.println("    " + offset.getKey().topic() + " partition "
                            + offset.getKey().partition() + ": " + Words.offset(offset.getValue()));
                }
            }
            out.println("  approximate keys: " + facts.estimatedKeys());
            out.println("  size on disk: " + Words.bytes(facts.liveDataBytes()) + " of live data, "
                    + Words.bytes(facts.walBytes()) + " of write-ahead log"
                    + (store.directoryBytes() >= 0
                            ? "; " + Words.bytes(store.directoryBytes()) + " in the directory"
                            : ""));
            for (String pending : pending(facts)) {
                out.println("  pending: " + pending);
            }
            for (Finding finding : facts.findings()) {
                out.println("  " + finding.severity() + ": " + finding.what());
            }
            out.println();
        }
        List<StateLayout.Entry> others = new ArrayList<>();
        for (StateLayout.Entry entry : layout.entries()) {
            if (entry.type() != StateLayout.Type.STORE) {
                others.add(entry);
            }
        }
        for (StateLayout.Entry entry : others) {
            out.println(entry.name() + ": " + entry.what());
        }
        if (!others.isEmpty()) {
            out.println();
        }
        out.println(summary(layout, stores));
    }

    private static String timeToLive(Facts facts) {
        if (!facts.timeToLive()) {
            return "no";
        }
        return facts.storeTime() == StoreInspection.NO_TIME
                ? "yes, no store time committed yet"
                : "yes, store time " + Words.time(facts.storeTime());
    }

    private static List<String> pending(Facts facts) {
        List<String> pending = new ArrayList<>();
        if (facts.commitPending()) {
            pending.add(COMMIT_PENDING);
        }
        if (facts.uncommittedPending()) {
            pending.add(UNCOMMITTED_PENDING);
        }
        if (facts.upgradePending()) {
            pending.add(UPGRADE_PENDING);
        }
        return pending;
    }

    private static String summary(StateLayout layout, List<Inspected> stores) {
        if (layout.entries().isEmpty()) {
            return "No stores under " + layout.root() + ".";
        }
        int damaged = 0;
        int refused = 0;
        int failed = 0;
        for (Inspected store : stores) {
            if (store.refused() != null) {
                refused++;
            } else if (store.failed() != null) {
                failed++;
            } else if (store.facts().damaged()) {
                damaged++;
            }
        }
        StringBuilder summary =
                new StringBuilder().append(count(stores.size(), "txn-rocksdb store", "txn-rocksdb stores"));
        List<String> notes = new ArrayList<>();
        if (damaged > 0) {
            notes.add(damaged + " with damage");
        }
        if (refused > 0) {
            notes.add(refused + " in use, not read");
        }
        if (failed > 0) {
            notes.add(failed + " that could not be read");
        }
        if (!notes.isEmpty()) {
            summary.append(" (").append(String.join(", ", notes)).append(')');
        }
        summary.append(", ")
                .append(count(layout.entries(StateLayout.Type.KAFKA_STORE).size(), "store", "stores"))
                .append(" of Kafka Streams' own, ")
                .append(count(
                        layout.entries(StateLayout.Type.RESTORING).size(),
                        "snapshot restore directory",
                        "snapshot restore directories"))
                .append(", ")
                .append(count(
                        layout.entries(StateLayout.Type.UNKNOWN).size(), "unknown directory", "unknown directories"))
                .append('.');
        return summary.toString();
    }

    private static String count(int n, String one, String many) {
        return n + " " + (n == 1 ? one : many);
    }

    private static void json(StateLayout layout, List<Inspected> stores, PrintStream out) {
        JsonWriter json = new JsonWriter(out).beginObject();
        json.field("path", layout.root().toString());
        json.name("stores").beginArray();
        for (Inspected store : stores) {
            StateLayout.Entry entry = store.entry();
            json.beginObject();
            names(json, entry);
            if (store.refused() != null) {
                json.field("status", "refused").field("error", store.refused());
            } else if (store.failed() != null) {
                json.field("status", "failed").field("error", store.failed());
            } else {
                Facts facts = store.facts();
                json.field("status", "inspected")
                        .field("kind", Words.kind(facts.kind()))
                        .field("valueFormat", Words.valueFormat(facts.valueFormat()))
                        .field("upgradePending", facts.upgradePending())
                        .field("timeToLive", facts.timeToLive());
                json.name("storeTime");
                if (facts.storeTime() == StoreInspection.NO_TIME) {
                    json.nullValue();
                } else {
                    json.value(facts.storeTime());
                }
                json.field("commitPending", facts.commitPending())
                        .field("uncommittedPending", facts.uncommittedPending())
                        .field("approximateKeys", facts.estimatedKeys())
                        .field("liveDataBytes", facts.liveDataBytes())
                        .field("walBytes", facts.walBytes());
                json.name("directoryBytes");
                if (store.directoryBytes() >= 0) {
                    json.value(store.directoryBytes());
                } else {
                    json.nullValue();
                }
                json.name("offsets").beginArray();
                for (Map.Entry<TopicPartition, Long> offset : facts.offsets().entrySet()) {
                    json.beginObject()
                            .field("topic", offset.getKey().topic())
                            .field("partition", offset.getKey().partition())
                            .field("offset", offset.getValue())
                            .field("known", offset.getValue() >= 0)
                            .endObject();
                }
                json.endArray();
                findings(json, facts.findings());
                json.field("damage", facts.damaged());
            }
            json.endObject();
        }
        json.endArray();
        json.name("kafkaStores").beginArray();
        for (StateLayout.Entry entry : layout.entries(StateLayout.Type.KAFKA_STORE)) {
            json.beginObject();
            names(json, entry);
            json.endObject();
        }
        json.endArray();
        json.name("otherDirectories").beginArray();
        for (StateLayout.Entry entry : layout.entries()) {
            if (entry.type() == StateLayout.Type.RESTORING || entry.type() == StateLayout.Type.UNKNOWN) {
                json.beginObject();
                names(json, entry);
                json.field("what", entry.what()).endObject();
            }
        }
        json.endArray();
        json.endObject();
    }

    /** The members that name an entry: its name, path, application, task and store (null where not known). */
    static void names(JsonWriter json, StateLayout.Entry entry) {
        json.field("name", entry.name())
                .field("path", entry.path().toString())
                .field("application", entry.application())
                .field("task", entry.task())
                .field("store", entry.store());
    }

    static void findings(JsonWriter json, List<Finding> findings) {
        json.name("findings").beginArray();
        for (Finding finding : findings) {
            json.beginObject()
                    .field("severity", Words.severity(finding.severity()))
                    .field("what", finding.what())
                    .endObject();
        }
        json.endArray();
    }
}
