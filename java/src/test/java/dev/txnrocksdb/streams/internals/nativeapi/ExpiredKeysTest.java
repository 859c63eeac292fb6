package dev.txnrocksdb.streams.internals.nativeapi;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An expiry pass's answer ({@link ExpiredKeys}) is the format crate's {@code wire::encode_expired}
 * record: every record of {@code rust/format/tests/golden/expired_keys.txt}, which the format
 * crate's {@code tests/golden.rs} encodes, decodes here to the keys, bytes and flag it encoded.
 */
class ExpiredKeysTest {
    private static final Path GOLDEN = Paths.get("../rust/format/tests/golden/expired_keys.txt");

    @Test
    void decodesTheFormatCratesRecords() throws IOException {
        List<String> lines = Files.readAllLines(GOLDEN);
        assertEquals(3, lines.size(), "the golden cases");
        for (String line : lines) {
            String[] f = line.split(" ");
            ExpiredKeys expired = ExpiredKeys.decode(HexFormat.of().parseHex(f[4]));
            List<String> keys = expired.keys().stream()
                    .map(k -> k.length == 0 ? "\"\"" : HexFormat.of().formatHex(k))
                    .toList();
            assertEquals(f[1].equals("-") ? List.of() : List.of(f[1].split(",")), keys, f[0] + ": keys");
            assertEquals(Long.parseLong(f[2]), expired.bytes(), f[0] + ": bytes");
            assertEquals(Boolean.parseBoolean(f[3]), expired.more(), f[0] + ": more");
        }
    }
}
