package dev.txnrocksdb.streams.internals;

import java.nio.ByteBuffer;
import java.util.Arrays;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.kstream.internals.SessionWindow;
import org.apache.kafka.streams.kstream.internals.TimeWindow;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store keys of window and session stores, byte for byte Kafka's: window keys
 * {@code [key][8-byte BE window start][4-byte BE seqnum]} ({@code WindowKeySchema}) and session
 * keys {@code [key][8-byte BE end][8-byte BE start]} ({@code SessionKeySchema}). These are also the
 * changelog keys of both store kinds and the keys the native iterators return.
 *
 * <p>The layouts' owner is the format crate ({@code rust/format/src/window_key.rs},
 * {@code session_key.rs}); these readers stay in Java because every iterator entry goes through
 * them, and {@code SegmentedKeysTest} checks them against the store keys the format crate writes
 * ({@code rust/format/tests/golden/segmented_keys.txt}).
 */
public final class SegmentedKeys {
    private static final Logger log = LoggerFactory.getLogger(SegmentedKeys.class);

    /** Length of the window key suffix: start and seqnum. */
    public static final int WINDOW_SUFFIX = Long.BYTES + Integer.BYTES;
    /** Length of the session key suffix: end and start. */
    public static final int SESSION_SUFFIX = 2 * Long.BYTES;

    private SegmentedKeys() {}

    // ---------------------------------------------------------------- window keys

    /** The record key of a window store key. */
    public static Bytes windowKey(byte[] storeKey) {
        return Bytes.wrap(Arrays.copyOfRange(storeKey, 0, storeKey.length - WINDOW_SUFFIX));
    }

    /** The window start of a window store key. */
    public static long windowStart(byte[] storeKey) {
        return ByteBuffer.wrap(storeKey).getLong(storeKey.length - WINDOW_SUFFIX);
    }

    /** The seqnum of a window store key. */
    public static int windowSeqnum(byte[] storeKey) {
        return ByteBuffer.wrap(storeKey).getInt(storeKey.length - Integer.BYTES);
    }

    /** The windowed key of a window store key: window {@code [start, start + windowSize]}. */
    public static Windowed<Bytes> windowedKey(byte[] storeKey, long windowSize) {
        return new Windowed<>(windowKey(storeKey), timeWindowForSize(windowStart(storeKey), windowSize));
    }

    /**
     * Kafka's {@code WindowKeySchema.timeWindowForSize}: the window {@code [start, start + size]},
     * whose end is truncated to {@link Long#MAX_VALUE} (with a warning) when the sum overflows.
     */
    public static TimeWindow timeWindowForSize(long start, long windowSize) {
        long end = start + windowSize;
        if (end < 0) {
            log.warn("Warning: window end time was truncated to Long.MAX");
            end = Long.MAX_VALUE;
        }
        return new TimeWindow(start, end);
    }

    /**
     * The order of Kafka's time-ordered window store ({@code TimeFirstWindowKeySchema}, store key
     * {@code [ts][key][seq]}): the bytes of {@code [start][key][seqnum]}, compared unsigned.
     */
    public static byte[] timeFirstWindowOrder(byte[] storeKey) {
        int keyLength = storeKey.length - WINDOW_SUFFIX;
        byte[] order = new byte[storeKey.length];
        System.arraycopy(storeKey, keyLength, order, 0, Long.BYTES);
        System.arraycopy(storeKey, 0, order, Long.BYTES, keyLength);
        System.arraycopy(storeKey, keyLength + Long.BYTES, order, Long.BYTES + keyLength, Integer.BYTES);
        return order;
    }

    // ---------------------------------------------------------------- session keys

    /** The record key of a session store key. */
    public static Bytes sessionKey(byte[] storeKey) {
        return Bytes.wrap(Arrays.copyOfRange(storeKey, 0, storeKey.length - SESSION_SUFFIX));
    }

    /** The session end of a session store key. */
    public static long sessionEnd(byte[] storeKey) {
        return ByteBuffer.wrap(storeKey).getLong(storeKey.length - SESSION_SUFFIX);
    }

    /** The session start of a session store key. */
    public static long sessionStart(byte[] storeKey) {
        return ByteBuffer.wrap(storeKey).getLong(storeKey.length - Long.BYTES);
    }

    /** The windowed key of a session store key. */
    public static Windowed<Bytes> sessionWindowedKey(byte[] storeKey) {
        return new Windowed<>(sessionKey(storeKey), new SessionWindow(sessionStart(storeKey), sessionEnd(storeKey)));
    }

    /**
     * The order of Kafka's time-ordered session store (base key {@code [end][start][key]}): those
     * bytes, compared unsigned.
     */
    public static byte[] timeFirstSessionOrder(byte[] storeKey) {
        int keyLength = storeKey.length - SESSION_SUFFIX;
        byte[] order = new byte[storeKey.length];
        System.arraycopy(storeKey, keyLength, order, 0, SESSION_SUFFIX);
        System.arraycopy(storeKey, 0, order, SESSION_SUFFIX, keyLength);
        return order;
    }
}
