package dev.txnrocksdb.it;

import dev.txnrocksdb.streams.TxnStores;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.apache.kafka.streams.state.Stores;

/**
 * A deduplication under exactly-once, for {@code TtlBrokerTest} and the {@code ttl} part of the
 * end-to-end benchmark ({@code TtlBench}): each id of the input is forwarded the first time it is seen
 * within the time-to-live of stream time, remembered in the store {@link #STORE} at the record's
 * timestamp. How the store forgets ids is the app's {@link Expiry}: our store's time-to-live (the
 * test's, one hour: {@link #TTL}), the workaround users write today (a stream-time punctuator that
 * scans the whole store every minute and deletes what is older than the time-to-live), or not at all.
 *
 * <p>Run in a child JVM: {@code TtlDedupApp <bootstrap> <stateDir> <appId> [key=value ...]}, where
 * {@code ttl-app.*} arguments are the app's own ({@link Setup#of}) and the others Streams configs
 * over the defaults of {@link #config}. Prints RUNNING, FIRST-PROCESSED, PROCESSED n every 10,000
 * records and, with {@code ttl-app.sample=true}, a line {@code SAMPLE <commit-latency-max ms>
 * <punctuate-latency-max ms>} every second (the stream thread's metrics over the last one to two seconds;
 * {@code -} when nothing was measured); answers the stdin commands {@code metric <name>} (as
 * {@code EosCrashApp}), {@code count} ({@code COUNT n}: the keys every local store holds, read through
 * interactive queries) and {@code stop} (closes cleanly, prints STOPPED).
 */
public final class TtlDedupApp {
    static final String INPUT = "ttl-ids";
    static final String OUTPUT = "ttl-unique";
    static final String STORE = "seen";
    static final Duration TTL = Duration.ofHours(1);
    /** How often the workaround's punctuator scans the store, in stream time. */
    static final Duration SCAN_INTERVAL = Duration.ofMinutes(1);

    private TtlDedupApp() {}

    /** How the app's store forgets ids. */
    enum Expiry {
        /** The store's own time-to-live ({@code withTtl}): ours only. */
        TTL,
        /** The usual workaround: a stream-time punctuator every {@link #SCAN_INTERVAL} scans and deletes. */
        PUNCTUATOR,
        /** Never: every id is remembered forever (the cost baseline). */
        NONE
    }

    /**
     * The app's own settings: {@code ttl-app.expiry} (ttl, punctuator or none; ttl),
     * {@code ttl-app.store} (txn: ours, or kafka: Kafka's RocksDB store; txn), {@code ttl-app.ttlMs}
     * ({@link #TTL}), {@code ttl-app.input} / {@code ttl-app.output} ({@link #INPUT} / {@link #OUTPUT}),
     * {@code ttl-app.sample} (false).
     */
    record Setup(Expiry expiry, boolean ours, Duration ttl, String input, String output, boolean sample) {
        static final String PREFIX = "ttl-app.";

        static Setup of(Map<String, String> own) {
            Expiry expiry = Expiry.valueOf(own.getOrDefault("expiry", "ttl").toUpperCase());
            String store = own.getOrDefault("store", "txn");
            if (!store.equals("txn") && !store.equals("kafka"))
                throw new IllegalArgumentException("ttl-app.store: txn or kafka, not " + store);
            if (expiry == Expiry.TTL && !store.equals("txn"))
                throw new IllegalArgumentException("ttl-app.expiry=ttl needs ttl-app.store=txn");
            return new Setup(
                    expiry,
                    store.equals("txn"),
                    Duration.ofMillis(Long.parseLong(own.getOrDefault("ttlMs", Long.toString(TTL.toMillis())))),
                    own.getOrDefault("input", INPUT),
                    own.getOrDefault("output", OUTPUT),
                    Boolean.parseBoolean(own.getOrDefault("sample", "false")));
        }

        static Setup defaults() {
            return of(Map.of());
        }

        KeyValueBytesStoreSupplier supplier() {
            if (!ours) return Stores.persistentKeyValueStore(STORE);
            var supplier = TxnStores.persistentTransactionalKeyValueStore(STORE);
            return expiry == Expiry.TTL ? supplier.withTtl(ttl) : supplier;
        }
    }

    /** Forwards an id unless the store still remembers it; remembers it at the record's timestamp. */
    static final class Dedup implements Processor<String, String, String, String> {
        private final Setup setup;
        private final AtomicLong processed;
        private ProcessorContext<String, String> context;
        private KeyValueStore<String, Long> seen;

        Dedup(Setup setup, AtomicLong processed) {
            this.setup = setup;
            this.processed = processed;
        }

        @Override
        public void init(ProcessorContext<String, String> context) {
            this.context = context;
            this.seen = context.getStateStore(STORE);
            if (setup.expiry() == Expiry.PUNCTUATOR) {
                long ttl = setup.ttl().toMillis();
                context.schedule(SCAN_INTERVAL, PunctuationType.STREAM_TIME, now -> {
                    try (KeyValueIterator<String, Long> all = seen.all()) {
                        while (all.hasNext()) {
                            KeyValue<String, Long> kv = all.next();
                            if (kv.value <= now - ttl) seen.delete(kv.key);
                        }
                    }
                });
            }
        }

        @Override
        public void process(Record<String, String> record) {
            boolean first;
            if (setup.expiry() == Expiry.PUNCTUATOR) {
                // what the workaround must do: a remembered id counts only while younger than the TTL
                Long at = seen.get(record.key());
                first = at == null || at <= record.timestamp() - setup.ttl().toMillis();
                if (first) seen.put(record.key(), record.timestamp());
            } else {
                first = seen.putIfAbsent(record.key(), record.timestamp()) == null;
            }
            if (first) context.forward(record);
            long n = processed.incrementAndGet();
            if (n == 1) out("FIRST-PROCESSED");
            if (n % 10_000 == 0) out("PROCESSED " + n);
        }
    }

    static Topology topology(AtomicLong processed) {
        return topology(Setup.defaults(), processed);
    }

    static Topology topology(Setup setup, AtomicLong processed) {
        StreamsBuilder builder = new StreamsBuilder();
        builder.addStateStore(Stores.keyValueStoreBuilder(setup.supplier(), Serdes.String(), Serdes.Long()));
        builder.stream(setup.input(), Consumed.with(Serdes.String(), Serdes.String()))
                .process(() -> new Dedup(setup, processed), STORE)
                .to(setup.output(), Produced.with(Serdes.String(), Serdes.String()));
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
        Map<String, String> own = new HashMap<>();
        for (int i = 3; i < args.length; i++) {
            String[] kv = args[i].split("=", 2);
            if (kv[0].startsWith(Setup.PREFIX)) own.put(kv[0].substring(Setup.PREFIX.length()), kv[1]);
            else p.put(kv[0], kv[1]);
        }
        Setup setup = Setup.of(own);
        if (setup.sample()) {
            // the latencies' max over the last one to two seconds: every commit is seen by the next
            // per-second sample (and by at most two), not averaged away over Kafka's default 60 s
            p.put(StreamsConfig.METRICS_SAMPLE_WINDOW_MS_CONFIG, 1000);
            p.put(StreamsConfig.METRICS_NUM_SAMPLES_CONFIG, 2);
        }
        AtomicLong processed = new AtomicLong();
        KafkaStreams streams = new KafkaStreams(topology(setup, processed), p);
        streams.setStateListener((now, before) -> {
            if (now == KafkaStreams.State.RUNNING) out("RUNNING");
        });
        streams.start();
        if (setup.sample()) startSampler(streams);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null && !line.trim().equals("stop")) {
            if (line.trim().startsWith("metric "))
                out(EosCrashApp.metric(streams, line.trim().substring(7).trim()));
            if (line.trim().equals("count")) out("COUNT " + count(streams));
        }
        streams.close(Duration.ofSeconds(30));
        out("STOPPED processed=" + processed.get());
        System.exit(0);
    }

    /** The keys the app's local stores hold (every task's), through interactive queries. */
    private static long count(KafkaStreams streams) {
        ReadOnlyKeyValueStore<String, Long> store =
                streams.store(StoreQueryParameters.fromNameAndType(STORE, QueryableStoreTypes.keyValueStore()));
        long n = 0;
        try (KeyValueIterator<String, Long> all = store.all()) {
            while (all.hasNext()) {
                all.next();
                n++;
            }
        }
        return n;
    }

    private static void startSampler(KafkaStreams streams) {
        Thread sampler = new Thread(
                () -> {
                    while (!Thread.currentThread().isInterrupted()) {
                        try {
                            Thread.sleep(1000);
                        } catch (InterruptedException e) {
                            return;
                        }
                        out("SAMPLE " + threadMax(streams, "commit-latency-max") + " "
                                + threadMax(streams, "punctuate-latency-max"));
                    }
                },
                "ttl-app-sampler");
        sampler.setDaemon(true);
        sampler.start();
    }

    /** The largest value of a stream-thread metric over the app's threads, or {@code -} if none was measured. */
    private static String threadMax(KafkaStreams streams, String name) {
        double max = Double.NaN;
        for (var e : streams.metrics().entrySet()) {
            if (e.getKey().name().equals(name)
                    && e.getKey().group().equals("stream-thread-metrics")
                    && e.getValue().metricValue() instanceof Number n
                    && Double.isFinite(n.doubleValue())) {
                max = Double.isNaN(max) ? n.doubleValue() : Math.max(max, n.doubleValue());
            }
        }
        return Double.isNaN(max) ? "-" : String.format("%.1f", max);
    }

    private static synchronized void out(String s) {
        System.out.println(s);
        System.out.flush();
    }
}
