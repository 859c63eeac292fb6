package dev.txnrocksdb.streams.internals;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.apache.kafka.streams.query.Position;

/**
 * The bytes of a {@link Position} as stored beside the committed offsets. Layout (big-endian),
 * the same as version 0 of Kafka's internal {@code PositionSerde}, but owned here so the on-disk
 * format does not follow Kafka's internals:
 * {@code [byte version=0][int32 topics]} then per topic
 * {@code [int32 topicLen][topic UTF-8][int32 partitions]([int32 partition][int64 offset])*}.
 */
public final class PositionCodec {
    private static final byte VERSION = 0;

    private PositionCodec() {}

    /** Encodes a position. */
    public static byte[] encode(Position position) {
        List<String> topics = new ArrayList<>(position.getTopics());
        List<byte[]> names = new ArrayList<>(topics.size());
        int size = 1 + Integer.BYTES;
        for (String topic : topics) {
            byte[] name = topic.getBytes(StandardCharsets.UTF_8);
            names.add(name);
            size += Integer.BYTES
                    + name.length
                    + Integer.BYTES
                    + position.getPartitionPositions(topic).size() * (Integer.BYTES + Long.BYTES);
        }
        ByteBuffer out = ByteBuffer.allocate(size);
        out.put(VERSION).putInt(topics.size());
        for (int i = 0; i < topics.size(); i++) {
            Map<Integer, Long> partitions = position.getPartitionPositions(topics.get(i));
            out.putInt(names.get(i).length).put(names.get(i)).putInt(partitions.size());
            for (Map.Entry<Integer, Long> partition : partitions.entrySet()) {
                out.putInt(partition.getKey()).putLong(partition.getValue());
            }
        }
        return out.array();
    }

    /**
     * Decodes a position written by {@link #encode}.
     *
     * @param storeName named in the exception if the bytes are malformed
     * @throws ProcessorStateException if the bytes are malformed or of an unknown version
     */
    public static Position decode(byte[] bytes, String storeName) {
        ByteBuffer in = ByteBuffer.wrap(bytes);
        try {
            byte version = in.get();
            if (version != VERSION) {
                throw new ProcessorStateException("Unknown version " + version + " of the committed position of store "
                        + storeName + "; this library writes version " + VERSION);
            }
            // Counts and lengths come from disk: a damaged one must be an error, not a huge allocation.
            int topicCount = count(in, Integer.BYTES * 2, "topic count", bytes, storeName);
            Map<String, Map<Integer, Long>> positions = new HashMap<>();
            for (int t = 0; t < topicCount; t++) {
                byte[] name = new byte[count(in, 1, "topic name length", bytes, storeName)];
                in.get(name);
                int partitionCount = count(in, Integer.BYTES + Long.BYTES, "partition count", bytes, storeName);
                Map<Integer, Long> partitions = new HashMap<>();
                for (int p = 0; p < partitionCount; p++) {
                    partitions.put(in.getInt(), in.getLong());
                }
                positions.put(new String(name, StandardCharsets.UTF_8), partitions);
            }
            if (in.hasRemaining()) {
                throw malformed(bytes, storeName, in.remaining() + " trailing bytes", null);
            }
            return Position.fromMap(positions);
        } catch (BufferUnderflowException e) {
            throw malformed(bytes, storeName, "truncated", e);
        }
    }

    /** An int32 count of items of at least {@code itemBytes} each, checked against the bytes left. */
    private static int count(ByteBuffer in, int itemBytes, String what, byte[] bytes, String storeName) {
        int count = in.getInt();
        if (count < 0 || (long) count * itemBytes > in.remaining()) {
            throw malformed(bytes, storeName, what + " " + count + " with " + in.remaining() + " bytes left", null);
        }
        return count;
    }

    private static ProcessorStateException malformed(byte[] bytes, String storeName, String detail, Throwable cause) {
        return new ProcessorStateException(
                "Malformed committed position of store " + storeName + " (" + bytes.length + " bytes: " + detail + ")",
                cause);
    }
}
