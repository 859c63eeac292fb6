package dev.txnrocksdb.tool;

import dev.txnrocksdb.streams.internals.nativeapi.NativeSnapshotLocation;
import dev.txnrocksdb.streams.internals.nativeapi.SnapshotCalls;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;

/**
 * {@code snapshots list|verify|fetch}: the snapshots a location holds, read through the same native
 * code that takes and restores them ({@link NativeSnapshotLocation}).
 *
 * <ul>
 *   <li>{@code list <location> [--store ID]}: every snapshot of every store (or of one), as its
 *       manifest says, the newest usable one marked; reads only manifests.
 *   <li>{@code verify <location> [--store ID]}: per store, its newest usable snapshot downloaded into
 *       a temporary directory, every object checked against its size and checksum, as a restore does
 *       (then deleted); newer snapshots found unusable on the way are damage (exit 1).
 *   <li>{@code fetch <location> <store id> <store dir>}: the newest usable snapshot put into a
 *       missing or empty store directory, {@code <state.dir>/<application.id>/<task>/<store>}, so
 *       that a host can be prepared before its application starts: the store then opens on it as
 *       after an automatic snapshot restore, and the changelog restores what follows.
 * </ul>
 *
 * The location's own options ({@code aws_endpoint}, {@code azure_storage_account_name}, ...) are
 * given as {@code --option KEY=VALUE}; credentials come from the environment, as the application's.
 * Whether the changelog still has a snapshot's offset is not checked here (it needs the brokers): an
 * application whose changelog lost that offset restores the store from the changelog instead.
 */
final class SnapshotsCommand {
    /** The waiting a command puts up with, with nothing arriving from the location. */
    static final Duration PATIENCE = Duration.ofSeconds(30);
    /** When a command gives up. */
    static final Duration TIMEOUT = Duration.ofMinutes(30);

    private SnapshotsCommand() {}

    /** What the command line asked for. */
    record Arguments(
            String action, String location, String store, Path dir, Map<String, String> options, boolean json) {}

    /** Parses {@code snapshots ...} (the words after {@code snapshots}, {@code --json} already taken). */
    static Arguments parse(List<String> words, boolean json) throws ToolArguments.UsageException {
        List<String> positional = new ArrayList<>();
        String store = null;
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 0; i < words.size(); i++) {
            String word = words.get(i);
            if (word.equals("--store") || word.equals("--option")) {
                if (i + 1 >= words.size()) throw new ToolArguments.UsageException(word + " needs a value");
                String value = words.get(++i);
                if (word.equals("--store")) {
                    store = value;
                } else {
                    int eq = value.indexOf('=');
                    if (eq <= 0) {
                        throw new ToolArguments.UsageException("--option takes KEY=VALUE, not '" + value + "'");
                    }
                    options.put(value.substring(0, eq), value.substring(eq + 1));
                }
            } else if (word.startsWith("--")) {
                throw new ToolArguments.UsageException("unknown option of snapshots: " + word);
            } else {
                positional.add(word);
            }
        }
        if (positional.isEmpty()) {
            throw new ToolArguments.UsageException("snapshots needs list, verify or fetch");
        }
        String action = positional.get(0);
        switch (action) {
            case "list":
            case "verify":
                if (positional.size() != 2) {
                    throw new ToolArguments.UsageException("snapshots " + action + " takes one location");
                }
                return new Arguments(action, positional.get(1), store, null, options, json);
            case "fetch":
                if (positional.size() != 4 || store != null) {
                    throw new ToolArguments.UsageException(
                            "snapshots fetch takes a location, a store id and a store directory");
                }
                return new Arguments(
                        action, positional.get(1), positional.get(2), Path.of(positional.get(3)), options, json);
            default:
                throw new ToolArguments.UsageException(
                        "unknown snapshots command '" + action + "': list, verify or fetch");
        }
    }

    /** Runs the command; returns its exit code. */
    static int run(Arguments args, PrintStream out) throws Exception {
        try (NativeSnapshotLocation location = NativeSnapshotLocation.open(args.location(), args.options())) {
            switch (args.action()) {
                case "list":
                    return list(location, args, out);
                case "verify":
                    return verify(location, args, out);
                default:
                    return fetch(location, args, out);
            }
        }
    }

    private static int list(NativeSnapshotLocation location, Arguments args, PrintStream out) {
        Map<String, List<SnapshotCalls.Listed.Snapshot>> byStore =
                byStore(location.list(args.store(), PATIENCE, TIMEOUT));
        int exit = TxnRocksDbTool.EXIT_OK;
        JsonWriter json = args.json() ? new JsonWriter(out) : null;
        if (json != null)
            json.beginObject().field("location", location.uri()).name("stores").beginArray();
        for (Map.Entry<String, List<SnapshotCalls.Listed.Snapshot>> store : byStore.entrySet()) {
            SnapshotCalls.Listed.Snapshot newest = newestUsable(store.getValue());
            if (json != null) {
                json.beginObject().field("storeId", store.getKey());
                seq(json, "newestUsable", newest == null ? null : newest.seq);
                json.name("snapshots").beginArray();
            } else {
                out.println(store.getKey());
            }
            for (SnapshotCalls.Listed.Snapshot s : store.getValue()) {
                if (!s.problem.isEmpty()) exit = TxnRocksDbTool.EXIT_DAMAGE;
                if (json != null) {
                    json.beginObject().field("seq", s.seq).field("usable", s.problem.isEmpty());
                    if (s.problem.isEmpty()) {
                        json.field("createdMs", s.createdMs)
                                .field("files", s.files)
                                .field("bytes", s.bytes)
                                .field("valueFormat", Words.valueFormat(s.valueFormat))
                                .field("timeToLive", s.ttl);
                        offsets(json, s.offsets);
                    } else {
                        json.field("problem", s.problem);
                    }
                    json.endObject();
                } else if (s.problem.isEmpty()) {
                    out.println("  snapshot " + s.seq + (s == newest ? " (newest usable)" : "") + ": taken "
                            + Instant.ofEpochMilli(s.createdMs) + ", " + s.files + " files, " + Words.bytes(s.bytes)
                            + ", " + Words.valueFormat(s.valueFormat) + (s.ttl ? ", time-to-live" : "")
                            + ", changelog offsets " + describe(s.offsets));
                } else {
                    out.println("  snapshot " + s.seq + ": UNUSABLE: " + s.problem);
                }
            }
            if (json != null) json.endArray().endObject();
        }
        if (json != null) {
            json.endArray().endObject();
            out.println();
        } else {
            out.println(byStore.size() + (byStore.size() == 1 ? " store" : " stores") + " with snapshots at "
                    + location.uri() + ".");
        }
        return exit;
    }

    private static int verify(NativeSnapshotLocation location, Arguments args, PrintStream out) throws IOException {
        Map<String, List<SnapshotCalls.Listed.Snapshot>> byStore =
                byStore(location.list(args.store(), PATIENCE, TIMEOUT));
        int exit = TxnRocksDbTool.EXIT_OK;
        JsonWriter json = args.json() ? new JsonWriter(out) : null;
        if (json != null)
            json.beginObject().field("location", location.uri()).name("stores").beginArray();
        for (Map.Entry<String, List<SnapshotCalls.Listed.Snapshot>> store : byStore.entrySet()) {
            SnapshotCalls.Listed.Snapshot newest = newestUsable(store.getValue());
            long newestSeq = store.getValue().get(store.getValue().size() - 1).seq;
            Path scratch = Files.createTempDirectory("txn-rocksdb-verify-");
            SnapshotCalls.Restored restored;
            try {
                restored = newest == null ? null : restore(location, store.getKey(), newest, scratch.resolve("store"));
            } finally {
                deleteRecursively(scratch);
            }
            String verdict;
            if (restored == null) {
                verdict = "DAMAGE: no snapshot is usable: a new host restores this store from its changelog";
                exit = TxnRocksDbTool.EXIT_DAMAGE;
            } else if (restored.seq != newestSeq) {
                verdict = "DAMAGE: snapshot " + restored.seq + " is the newest usable (" + restored.files + " files, "
                        + Words.bytes(restored.bytes) + ", every object checked); newer ones are damaged or incomplete"
                        + " (the warnings above say why), and a new host restores " + restored.seq;
                exit = TxnRocksDbTool.EXIT_DAMAGE;
            } else {
                verdict = "snapshot " + restored.seq + " is intact: " + restored.files + " files, "
                        + Words.bytes(restored.bytes) + ", every object checked";
            }
            if (json != null) {
                json.beginObject().field("storeId", store.getKey()).field("newest", newestSeq);
                seq(json, "usable", restored == null ? null : restored.seq);
                json.field("damage", restored == null || restored.seq != newestSeq)
                        .field("verdict", verdict)
                        .endObject();
            } else {
                out.println(store.getKey() + ": " + verdict);
            }
        }
        if (json != null) {
            json.endArray().endObject();
            out.println();
        } else if (byStore.isEmpty()) {
            out.println("no snapshots at " + location.uri());
        }
        return exit;
    }

    private static int fetch(NativeSnapshotLocation location, Arguments args, PrintStream out) throws Exception {
        Path dir = args.dir().toAbsolutePath().normalize();
        if (Files.exists(dir)) {
            try (Stream<Path> files = Files.list(dir)) {
                if (files.findAny().isPresent()) {
                    throw new ToolArguments.UsageException(dir + " holds files: a snapshot is fetched into a missing"
                            + " or empty store directory only (a store's state is never overwritten)");
                }
            }
        }
        List<SnapshotCalls.Listed.Snapshot> snapshots = location.list(args.store(), PATIENCE, TIMEOUT).snapshots;
        SnapshotCalls.Listed.Snapshot newest = newestUsable(snapshots);
        if (newest == null) {
            out.println("no usable snapshot of " + args.store() + " at " + location.uri()
                    + ": nothing fetched; the application restores the store from its changelog");
            return TxnRocksDbTool.EXIT_DAMAGE;
        }
        // the application's directory, when the store is in one: not while an application runs on it
        Path app = dir.getParent() == null ? null : dir.getParent().getParent();
        try (FileChannel appLock = lockOrNull(app == null ? null : app.resolve(StateLayout.APP_LOCK))) {
            Files.createDirectories(dir.getParent());
            SnapshotCalls.Restored restored = restore(location, args.store(), newest, dir);
            if (restored == null) {
                out.println("no snapshot of " + args.store() + " at " + location.uri() + " arrived whole: nothing"
                        + " fetched; the application restores the store from its changelog");
                return TxnRocksDbTool.EXIT_DAMAGE;
            }
            SnapshotCalls.Listed.Snapshot got = snapshots.stream()
                    .filter(s -> s.seq == restored.seq)
                    .findFirst()
                    .orElse(newest);
            if (args.json()) {
                JsonWriter json = new JsonWriter(out);
                json.beginObject()
                        .field("storeId", args.store())
                        .field("directory", dir.toString())
                        .field("seq", restored.seq)
                        .field("files", restored.files)
                        .field("bytes", restored.bytes)
                        .field("skipped", restored.skipped);
                offsets(json, got.offsets);
                json.endObject();
                out.println();
            } else {
                out.println("fetched snapshot " + restored.seq + " of " + args.store() + " into " + dir + ": "
                        + restored.files + " files, " + Words.bytes(restored.bytes) + ", changelog offsets "
                        + describe(got.offsets)
                        + (restored.skipped > 0
                                ? " (" + restored.skipped + " newer ones unusable: the warnings above say why)"
                                : ""));
                out.println("The application opens the store on it and restores the changelog from there on.");
            }
            return restored.skipped > 0 ? TxnRocksDbTool.EXIT_DAMAGE : TxnRocksDbTool.EXIT_OK;
        }
    }

    /** The newest usable snapshot restored into {@code dir} (missing or empty), or null. */
    private static SnapshotCalls.Restored restore(
            NativeSnapshotLocation location, String storeId, SnapshotCalls.Listed.Snapshot newest, Path dir) {
        Map.Entry<TopicPartition, Long> changelog =
                newest.offsets.entrySet().iterator().next();
        return location.restoreNewest(SnapshotCalls.RestoreRequest.builder(storeId, dir)
                .changelog(changelog.getKey(), 0, Long.MAX_VALUE)
                .waiting(PATIENCE.toMillis(), TIMEOUT.toMillis())
                .ttl(newest.ttl)
                .build());
    }

    /**
     * A shared lock on an application's {@code .lock} (null where the file does not exist), held
     * while the snapshot is fetched: refused while a Kafka Streams application holds it.
     */
    private static FileChannel lockOrNull(Path lockFile) throws IOException, TxnRocksDbTool.Refused {
        if (lockFile == null || !Files.isRegularFile(lockFile)) return null;
        FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.READ);
        FileLock lock;
        try {
            lock = channel.tryLock(0, Long.MAX_VALUE, true);
        } catch (OverlappingFileLockException e) {
            lock = null;
        }
        if (lock == null) {
            channel.close();
            throw new TxnRocksDbTool.Refused("the application directory " + lockFile.getParent()
                    + " is in use: a running Kafka Streams application holds its " + StateLayout.APP_LOCK + ". "
                    + StoreLocks.WHAT_TO_DO);
        }
        return channel;
    }

    private static Map<String, List<SnapshotCalls.Listed.Snapshot>> byStore(SnapshotCalls.Listed listed) {
        Map<String, List<SnapshotCalls.Listed.Snapshot>> byStore = new LinkedHashMap<>();
        for (SnapshotCalls.Listed.Snapshot s : listed.snapshots) {
            byStore.computeIfAbsent(s.storeId, k -> new ArrayList<>()).add(s);
        }
        return byStore;
    }

    /** The newest snapshot whose manifest can be used (its objects are checked by a restore), or null. */
    private static SnapshotCalls.Listed.Snapshot newestUsable(List<SnapshotCalls.Listed.Snapshot> snapshots) {
        return snapshots.stream()
                .filter(s -> s.problem.isEmpty() && !s.offsets.isEmpty())
                .max(Comparator.comparingLong(s -> s.seq))
                .orElse(null);
    }

    private static void seq(JsonWriter json, String name, Long seq) {
        if (seq == null) {
            json.name(name).nullValue();
        } else {
            json.field(name, seq.longValue());
        }
    }

    private static void offsets(JsonWriter json, Map<TopicPartition, Long> offsets) {
        json.name("offsets").beginArray();
        for (Map.Entry<TopicPartition, Long> offset : offsets.entrySet()) {
            json.beginObject()
                    .field("topic", offset.getKey().topic())
                    .field("partition", offset.getKey().partition())
                    .field("offset", offset.getValue())
                    .endObject();
        }
        json.endArray();
    }

    private static String describe(Map<TopicPartition, Long> offsets) {
        List<String> parts = new ArrayList<>();
        offsets.forEach((tp, offset) -> parts.add(tp.topic() + "-" + tp.partition() + ": " + offset));
        return parts.isEmpty() ? "none" : String.join(", ", parts);
    }

    private static void deleteRecursively(Path root) throws IOException {
        if (!Files.exists(root)) return;
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
