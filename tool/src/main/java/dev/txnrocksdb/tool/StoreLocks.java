package dev.txnrocksdb.tool;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The locks that keep the tool off what an application has open, held from before a store is read
 * until the command ends ({@link #close}). For each store: a shared lock on its application
 * directory's {@code .lock} (Kafka Streams holds it exclusively from a {@code KafkaStreams}'
 * construction to its close) and on the store's {@code LOCK} (RocksDB holds it exclusively while
 * the store is open), each where the file exists. On Linux and macOS these are {@code fcntl} locks,
 * so a shared one is refused while another process holds either, and holding it keeps an
 * application from starting (or a store from opening) while the tool reads.
 *
 * <p>Nothing is created or written: a lock file is opened for reading, once per command (POSIX
 * locks belong to the process, and closing any descriptor of a file drops all of the process's
 * locks on it, so a file's channel stays open until {@link #close}). A lock this JVM already holds
 * through another channel ({@link OverlappingFileLockException}: an application running in the
 * same JVM) counts as refused.
 */
final class StoreLocks implements AutoCloseable {
    private final Map<Path, Boolean> granted = new HashMap<>();
    private final List<FileChannel> channels = new ArrayList<>();

    /**
     * Takes the locks for reading the store of {@code store} (a {@link StateLayout.Type#STORE}
     * entry).
     *
     * @return null when every lock was granted (or its file does not exist); otherwise why the store
     *     may not be read, naming the directory an application has open and what to do
     * @throws IOException if a lock file exists but cannot be opened for reading
     */
    String lock(StateLayout.Entry store) throws IOException {
        Path appDir = store.appDir();
        if (appDir != null) {
            Path appLock = appDir.resolve(StateLayout.APP_LOCK);
            if (Files.isRegularFile(appLock, LinkOption.NOFOLLOW_LINKS) && !shared(appLock)) {
                return "the application directory " + appDir + " is in use: a running Kafka Streams application"
                        + " holds its " + StateLayout.APP_LOCK + ". " + WHAT_TO_DO;
            }
        }
        Path storeLock = store.path().resolve(StateLayout.STORE_LOCK);
        if (Files.isRegularFile(storeLock, LinkOption.NOFOLLOW_LINKS) && !shared(storeLock)) {
            return "the store " + store.path() + " is in use: an application has it open (RocksDB holds its "
                    + StateLayout.STORE_LOCK + "). " + WHAT_TO_DO;
        }
        return null;
    }

    /** What the tool tells an operator to do about a directory in use. */
    static final String WHAT_TO_DO =
            "Stop the application first, or run the tool on a copy of the directory; the tool never reads what an"
                    + " application has open.";

    /** Releases every lock taken. */
    @Override
    public void close() {
        for (FileChannel channel : channels) {
            try {
                channel.close(); // releases its lock
            } catch (IOException e) {
                // the process ends soon; the lock goes with it
            }
        }
        channels.clear();
        granted.clear();
    }

    /** A shared lock on the whole of {@code file}: whether granted (asked once per file and command). */
    private boolean shared(Path file) throws IOException {
        Path key = file.toRealPath();
        Boolean known = granted.get(key);
        if (known != null) {
            return known;
        }
        FileChannel channel = FileChannel.open(key, StandardOpenOption.READ);
        boolean ok;
        try {
            FileLock lock = channel.tryLock(0, Long.MAX_VALUE, true);
            ok = lock != null;
            if (ok) {
                channels.add(channel);
            } else {
                channel.close(); // another process holds it; this process holds no lock on it to lose
            }
        } catch (OverlappingFileLockException e) {
            // This JVM holds a lock on it through another channel: closing this one now would drop
            // that lock (POSIX), so it stays open until the command ends.
            channels.add(channel);
            ok = false;
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
        granted.put(key, ok);
        return ok;
    }
}
