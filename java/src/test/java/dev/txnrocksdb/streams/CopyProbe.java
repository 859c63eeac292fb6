package dev.txnrocksdb.streams;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Watches, from the test's JVM, the write-ahead log of a store another process is writing, for the
 * commit record of a secondary-store commit whose copy takes several writes: the record (magic
 * {@code TXNCMT01}, the format crate's {@code commit_record.rs}) travels in the copy's first write,
 * which the commit writes to the WAL file at once. Once it is in the file, a {@code kill -9}
 * leaves a decided commit, which reopening must complete. Each poll reads only the bytes appended
 * since the last one.
 */
final class CopyProbe {
    private static final byte[] MAGIC = "TXNCMT01".getBytes(StandardCharsets.US_ASCII);

    private final Path storeDir;
    private final Map<Path, Long> read = new HashMap<>();
    private final Map<Path, byte[]> tails = new HashMap<>();

    CopyProbe(Path storeDir) {
        this.storeDir = storeDir;
    }

    /** Whether a commit record has reached one of the store's WAL files since the probe was made. */
    boolean commitRecordWritten() {
        List<Path> wals;
        try (Stream<Path> files = Files.list(storeDir)) {
            wals = files.filter(p -> p.getFileName().toString().endsWith(".log")).collect(Collectors.toList());
        } catch (IOException e) {
            return false; // not created yet
        }
        for (Path wal : wals) {
            try (RandomAccessFile file = new RandomAccessFile(wal.toFile(), "r")) {
                long from = read.getOrDefault(wal, 0L);
                long length = file.length();
                if (length <= from) {
                    continue;
                }
                byte[] fresh = new byte[(int) Math.min(length - from, 64L << 20)];
                file.seek(from);
                file.readFully(fresh);
                read.put(wal, from + fresh.length);
                // keep the last bytes, so a magic split between two reads is found
                byte[] tail = tails.getOrDefault(wal, new byte[0]);
                byte[] window = new byte[tail.length + fresh.length];
                System.arraycopy(tail, 0, window, 0, tail.length);
                System.arraycopy(fresh, 0, window, tail.length, fresh.length);
                if (indexOf(window) >= 0) {
                    return true;
                }
                int keep = Math.min(window.length, MAGIC.length - 1);
                tails.put(wal, java.util.Arrays.copyOfRange(window, window.length - keep, window.length));
            } catch (IOException e) {
                // deleted between the listing and the read: its records are in SST files by now
            }
        }
        return false;
    }

    private static int indexOf(byte[] haystack) {
        outer:
        for (int i = 0; i + MAGIC.length <= haystack.length; i++) {
            for (int j = 0; j < MAGIC.length; j++) {
                if (haystack[i + j] != MAGIC[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
