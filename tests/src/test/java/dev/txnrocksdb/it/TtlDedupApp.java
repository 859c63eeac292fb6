package dev.txnrocksdb.it;

import dev.txnrocksdb.streams.TxnStores;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;

/**
 * A deduplication under exactly-once, for {@code TtlBrokerTest}: each id of the input is forwarded
 * the first time it is seen within an hour of stream time, remembered in a store with a
 * time-to-live of one hour ({@link #STORE}). Run in a child JVM that the test kills with SIGKILL:
 * {@code TtlDedupApp <bootstrap> <stateDir> <appId> [key=value ...]} (Streams configs over the
 * defaults of {@link #config}); prints RUNNING, then PROCESSED n every 10,000 records.
 */
public final class TtlDedupApp {
    static final String INPUT = "ttl-ids";
    static final String OUTPUT = "ttl-unique";
    static final String STORE = "seen";
    static final Duration TTL = Duration.ofHours(1);

    private TtlDedupApp() {}

    /** Forwards an id unless the store still remembers it; remembers it at the record's timestamp. */
    static final class Dedup implements Processor<String, String, String, String> {
        private final AtomicLong processed;
        private ProcessorContext<String, String> context;
        private KeyValueStore<String, Long> seen;

        Dedup(AtomicLong processed) {
            this.processed = processed;
        }

        @Override
        public void init(ProcessorContext<String, String> context) {
            this.context = context;
            this.seen = context.getStateStore(STORE);
        }

        @Override
        public void process(Record<String, String> record) {
            if (seen.putIfAbsent(record.key(), record.timestamp()) == null) {
                context.forward(record);
            }
            long n = processed.incrementAndGet();
            if (n % 10_000 == 0) {
                System.out.println("PROCESSED " + n);
            }
        }
    }

    static Topology topology(AtomicLong processed) {
        StreamsBuilder builder = new StreamsBuilder();
        builder.addStateStore(Stores.keyValueStoreBuilder(
                TxnStores.persistentTransactionalKeyValueStore(STORE).withTtl(TTL), Serdes.String(), Serdes.Long()));
        builder.stream(INPUT, Consumed.with(Serdes.String(), Serdes.String()))
                .process(() -> new Dedup(processed), STORE)
                .to(OUTPUT, Produced.with(Serdes.String(), Serdes.String()));
        return builder.build();
    }

    static Properties config(String bootstrap, String stateDir, String appId) {
        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, appId);
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        p.put(StreamsConfig.TRANSACTIONAL_STATE_STORES_CONFIG, true);
        p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir);
        p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
        // a killed instance's partitions move to the next one after 10 s, not the default 45 s
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), 10_000);
        return p;
    }

    public static void main(String[] args) throws Exception {
        Properties p = config(args[0], args[1], args[2]);
        for (int i = 3; i < args.length; i++) {
            String[] kv = args[i].split("=", 2);
            p.put(kv[0], kv[1]);
        }
        AtomicLong processed = new AtomicLong();
        KafkaStreams streams = new KafkaStreams(topology(processed), p);
        CountDownLatch running = new CountDownLatch(1);
        streams.setStateListener((now, before) -> {
            if (now == KafkaStreams.State.RUNNING) {
                running.countDown();
            }
        });
        streams.start();
        running.await();
        System.out.println("RUNNING");
        Thread.sleep(Long.MAX_VALUE);
    }
}
