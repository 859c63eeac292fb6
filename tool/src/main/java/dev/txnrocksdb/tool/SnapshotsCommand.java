package dev.txnrocksdb.tool;

import dev.txnrocksdb.streams.internals.SnapshotStoreId;
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
import org.apache.kafka.common.Uuid;

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
 *
 * <p>With {@code --bootstrap-server} (and {@code --command-config} for the client's security
 * settings, as Kafka's own tools take them), each store's changelog partition is looked up as it is
 * now ({@link ChangelogsNow}) and every command judges the snapshots as a new host's restore would:
 * a changelog topic deleted and recreated since (its id is in the store id) or gone, and a snapshot
 * whose offset the partition no longer has, are passed over; {@code list} marks the snapshot a new
 * host restores now, {@code verify} and {@code fetch} take it. Without it, only the location is read,
 * and the newest usable snapshot stands for the one a new host restores.
 */
final class SnapshotsCommand {
    /** The waiting a command puts up with, with nothing arriving from the location. */
    static final Duration PATIENCE = Duration.ofSeconds(30);
    /** When a command gives up. */
    static final Duration TIMEOUT = Duration.ofMinutes(30);

    private SnapshotsCommand() {}

    /** What the command line asked for. */
    record Arguments(
            String action,
            String location,
            String store,
            Path dir,
            Map<String, String> options,
            boolean json,
            String bootstrapServers,
            Path commandConfig) {}

    /** Parses {@code snapshots ...} (the words after {@code snapshots}, {@code --json} already taken). */
    static Arguments parse(List<String> words, boolean json) throws ToolArguments.UsageException {
        List<String> positional = new ArrayList<>();
        String store = null;
        String bootstrapServers = null;
        Path commandConfig = null;
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 0; i < words.size(); i++) {
            String word = words.get(i);
            if (List.of("--store", "--option", "--bootstrap-server", "--command-config")
                    .contains(word)) {
                if (i + 1 >= words.size()) throw new ToolArguments.UsageException(word + " needs a value");
                String value = words.get(++i);
                if (word.equals("--store")) {
                    store = value;
                } else if (word.equals("--bootstrap-server")) {
                    bootstrapServers = value;
                } else if (word.equals("--command-config")) {
                    commandConfig = Path.of(value);
                    if (!Files.isRegularFile(commandConfig)) {
                        throw new ToolArguments.UsageException("no such file: " + commandConfig);
                    }
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
        if (commandConfig != null && bootstrapServers == null) {
            throw new ToolArguments.UsageException("--command-config goes with --bootstrap-server");
        }
        switch (action) {
            case "list":
            case "verify":
                if (positional.size() != 2) {
                    throw new ToolArguments.UsageException("snapshots " + action + " takes one location");
                }
                return new Arguments(
                        action, positional.get(1), store, null, options, json, bootstrapServers, commandConfig);
            case "fetch":
                if (positional.size() != 4 || store != null) {
                    throw new ToolArguments.UsageException(
                            "snapshots fetch takes a location, a store id and a store directory");
                }
                return new Arguments(
                        action,
                        positional.get(1),
                        positional.get(2),
                        Path.of(positional.get(3)),
                        options,
                        json,
                        bootstrapServers,
                        commandConfig);
            default:
                throw new ToolArguments.UsageException(
                        "unknown snapshots command '" + action + "': list, verify or fetch");
        }
    }

    /** Runs the command; returns its exit code. */
    static int run(Arguments args, PrintStream out) throws Exception {
        try (NativeSnapshotLocation location = NativeSnapshotLocation.open(args.location(), args.options());
                ChangelogsNow cluster = args.bootstrapServers() == null
                        ? null
                        : ChangelogsNow.connect(args.bootstrapServers(), args.commandConfig())) {
            Map<String, Judged> byStore = judged(location, args.store(), cluster);
            switch (args.action()) {
                case "list":
                    return list(location, byStore, args, out);
                case "verify":
                    return verify(location, byStore, args, out);
                default:
                    return fetch(location, byStore, args, out);
            }
        }
    }

    /**
     * A store's snapshots, judged against its changelog as the cluster has it now when the cluster
     * was asked ({@code changelog} non-null): {@code notUsed} says why a new host uses none of them
     * (its changelog topic recreated or gone), else each snapshot's {@code changelogRefuses} why a
     * restore now passes it over.
     */
    record Judged(
            List<SnapshotCalls.Listed.Snapshot> snapshots,
            TopicPartition partition,
            ChangelogsNow.Changelog changelog,
            String notUsed) {
        /** The snapshot a new host restores now (the newest usable it does not pass over), or null. */
        SnapshotCalls.Listed.Snapshot restoredNow() {
            if (notUsed != null) return null;
            return snapshots.stream()
                    .filter(s -> s.problem.isEmpty() && !s.offsets.isEmpty() && s.changelogRefuses.isEmpty())
                    .max(Comparator.comparingLong(s -> s.seq))
                    .orElse(null);
        }

        long newestSeq() {
            return snapshots.get(snapshots.size() - 1).seq;
        }
    }

    /** The snapshots at the location by store id, judged against the cluster's changelogs when it is given. */
    private static Map<String, Judged> judged(NativeSnapshotLocation location, String store, ChangelogsNow cluster)
            throws ChangelogsNow.Unanswered {
        SnapshotCalls.ListRequest request =
                new SnapshotCalls.ListRequest(store, PATIENCE.toMillis(), TIMEOUT.toMillis());
        Map<String, List<SnapshotCalls.Listed.Snapshot>> byStore = byStore(location.list(request));
        Map<String, Judged> judged = new LinkedHashMap<>();
        if (cluster == null) {
            byStore.forEach((id, snapshots) -> judged.put(id, new Judged(snapshots, null, null, null)));
            return judged;
        }
        // each store's changelog partition, as its snapshots' offsets name it
        Map<String, TopicPartition> partitions = new LinkedHashMap<>();
        byStore.forEach((id, snapshots) -> snapshots.stream()
                .filter(s -> s.offsets.size() == 1)
                .map(s -> s.offsets.keySet().iterator().next())
                .reduce((first, later) -> later)
                .ifPresent(partition -> partitions.put(id, partition)));
        Map<TopicPartition, ChangelogsNow.Changelog> now =
                cluster.describe(new java.util.LinkedHashSet<>(partitions.values()));
        Map<String, String> notUsed = new LinkedHashMap<>();
        for (Map.Entry<String, TopicPartition> entry : partitions.entrySet()) {
            TopicPartition partition = entry.getValue();
            ChangelogsNow.Changelog changelog = now.get(partition);
            Uuid of = SnapshotStoreId.parse(entry.getKey())
                    .map(SnapshotStoreId::topicId)
                    .orElse(null);
            if (changelog.topicId() == null) {
                notUsed.put(
                        entry.getKey(),
                        "its changelog " + partition + " does not exist now: the application"
                                + " creates it anew and a new host restores nothing from these snapshots");
            } else if (of != null && !of.equals(changelog.topicId())) {
                notUsed.put(
                        entry.getKey(),
                        "its changelog topic " + partition.topic() + " was deleted and recreated"
                                + " since these snapshots (its id is " + changelog.topicId() + " now, theirs " + of
                                + "): a new host does not use them");
            } else {
                request = request.changelog(partition, changelog.start(), changelog.end());
            }
        }
        // listed again with the changelogs as they are, each snapshot judged by the restore's own rule
        Map<String, List<SnapshotCalls.Listed.Snapshot>> checked = byStore(location.list(request));
        checked.forEach((id, snapshots) -> {
            TopicPartition partition = partitions.get(id);
            judged.put(
                    id,
                    new Judged(snapshots, partition, partition == null ? null : now.get(partition), notUsed.get(id)));
        });
        return judged;
    }

    private static int list(
            NativeSnapshotLocation location, Map<String, Judged> byStore, Arguments args, PrintStream out) {
        boolean asked = args.bootstrapServers() != null;
        int exit = TxnRocksDbTool.EXIT_OK;
        JsonWriter json = args.json() ? new JsonWriter(out) : null;
        if (json != null)
            json.beginObject().field("location", location.uri()).name("stores").beginArray();
        for (Map.Entry<String, Judged> store : byStore.entrySet()) {
            Judged judged = store.getValue();
            SnapshotCalls.Listed.Snapshot newest = newestUsable(judged.snapshots());
            SnapshotCalls.Listed.Snapshot now = judged.restoredNow();
            if (json != null) {
                json.beginObject().field("storeId", store.getKey());
                seq(json, "newestUsable", newest == null ? null : newest.seq);
                if (asked) {
                    seq(json, "newHostRestores", now == null ? null : now.seq);
                    changelog(json, judged);
                }
                json.name("snapshots").beginArray();
            } else {
                out.println(store.getKey() + (asked ? changelogText(judged) : ""));
            }
            for (SnapshotCalls.Listed.Snapshot s : judged.snapshots()) {
                if (!s.problem.isEmpty()) exit = TxnRocksDbTool.EXIT_DAMAGE;
                if (json != null) {
                    json.beginObject().field("seq", s.seq).field("usable", s.problem.isEmpty());
                    if (s.problem.isEmpty()) {
                        json.field("createdMs", s.createdMs)
                                .field("files", s.files)
                                .field("bytes", s.bytes)
                                .field("valueFormat", Words.valueFormat(s.valueFormat))
                                .field("timeToLive", s.ttl);
                        if (!s.changelogRefuses.isEmpty()) json.field("passedOver", s.changelogRefuses);
                        offsets(json, s.offsets);
                    } else {
                        json.field("problem", s.problem);
                    }
                    json.endObject();
                } else if (s.problem.isEmpty()) {
                    String mark = asked
                            ? (s == now ? " (a new host restores this one now)" : "")
                            : (s == newest ? " (newest usable)" : "");
                    out.println("  snapshot " + s.seq + mark + ": taken "
                            + Instant.ofEpochMilli(s.createdMs) + ", " + s.files + " files, " + Words.bytes(s.bytes)
                            + ", " + Words.valueFormat(s.valueFormat) + (s.ttl ? ", time-to-live" : "")
                            + ", changelog offsets " + describe(s.offsets)
                            + (s.changelogRefuses.isEmpty() ? "" : "; passed over now: " + s.changelogRefuses));
                } else {
                    out.println("  snapshot " + s.seq + ": UNUSABLE: " + s.problem);
                }
            }
            if (json != null) {
                json.endArray().endObject();
            } else if (judged.notUsed() != null) {
                out.println("  none restored by a new host: " + judged.notUsed());
            } else if (asked && now == null) {
                out.println("  none restored by a new host: the changelog restores the store");
            }
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

    private static int verify(
            NativeSnapshotLocation location, Map<String, Judged> byStore, Arguments args, PrintStream out)
            throws IOException {
        int exit = TxnRocksDbTool.EXIT_OK;
        JsonWriter json = args.json() ? new JsonWriter(out) : null;
        if (json != null)
            json.beginObject().field("location", location.uri()).name("stores").beginArray();
        for (Map.Entry<String, Judged> store : byStore.entrySet()) {
            Judged judged = store.getValue();
            long newestSeq = judged.newestSeq();
            SnapshotCalls.Listed.Snapshot newest = startingPoint(judged);
            Path scratch = Files.createTempDirectory("txn-rocksdb-verify-");
            SnapshotCalls.Restored restored;
            try {
                restored = newest == null
                        ? null
                        : restore(location, store.getKey(), newest, judged, scratch.resolve("store"));
            } finally {
                deleteRecursively(scratch);
            }
            // what a restore now skips for the changelog's sake is not damage; anything else it skips is
            long expected = newestNotPassedOver(judged);
            String verdict;
            boolean damage;
            if (judged.notUsed() != null) {
                verdict = "not checked: " + judged.notUsed();
                damage = false;
            } else if (restored == null) {
                damage = expected > 0;
                verdict = damage
                        ? "DAMAGE: no snapshot is usable: a new host restores this store from its changelog"
                        : "no snapshot is one the changelog has the offset of now: a new host restores this store"
                                + " from its changelog";
            } else if (restored.seq != expected) {
                damage = true;
                verdict = "DAMAGE: snapshot " + restored.seq + " is the newest usable (" + restored.files + " files, "
                        + Words.bytes(restored.bytes) + ", every object checked); newer ones are damaged or incomplete"
                        + " (the warnings above say why), and a new host restores " + restored.seq;
            } else {
                damage = false;
                verdict = "snapshot " + restored.seq + " is intact: " + restored.files + " files, "
                        + Words.bytes(restored.bytes) + ", every object checked"
                        + (restored.seq != newestSeq ? " (newer ones are passed over for the changelog now)" : "");
            }
            if (damage) exit = TxnRocksDbTool.EXIT_DAMAGE;
            if (json != null) {
                json.beginObject().field("storeId", store.getKey()).field("newest", newestSeq);
                seq(json, "usable", restored == null ? null : restored.seq);
                json.field("damage", damage).field("verdict", verdict).endObject();
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

    /**
     * Where a restore of the store starts looking: its newest usable snapshot, or, when the cluster
     * was asked, the newest it does not pass over for the changelog (null: none).
     */
    private static SnapshotCalls.Listed.Snapshot startingPoint(Judged judged) {
        return judged.changelog() == null ? newestUsable(judged.snapshots()) : judged.restoredNow();
    }

    /**
     * The newest snapshot a restore now does not pass over for the changelog's sake, usable or not (0:
     * none): any other snapshot a restore skips is one it found damaged or incomplete.
     */
    private static long newestNotPassedOver(Judged judged) {
        return judged.snapshots().stream()
                .filter(s -> s.changelogRefuses.isEmpty())
                .mapToLong(s -> s.seq)
                .max()
                .orElse(0);
    }

    private static int fetch(
            NativeSnapshotLocation location, Map<String, Judged> byStore, Arguments args, PrintStream out)
            throws Exception {
        Path dir = args.dir().toAbsolutePath().normalize();
        if (Files.exists(dir)) {
            try (Stream<Path> files = Files.list(dir)) {
                if (files.findAny().isPresent()) {
                    throw new ToolArguments.UsageException(dir + " holds files: a snapshot is fetched into a missing"
                            + " or empty store directory only (a store's state is never overwritten)");
                }
            }
        }
        Judged judged = byStore.get(args.store());
        SnapshotCalls.Listed.Snapshot newest = judged == null ? null : startingPoint(judged);
        if (newest == null) {
            String why = judged != null && judged.notUsed() != null
                    ? judged.notUsed()
                    : "no "
                            + (judged != null && judged.changelog() != null
                                    ? "snapshot a new host restores now"
                                    : "usable snapshot")
                            + " of " + args.store() + " at " + location.uri();
            out.println(why + ": nothing fetched; the application restores the store from its changelog");
            return TxnRocksDbTool.EXIT_DAMAGE;
        }
        // the application's directory, when the store is in one: not while an application runs on it
        Path app = dir.getParent() == null ? null : dir.getParent().getParent();
        try (FileChannel appLock = lockOrNull(app == null ? null : app.resolve(StateLayout.APP_LOCK))) {
            Files.createDirectories(dir.getParent());
            SnapshotCalls.Restored restored = restore(location, args.store(), newest, judged, dir);
            if (restored == null) {
                out.println("no snapshot of " + args.store() + " at " + location.uri() + " arrived whole: nothing"
                        + " fetched; the application restores the store from its changelog");
                return TxnRocksDbTool.EXIT_DAMAGE;
            }
            SnapshotCalls.Listed.Snapshot got = judged.snapshots().stream()
                    .filter(s -> s.seq == restored.seq)
                    .findFirst()
                    .orElse(newest);
            boolean damaged = restored.seq != newestNotPassedOver(judged);
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
                                ? " (" + restored.skipped + " newer ones passed over: the warnings above say why)"
                                : ""));
                out.println("The application opens the store on it and restores the changelog from there on.");
            }
            return damaged ? TxnRocksDbTool.EXIT_DAMAGE : TxnRocksDbTool.EXIT_OK;
        }
    }

    /**
     * The newest snapshot a restore takes, from {@code newest} down, restored into {@code dir}
     * (missing or empty), or null: against the changelog as the cluster has it now when it was
     * asked, else against any offset.
     */
    private static SnapshotCalls.Restored restore(
            NativeSnapshotLocation location,
            String storeId,
            SnapshotCalls.Listed.Snapshot newest,
            Judged judged,
            Path dir) {
        TopicPartition partition = newest.offsets.keySet().iterator().next();
        ChangelogsNow.Changelog now = judged.changelog();
        return location.restoreNewest(SnapshotCalls.RestoreRequest.builder(storeId, dir)
                .changelog(partition, now == null ? 0 : now.start(), now == null ? Long.MAX_VALUE : now.end())
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

    /** The store's changelog partition as the cluster has it now. */
    private static void changelog(JsonWriter json, Judged judged) {
        if (judged.partition() == null) return;
        json.name("changelog")
                .beginObject()
                .field("topic", judged.partition().topic())
                .field("partition", judged.partition().partition());
        if (judged.changelog().topicId() == null) {
            json.field("exists", false);
        } else {
            json.field("exists", true)
                    .field("topicId", judged.changelog().topicId().toString())
                    .field("start", judged.changelog().start())
                    .field("end", judged.changelog().end());
        }
        json.endObject();
        if (judged.notUsed() != null) json.field("notUsed", judged.notUsed());
    }

    private static String changelogText(Judged judged) {
        if (judged.partition() == null) return "";
        ChangelogsNow.Changelog now = judged.changelog();
        return now.topicId() == null
                ? " (changelog " + judged.partition() + ": does not exist now)"
                : " (changelog " + judged.partition() + " now: offsets " + now.start() + " to " + now.end() + ")";
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
