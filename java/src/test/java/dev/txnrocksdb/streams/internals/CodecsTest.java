package dev.txnrocksdb.streams.internals;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.txnrocksdb.streams.internals.nativeapi.BatchEncoder;
import dev.txnrocksdb.streams.internals.nativeapi.OffsetsCodec;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.apache.kafka.streams.query.Position;
import org.apache.kafka.streams.state.internals.PositionSerde;
import org.junit.jupiter.api.Test;

/** The Java halves of the JNI wire formats and the position format, without the native library. */
class CodecsTest {
    @Test
    void batchEncodingMatchesTheContract() {
        List<KeyValue<Bytes, byte[]>> entries = Arrays.asList(
                KeyValue.pair(Bytes.wrap(new byte[] {1, 2}), new byte[] {9}),
                KeyValue.pair(Bytes.wrap(new byte[0]), (byte[]) null));
        byte[] encoded = BatchEncoder.encode(entries, kv -> kv.key.get(), kv -> kv.value);
        ByteBuffer expected = ByteBuffer.allocate(4 + 2 + 4 + 1 + 4 + 0 + 4);
        expected.putInt(2)
                .put(new byte[] {1, 2})
                .putInt(1)
                .put((byte) 9)
                .putInt(0)
                .putInt(-1);
        assertArrayEquals(expected.array(), encoded);
        assertArrayEquals(
                new byte[0],
                BatchEncoder.encode(List.<KeyValue<Bytes, byte[]>>of(), kv -> kv.key.get(), kv -> kv.value));
    }

    @Test
    void offsetUpdatesMatchTheContract() {
        Map<TopicPartition, Long> update = new LinkedHashMap<>();
        update.put(new TopicPartition("t", 1), 5L);
        update.put(new TopicPartition("ü", 2), null);
        ByteBuffer in = ByteBuffer.wrap(OffsetsCodec.encodeUpdates(update));
        assertEquals(2, in.getInt());
        assertEquals(1, in.getInt());
        assertEquals('t', in.get());
        assertEquals(1, in.getInt());
        assertEquals(1, in.get());
        assertEquals(5L, in.getLong());
        byte[] topic = new byte[in.getInt()];
        in.get(topic);
        assertEquals("ü", new String(topic, StandardCharsets.UTF_8));
        assertEquals(2, in.getInt());
        assertEquals(0, in.get());
        in.getLong();
        assertEquals(0, in.remaining());
        assertArrayEquals(new byte[] {0, 0, 0, 0}, OffsetsCodec.encodeUpdates(Map.of()));
    }

    @Test
    void committedOffsetsDecode() {
        ByteBuffer out = ByteBuffer.allocate(4 + 4 + 1 + 4 + 8);
        out.putInt(1).putInt(1).put((byte) 'x').putInt(3).putLong(-4L);
        assertEquals(Map.of(new TopicPartition("x", 3), -4L), OffsetsCodec.decodeOffsets(out.array()));
        assertEquals(Map.of(), OffsetsCodec.decodeOffsets(new byte[] {0, 0, 0, 0}));
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class, () -> OffsetsCodec.decodeOffsets(new byte[] {0, 0, 0, 1, 0}));
        assertTrue(e.getMessage().contains("malformed committed offsets"), e.getMessage());
    }

    @Test
    void positionRoundTripsAndMatchesKafkasPositionSerde() {
        Position position = Position.emptyPosition()
                .withComponent("a", 0, 10)
                .withComponent("a", 3, 11)
                .withComponent("b", 1, 12);
        byte[] ours = PositionCodec.encode(position);
        assertEquals(position, PositionCodec.decode(ours, "s"));
        assertEquals(position, PositionSerde.deserialize(ByteBuffer.wrap(ours)));
        assertEquals(
                Position.emptyPosition(), PositionCodec.decode(PositionCodec.encode(Position.emptyPosition()), "s"));
        ProcessorStateException e =
                assertThrows(ProcessorStateException.class, () -> PositionCodec.decode(new byte[] {7}, "my-store"));
        assertTrue(e.getMessage().contains("my-store"), e.getMessage());
        assertThrows(ProcessorStateException.class, () -> PositionCodec.decode(new byte[] {0, 0, 0, 0, 1}, "my-store"));
    }

    /**
     * The position is read from disk: damaged bytes are a {@link ProcessorStateException} naming the
     * store, never another exception, and never an allocation the bytes cannot describe. Seeded
     * random inputs: valid encodings with flipped bytes, cut short, with large counts written in,
     * and random bytes; what decodes re-encodes to an equal position.
     */
    @Test
    void damagedPositionBytesAreAnErrorNamingTheStore() {
        Random random = new Random(20261201L);
        byte[] valid = PositionCodec.encode(Position.emptyPosition()
                .withComponent("topic-a", 0, 10)
                .withComponent("topic-a", 3, 11)
                .withComponent("b", 1, 12));
        for (int i = 0; i < 100_000; i++) {
            byte[] input;
            switch (i % 4) {
                case 0:
                    input = valid.clone();
                    input[random.nextInt(input.length)] ^= (byte) (1 + random.nextInt(255));
                    break;
                case 1:
                    input = Arrays.copyOf(valid, random.nextInt(valid.length));
                    break;
                case 2:
                    input = valid.clone();
                    ByteBuffer.wrap(input).putInt(random.nextInt(input.length - 3), random.nextInt());
                    break;
                default:
                    input = new byte[random.nextInt(64)];
                    random.nextBytes(input);
                    if (input.length > 0) {
                        input[0] = 0;
                    }
            }
            try {
                Position decoded = PositionCodec.decode(input, "s");
                assertEquals(decoded, PositionCodec.decode(PositionCodec.encode(decoded), "s"));
            } catch (ProcessorStateException e) {
                assertTrue(e.getMessage().contains("store s"), e.getMessage());
            }
        }
        // Before the bounds checks, a name length of 2^31 - 1 allocated 2 GiB before failing.
        byte[] hugeName = ByteBuffer.allocate(13)
                .put((byte) 0)
                .putInt(1)
                .putInt(Integer.MAX_VALUE)
                .putInt(0)
                .array();
        ProcessorStateException e =
                assertThrows(ProcessorStateException.class, () -> PositionCodec.decode(hugeName, "s"));
        assertTrue(e.getMessage().contains("topic name length 2147483647 with 4 bytes left"), e.getMessage());
        byte[] trailing = Arrays.copyOf(valid, valid.length + 1);
        e = assertThrows(ProcessorStateException.class, () -> PositionCodec.decode(trailing, "s"));
        assertTrue(e.getMessage().contains("1 trailing bytes"), e.getMessage());
    }

    @Test
    void prefixSuccessor() {
        assertArrayEquals(new byte[] {'b'}, KeyRanges.prefixSuccessor(new byte[] {'a'}));
        assertArrayEquals(new byte[] {1, 3}, KeyRanges.prefixSuccessor(new byte[] {1, 2}));
        assertArrayEquals(new byte[] {2}, KeyRanges.prefixSuccessor(new byte[] {1, (byte) 0xFF, (byte) 0xFF}));
        assertArrayEquals(new byte[] {(byte) 0x80}, KeyRanges.prefixSuccessor(new byte[] {(byte) 0x7F}));
        assertNull(KeyRanges.prefixSuccessor(new byte[] {(byte) 0xFF, (byte) 0xFF}));
        assertNull(KeyRanges.prefixSuccessor(new byte[0]));
    }

    @Test
    void committedOffsetsMirrorAppliesKafkaSemantics() {
        CommittedOffsets offsets = new CommittedOffsets(Map.of(new TopicPartition("t", 0), 1L));
        assertEquals(new TopicPartition("t", 0), offsets.onlyPartition().orElseThrow());
        Map<TopicPartition, Long> update = new HashMap<>();
        update.put(new TopicPartition("t", 0), null);
        update.put(new TopicPartition("u", 0), 2L);
        offsets.apply(update);
        assertNull(offsets.get(new TopicPartition("t", 0)));
        assertEquals(2L, offsets.get(new TopicPartition("u", 0)));
        offsets.apply(Map.of());
        assertEquals(Map.of(), offsets.snapshot());
        assertTrue(offsets.onlyPartition().isEmpty());
    }
}
