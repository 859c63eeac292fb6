package dev.txnrocksdb.examples.wordcount;

import dev.txnrocksdb.streams.TxnStores;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.StateRestoreListener;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * The tutorial's word count: events counted per key into the store "jumlah-kata", a transactional
 * txn-rocksdb store, under exactly_once_v2. Used in-process by {@link WordCountDemo} (part 1) and as
 * the main class of the child JVM that the demo kills with SIGKILL (part 2).
 */
public final class WordCountApp {

    static final String APP_ID = "wordcount-demo";
    static final String INPUT = "kata";
    static final String OUTPUT = "jumlah-kata-output";
    static final String STORE = "jumlah-kata";
    static final String CHANGELOG = APP_ID + "-" + STORE + "-changelog";
    static final List<String> TUTORIAL_WORDS = List.of("dibaca", "kejadian", "log");

    private WordCountApp() {}

    /** kata (key = word) -> groupByKey -> count into "jumlah-kata" -> jumlah-kata-output. */
    /** Called for every count update with (word, new count, offset of the input record). */
    interface CountListener {
        void onCount(String word, long count, long inputOffset);
    }

    static Topology topology(CountListener onCount) {
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream(INPUT, Consumed.with(Serdes.String(), Serdes.String()))
                .groupByKey()
                .count(Materialized.<String, Long>as(TxnStores.persistentTransactionalKeyValueStore(STORE))
                        .withKeySerde(Serdes.String())
                        .withValueSerde(Serdes.Long()))
                .toStream()
                // no cache, so each update is forwarded while its input record is processed
                .processValues(() -> new FixedKeyProcessor<String, Long, Long>() {
                    private FixedKeyProcessorContext<String, Long> context;

                    @Override
                    public void init(FixedKeyProcessorContext<String, Long> context) {
                        this.context = context;
                    }

                    @Override
                    public void process(FixedKeyRecord<String, Long> r) {
                        long offset =
                                context.recordMetadata().map(m -> m.offset()).orElse(-1L);
                        onCount.onCount(r.key(), r.value(), offset);
                        context.forward(r);
                    }
                })
                .to(OUTPUT, Produced.with(Serdes.String(), Serdes.Long()));
        return builder.build();
    }

    static Properties config(String bootstrap, String stateDir) {
        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, APP_ID);
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        p.put("enable.transactional.statestores", "true");
        p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
        // No record cache: every count update goes to the store, the changelog and the output topic.
        p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir);
        p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
        // A killed member must leave the group quickly (broker minimum is 6 s).
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), 6000);
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), 1000);
        return p;
    }

    static ReadOnlyKeyValueStore<String, Long> store(KafkaStreams streams, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            try {
                return streams.store(StoreQueryParameters.fromNameAndType(STORE, QueryableStoreTypes.keyValueStore()));
            } catch (RuntimeException e) {
                if (System.nanoTime() > deadline) throw e;
                Thread.sleep(100);
            }
        }
    }

    /**
     * Child JVM: {@code WordCountApp <bootstrap> <stateDir>}. Talks to the demo over stdout lines
     * (RUNNING, PROCESSED n, RESTORE ...) and stops cleanly when it reads "stop" on stdin.
     */
    /** {@code <bootstrap> <state dir> [<key>=<value> ...]}: the config, with these overrides. */
    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        String stateDir = args[1];
        Properties config = config(bootstrap, stateDir);
        for (int i = 2; i < args.length; i++) {
            int eq = args[i].indexOf('=');
            config.put(args[i].substring(0, eq), args[i].substring(eq + 1));
        }
        AtomicLong processed = new AtomicLong();
        KafkaStreams streams = new KafkaStreams(
                topology((word, count, offset) -> {
                    long n = processed.incrementAndGet();
                    if (n % 5000 == 0) out("PROCESSED " + n);
                }),
                config);
        streams.setGlobalStateRestoreListener(new StateRestoreListener() {
            @Override
            public void onRestoreStart(TopicPartition tp, String store, long start, long end) {
                out("RESTORE-START " + tp + " store=" + store + " from offset " + start + " to " + end);
            }

            @Override
            public void onBatchRestored(TopicPartition tp, String store, long batchEnd, long n) {}

            @Override
            public void onRestoreEnd(TopicPartition tp, String store, long total) {
                out("RESTORE-END " + tp + " " + total);
            }
        });
        CountDownLatch running = new CountDownLatch(1);
        streams.setStateListener((now, before) -> {
            if (now == KafkaStreams.State.RUNNING) {
                out("RUNNING");
                running.countDown();
            }
            if (now == KafkaStreams.State.ERROR) out("ERROR state");
        });
        streams.start();

        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null && !line.trim().equals("stop")) {
            // wait for the demo's command
        }
        running.await(30, TimeUnit.SECONDS);
        ReadOnlyKeyValueStore<String, Long> store = store(streams, Duration.ofSeconds(30));
        StringBuilder iq = new StringBuilder("IQ");
        for (String w : TUTORIAL_WORDS) iq.append(' ').append(w).append('=').append(store.get(w));
        long keys = 0;
        try (KeyValueIterator<String, Long> it = store.all()) {
            for (; it.hasNext(); it.next()) keys++;
        }
        iq.append(" keys=").append(keys);
        out(iq.toString());
        streams.close(Duration.ofSeconds(30));
        out("STOPPED processed=" + processed.get());
        System.exit(0);
    }

    private static synchronized void out(String s) {
        System.out.println(s);
        System.out.flush();
    }
}
