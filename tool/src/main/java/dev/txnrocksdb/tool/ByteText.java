package dev.txnrocksdb.tool;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/**
 * Keys and values as an operator reads and types them: UTF-8 text where the bytes are printable
 * UTF-8, {@code hex:0a0b} otherwise, the same syntax {@code --from} and {@code --to} take.
 */
final class ByteText {
    /** The prefix of bytes written in hex. */
    static final String HEX_PREFIX = "hex:";

    private ByteText() {}

    /** The bytes in lower-case hex, no separators. */
    static String hex(byte[] bytes) {
        return HexFormat.of().formatHex(bytes);
    }

    /**
     * The bytes as text if they are valid UTF-8 of printable characters only (no control, format,
     * private-use, unassigned or line-separator characters), else null.
     */
    static String printableUtf8(byte[] bytes) {
        String text;
        try {
            text = StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes))
                    .toString();
        } catch (CharacterCodingException e) {
            return null;
        }
        boolean printable = text.codePoints().allMatch(ByteText::printable);
        return printable ? text : null;
    }

    /**
     * The bytes for a line of text: their UTF-8 text where {@link #printableUtf8} has one, it is not
     * empty and could not be taken for hex (it does not start with {@value #HEX_PREFIX}), and
     * {@code forceHex} is false; {@code hex:...} otherwise.
     */
    static String forText(byte[] bytes, boolean forceHex) {
        String text = forceHex ? null : printableUtf8(bytes);
        if (text == null || text.isEmpty() || text.startsWith(HEX_PREFIX)) {
            return HEX_PREFIX + hex(bytes);
        }
        return text;
    }

    /**
     * A key an operator typed: {@code hex:0a0b} for bytes, anything else as its UTF-8 bytes.
     *
     * @throws IllegalArgumentException for {@code hex:} followed by anything but pairs of hex digits
     */
    static byte[] parse(String typed) {
        if (typed.startsWith(HEX_PREFIX)) {
            String digits = typed.substring(HEX_PREFIX.length());
            try {
                return HexFormat.of().parseHex(digits);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(
                        "'" + typed + "' is not hex: after " + HEX_PREFIX + " come pairs of hex digits (hex:0a0b)");
            }
        }
        return typed.getBytes(StandardCharsets.UTF_8);
    }

    private static boolean printable(int codePoint) {
        switch (Character.getType(codePoint)) {
            case Character.CONTROL:
            case Character.FORMAT:
            case Character.PRIVATE_USE:
            case Character.SURROGATE:
            case Character.UNASSIGNED:
            case Character.LINE_SEPARATOR:
            case Character.PARAGRAPH_SEPARATOR:
                return false;
            default:
                return true;
        }
    }
}
