package dev.txnrocksdb.tool;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Keys and values as text: UTF-8 where printable, {@code hex:} otherwise, and back. */
class ByteTextTest {
    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void printableUtf8IsShownAsText() {
        assertEquals("word", ByteText.printableUtf8(utf8("word")));
        assertEquals(
                "caf\u00e9 \u65e5\u672c \uD83D\uDE00",
                ByteText.printableUtf8(utf8("caf\u00e9 \u65e5\u672c \uD83D\uDE00")));
        assertEquals("", ByteText.printableUtf8(new byte[0]));
        assertEquals("word", ByteText.forText(utf8("word"), false));
        assertEquals("two words", ByteText.forText(utf8("two words"), false));
    }

    @Test
    void anythingElseIsShownInHex() {
        assertNull(ByteText.printableUtf8(new byte[] {(byte) 0xff}), "not UTF-8");
        assertNull(ByteText.printableUtf8(new byte[] {(byte) 0xc3}), "cut short");
        assertNull(ByteText.printableUtf8(utf8("a\nb")), "a control character");
        assertNull(ByteText.printableUtf8(new byte[] {0, 0, 0, 1}), "a big-endian int");
        assertNull(ByteText.printableUtf8(utf8("\u202eevil")), "a format character (bidi override)");
        assertNull(ByteText.printableUtf8(utf8("\uE000")), "private use");
        assertEquals("hex:00000001", ByteText.forText(new byte[] {0, 0, 0, 1}, false));
        assertEquals("hex:", ByteText.forText(new byte[0], false), "empty: hex, so it shows");
        assertEquals("hex:6865783a3031", ByteText.forText(utf8("hex:01"), false), "text that reads as hex");
        assertEquals("hex:776f7264", ByteText.forText(utf8("word"), true), "--hex");
    }

    @Test
    void typedKeysAreTextOrHex() {
        assertArrayEquals(utf8("word"), ByteText.parse("word"));
        assertArrayEquals(utf8("caf\u00e9"), ByteText.parse("caf\u00e9"));
        assertArrayEquals(new byte[] {0x0a, 0x0b, (byte) 0xff}, ByteText.parse("hex:0a0bFF"));
        assertArrayEquals(new byte[0], ByteText.parse("hex:"));
        assertThrows(IllegalArgumentException.class, () -> ByteText.parse("hex:abc"));
        assertThrows(IllegalArgumentException.class, () -> ByteText.parse("hex:zz"));
        byte[] bytes = {0, (byte) 0x80, 0x7f};
        assertArrayEquals(bytes, ByteText.parse(ByteText.forText(bytes, false)), "what is shown can be typed back");
    }
}
