package dev.txnrocksdb.streams.internals.nativeapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The snapshot natives' records ({@link SnapshotCalls}) are the format crate's: the requests of
 * {@code rust/format/tests/golden/snapshot_calls.txt}, which the format crate's
 * {@code tests/golden.rs} encodes, are encoded here again byte for byte, and its answers decode
 * here to the values it encoded. A request the native side cannot use is an
 * {@code IllegalArgumentException} naming the value.
 */
class SnapshotCallsTest {
    private static final Path GOLDEN = Paths.get("../rust/format/tests/golden/snapshot_calls.txt");
    private static final TopicPartition CHANGELOG = new TopicPartition("app-counts-changelog", 1);

    @TempDir
    Path dir;

    /** The golden records by {@code kind name}. */
    private static Map<String, byte[]> golden() throws IOException {
        Map<String, byte[]> golden = new LinkedHashMap<>();
        for (String line : Files.readAllLines(GOLDEN)) {
            String[] fields = line.split(" ");
            golden.put(fields[0] + " " + fields[1], HexFormat.of().parseHex(fields[2]));
        }
        return golden;
    }

    @Test
    void encodesTheFormatCratesRequests() throws IOException {
        Map<String, byte[]> golden = golden();
        Map<String, String> s3Options = new LinkedHashMap<>();
        s3Options.put("aws_endpoint", "http://127.0.0.1:9000");
        s3Options.put("aws_region", "eu=west-1");
        SnapshotCalls.LocationOptions s3 = SnapshotCalls.LocationOptions.builder("s3://bucket/prefix")
                .options(s3Options)
                .build();
        assertEquals(
                HexFormat.of().formatHex(golden.get("location s3")),
                HexFormat.of().formatHex(s3.encode()));
        SnapshotCalls.LocationOptions file = SnapshotCalls.LocationOptions.builder("file:///tmp/caf\u00e9")
                .uploadBytesPerSecond(1L << 20)
                .requestTimeoutMs(1)
                .ioThreads(64)
                .build();
        assertEquals(
                HexFormat.of().formatHex(golden.get("location file")),
                HexFormat.of().formatHex(file.encode()));
        SnapshotCalls.RestoreRequest request = SnapshotCalls.RestoreRequest.builder(
                        "app/0_1/counts", Paths.get("/state/app/0_1/rocksdb/counts"))
                .changelog(CHANGELOG, 0, 1_000_000_000_000L)
                .waiting(10_000, 150_000)
                .ttl(true)
                .build();
        assertEquals(
                HexFormat.of().formatHex(golden.get("restore-request counts")),
                HexFormat.of().formatHex(request.encode()));
        SnapshotCalls.ListRequest listing = new SnapshotCalls.ListRequest(
                        "app/counts/1-AAAAAAAAAAAAAAAAAAAAAA", 30_000, 1_800_000)
                .changelog(CHANGELOG, 0, 42)
                .changelog(new TopicPartition("app-other-changelog", 0), 7, 7);
        assertEquals(
                HexFormat.of().formatHex(golden.get("list-request changelogs")),
                HexFormat.of().formatHex(listing.encode()));
        assertEquals(
                HexFormat.of().formatHex(golden.get("list-request every-store")),
                HexFormat.of().formatHex(new SnapshotCalls.ListRequest(null, 1, 2).encode()));
    }

    @Test
    void decodesTheFormatCratesAnswers() throws IOException {
        Map<String, byte[]> golden = golden();
        SnapshotCalls.Restored restored = SnapshotCalls.Restored.decode(golden.get("restore-answer counts"));
        assertEquals(
                Arrays.asList(12L, 7L, 5L << 30, 1L, 250L),
                Arrays.asList(restored.seq, restored.files, restored.bytes, restored.skipped, restored.waitedMs));
        assertNull(SnapshotCalls.Restored.decode(null), "no record: no usable snapshot");
        SnapshotCalls.Taken taken = SnapshotCalls.Taken.decode(golden.get("take-answer counts"));
        assertEquals(
                Arrays.asList(13L, 9L, 3L, 4_096L, 2L, 1L, 1L),
                Arrays.asList(
                        taken.seq,
                        taken.files,
                        taken.objectsSent,
                        taken.bytesSent,
                        taken.objectsVerified,
                        taken.objectsDamaged,
                        taken.objectsResent));
        assertEquals(Map.of(CHANGELOG, 41L), taken.offsets);
        assertEquals(41L, taken.changelogOffset());
        SnapshotCalls.Taken unchangelogged = SnapshotCalls.Taken.decode(golden.get("take-answer no-changelog"));
        assertEquals(Map.of(), unchangelogged.offsets);
        assertEquals(-1L, unchangelogged.changelogOffset());
        SnapshotCalls.Retained retained = SnapshotCalls.Retained.decode(golden.get("retain-answer counts"));
        assertEquals(Arrays.asList(2L, 5L), Arrays.asList(retained.manifestsDeleted, retained.objectsDeleted));
        SnapshotCalls.Downloading downloading =
                SnapshotCalls.Downloading.decode(golden.get("download-progress counts"));
        assertEquals(
                Arrays.asList(12L, 3L << 20, 5L << 30, 20_000L),
                Arrays.asList(downloading.seq, downloading.doneBytes, downloading.totalBytes, downloading.elapsedMs));
        SnapshotCalls.Downloading none = SnapshotCalls.Downloading.decode(golden.get("download-progress none-yet"));
        assertEquals(SnapshotCalls.Downloading.NONE.seq, none.seq);
        SnapshotCalls.Listed listed = SnapshotCalls.Listed.decode(golden.get("list-answer counts"));
        assertEquals(2, listed.snapshots.size());
        SnapshotCalls.Listed.Snapshot usable = listed.snapshots.get(0);
        assertEquals("app/counts/1-AAAAAAAAAAAAAAAAAAAAAA", usable.storeId);
        assertEquals(
                Arrays.asList(13L, 1_700_000_000_000L, 9L, 5L << 30),
                Arrays.asList(usable.seq, usable.createdMs, usable.files, usable.bytes));
        assertEquals(ValueFormat.TIMESTAMPED, usable.valueFormat);
        assertEquals(1, usable.strategy, "secondary-store's code");
        assertEquals(Arrays.asList(true, true, ""), Arrays.asList(usable.transactional, usable.ttl, usable.problem));
        assertEquals(Map.of(CHANGELOG, 41L), usable.offsets);
        assertEquals("its changelog offset 41 is not one the changelog has now", usable.changelogRefuses);
        SnapshotCalls.Listed.Snapshot damaged = listed.snapshots.get(1);
        assertEquals(Arrays.asList(14L, 12L), Arrays.asList(damaged.seq, damaged.bytes));
        assertEquals("its manifest does not decode (caf\u00e9)", damaged.problem);
        assertEquals("", damaged.changelogRefuses);
        assertEquals(Map.of(), damaged.offsets);
        assertEquals(
                0,
                SnapshotCalls.Listed.decode(golden.get("list-answer none"))
                        .snapshots
                        .size());
    }

    @Test
    void anAnswerFromAnotherBuildNamesWhatWasWrong() throws IOException {
        byte[] good = golden().get("retain-answer counts");
        byte[] wrongVersion = good.clone();
        wrongVersion[0] = 9;
        IllegalStateException version =
                assertThrows(IllegalStateException.class, () -> SnapshotCalls.Retained.decode(wrongVersion));
        assertEquals(
                "snapshot retain answer: version 9, expected 2 (the Java classes and the native library differ)",
                version.getMessage());
        IllegalStateException truncated = assertThrows(
                IllegalStateException.class, () -> SnapshotCalls.Retained.decode(Arrays.copyOf(good, good.length - 1)));
        assertEquals("snapshot retain answer: truncated", truncated.getMessage());
        IllegalStateException trailing = assertThrows(
                IllegalStateException.class, () -> SnapshotCalls.Retained.decode(Arrays.copyOf(good, good.length + 1)));
        assertEquals("snapshot retain answer: 1 bytes after the record", trailing.getMessage());
    }

    @Test
    void equalOptionsAreOneLocationAndToStringHidesTheValues() {
        SnapshotCalls.LocationOptions a = SnapshotCalls.LocationOptions.builder("s3://b")
                .options(Map.of("aws_secret_access_key", "sup3r"))
                .build();
        SnapshotCalls.LocationOptions b = SnapshotCalls.LocationOptions.builder("s3://b")
                .options(Map.of("aws_secret_access_key", "sup3r"))
                .build();
        assertEquals(a, b);
        assertEquals(a.hashCode(), b.hashCode());
        assertNotEquals(
                a,
                SnapshotCalls.LocationOptions.builder("s3://b")
                        .requestTimeoutMs(1)
                        .build());
        assertTrue(
                a.toString().contains("aws_secret_access_key") && !a.toString().contains("sup3r"), a.toString());
    }

    @Test
    void theNativeSideRefusesValuesItCannotUse() {
        String uri = dir.toUri().toString();
        IllegalArgumentException timeout = assertThrows(
                IllegalArgumentException.class,
                () -> NativeSnapshotLocation.open(SnapshotCalls.LocationOptions.builder(uri)
                        .requestTimeoutMs(0)
                        .build()));
        assertEquals("the request timeout must be more than 0 ms, not 0", timeout.getMessage());
        IllegalArgumentException threads = assertThrows(
                IllegalArgumentException.class,
                () -> NativeSnapshotLocation.open(
                        SnapshotCalls.LocationOptions.builder(uri).ioThreads(65).build()));
        assertEquals("snapshot I/O threads must be 1 to 64, not 65", threads.getMessage());
        IllegalArgumentException option = assertThrows(
                IllegalArgumentException.class,
                () -> NativeSnapshotLocation.open(SnapshotCalls.LocationOptions.builder("s3://bucket")
                        .options(Map.of("no_such_key", "sup3r"))
                        .build()));
        assertTrue(
                option.getMessage().contains("no_such_key")
                        && !option.getMessage().contains("sup3r"),
                option.getMessage());
        IllegalArgumentException interval =
                assertThrows(IllegalArgumentException.class, () -> SnapshotDownloadWatch.create(-1));
        assertEquals("a download's progress interval must be at least 0 ms, not -1", interval.getMessage());
        try (NativeSnapshotLocation location = NativeSnapshotLocation.open(uri, Map.of())) {
            IllegalArgumentException patience = assertThrows(
                    IllegalArgumentException.class,
                    () -> location.restoreNewest(SnapshotCalls.RestoreRequest.builder("store", dir.resolve("store"))
                            .changelog(CHANGELOG, 0, 10)
                            .waiting(-5, 1_000)
                            .build()));
            assertEquals("a restore's patience must be more than 0 ms, not -5", patience.getMessage());
            assertNull(
                    location.restoreNewest(SnapshotCalls.RestoreRequest.builder("store", dir.resolve("store"))
                            .changelog(CHANGELOG, 0, 10)
                            .waiting(1_000, 1_000)
                            .build()),
                    "nothing at the location: no snapshot");
        }
    }
}
