package dev.txnrocksdb.it;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KGroupedStream;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.SessionWindows;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.ThreadMetadata;
import org.apache.kafka.streams.processor.StandbyUpdateListener;
import org.apache.kafka.streams.processor.StateRestoreListener;
import org.apache.kafka.streams.processor.TaskId;

/**
 * The Streams app under test, run in a child JVM that the test kills with SIGKILL:
 * {@code EosCrashApp <bootstrap> <stateDir> <appId> <txn:true|false> [key=value ...]}.
 * Word count (KV), tumbling windowed count and session count over one input topic, all stores
 * from the DSL store suppliers (ours when txn=true, Kafka's built-in RocksDB otherwise);
 * {@code key=value} arguments are Streams configs applied over the defaults of {@link #config}, except
 * the app's own {@code eos-app.input=<topic>} (the input topic, default {@link #INPUT}) and
 * {@code eos-app.topology=kv} (the word count alone, one KV store; default {@code all}), which the
 * end-to-end benchmark ({@link E2EBench}) uses.
 * Reports over stdout: STATE s, RUNNING, FIRST-PROCESSED (the first record this JVM processed),
 * PROCESSED n (every 500), RESTORE-START tp store start end,
 * RESTORE-END tp store n, STANDBY-START tp store offset, STANDBY-SUSPENDED tp store storeOffset
 * endOffset reason loaded; answers the stdin command {@code tasks} with
 * {@code TASKS active=[..] standby=[..] lags={store/partition=lag, ..}}; {@code stop} closes it.
 */
public final class EosCrashApp {

    static final String INPUT = "eos-input";
    static final String KV_STORE = "word-counts";
    static final String WINDOW_STORE = "windowed-counts";
    static final String SESSION_STORE = "session-counts";
    static final Duration WINDOW_SIZE = Duration.ofSeconds(10);
    static final Duration SESSION_GAP = Duration.ofSeconds(5);
    static final Duration GRACE = Duration.ofMinutes(5);
    /** App argument (not a Streams config): the input topic. */
    static final String INPUT_ARG = "eos-app.input";
    /** App argument (not a Streams config): {@code kv} for the word count alone, {@code all} (default) for all three stores. */
    static final String TOPOLOGY_ARG = "eos-app.topology";

    private EosCrashApp() {
    }

    static String kvOut(String appId) {
        return appId + "-kv-out";
    }

    static String windowOut(String appId) {
        return appId + "-window-out";
    }

    static String sessionOut(String appId) {
        return appId + "-session-out";
    }

    static List<String> changelogs(String appId) {
        return List.of(KV_STORE, WINDOW_STORE, SESSION_STORE).stream().map(s -> appId + "-" + s + "-changelog").toList();
    }

    static Topology topology(String appId, AtomicLong processed) {
        return topology(appId, processed, INPUT, true);
    }

    /** The word count, plus the windowed and session counts if {@code all}, over {@code input}. */
    static Topology topology(String appId, AtomicLong processed, String input, boolean all) {
        StreamsBuilder builder = new StreamsBuilder();
        KGroupedStream<String, String> grouped = builder.stream(input, Consumed.with(Serdes.String(), Serdes.String()))
                .peek((k, v) -> {
                    long n = processed.incrementAndGet();
                    if (n == 1) out("FIRST-PROCESSED");
                    if (n % 500 == 0) out("PROCESSED " + n);
                })
                .groupByKey();
        grouped.count(Materialized.<String, Long, org.apache.kafka.streams.state.KeyValueStore<org.apache.kafka.common.utils.Bytes, byte[]>>as(KV_STORE)
                        .withKeySerde(Serdes.String()).withValueSerde(Serdes.Long()))
                .toStream()
                .to(kvOut(appId), Produced.with(Serdes.String(), Serdes.Long()));
        if (!all) return builder.build();
        grouped.windowedBy(TimeWindows.ofSizeAndGrace(WINDOW_SIZE, GRACE))
                .count(Materialized.<String, Long, org.apache.kafka.streams.state.WindowStore<org.apache.kafka.common.utils.Bytes, byte[]>>as(WINDOW_STORE)
                        .withKeySerde(Serdes.String()).withValueSerde(Serdes.Long()))
                .toStream()
                .map((w, c) -> KeyValue.pair(w.key() + "@" + w.window().start(), c))
                .to(windowOut(appId), Produced.with(Serdes.String(), Serdes.Long()));
        grouped.windowedBy(SessionWindows.ofInactivityGapAndGrace(SESSION_GAP, GRACE))
                .count(Materialized.<String, Long, org.apache.kafka.streams.state.SessionStore<org.apache.kafka.common.utils.Bytes, byte[]>>as(SESSION_STORE)
                        .withKeySerde(Serdes.String()).withValueSerde(Serdes.Long()))
                .toStream()
                .map((w, c) -> KeyValue.pair(w.key() + "@" + w.window().start() + "-" + w.window().end(), c))
                .to(sessionOut(appId), Produced.with(Serdes.String(), Serdes.Long()));
        return builder.build();
    }

    static Properties config(String bootstrap, String stateDir, String appId, boolean txn) {
        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, appId);
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        if (txn) {
            p.put("enable.transactional.statestores", "true");
            p.put("dsl.store.suppliers.class", "dev.txnrocksdb.streams.TxnRocksDBDslStoreSuppliers");
        } else {
            p.put("enable.transactional.statestores", "false");
        }
        p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
        // No record cache: every update goes to the store, the changelog and the output topic.
        p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir);
        p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
        // Static membership: the restarted instance takes the killed one's place without waiting
        // for its session to time out.
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG), appId + "-instance-1");
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), 6000);
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), 1000);
        return p;
    }

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        String stateDir = args[1];
        String appId = args[2];
        boolean txn = Boolean.parseBoolean(args[3]);
        Properties config = config(bootstrap, stateDir, appId, txn);
        String input = INPUT;
        String shape = "all";
        for (int i = 4; i < args.length; i++) {
            int eq = args[i].indexOf('=');
            String key = args[i].substring(0, eq);
            String value = args[i].substring(eq + 1);
            if (key.equals(INPUT_ARG)) {
                input = value;
            } else if (key.equals(TOPOLOGY_ARG)) {
                if (!value.equals("kv") && !value.equals("all")) throw new IllegalArgumentException(TOPOLOGY_ARG + " must be kv or all, not " + value);
                shape = value;
            } else {
                config.put(key, value);
            }
        }
        AtomicLong processed = new AtomicLong();
        KafkaStreams streams = new KafkaStreams(topology(appId, processed, input, shape.equals("all")), config);
        streams.setGlobalStateRestoreListener(new StateRestoreListener() {
            @Override
            public void onRestoreStart(TopicPartition tp, String store, long start, long end) {
                out("RESTORE-START " + tp + " " + store + " " + start + " " + end);
            }

            @Override
            public void onBatchRestored(TopicPartition tp, String store, long batchEnd, long n) {
            }

            @Override
            public void onRestoreEnd(TopicPartition tp, String store, long total) {
                out("RESTORE-END " + tp + " " + store + " " + total);
            }
        });
        Map<String, Long> standbyLoaded = new ConcurrentHashMap<>();
        streams.setStandbyUpdateListener(new StandbyUpdateListener() {
            @Override
            public void onUpdateStart(TopicPartition tp, String store, long startOffset) {
                out("STANDBY-START " + tp + " " + store + " " + startOffset);
            }

            @Override
            public void onBatchLoaded(TopicPartition tp, String store, TaskId task, long batchEnd, long n, long end) {
                standbyLoaded.merge(tp + " " + store, n, Long::sum);
            }

            @Override
            public void onUpdateSuspended(TopicPartition tp, String store, long storeOffset, long endOffset,
                                          SuspendReason reason) {
                out("STANDBY-SUSPENDED " + tp + " " + store + " " + storeOffset + " " + endOffset + " " + reason + " "
                        + standbyLoaded.getOrDefault(tp + " " + store, 0L));
            }
        });
        streams.setStateListener((now, before) -> {
            out("STATE " + now);
            if (now == KafkaStreams.State.RUNNING) out("RUNNING");
        });
        streams.start();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null && !line.trim().equals("stop")) {
            if (line.trim().equals("tasks")) out(tasks(streams));
        }
        streams.close(Duration.ofSeconds(30));
        out("STOPPED processed=" + processed.get());
        System.exit(0);
    }

    /** {@code TASKS active=[0_0] standby=[0_1] lags={word-counts/0=0, ...}} (lags of every local store partition). */
    private static String tasks(KafkaStreams streams) {
        Set<String> active = new TreeSet<>();
        Set<String> standby = new TreeSet<>();
        for (ThreadMetadata t : streams.metadataForLocalThreads()) {
            t.activeTasks().forEach(m -> active.add(m.taskId().toString()));
            t.standbyTasks().forEach(m -> standby.add(m.taskId().toString()));
        }
        Map<String, Long> lags = new TreeMap<>();
        try {
            streams.allLocalStorePartitionLags().forEach((store, byPartition) ->
                    byPartition.forEach((p, lag) -> lags.put(store + "/" + p, lag.offsetLag())));
        } catch (RuntimeException e) {
            lags.put("error:" + e.getClass().getSimpleName(), -1L);
        }
        return "TASKS active=" + active + " standby=" + standby + " lags=" + lags;
    }

    private static synchronized void out(String s) {
        System.out.println(s);
        System.out.flush();
    }
}
