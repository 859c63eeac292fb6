package dev.txnrocksdb.tool;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;

/**
 * A child JVM that stands in for an application: takes an exclusive lock on an existing file (as
 * Kafka Streams does on {@code <app>/.lock}, and RocksDB on {@code <store>/LOCK}), prints
 * {@code LOCKED} while it holds it ({@code NOT LOCKED} and exit 1 if someone else holds a lock on
 * it), and holds it until its standard input closes. Opens the file for writing without creating
 * or changing it.
 */
public final class LockHolderMain {
    private LockHolderMain() {}

    public static void main(String[] args) throws IOException {
        try (FileChannel channel = FileChannel.open(Paths.get(args[0]), StandardOpenOption.WRITE)) {
            FileLock lock = channel.tryLock();
            if (lock == null) {
                System.out.println("NOT LOCKED");
                System.out.flush();
                System.exit(1);
            }
            System.out.println("LOCKED");
            System.out.flush();
            while (System.in.read() != -1) {
                // hold the lock until the test closes our standard input
            }
            lock.release();
        }
    }
}
