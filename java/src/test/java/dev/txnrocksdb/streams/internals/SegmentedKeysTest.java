package dev.txnrocksdb.streams.internals;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link SegmentedKeys} reads window and session store keys in Java (on every iterator entry, so
 * without a native call) as the format crate lays them out ({@code rust/format/src/window_key.rs},
 * {@code session_key.rs}): each store key of {@code rust/format/tests/golden/segmented_keys.txt},
 * which the format crate's {@code tests/golden.rs} encodes, splits here into the fields written
 * beside it. The Rust layout is the owner; a change on either side fails one of the two tests.
 */
class SegmentedKeysTest {
    private static final Path GOLDEN = Paths.get("../rust/format/tests/golden/segmented_keys.txt");

    private static byte[] bytes(String hex) {
        return hex.equals("-") ? new byte[0] : HexFormat.of().parseHex(hex);
    }

    @Test
    void readsTheFormatCratesStoreKeys() throws IOException {
        List<String> lines = Files.readAllLines(GOLDEN);
        int windows = 0;
        int sessions = 0;
        for (String line : lines) {
            String[] f = line.split(" ");
            byte[] key = bytes(f[1]);
            byte[] storeKey = bytes(f[4]);
            if (f[0].equals("window")) {
                windows++;
                assertEquals(key.length + SegmentedKeys.WINDOW_SUFFIX, storeKey.length, line);
                assertArrayEquals(key, SegmentedKeys.windowKey(storeKey).get(), line);
                assertEquals(Long.parseLong(f[2]), SegmentedKeys.windowStart(storeKey), line);
                assertEquals(Integer.parseInt(f[3]), SegmentedKeys.windowSeqnum(storeKey), line);
            } else {
                sessions++;
                assertEquals("session", f[0], line);
                assertEquals(key.length + SegmentedKeys.SESSION_SUFFIX, storeKey.length, line);
                assertArrayEquals(key, SegmentedKeys.sessionKey(storeKey).get(), line);
                assertEquals(Long.parseLong(f[2]), SegmentedKeys.sessionStart(storeKey), line);
                assertEquals(Long.parseLong(f[3]), SegmentedKeys.sessionEnd(storeKey), line);
            }
        }
        assertTrue(windows > 0 && sessions > 0, "the golden file has keys of both kinds: " + lines);
    }
}
