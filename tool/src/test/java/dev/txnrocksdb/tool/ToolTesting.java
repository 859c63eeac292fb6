package dev.txnrocksdb.tool;

import dev.txnrocksdb.streams.internals.nativeapi.CorruptionPolicy;
import dev.txnrocksdb.streams.internals.nativeapi.StoreInspection;
import dev.txnrocksdb.streams.internals.nativeapi.StoreInspection.DumpChunk;
import dev.txnrocksdb.streams.internals.nativeapi.StoreInspection.Facts;
import dev.txnrocksdb.streams.internals.nativeapi.StoreInspection.Finding;
import dev.txnrocksdb.streams.internals.nativeapi.StoreInspection.NextOpen;
import dev.txnrocksdb.streams.internals.nativeapi.StoreInspection.Outcome;
import dev.txnrocksdb.streams.internals.nativeapi.StoreInspection.Verification;
import dev.txnrocksdb.streams.internals.nativeapi.ValueFormat;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;

/** What the tool's tests share: running it in-process, fabricated directories, a stand-in for the natives. */
final class ToolTesting {
    private ToolTesting() {}

    /** A run's exit code and output. */
    record Result(int exit, String out, String err) {}

    /** Runs the tool in this JVM, reading stores with {@code reader}. */
    static Result run(StoreReader reader, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit;
        try (PrintStream outStream = new PrintStream(out, true, StandardCharsets.UTF_8);
                PrintStream errStream = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            exit = TxnRocksDbTool.run(args, outStream, errStream, reader);
        }
        return new Result(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** Runs the tool in this JVM as {@code main} would (the native library reads the stores). */
    static Result runWithNatives(String... args) {
        return run(StoreReader.natives(), args);
    }

    /** A directory that looks like one of our stores to the layout: {@code CURRENT}, {@code LOCK}, a WAL. */
    static Path fakeStore(Path dir) throws IOException {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("CURRENT"), "MANIFEST-000005\n");
        Files.writeString(dir.resolve("LOCK"), "");
        Files.write(dir.resolve("000004.log"), new byte[] {1, 2, 3});
        return dir;
    }

    /** An application directory with Kafka Streams' files in it. */
    static Path fakeApp(Path dir) throws IOException {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve(".lock"), "");
        Files.writeString(dir.resolve("kafka-streams-process-metadata"), "processId=1\n");
        return dir;
    }

    /**
     * Every file and directory under {@code dir}: its kind, size and modification time, by path
     * (a directory's time changes when an entry in it is created, renamed or deleted).
     */
    static Map<String, String> listing(Path dir) throws IOException {
        Map<String, String> listing = new TreeMap<>();
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : (Iterable<Path>) paths::iterator) {
                BasicFileAttributes attributes =
                        Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                listing.put(
                        dir.relativize(path).toString(),
                        (attributes.isDirectory() ? "d " : "f ") + attributes.size() + " "
                                + attributes.lastModifiedTime().toMillis());
            }
        }
        return listing;
    }

    /** Facts of an unremarkable key-value store, with {@code findings}. */
    static Facts facts(Finding... findings) {
        return new Facts(
                StoreInspection.StoreKind.KEY_VALUE,
                ValueFormat.TIMESTAMPED,
                false,
                false,
                StoreInspection.NO_TIME,
                false,
                false,
                3,
                4096,
                100,
                Map.of(new TopicPartition("app-counts-changelog", 0), 41L),
                List.of(findings));
    }

    /** A stand-in for the natives: answers as told and records which directories it was asked about. */
    static class FakeReader implements StoreReader {
        final List<Path> asked = Collections.synchronizedList(new ArrayList<>());
        final List<Integer> maxEntries = Collections.synchronizedList(new ArrayList<>());
        Facts facts = ToolTesting.facts();
        Verification verification = new Verification(
                List.of(),
                List.of(
                        new NextOpen(CorruptionPolicy.REFUSE, Outcome.OPENS, ""),
                        new NextOpen(CorruptionPolicy.OPEN_AT_LAST_CONSISTENT_COMMIT, Outcome.OPENS, ""),
                        new NextOpen(CorruptionPolicy.RESTORE_FROM_CHANGELOG, Outcome.OPENS, "")));
        /** The chunks dump answers, one per call in order; the last one again once they run out. */
        List<DumpChunk> chunks = List.of(new DumpChunk(null, List.of()));

        @Override
        public Facts facts(Path storeDir) {
            asked.add(storeDir);
            return facts;
        }

        @Override
        public Verification verify(Path storeDir) {
            asked.add(storeDir);
            return verification;
        }

        @Override
        public DumpChunk dump(Path storeDir, byte[] from, byte[] to, byte[] resume, int max) {
            asked.add(storeDir);
            maxEntries.add(max);
            return chunks.get(Math.min(maxEntries.size() - 1, chunks.size() - 1));
        }
    }

    /** A reader that fails the test if the tool reads any store at all. */
    static final StoreReader NEVER = new StoreReader() {
        @Override
        public Facts facts(Path storeDir) {
            throw new AssertionError("the tool read " + storeDir);
        }

        @Override
        public Verification verify(Path storeDir) {
            throw new AssertionError("the tool verified " + storeDir);
        }

        @Override
        public DumpChunk dump(Path storeDir, byte[] from, byte[] to, byte[] resume, int max) {
            throw new AssertionError("the tool dumped " + storeDir);
        }
    };
}
