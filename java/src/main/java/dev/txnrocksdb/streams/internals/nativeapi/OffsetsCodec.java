package dev.txnrocksdb.streams.internals.nativeapi;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * The changelog-offset wire formats of {@link NativeStore#commit} (updates) and
 * {@link NativeStore#committedOffsets} (current offsets). All integers are big-endian.
 */
public final class OffsetsCodec {
    private OffsetsCodec() {}

    /**
     * Encodes an offsets update: {@code [int32 count]} then per entry
     * {@code [int32 topicLen][topic UTF-8][int32 partition][byte hasOffset][int64 offset]}.
     * An empty map (count 0) clears every committed offset; a null value removes that partition's
     * offset; any other value, including Kafka's {@code -4} (unknown), is stored verbatim.
     */
    public static byte[] encodeUpdates(Map<TopicPartition, Long> updates) {
        List<byte[]> topics = new ArrayList<>(updates.size());
        int size = Integer.BYTES;
        for (TopicPartition tp : updates.keySet()) {
            byte[] topic = tp.topic().getBytes(StandardCharsets.UTF_8);
            topics.add(topic);
            size += Integer.BYTES + topic.length + Integer.BYTES + 1 + Long.BYTES;
        }
        ByteBuffer out = ByteBuffer.allocate(size);
        out.putInt(updates.size());
        int i = 0;
        for (Map.Entry<TopicPartition, Long> entry : updates.entrySet()) {
            byte[] topic = topics.get(i++);
            Long offset = entry.getValue();
            out.putInt(topic.length).put(topic).putInt(entry.getKey().partition());
            out.put((byte) (offset == null ? 0 : 1)).putLong(offset == null ? 0L : offset);
        }
        return out.array();
    }

    /**
     * Decodes committed offsets: {@code [int32 count]} then per entry
     * {@code [int32 topicLen][topic UTF-8][int32 partition][int64 offset]}.
     *
     * @throws IllegalArgumentException if the bytes are truncated or carry trailing garbage
     */
    public static Map<TopicPartition, Long> decodeOffsets(byte[] encoded) {
        ByteBuffer in = ByteBuffer.wrap(encoded);
        try {
            int count = in.getInt();
            if (count < 0) {
                throw malformed("negative offset count " + count, null);
            }
            Map<TopicPartition, Long> offsets = new HashMap<>();
            for (int i = 0; i < count; i++) {
                byte[] topic = new byte[in.getInt()];
                in.get(topic);
                int partition = in.getInt();
                offsets.put(new TopicPartition(new String(topic, StandardCharsets.UTF_8), partition), in.getLong());
            }
            if (in.hasRemaining()) {
                throw malformed(in.remaining() + " trailing bytes after " + count + " offsets", null);
            }
            return offsets;
        } catch (BufferUnderflowException | NegativeArraySizeException e) {
            throw malformed("truncated or negative length in " + encoded.length + " bytes", e);
        }
    }

    private static IllegalArgumentException malformed(String detail, Throwable cause) {
        return new IllegalArgumentException("malformed committed offsets from the native store: " + detail, cause);
    }
}
