package dev.txnrocksdb.consumer;

import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.StateRestoreListener;

/**
 * A plain Kafka Streams application as a user of the released artifact writes it: a count per key
 * under {@code exactly_once_v2}, whose store is txn-rocksdb's through configuration alone (no
 * txn-rocksdb class is named in the code, only in the {@code dsl.store.suppliers.class} setting),
 * so a classpath that lacks the library or carries a broken one fails here as it would for a user.
 *
 * <p>Arguments (each falls back to an environment variable): bootstrap servers
 * ({@code BOOTSTRAP_SERVERS}), application id ({@code APPLICATION_ID}), input topic
 * ({@code INPUT_TOPIC}), output topic ({@code OUTPUT_TOPIC}), state directory ({@code STATE_DIR}).
 *
 * <p>It reports on stdout, one line per event, for a test to read:
 * <ul>
 *   <li>{@code RESTORE-START <store> <topic> <partition> <from> <to>} and
 *       {@code RESTORED <store> <partition> <records>} per changelog partition Kafka restores
 *       (0 records when the store's committed state is the changelog's);</li>
 *   <li>{@code RUNNING} each time the application reaches RUNNING, {@code STATE <state>} for the
 *       other states.</li>
 * </ul>
 */
public final class CountPerKey {

    static final String STORE = "counts";

    private CountPerKey() {}

    public static void main(String[] args) throws Exception {
        String bootstrap = arg(args, 0, "BOOTSTRAP_SERVERS");
        String appId = arg(args, 1, "APPLICATION_ID");
        String input = arg(args, 2, "INPUT_TOPIC");
        String output = arg(args, 3, "OUTPUT_TOPIC");
        String stateDir = arg(args, 4, "STATE_DIR");

        StreamsBuilder builder = new StreamsBuilder();
        builder.stream(input, Consumed.with(Serdes.String(), Serdes.String()))
                .groupByKey()
                .count(Materialized.as(STORE))
                .toStream()
                .to(output, Produced.with(Serdes.String(), Serdes.Long()));

        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, appId);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir);
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        // every DSL store from txn-rocksdb, committed with Kafka's transactions; spelled as in a
        // properties file, so that the source also compiles against a Kafka Streams older than 4.4
        // (no TRANSACTIONAL_STATE_STORES_CONFIG) and such a class path fails at start with the
        // library's version message rather than at compile time
        props.put("dsl.store.suppliers.class", "dev.txnrocksdb.streams.TxnRocksDBDslStoreSuppliers");
        props.put("enable.transactional.statestores", "true");
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
        // static membership: a restarted instance takes its tasks back without waiting for the
        // killed one's session to expire
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG), appId + "-instance");
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), 10_000);

        KafkaStreams streams = new KafkaStreams(builder.build(), props);
        streams.setGlobalStateRestoreListener(new StateRestoreListener() {
            @Override
            public void onRestoreStart(TopicPartition tp, String store, long from, long to) {
                out("RESTORE-START " + store + " " + tp.topic() + " " + tp.partition() + " " + from + " " + to);
            }

            @Override
            public void onBatchRestored(TopicPartition tp, String store, long batchEndOffset, long records) {}

            @Override
            public void onRestoreEnd(TopicPartition tp, String store, long records) {
                out("RESTORED " + store + " " + tp.partition() + " " + records);
            }
        });
        streams.setStateListener((now, before) -> out(now == KafkaStreams.State.RUNNING ? "RUNNING" : "STATE " + now));
        CountDownLatch closed = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            streams.close(Duration.ofSeconds(30));
            closed.countDown();
        }));
        streams.start();
        closed.await();
    }

    private static String arg(String[] args, int i, String env) {
        String v = i < args.length ? args[i] : System.getenv(env);
        if (v == null || v.isBlank()) {
            throw new IllegalArgumentException("usage: CountPerKey <bootstrap servers> <application id> <input topic>"
                    + " <output topic> <state dir> (or the environment variables BOOTSTRAP_SERVERS, APPLICATION_ID,"
                    + " INPUT_TOPIC, OUTPUT_TOPIC, STATE_DIR); missing " + env);
        }
        return v;
    }

    private static synchronized void out(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
