package dev.txnrocksdb.streams.children;

import static dev.txnrocksdb.streams.children.SegmentedCrashWriterMain.PER_SEGMENT;
import static dev.txnrocksdb.streams.children.SegmentedCrashWriterMain.RETENTION;
import static dev.txnrocksdb.streams.children.SegmentedCrashWriterMain.SEGMENTS;
import static dev.txnrocksdb.streams.children.SegmentedCrashWriterMain.SEGMENT_INTERVAL;
import static dev.txnrocksdb.streams.children.SegmentedCrashWriterMain.time;
import static java.nio.charset.StandardCharsets.UTF_8;

import dev.txnrocksdb.streams.TransactionStrategy;
import dev.txnrocksdb.streams.TxnRocksDBConfig;
import dev.txnrocksdb.streams.fixtures.TestStateStoreContext;
import dev.txnrocksdb.streams.internals.ConfigValues;
import dev.txnrocksdb.streams.internals.TxnKeyValueStore;
import dev.txnrocksdb.streams.internals.TxnSessionStore;
import dev.txnrocksdb.streams.internals.TxnWindowStore;
import dev.txnrocksdb.streams.internals.nativeapi.NativeLibrary;
import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.state.KeyValueIterator;

/**
 * The verifying child of {@link PlatformSmokeTest}: in the JVM under test (on the release jar, e.g.
 * an aarch64 JVM under emulation), reopens a store that a writer child committed to and was then
 * killed with SIGKILL, and checks that it holds exactly the commit: the changelog offset, every
 * committed entry (by a range scan), none of the staged writes. Also checks that the library came
 * out of the jar's folder for the expected platform. Prints {@value #VERIFIED} and where the library
 * came from, exits 0; a difference exits 1 naming it.
 *
 * <p>Arguments: kind ({@code kv}, {@code window}, {@code session}), state dir, store name, committed
 * offset, transaction strategy, expected platform ({@code linux-aarch64}), committed key-value count.
 */
public final class PlatformSmokeMain {
    public static final String VERIFIED = "VERIFIED";

    private PlatformSmokeMain() {}

    public static void main(String[] args) {
        try {
            String loadedFrom = verify(args);
            System.out.println(VERIFIED + " " + args[0] + " " + args[4] + " on os.arch=" + System.getProperty("os.arch")
                    + ", library " + loadedFrom);
            System.out.flush();
            System.exit(0);
        } catch (RuntimeException | AssertionError e) {
            e.printStackTrace(System.out);
            System.out.flush();
            System.exit(1);
        }
    }

    private static String verify(String[] args) {
        String kind = args[0];
        File stateDir = new File(args[1]);
        String storeName = args[2];
        long offset = Long.parseLong(args[3]);
        TransactionStrategy strategy =
                ConfigValues.transactionStrategy(TxnRocksDBConfig.TRANSACTION_STRATEGY_CONFIG, args[4]);
        String platform = args[5];
        int committed = Integer.parseInt(args[6]);

        String loadedFrom = NativeLibrary.loadedFrom();
        check(
                loadedFrom.contains("extracted from the jar's /native/" + platform + "/"),
                "the library should come from the jar's native/" + platform + "/ folder, but it is " + loadedFrom);
        TopicPartition changelog = new TopicPartition(storeName + "-changelog", 0);
        TestStateStoreContext context = new TestStateStoreContext(stateDir);
        switch (kind) {
            case "kv" ->
                verifyKeyValue(new TxnKeyValueStore(storeName, true, strategy), context, changelog, offset, committed);
            case "window" ->
                verifyWindow(
                        new TxnWindowStore(storeName, RETENTION, SEGMENT_INTERVAL, 10L, false, true, strategy),
                        context,
                        changelog,
                        offset);
            case "session" ->
                verifySession(
                        new TxnSessionStore(storeName, RETENTION, SEGMENT_INTERVAL, true, strategy),
                        context,
                        changelog,
                        offset);
            default -> throw new IllegalArgumentException("unknown kind " + kind);
        }
        return loadedFrom;
    }

    /** {@link CrashWriterMain}'s commit: committed-0 .. committed-(n-1) = value-i, offset. */
    private static void verifyKeyValue(
            TxnKeyValueStore store,
            TestStateStoreContext context,
            TopicPartition changelog,
            long offset,
            int committed) {
        store.init(context, store);
        try {
            checkEquals(offset, store.committedOffset(changelog), "committed offset");
            // In key order (the store's byte order is String order for these ASCII keys).
            TreeMap<String, String> committedEntries = new TreeMap<>();
            for (int i = 0; i < committed; i++) {
                committedEntries.put("committed-" + i, "value-" + i);
            }
            List<String> expected = new ArrayList<>();
            committedEntries.forEach((k, v) -> expected.add(k + "=" + v));
            List<String> scanned = new ArrayList<>();
            try (KeyValueIterator<Bytes, byte[]> range = store.range(key("committed-"), key("committed-~"))) {
                while (range.hasNext()) {
                    KeyValue<Bytes, byte[]> kv = range.next();
                    scanned.add(string(kv.key.get()) + "=" + string(kv.value));
                }
            }
            checkEquals(expected, scanned, "range scan of the committed keys");
            checkEquals(null, string(store.get(key("uncommitted-0"))), "a staged key");
            long all = 0;
            try (KeyValueIterator<Bytes, byte[]> iterator = store.all()) {
                while (iterator.hasNext()) {
                    iterator.next();
                    all++;
                }
            }
            checkEquals((long) committed, all, "entries in the store");
        } finally {
            store.close();
        }
    }

    /** {@link SegmentedCrashWriterMain}'s window commit: k{i} at time(s, i) = v{s}-{i} in every segment. */
    private static void verifyWindow(
            TxnWindowStore store, TestStateStoreContext context, TopicPartition changelog, long offset) {
        store.init(context, store);
        try {
            checkEquals(offset, store.committedOffset(changelog), "committed offset");
            List<String> scanned = new ArrayList<>();
            try (KeyValueIterator<Windowed<Bytes>, byte[]> range =
                    store.fetch(key("k"), key("k~"), 0L, RETENTION * SEGMENTS)) {
                while (range.hasNext()) {
                    KeyValue<Windowed<Bytes>, byte[]> kv = range.next();
                    scanned.add(
                            string(kv.key.key().get()) + "@" + kv.key.window().start() + "=" + string(kv.value));
                }
            }
            scanned.sort(null);
            checkEquals(expectedSegmented(), scanned, "range scan of the committed windows");
            checkEquals(null, string(store.fetch(key("far"), SegmentedCrashWriterMain.FAR_AHEAD)), "a staged window");
        } finally {
            store.close();
        }
    }

    /** {@link SegmentedCrashWriterMain}'s session commit: k{i} ending at time(s, i) = v{s}-{i} in every segment. */
    private static void verifySession(
            TxnSessionStore store, TestStateStoreContext context, TopicPartition changelog, long offset) {
        store.init(context, store);
        try {
            checkEquals(offset, store.committedOffset(changelog), "committed offset");
            List<String> scanned = new ArrayList<>();
            try (KeyValueIterator<Windowed<Bytes>, byte[]> range =
                    store.findSessions(key("k"), key("k~"), 0L, RETENTION * SEGMENTS)) {
                while (range.hasNext()) {
                    KeyValue<Windowed<Bytes>, byte[]> kv = range.next();
                    scanned.add(
                            string(kv.key.key().get()) + "@" + kv.key.window().end() + "=" + string(kv.value));
                }
            }
            scanned.sort(null);
            checkEquals(expectedSegmented(), scanned, "range scan of the committed sessions");
            try (KeyValueIterator<Windowed<Bytes>, byte[]> far = store.findSessions(key("far"), 0L, Long.MAX_VALUE)) {
                check(!far.hasNext(), "a staged session survived the crash");
            }
        } finally {
            store.close();
        }
    }

    private static List<String> expectedSegmented() {
        List<String> expected = new ArrayList<>();
        for (int s = 0; s < SEGMENTS; s++) {
            for (int i = 0; i < PER_SEGMENT; i++) {
                expected.add("k" + i + "@" + time(s, i) + "=v" + s + "-" + i);
            }
        }
        expected.sort(null);
        return expected;
    }

    private static Bytes key(String s) {
        return Bytes.wrap(s.getBytes(UTF_8));
    }

    private static String string(byte[] bytes) {
        return bytes == null ? null : new String(bytes, UTF_8);
    }

    private static void checkEquals(Object expected, Object actual, String what) {
        if (expected instanceof byte[] || actual instanceof byte[]) {
            throw new IllegalArgumentException("compare strings, not arrays");
        }
        check(
                Objects.equals(expected, actual),
                what + ": expected " + abbreviate(expected) + " but found " + abbreviate(actual));
    }

    private static String abbreviate(Object o) {
        String s = String.valueOf(o);
        return s.length() > 400 ? s.substring(0, 400) + "... (" + s.length() + " chars)" : s;
    }

    private static void check(boolean condition, String message) {
        if (!condition) {
            throw new AssertionError(message);
        }
    }
}
