package dev.txnrocksdb.tool;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What is under a directory, as Kafka Streams 4.4 lays out its state, found by names and file
 * listings alone: nothing is opened, locked or written.
 *
 * <pre>
 * &lt;state.dir&gt;/&lt;application.id&gt;/             .lock, kafka-streams-process-metadata
 *     &lt;subtopology&gt;_&lt;partition&gt;/ or global/ .checkpoint (tasks; named topologies: __&lt;name&gt;__/&lt;task&gt;/)
 *         &lt;store&gt;/CURRENT                    a store of ours: one RocksDB instance
 *         .&lt;store&gt;.restoring/               a snapshot restore downloading (or cut short)
 *         rocksdb/&lt;store&gt;/                   Kafka's own key-value (and versioned) stores
 *         &lt;store&gt;/&lt;store&gt;.&lt;segment&gt;/         Kafka's own window and session stores
 * </pre>
 *
 * <p>{@link #scan} takes a state directory, an application's, a task's or a store's directory (and
 * tells which from its name and contents) and lists every store and every directory it does not
 * know, in a stable order (tasks by subtopology and partition).
 */
final class StateLayout {
    /** The file every RocksDB directory has. */
    static final String CURRENT = "CURRENT";
    /** The file Kafka Streams locks in an application's directory while it runs. */
    static final String APP_LOCK = ".lock";
    /** The file RocksDB locks in a store's directory while the store is open. */
    static final String STORE_LOCK = "LOCK";
    /** The file Kafka Streams writes in an application's directory. */
    static final String PROCESS_METADATA = "kafka-streams-process-metadata";
    /** The directory of Kafka's own RocksDB key-value stores inside a task's directory. */
    static final String KAFKA_KEY_VALUE_DIR = "rocksdb";

    private static final Pattern TASK = Pattern.compile("(\\d+)_(\\d+)");
    private static final Pattern NAMED_TOPOLOGY = Pattern.compile("__.+__");
    private static final Pattern RESTORING = Pattern.compile("\\.(.+)\\.restoring");
    private static final Pattern SEGMENT_ID = Pattern.compile("\\d+");

    static final String KAFKA_STORE = "Kafka Streams' own store (not inspected)";
    static final String RESTORE = "a snapshot restore in progress (or cut short)";
    static final String UNKNOWN = "unknown directory";
    static final String UNKNOWN_EMPTY = "unknown directory (empty)";
    static final String SYMLINK = "symbolic link (not followed)";

    /** What a directory found is. */
    enum Type {
        /** A store of ours: a RocksDB directory directly in a task's (or given as a store). */
        STORE,
        /** One of Kafka Streams' own stores: listed, never opened. */
        KAFKA_STORE,
        /** A snapshot restore's download beside a store. */
        RESTORING,
        /** A directory the layout does not explain. */
        UNKNOWN
    }

    /**
     * One directory found.
     *
     * @param type what it is
     * @param path its absolute path
     * @param name how the tool names it: {@code application/task/store} where those are known,
     *     otherwise its path under the directory scanned
     * @param appDir the application's directory it belongs to, or null when not known
     * @param application the application's id (its directory's name), or null
     * @param task the task ({@code 0_1}, {@code global}, {@code __topology__/0_1}), or null
     * @param store the store's name, or null where the directory is no store
     * @param what what it is, in words
     */
    record Entry(
            Type type,
            Path path,
            String name,
            Path appDir,
            String application,
            String task,
            String store,
            String what) {}

    private final Path root;
    private final List<Entry> entries;

    private StateLayout(Path root, List<Entry> entries) {
        this.root = root;
        this.entries = Collections.unmodifiableList(entries);
    }

    /** The directory scanned, its real path. */
    Path root() {
        return root;
    }

    /** Everything found, in order. */
    List<Entry> entries() {
        return entries;
    }

    /** The entries of one type, in order. */
    List<Entry> entries(Type type) {
        return entries.stream().filter(entry -> entry.type() == type).toList();
    }

    /**
     * What is under {@code dir}: a state directory, an application's, a task's or a store's
     * directory, or a directory holding copies of stores.
     *
     * @throws IOException if a directory cannot be listed
     */
    static StateLayout scan(Path dir) throws IOException {
        Path root = dir.toRealPath(); // a state.dir given through a link is walked as where it is
        List<Entry> found = new ArrayList<>();
        new Walk(root, found).root();
        return new StateLayout(root, found);
    }

    /** The bytes of every regular file under {@code dir}, links not followed (hard links count each time). */
    static long directoryBytes(Path dir) throws IOException {
        long[] total = {0};
        Files.walkFileTree(dir, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
                if (attributes.isRegularFile()) {
                    total[0] += attributes.size();
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) {
                return FileVisitResult.CONTINUE; // a file deleted meanwhile, or unreadable: not counted
            }
        });
        return total[0];
    }

    /** Whether {@code name} is a task directory's name ({@code <subtopology>_<partition>} or {@code global}). */
    static boolean isTaskName(String name) {
        return TASK.matcher(name).matches() || name.equals("global");
    }

    /** The walk of one scan, adding to {@code found}. */
    private static final class Walk {
        private final Path root;
        private final List<Entry> found;

        Walk(Path root, List<Entry> found) {
            this.root = root;
            this.found = found;
        }

        void root() throws IOException {
            Path parent = root.getParent();
            String name = fileName(root);
            if (isRegularFile(root.resolve(CURRENT))) {
                Context context = Context.ofStore(root);
                if (isKafkaSegment(root)) {
                    // <task>/<store>/<store>.<segment> given: its store is the parent
                    found.add(context.kafkaStore(root.getParent(), fileName(root.getParent())));
                } else if (parent != null && fileName(parent).equals(KAFKA_KEY_VALUE_DIR)) {
                    found.add(context.kafkaStore(root, name));
                } else {
                    found.add(context.store(root, name));
                }
            } else if (RESTORING.matcher(name).matches()) {
                found.add(Context.ofStore(root).restoring(root, name));
            } else if (name.equals(KAFKA_KEY_VALUE_DIR) && parent != null && isTaskDir(parent)) {
                Context context = Context.ofTask(parent);
                for (Path child : children(root)) {
                    if (isDirectory(child)) {
                        found.add(context.kafkaStore(child, fileName(child)));
                    }
                }
            } else if (hasKafkaSegments(root)) {
                found.add(Context.ofStore(root).kafkaStore(root, name));
            } else if (isTaskDir(root)) {
                task(root, Context.ofTask(root));
            } else if (NAMED_TOPOLOGY.matcher(name).matches() && parent != null && isAppDir(parent)) {
                namedTopology(root, new Context(parent, fileName(parent), null));
            } else if (isAppDir(root)) {
                app(root);
            } else {
                stateDir(root);
            }
        }

        /** A state directory (or any other directory): applications, stores, the rest unknown. */
        private void stateDir(Path dir) throws IOException {
            for (Path child : children(dir)) {
                if (Files.isSymbolicLink(child)) {
                    found.add(unknown(child, SYMLINK));
                } else if (!isDirectory(child)) {
                    continue;
                } else if (isAppDir(child)) {
                    app(child);
                } else if (isRegularFile(child.resolve(CURRENT))) {
                    found.add(new Context(null, null, null).store(child, fileName(child)));
                } else {
                    found.add(unknown(child, null));
                }
            }
        }

        private void app(Path app) throws IOException {
            Context context = new Context(app, fileName(app), null);
            for (Path child : children(app)) {
                String name = fileName(child);
                if (Files.isSymbolicLink(child)) {
                    found.add(context.unknown(child, name, SYMLINK));
                } else if (!isDirectory(child)) {
                    continue; // .lock, kafka-streams-process-metadata
                } else if (isTaskName(name)) {
                    task(child, context.task(name));
                } else if (NAMED_TOPOLOGY.matcher(name).matches()) {
                    namedTopology(child, context);
                } else {
                    found.add(context.unknown(child, name, null));
                }
            }
        }

        private void namedTopology(Path topology, Context app) throws IOException {
            for (Path child : children(topology)) {
                String name = fileName(child);
                String label = fileName(topology) + "/" + name;
                if (Files.isSymbolicLink(child)) {
                    found.add(app.unknown(child, label, SYMLINK));
                } else if (!isDirectory(child)) {
                    continue;
                } else if (isTaskName(name)) {
                    task(child, app.task(label));
                } else {
                    found.add(app.unknown(child, label, null));
                }
            }
        }

        private void task(Path task, Context context) throws IOException {
            for (Path child : children(task)) {
                String name = fileName(child);
                if (Files.isSymbolicLink(child)) {
                    found.add(context.unknown(child, name, SYMLINK));
                } else if (!isDirectory(child)) {
                    continue; // .checkpoint, .lock
                } else if (name.equals(KAFKA_KEY_VALUE_DIR)) {
                    for (Path kafkaStore : children(child)) {
                        if (isDirectory(kafkaStore)) {
                            found.add(context.kafkaStore(kafkaStore, fileName(kafkaStore)));
                        }
                    }
                } else if (RESTORING.matcher(name).matches()) {
                    found.add(context.restoring(child, name));
                } else if (isRegularFile(child.resolve(CURRENT))) {
                    found.add(context.store(child, name));
                } else if (hasKafkaSegments(child)) {
                    found.add(context.kafkaStore(child, name));
                } else {
                    found.add(context.unknown(child, name, null));
                }
            }
        }

        /** A directory directly in a state directory (or in any directory) that is nothing the layout knows. */
        private Entry unknown(Path dir, String what) throws IOException {
            String name = dir.startsWith(root) && !dir.equals(root)
                    ? root.relativize(dir).toString().replace('\\', '/')
                    : dir.toString();
            return new Entry(Type.UNKNOWN, dir, name, null, null, null, null, unknownWhat(dir, what));
        }
    }

    /** The application and task a directory belongs to, where its ancestors say. */
    private record Context(Path appDir, String application, String task) {
        /** The context of a task's directory: its application is its parent, or its grandparent past a named topology. */
        static Context ofTask(Path task) {
            Path parent = task.getParent();
            if (parent == null) {
                return new Context(null, null, fileName(task));
            }
            String parentName = fileName(parent);
            if (NAMED_TOPOLOGY.matcher(parentName).matches() && parent.getParent() != null) {
                Path app = parent.getParent();
                return new Context(app, fileName(app), parentName + "/" + fileName(task));
            }
            return new Context(parent, parentName, fileName(task));
        }

        /** The context of a store's directory (or of a Kafka store's segment): its task's, if its parent is one. */
        static Context ofStore(Path store) {
            Path parent = store.getParent();
            if (parent != null && fileName(parent).equals(KAFKA_KEY_VALUE_DIR)) {
                parent = parent.getParent();
            } else if (parent != null && isKafkaSegment(store)) {
                parent = parent.getParent();
            }
            if (parent != null && isTaskDir(parent)) {
                return ofTask(parent);
            }
            return new Context(null, null, null);
        }

        Context task(String task) {
            return new Context(appDir, application, task);
        }

        Entry store(Path dir, String store) {
            return new Entry(Type.STORE, dir, name(store), appDir, application, task, store, "a txn-rocksdb store");
        }

        Entry kafkaStore(Path dir, String store) {
            String name = dir.getParent() != null && fileName(dir.getParent()).equals(KAFKA_KEY_VALUE_DIR)
                    ? name(KAFKA_KEY_VALUE_DIR + "/" + store)
                    : name(store);
            return new Entry(Type.KAFKA_STORE, dir, name, appDir, application, task, store, KAFKA_STORE);
        }

        /** A directory of an application or task that is nothing the layout knows, named {@code label} in it. */
        Entry unknown(Path dir, String label, String what) throws IOException {
            return new Entry(Type.UNKNOWN, dir, name(label), appDir, application, task, null, unknownWhat(dir, what));
        }

        Entry restoring(Path dir, String dirName) {
            Matcher matcher = RESTORING.matcher(dirName);
            String store = matcher.matches() ? matcher.group(1) : dirName;
            return new Entry(Type.RESTORING, dir, name(dirName), appDir, application, task, store, RESTORE);
        }

        private String name(String last) {
            StringBuilder name = new StringBuilder();
            if (application != null) {
                name.append(application).append('/');
            }
            if (task != null) {
                name.append(task).append('/');
            }
            return name.append(last).toString();
        }
    }

    /** {@code what}, or for null whether the unknown directory is empty. */
    private static String unknownWhat(Path dir, String what) throws IOException {
        if (what != null) {
            return what;
        }
        return children(dir).isEmpty() ? UNKNOWN_EMPTY : UNKNOWN;
    }

    /** An application's directory: Kafka Streams' files in it, or task directories. */
    static boolean isAppDir(Path dir) throws IOException {
        if (!isDirectory(dir)) {
            return false;
        }
        if (isRegularFile(dir.resolve(APP_LOCK)) || isRegularFile(dir.resolve(PROCESS_METADATA))) {
            return true;
        }
        for (Path child : children(dir)) {
            String name = fileName(child);
            if (isDirectory(child)
                    && !isRegularFile(child.resolve(CURRENT))
                    && (isTaskName(name) || NAMED_TOPOLOGY.matcher(name).matches())) {
                return true;
            }
        }
        return false;
    }

    private static boolean isTaskDir(Path dir) {
        return isDirectory(dir) && isTaskName(fileName(dir)) && !isRegularFile(dir.resolve(CURRENT));
    }

    /** {@code <store>/<store>.<segment id>}: a segment of one of Kafka's window or session stores. */
    private static boolean isKafkaSegment(Path dir) {
        Path parent = dir.getParent();
        if (parent == null) {
            return false;
        }
        String prefix = fileName(parent) + ".";
        String name = fileName(dir);
        return name.startsWith(prefix)
                && SEGMENT_ID.matcher(name.substring(prefix.length())).matches();
    }

    /** Whether {@code dir} holds segments of one of Kafka's window or session stores. */
    private static boolean hasKafkaSegments(Path dir) throws IOException {
        if (!isDirectory(dir)) {
            return false;
        }
        for (Path child : children(dir)) {
            if (isDirectory(child) && isKafkaSegment(child)) {
                return true;
            }
        }
        return false;
    }

    /** The entries of {@code dir}, tasks in subtopology and partition order, the rest by name. */
    private static List<Path> children(Path dir) throws IOException {
        List<Path> children = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
            stream.forEach(children::add);
        }
        children.sort(Comparator.comparing(StateLayout::fileName, StateLayout::compareNames));
        return children;
    }

    private static int compareNames(String a, String b) {
        Matcher left = TASK.matcher(a);
        Matcher right = TASK.matcher(b);
        if (left.matches() && right.matches()) {
            int bySubtopology = compareNumbers(left.group(1), right.group(1));
            return bySubtopology != 0 ? bySubtopology : compareNumbers(left.group(2), right.group(2));
        }
        return a.compareTo(b);
    }

    private static int compareNumbers(String a, String b) {
        String left = a.replaceFirst("^0+(?=.)", "");
        String right = b.replaceFirst("^0+(?=.)", "");
        return left.length() != right.length() ? Integer.compare(left.length(), right.length()) : left.compareTo(right);
    }

    private static boolean isDirectory(Path path) {
        return Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS);
    }

    private static boolean isRegularFile(Path path) {
        return Files.isRegularFile(path, LinkOption.NOFOLLOW_LINKS);
    }

    static String fileName(Path path) {
        Path name = Objects.requireNonNullElse(path.getFileName(), path);
        return name.toString();
    }
}
