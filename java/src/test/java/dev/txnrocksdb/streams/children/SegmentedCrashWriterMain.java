package dev.txnrocksdb.streams.children;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.txnrocksdb.streams.TransactionStrategy;
import dev.txnrocksdb.streams.TxnRocksDBConfig;
import dev.txnrocksdb.streams.fixtures.TestStateStoreContext;
import dev.txnrocksdb.streams.internals.ConfigValues;
import dev.txnrocksdb.streams.internals.TxnSessionStore;
import dev.txnrocksdb.streams.internals.TxnWindowStore;
import java.io.File;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.kstream.internals.SessionWindow;

/**
 * The child process of the window and session crash tests: opens a store ({@code window} or
 * {@code session}), commits entries spread over {@value #SEGMENTS} time segments with an offset,
 * then stages more writes (new entries, overwrites, deletes, and a write far ahead in time whose
 * expiry drops the committed segments), prints {@value #READY} and waits to be killed.
 *
 * <p>Arguments: kind, state dir, store name, committed offset, transaction strategy.
 */
public final class SegmentedCrashWriterMain {
    public static final String READY = "READY";
    public static final long RETENTION = 120_000L;
    public static final long SEGMENT_INTERVAL = 60_000L;
    public static final int SEGMENTS = 3;
    public static final int PER_SEGMENT = 200;
    public static final long FAR_AHEAD = 10 * RETENTION;

    private SegmentedCrashWriterMain() {}

    /** The time of committed entry i of segment s. */
    public static long time(int segment, int i) {
        return segment * SEGMENT_INTERVAL + 1_000L + i;
    }

    public static Bytes key(String s) {
        return Bytes.wrap(s.getBytes(UTF_8));
    }

    static byte[] value(String s) {
        return s.getBytes(UTF_8);
    }

    public static void main(String[] args) throws InterruptedException {
        String kind = args[0];
        File stateDir = new File(args[1]);
        String storeName = args[2];
        long offset = Long.parseLong(args[3]);
        TransactionStrategy strategy =
                ConfigValues.transactionStrategy(TxnRocksDBConfig.TRANSACTION_STRATEGY_CONFIG, args[4]);
        TopicPartition changelog = new TopicPartition(storeName + "-changelog", 0);
        TestStateStoreContext context = new TestStateStoreContext(stateDir);

        if (kind.equals("window")) {
            TxnWindowStore store =
                    new TxnWindowStore(storeName, RETENTION, SEGMENT_INTERVAL, 10L, false, true, strategy);
            store.init(context, store);
            for (int s = 0; s < SEGMENTS; s++) {
                for (int i = 0; i < PER_SEGMENT; i++) {
                    store.put(key("k" + i), value("v" + s + "-" + i), time(s, i));
                }
            }
            store.commit(Map.of(changelog, offset));
            store.put(key("uncommitted"), value("x"), time(1, 0));
            store.put(key("k0"), value("overwritten"), time(0, 0));
            store.put(key("k1"), null, time(2, 1));
            store.put(key("far"), value("far"), FAR_AHEAD);
        } else {
            TxnSessionStore store = new TxnSessionStore(storeName, RETENTION, SEGMENT_INTERVAL, true, strategy);
            store.init(context, store);
            for (int s = 0; s < SEGMENTS; s++) {
                for (int i = 0; i < PER_SEGMENT; i++) {
                    store.put(
                            new Windowed<>(key("k" + i), new SessionWindow(time(s, i) - 5, time(s, i))),
                            value("v" + s + "-" + i));
                }
            }
            store.commit(Map.of(changelog, offset));
            store.put(new Windowed<>(key("uncommitted"), new SessionWindow(time(1, 0), time(1, 0))), value("x"));
            store.put(new Windowed<>(key("k0"), new SessionWindow(time(0, 0) - 5, time(0, 0))), value("overwritten"));
            store.remove(new Windowed<>(key("k1"), new SessionWindow(time(2, 1) - 5, time(2, 1))));
            store.put(new Windowed<>(key("far"), new SessionWindow(FAR_AHEAD, FAR_AHEAD)), value("far"));
        }
        System.out.println(READY);
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
