package dev.txnrocksdb.streams.children;

import dev.txnrocksdb.streams.TransactionStrategy;
import dev.txnrocksdb.streams.TxnRocksDBConfig;
import dev.txnrocksdb.streams.TxnStores;
import dev.txnrocksdb.streams.internals.ConfigValues;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Properties;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.kstream.internals.SessionWindow;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.AggregationWithHeaders;
import org.apache.kafka.streams.state.SessionStoreWithHeaders;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.TimestampedKeyValueStoreWithHeaders;
import org.apache.kafka.streams.state.TimestampedWindowStoreWithHeaders;
import org.apache.kafka.streams.state.ValueTimestampHeaders;
import org.apache.kafka.streams.test.TestRecord;

/**
 * The child process of {@link HeadersStoresCrashTest}: an exactly-once Processor API application
 * on TopologyTestDriver (which commits the task, and so the store, after every record) that stores
 * every record with its headers in one of our stores with headers, under Kafka's headers builder.
 * Record {@code i} has key {@code k<i % KEYS>}, value {@code v<i>} and header {@code seq = i};
 * {@code ACK i} is printed once it was processed and committed, {@value #READY} after
 * {@code readyAfter} records; it goes on until it is killed.
 *
 * <p>Arguments: state dir, kind (key-value, window, session), strategy, readyAfter.
 */
public final class HeadersCrashWriterMain {
    public static final String READY = "READY";
    public static final int KEYS = 300;

    private HeadersCrashWriterMain() {}

    public static Properties props(String stateDir) {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "headers-crash");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir);
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        props.put(StreamsConfig.TRANSACTIONAL_STATE_STORES_CONFIG, true);
        return props;
    }

    /** The application: every record into the store {@code store} with its headers. */
    public static Topology topology(String kind, TransactionStrategy strategy) {
        Duration retention = Duration.ofDays(1);
        StoreBuilder<?> store;
        switch (kind) {
            case "key-value":
                store = Stores.timestampedKeyValueStoreWithHeadersBuilder(
                        TxnStores.persistentTransactionalTimestampedKeyValueStoreWithHeaders("store", strategy),
                        Serdes.String(),
                        Serdes.String());
                break;
            case "window":
                store = Stores.timestampedWindowStoreWithHeadersBuilder(
                        TxnStores.persistentTransactionalTimestampedWindowStoreWithHeaders(
                                "store", retention, Duration.ofMinutes(1), false, strategy),
                        Serdes.String(),
                        Serdes.String());
                break;
            default:
                store = Stores.sessionStoreWithHeadersBuilder(
                        TxnStores.persistentTransactionalSessionStoreWithHeaders("store", retention, strategy),
                        Serdes.String(),
                        Serdes.String());
        }
        Topology topology = new Topology();
        topology.addSource("in", new StringDeserializer(), new StringDeserializer(), "in");
        topology.addProcessor("put", () -> new Put(kind), "in");
        topology.addStateStore(store, "put");
        return topology;
    }

    /** Every record's timestamp: every record of a key lands in the same window and session. */
    static final long TIMESTAMP = 1_000L;

    public static void main(String[] args) {
        String kind = args[1];
        TransactionStrategy strategy =
                ConfigValues.transactionStrategy(TxnRocksDBConfig.TRANSACTION_STRATEGY_CONFIG, args[2]);
        int readyAfter = Integer.parseInt(args[3]);
        try (TopologyTestDriver driver = new TopologyTestDriver(topology(kind, strategy), props(args[0]))) {
            TestInputTopic<String, String> in =
                    driver.createInputTopic("in", new StringSerializer(), new StringSerializer());
            for (int i = 0; ; i++) {
                RecordHeaders headers = new RecordHeaders();
                headers.add("seq", Integer.toString(i).getBytes(StandardCharsets.UTF_8));
                in.pipeInput(new TestRecord<>("k" + i % KEYS, "v" + i, headers, TIMESTAMP));
                System.out.println("ACK " + i);
                System.out.flush();
                if (i + 1 == readyAfter) {
                    System.out.println(READY);
                }
            }
        }
    }

    private static final class Put implements Processor<String, String, Void, Void> {
        private final String kind;
        private ProcessorContext<Void, Void> context;

        Put(String kind) {
            this.kind = kind;
        }

        @Override
        public void init(ProcessorContext<Void, Void> context) {
            this.context = context;
        }

        @Override
        public void process(Record<String, String> record) {
            switch (kind) {
                case "key-value":
                    context.<TimestampedKeyValueStoreWithHeaders<String, String>>getStateStore("store")
                            .put(
                                    record.key(),
                                    ValueTimestampHeaders.make(record.value(), record.timestamp(), record.headers()));
                    break;
                case "window":
                    context.<TimestampedWindowStoreWithHeaders<String, String>>getStateStore("store")
                            .put(
                                    record.key(),
                                    ValueTimestampHeaders.make(record.value(), record.timestamp(), record.headers()),
                                    0L);
                    break;
                default:
                    context.<SessionStoreWithHeaders<String, String>>getStateStore("store")
                            .put(
                                    new Windowed<>(record.key(), new SessionWindow(0L, record.timestamp())),
                                    AggregationWithHeaders.make(record.value(), record.headers()));
            }
        }
    }
}
