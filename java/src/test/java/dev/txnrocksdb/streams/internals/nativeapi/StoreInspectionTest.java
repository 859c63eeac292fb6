package dev.txnrocksdb.streams.internals.nativeapi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.txnrocksdb.streams.internals.nativeapi.StoreInspection.DumpChunk;
import dev.txnrocksdb.streams.internals.nativeapi.StoreInspection.DumpEntry;
import dev.txnrocksdb.streams.internals.nativeapi.StoreInspection.Facts;
import dev.txnrocksdb.streams.internals.nativeapi.StoreInspection.Finding;
import dev.txnrocksdb.streams.internals.nativeapi.StoreInspection.NextOpen;
import dev.txnrocksdb.streams.internals.nativeapi.StoreInspection.Outcome;
import dev.txnrocksdb.streams.internals.nativeapi.StoreInspection.Severity;
import dev.txnrocksdb.streams.internals.nativeapi.StoreInspection.StoreKind;
import dev.txnrocksdb.streams.internals.nativeapi.StoreInspection.Verification;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * The operators' tool's records ({@link StoreInspection}) are the format crate's: every record of
 * {@code rust/format/tests/golden/inspection.txt}, which the format crate's {@code tests/golden.rs}
 * ({@code inspection_records}) encodes, decodes here to the values it encoded; a record from
 * another build (cut short, with bytes after it, another version, an unknown code) is an
 * {@link IllegalStateException} naming the record and what was wrong.
 */
class StoreInspectionTest {
    private static final Path GOLDEN = Paths.get("../rust/format/tests/golden/inspection.txt");
    private static final long NO_TIME = StoreInspection.NO_TIME;

    /** The golden records by {@code kind name}, in the file's order. */
    private static Map<String, byte[]> golden() throws IOException {
        Map<String, byte[]> golden = new LinkedHashMap<>();
        for (String line : Files.readAllLines(GOLDEN)) {
            if (line.isBlank()) {
                continue;
            }
            String[] fields = line.split(" ");
            golden.put(fields[0] + " " + fields[1], HexFormat.of().parseHex(fields[2]));
        }
        return golden;
    }

    /** The decoder of a golden record's kind. */
    private static Function<byte[], Object> decoder(String kind) {
        switch (kind) {
            case "facts":
                return Facts::decode;
            case "verification":
                return Verification::decode;
            case "dump":
                return DumpChunk::decode;
            default:
                throw new AssertionError("a golden record of an unknown kind: " + kind);
        }
    }

    @Test
    void everyGoldenRecordIsCheckedHere() throws IOException {
        assertEquals(
                Set.of(
                        "facts window",
                        "facts ttl",
                        "facts unknown",
                        "verification damaged",
                        "verification fine",
                        "dump more",
                        "dump last"),
                golden().keySet(),
                "golden.rs wrote records this test does not check (or no longer writes some): add them here");
    }

    @Test
    void decodesTheFormatCratesFacts() throws IOException {
        Map<String, byte[]> golden = golden();
        Map<TopicPartition, Long> offsets = new LinkedHashMap<>();
        offsets.put(new TopicPartition("app-counts-changelog", 0), 41L);
        offsets.put(new TopicPartition("caf\u00e9", 7), -1L);
        Facts window = Facts.decode(golden.get("facts window"));
        assertEquals(
                new Facts(
                        StoreKind.WINDOW,
                        ValueFormat.TIMESTAMPED,
                        false,
                        false,
                        NO_TIME,
                        true,
                        true,
                        1_234L,
                        5L << 30,
                        4_096L,
                        offsets,
                        List.of(new Finding(Severity.NOTE, "a note"), new Finding(Severity.DAMAGE, "damage"))),
                window);
        assertEquals(List.copyOf(offsets.keySet()), List.copyOf(window.offsets().keySet()), "the record's order");
        assertTrue(window.damaged());

        Facts ttl = Facts.decode(golden.get("facts ttl"));
        assertEquals(
                new Facts(
                        StoreKind.KEY_VALUE,
                        ValueFormat.PLAIN,
                        true,
                        true,
                        1_700_000_000_000L,
                        false,
                        false,
                        0L,
                        0L,
                        0L,
                        Map.of(),
                        List.of()),
                ttl);
        assertFalse(ttl.damaged());

        Facts unknown = Facts.decode(golden.get("facts unknown"));
        assertNull(unknown.kind(), "kind code 0: not recorded");
        assertNull(unknown.valueFormat(), "value format 0xff: none recorded");
        assertEquals(
                new Facts(null, null, false, false, NO_TIME, false, false, 0L, 0L, 0L, Map.of(), List.of()), unknown);
    }

    @Test
    void decodesTheFormatCratesVerifications() throws IOException {
        Map<String, byte[]> golden = golden();
        Verification damaged = Verification.decode(golden.get("verification damaged"));
        assertEquals(
                new Verification(
                        List.of(new Finding(Severity.DAMAGE, "checksum mismatch")),
                        List.of(
                                new NextOpen(CorruptionPolicy.REFUSE, Outcome.REFUSES, "damaged"),
                                new NextOpen(
                                        CorruptionPolicy.OPEN_AT_LAST_CONSISTENT_COMMIT,
                                        Outcome.OPENS_BEFORE_DAMAGE,
                                        "offsets 3"),
                                new NextOpen(CorruptionPolicy.RESTORE_FROM_CHANGELOG, Outcome.WIPES, ""))),
                damaged);
        assertTrue(damaged.damaged());

        Verification fine = Verification.decode(golden.get("verification fine"));
        assertEquals(
                new Verification(
                        List.of(),
                        List.of(
                                new NextOpen(CorruptionPolicy.REFUSE, Outcome.OPENS, ""),
                                new NextOpen(
                                        CorruptionPolicy.OPEN_AT_LAST_CONSISTENT_COMMIT, Outcome.ROLLS_FORWARD, ""),
                                new NextOpen(CorruptionPolicy.RESTORE_FROM_CHANGELOG, Outcome.OPENS, ""))),
                fine);
        assertFalse(fine.damaged());
    }

    @Test
    void decodesTheFormatCratesDumpChunks() throws IOException {
        Map<String, byte[]> golden = golden();
        DumpChunk more = DumpChunk.decode(golden.get("dump more"));
        assertArrayEquals(new byte[] {0x00, (byte) 0xff}, more.resume());
        assertEquals(2, more.entries().size());
        DumpEntry first = more.entries().get(0);
        assertArrayEquals("k1".getBytes(StandardCharsets.UTF_8), first.key());
        assertArrayEquals("v1".getBytes(StandardCharsets.UTF_8), first.value());
        assertEquals(10L, first.first());
        assertEquals(20L, first.second());
        DumpEntry second = more.entries().get(1);
        assertArrayEquals(new byte[0], second.key());
        assertArrayEquals(new byte[] {(byte) 0xff}, second.value());
        assertEquals(NO_TIME, second.first());
        assertEquals(NO_TIME, second.second());

        DumpChunk last = DumpChunk.decode(golden.get("dump last"));
        assertNull(last.resume(), "resume -1: the entries end here");
        assertEquals(List.of(), last.entries());
    }

    @Test
    void aRecordCutShortAnywhereIsRefused() throws IOException {
        for (Map.Entry<String, byte[]> record : golden().entrySet()) {
            String name = record.getKey();
            String what = what(name);
            Function<byte[], Object> decode = decoder(name.split(" ")[0]);
            byte[] bytes = record.getValue();
            for (int cut = 0; cut < bytes.length; cut++) {
                byte[] truncated = Arrays.copyOf(bytes, cut);
                IllegalStateException e = assertThrows(
                        IllegalStateException.class, () -> decode.apply(truncated), name + " cut at " + cut);
                assertTrue(e.getMessage().startsWith(what + ": "), e.getMessage());
            }
        }
    }

    @Test
    void bytesAfterTheRecordAreRefused() throws IOException {
        for (Map.Entry<String, byte[]> record : golden().entrySet()) {
            String name = record.getKey();
            byte[] bytes = record.getValue();
            IllegalStateException e = assertThrows(
                    IllegalStateException.class,
                    () -> decoder(name.split(" ")[0]).apply(Arrays.copyOf(bytes, bytes.length + 1)),
                    name);
            assertEquals(what(name) + ": 1 bytes after the record", e.getMessage());
        }
    }

    @Test
    void aRecordOfAnotherVersionIsRefused() throws IOException {
        for (Map.Entry<String, byte[]> record : golden().entrySet()) {
            String name = record.getKey();
            byte[] bytes = record.getValue().clone();
            bytes[0] = 7;
            IllegalStateException e = assertThrows(
                    IllegalStateException.class,
                    () -> decoder(name.split(" ")[0]).apply(bytes),
                    name);
            assertEquals(
                    what(name) + ": version 7, expected 1 (the Java classes and the native library differ)",
                    e.getMessage());
        }
    }

    @Test
    void unknownCodesAreRefusedByName() throws IOException {
        Map<String, byte[]> golden = golden();
        byte[] facts = golden.get("facts window");
        assertEquals("store facts: unknown store kind 9", refused(Facts::decode, facts, 1, 9));
        assertEquals("store facts: unknown value format 7", refused(Facts::decode, facts, 2, 7));
        assertEquals("store facts: upgradePending is 2, neither 0 nor 1", refused(Facts::decode, facts, 3, 2));
        assertEquals("store facts: timeToLive is 2, neither 0 nor 1", refused(Facts::decode, facts, 4, 2));
        assertEquals("store facts: commitPending is 2, neither 0 nor 1", refused(Facts::decode, facts, 13, 2));
        assertEquals("store facts: uncommittedPending is 2, neither 0 nor 1", refused(Facts::decode, facts, 14, 2));

        // [version][int32 findings = 1][severity] ...
        byte[] damaged = golden.get("verification damaged");
        assertEquals("store verification: unknown finding severity 2", refused(Verification::decode, damaged, 5, 2));
        // [version][int32 findings = 0][int32 nextOpen = 3][policy][outcome] ...
        byte[] fine = golden.get("verification fine");
        assertEquals("store verification: unknown damage policy 3", refused(Verification::decode, fine, 9, 3));
        assertEquals("store verification: unknown outcome 5", refused(Verification::decode, fine, 10, 5));
    }

    @Test
    void countsAndLengthsThatCannotFitAreRefused() throws IOException {
        // [version][int32 findings]: more findings than bytes left
        byte[] huge = {StoreInspection.VERSION, 0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff};
        IllegalStateException findings = assertThrows(IllegalStateException.class, () -> Verification.decode(huge));
        assertEquals("store verification: 2147483647 entries do not fit in the 0 bytes left", findings.getMessage());
        // [version][int32 resumeLen = -2]
        byte[] negative = {StoreInspection.VERSION, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xfe, 0, 0, 0, 0};
        IllegalStateException length = assertThrows(IllegalStateException.class, () -> DumpChunk.decode(negative));
        assertEquals("dump chunk: a byte string of -2 bytes, 4 left", length.getMessage());
        // a finding that is not UTF-8: [version][1 finding][NOTE][str of 1 byte: 0xff][no next opens]
        byte[] notUtf8 = {StoreInspection.VERSION, 0, 0, 0, 1, 0, 0, 0, 0, 1, (byte) 0xff, 0, 0, 0, 0};
        IllegalStateException text = assertThrows(IllegalStateException.class, () -> Verification.decode(notUtf8));
        assertEquals("store verification: a finding is not UTF-8", text.getMessage());
    }

    @Test
    void enumerationsFollowTheFormatCratesCodes() {
        assertEquals(
                List.of((byte) 1, (byte) 2, (byte) 3, (byte) 4),
                Arrays.stream(StoreKind.values()).map(StoreKind::code).toList());
        assertEquals(
                List.of("key-value", "window", "session", "versioned"),
                Arrays.stream(StoreKind.values()).map(StoreKind::words).toList());
        assertEquals(List.of(Severity.NOTE, Severity.DAMAGE), List.of(Severity.values()));
        assertEquals(
                List.of(
                        Outcome.OPENS,
                        Outcome.ROLLS_FORWARD,
                        Outcome.OPENS_BEFORE_DAMAGE,
                        Outcome.REFUSES,
                        Outcome.WIPES),
                List.of(Outcome.values()));
    }

    /** The message of the error decoding {@code record} with byte {@code at} set to {@code value}. */
    private static String refused(Function<byte[], ?> decode, byte[] record, int at, int value) {
        byte[] bytes = record.clone();
        bytes[at] = (byte) value;
        return assertThrows(IllegalStateException.class, () -> decode.apply(bytes))
                .getMessage();
    }

    /** The record's name in messages, by the golden line's kind. */
    private static String what(String name) {
        switch (name.split(" ")[0]) {
            case "facts":
                return "store facts";
            case "verification":
                return "store verification";
            default:
                return "dump chunk";
        }
    }
}
