package dev.txnrocksdb.tool;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Writes one JSON document as it goes (a dump of millions of entries is never held in memory),
 * indented two spaces a level. Every string is escaped to ASCII ({@link #quote}), so the document
 * reads the same whatever the terminal's encoding. Misuse (a value in an object without a name, an
 * unbalanced end, a second document) is an {@link IllegalStateException}: a bug in the tool.
 */
final class JsonWriter {
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private final Appendable out;
    private final Deque<Frame> frames = new ArrayDeque<>();
    private boolean done;

    /** An object or array being written: how many members so far, and whether a name waits for its value. */
    private static final class Frame {
        final boolean object;
        int count;
        boolean named;

        Frame(boolean object) {
            this.object = object;
        }
    }

    JsonWriter(Appendable out) {
        this.out = out;
    }

    JsonWriter beginObject() {
        beforeValue();
        write("{");
        frames.push(new Frame(true));
        return this;
    }

    JsonWriter endObject() {
        return end(true, "}");
    }

    JsonWriter beginArray() {
        beforeValue();
        write("[");
        frames.push(new Frame(false));
        return this;
    }

    JsonWriter endArray() {
        return end(false, "]");
    }

    /** The name of the next member of the object being written. */
    JsonWriter name(String name) {
        Frame frame = frames.peek();
        if (frame == null || !frame.object || frame.named) {
            throw new IllegalStateException("a name outside an object, or two names in a row: " + name);
        }
        if (frame.count++ > 0) {
            write(",");
        }
        newline();
        write(quote(name));
        write(": ");
        frame.named = true;
        return this;
    }

    /** A string, or null. */
    JsonWriter value(String value) {
        beforeValue();
        write(value == null ? "null" : quote(value));
        afterValue();
        return this;
    }

    JsonWriter value(long value) {
        beforeValue();
        write(Long.toString(value));
        afterValue();
        return this;
    }

    JsonWriter value(boolean value) {
        beforeValue();
        write(Boolean.toString(value));
        afterValue();
        return this;
    }

    JsonWriter nullValue() {
        return value((String) null);
    }

    JsonWriter field(String name, String value) {
        return name(name).value(value);
    }

    JsonWriter field(String name, long value) {
        return name(name).value(value);
    }

    JsonWriter field(String name, boolean value) {
        return name(name).value(value);
    }

    /**
     * {@code value} as a JSON string: quoted, with {@code "} and {@code \} escaped, the control
     * characters as {@code \n}, {@code \t}, ... or {@code \}{@code u00XX}, and every character past
     * ASCII as {@code \}{@code uXXXX} (a character outside the BMP as its two surrogates' escapes,
     * as JSON writes it).
     */
    static String quote(String value) {
        StringBuilder quoted = new StringBuilder(value.length() + 2).append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"':
                    quoted.append("\\\"");
                    break;
                case '\\':
                    quoted.append("\\\\");
                    break;
                case '\n':
                    quoted.append("\\n");
                    break;
                case '\r':
                    quoted.append("\\r");
                    break;
                case '\t':
                    quoted.append("\\t");
                    break;
                case '\b':
                    quoted.append("\\b");
                    break;
                case '\f':
                    quoted.append("\\f");
                    break;
                default:
                    if (c < 0x20 || c > 0x7e) {
                        quoted.append("\\u")
                                .append(HEX[(c >> 12) & 0xf])
                                .append(HEX[(c >> 8) & 0xf])
                                .append(HEX[(c >> 4) & 0xf])
                                .append(HEX[c & 0xf]);
                    } else {
                        quoted.append(c);
                    }
            }
        }
        return quoted.append('"').toString();
    }

    private JsonWriter end(boolean object, String close) {
        Frame frame = frames.peek();
        if (frame == null || frame.object != object || frame.named) {
            throw new IllegalStateException("an unbalanced " + close);
        }
        frames.pop();
        if (frame.count > 0) {
            newline();
        }
        write(close);
        afterValue();
        return this;
    }

    private void beforeValue() {
        Frame frame = frames.peek();
        if (frame == null) {
            if (done) {
                throw new IllegalStateException("a second JSON document");
            }
            return;
        }
        if (frame.object) {
            if (!frame.named) {
                throw new IllegalStateException("a value in an object needs a name first");
            }
            frame.named = false;
        } else {
            if (frame.count++ > 0) {
                write(",");
            }
            newline();
        }
    }

    private void afterValue() {
        if (frames.isEmpty()) {
            done = true;
            write("\n");
        }
    }

    private void newline() {
        write("\n");
        for (int i = 0; i < frames.size(); i++) {
            write("  ");
        }
    }

    private void write(String text) {
        try {
            out.append(text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
