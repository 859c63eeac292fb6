package dev.txnrocksdb.streams.internals.nativeapi;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import org.apache.kafka.common.TopicPartition;

/**
 * Reads one record the native library returns, in the layout the format crate's records share
 * (a version byte, then big-endian fields, strings and byte strings as {@code [int32 len][bytes]},
 * nothing after the last field). A record that does not follow its layout, which only a native
 * library from another build can send, is an {@link IllegalStateException} naming the record and
 * what was wrong. The records' own classes ({@link SnapshotCalls}, {@link StoreInspection}) say
 * what the fields mean.
 */
final class RecordDecoder {
    private final ByteBuffer in;
    private final String what;

    /** Starts reading {@code bytes}, the record {@code what}, whose version byte must be {@code version}. */
    RecordDecoder(byte[] bytes, String what, byte version) {
        this.in = ByteBuffer.wrap(Objects.requireNonNull(bytes, what));
        this.what = what;
        byte found = next(in::get);
        if (found != version) {
            throw malformed(
                    "version " + found + ", expected " + version + " (the Java classes and the native library differ)");
        }
    }

    int u8() {
        return Byte.toUnsignedInt(next(in::get));
    }

    long getLong() {
        return next(in::getLong);
    }

    int getInt() {
        return next(in::getInt);
    }

    /** A byte that is 0 (false) or 1 (true); {@code name} names it in the error. */
    boolean flag(String name) {
        int value = u8();
        if (value > 1) {
            throw malformed(name + " is " + value + ", neither 0 nor 1");
        }
        return value == 1;
    }

    /** A list's count, each entry at least {@code minEntry} bytes. */
    int count(int minEntry) {
        int count = getInt();
        if (count < 0 || (long) count * minEntry > in.remaining()) {
            throw malformed(count + " entries do not fit in the " + in.remaining() + " bytes left");
        }
        return count;
    }

    /** A byte string {@code [int32 len][bytes]}; length -1 is null where {@code nullable}. */
    byte[] bytes(boolean nullable) {
        int length = getInt();
        if (length == -1 && nullable) {
            return null;
        }
        if (length < 0 || length > in.remaining()) {
            throw malformed("a byte string of " + length + " bytes, " + in.remaining() + " left");
        }
        byte[] bytes = new byte[length];
        in.get(bytes);
        return bytes;
    }

    /** A UTF-8 string {@code [int32 len][bytes]}; {@code name} names it in the error. */
    String str(String name) {
        int length = getInt();
        if (length < 0 || length > in.remaining()) {
            throw malformed(name + " of " + length + " bytes, " + in.remaining() + " left");
        }
        byte[] bytes = new byte[length];
        in.get(bytes);
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .decode(ByteBuffer.wrap(bytes))
                    .toString();
        } catch (CharacterCodingException e) {
            throw malformed(name + " is not UTF-8");
        }
    }

    /**
     * Changelog offsets, {@code [int32 count] count × ([str topic][int32 partition][int64 offset])}
     * (the format crate's {@code push_offsets}), in the record's order.
     */
    Map<TopicPartition, Long> offsets() {
        int count = count(16);
        Map<TopicPartition, Long> offsets = new LinkedHashMap<>();
        for (int i = 0; i < count; i++) {
            String topic = str("a topic");
            int partition = getInt();
            offsets.put(new TopicPartition(topic, partition), getLong());
        }
        return Collections.unmodifiableMap(offsets);
    }

    /** The value format whose code is {@code code} ({@code ValueFormat::code}). */
    ValueFormat valueFormat(int code) {
        for (ValueFormat format : ValueFormat.values()) {
            if (format.code() == code) {
                return format;
            }
        }
        throw malformed("unknown value format " + code);
    }

    /** {@code record}, once nothing follows it. */
    <T> T end(T record) {
        if (in.hasRemaining()) {
            throw malformed(in.remaining() + " bytes after the record");
        }
        return record;
    }

    /** The error of a record that does not follow its layout: {@code why} it does not. */
    IllegalStateException malformed(String why) {
        return new IllegalStateException(what + ": " + why);
    }

    private <T> T next(Supplier<T> read) {
        try {
            return read.get();
        } catch (BufferUnderflowException e) {
            throw malformed("truncated");
        }
    }
}
