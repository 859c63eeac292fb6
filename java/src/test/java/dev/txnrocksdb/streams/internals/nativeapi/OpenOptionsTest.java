package dev.txnrocksdb.streams.internals.nativeapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.txnrocksdb.streams.TimeBasis;
import dev.txnrocksdb.streams.TransactionStrategy;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The options record every native {@code open} takes ({@link OpenOptions#encode()}) is the one the
 * format crate decodes: the records of {@code rust/format/tests/golden/open_options.txt}, which the
 * format crate's {@code tests/golden.rs} encodes and decodes, are encoded here again byte for
 * byte. Together they use every code of the strategy, corruption policy and value format, so a
 * code changed on one side only fails one of the two tests. And a record the native side cannot
 * read is an {@code IllegalArgumentException} saying what was wrong, before anything is opened.
 */
class OpenOptionsTest {
    private static final Path GOLDEN = Paths.get("../rust/format/tests/golden/open_options.txt");

    @TempDir
    Path dir;

    /** The records of the golden file by name, built as the format crate's test builds them. */
    private static Map<String, OpenOptions> cases() {
        Map<String, OpenOptions> cases = new LinkedHashMap<>();
        cases.put("defaults", OpenOptions.builder().build());
        cases.put(
                "secondary-store",
                OpenOptions.builder()
                        .syncCommit(true)
                        .strategy(TransactionStrategy.SECONDARY_STORE)
                        .corruption(CorruptionPolicy.OPEN_AT_LAST_CONSISTENT_COMMIT)
                        .valueFormat(ValueFormat.TIMESTAMPED)
                        .statistics(true)
                        .rocksDBOptions("write_buffer_size=1048576", "max_write_buffer_number=3")
                        .spillBytes(0)
                        .ttl(Duration.ofHours(1), TimeBasis.STREAM_TIME)
                        .build());
        cases.put(
                "write-through",
                OpenOptions.builder()
                        .transactional(false)
                        .corruption(CorruptionPolicy.RESTORE_FROM_CHANGELOG)
                        .valueFormat(ValueFormat.TIMESTAMPED_WITH_HEADERS)
                        .rocksDBOptions("", "caf\u00e9=1")
                        .spillBytes(-1)
                        .ttl(Duration.ofMillis(Long.MAX_VALUE), TimeBasis.WALL_CLOCK_TIME)
                        .build());
        cases.put(
                "with-headers",
                OpenOptions.builder()
                        .strategy(TransactionStrategy.SECONDARY_STORE)
                        .valueFormat(ValueFormat.WITH_HEADERS)
                        .statistics(true)
                        .rocksDBOptions("a=1;b=2", "")
                        .spillBytes(Long.MAX_VALUE)
                        .build());
        return cases;
    }

    @Test
    void encodesTheFormatCratesGoldenRecords() throws IOException {
        Map<String, String> golden = new LinkedHashMap<>();
        for (String line : Files.readAllLines(GOLDEN)) {
            String[] fields = line.split(" ");
            golden.put(fields[0], fields[1]);
        }
        Map<String, OpenOptions> cases = cases();
        assertEquals(golden.keySet(), cases.keySet(), "the same records on both sides");
        for (Map.Entry<String, OpenOptions> entry : cases.entrySet()) {
            assertEquals(
                    golden.get(entry.getKey()),
                    HexFormat.of().formatHex(entry.getValue().encode()),
                    entry.getKey());
        }
    }

    @Test
    void theGoldenRecordsUseEveryCode() {
        for (TransactionStrategy strategy : TransactionStrategy.values()) {
            assertTrue(cases().values().stream().anyMatch(o -> o.strategy() == strategy), strategy.toString());
        }
        for (CorruptionPolicy policy : CorruptionPolicy.values()) {
            assertTrue(cases().values().stream().anyMatch(o -> o.corruption() == policy), policy.toString());
        }
        for (ValueFormat format : ValueFormat.values()) {
            assertTrue(cases().values().stream().anyMatch(o -> o.valueFormat() == format), format.toString());
        }
        for (TimeBasis basis : TimeBasis.values()) {
            assertTrue(
                    cases().values().stream().anyMatch(o -> o.ttl() != null && o.timeBasis() == basis),
                    basis.toString());
        }
        assertTrue(cases().values().stream().anyMatch(o -> o.ttl() == null), "a record without a time-to-live");
    }

    /**
     * The key-value store's native open, called with any bytes as the record (a record it accepts
     * would leave its store open: the callers expect a refusal).
     */
    private static void openWith(Path path, byte[] record) throws Throwable {
        Method open = NativeKeyValueStore.class.getDeclaredMethod("open", String.class, byte[].class);
        open.setAccessible(true);
        NativeLibrary.load();
        try {
            open.invoke(null, path.toString(), record);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    @Test
    void aMalformedRecordIsAnIllegalArgumentNamingWhatWasWrong() {
        byte[] good = cases().get("defaults").encode();
        byte[] unknownStrategy = good.clone();
        unknownStrategy[4] = 7;
        byte[] unknownPolicy = good.clone();
        unknownPolicy[5] = 3;
        byte[] unknownFormat = good.clone();
        unknownFormat[6] = 9;
        byte[] badFlag = good.clone();
        badFlag[1] = 2;
        byte[] otherVersion = good.clone();
        otherVersion[0] = 9;
        byte[] unknownBasis = good.clone();
        unknownBasis[24] = 5;
        byte[] zeroTtl = cases().get("secondary-store").encode();
        Arrays.fill(zeroTtl, 16, 24, (byte) 0);
        Map<byte[], String> malformed = new LinkedHashMap<>();
        malformed.put(unknownStrategy, "unknown transaction strategy code 7");
        malformed.put(unknownPolicy, "unknown corruption policy code 3");
        malformed.put(unknownFormat, "unknown value format code 9");
        malformed.put(badFlag, "transactional is 2");
        malformed.put(otherVersion, "version 9");
        malformed.put(unknownBasis, "unknown time basis code 5");
        malformed.put(zeroTtl, "a time-to-live must be at least 1 ms, not 0 ms");
        malformed.put(Arrays.copyOf(good, 10), "truncated open options");
        malformed.put(new byte[0], "truncated open options");
        malformed.put(Arrays.copyOf(good, good.length + 1), "1 bytes after the record");
        int i = 0;
        for (Map.Entry<byte[], String> entry : malformed.entrySet()) {
            Path storeDir = dir.resolve("store-" + i++);
            IllegalArgumentException e =
                    assertThrows(IllegalArgumentException.class, () -> openWith(storeDir, entry.getKey()));
            assertTrue(e.getMessage().contains(entry.getValue()), e.getMessage());
            assertFalse(Files.exists(storeDir), "refused before RocksDB opens anything");
        }
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> openWith(dir.resolve("null"), null));
        assertTrue(e.getMessage().contains("open options must not be null"), e.getMessage());
    }

    /** The golden records whose RocksDB options RocksDB accepts open a store. */
    @Test
    void goldenRecordsOpenStores() {
        for (String name : List.of("defaults", "secondary-store")) {
            NativeKeyValueStore.open(name, dir.resolve(name), cases().get(name)).close();
            assertTrue(Files.isDirectory(dir.resolve(name)), name);
        }
    }
}
