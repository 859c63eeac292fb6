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
import java.util.function.BiFunction;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.ThreadMetadata;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KGroupedStream;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.SessionWindows;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.processor.StandbyUpdateListener;
import org.apache.kafka.streams.processor.StateRestoreListener;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.Record;

/**
 * The Streams app under test, run in a child JVM that the test kills with SIGKILL:
 * {@code EosCrashApp <bootstrap> <stateDir> <appId> <txn:true|false> [key=value ...]}.
 * Word count (KV), tumbling windowed count and session count over one input topic, all stores
 * from the DSL store suppliers (ours when txn=true, Kafka's built-in RocksDB otherwise, unless a
 * {@code dsl.store.suppliers.class} argument names others, e.g. Kafka's in-memory ones);
 * {@code key=value} arguments are Streams configs applied over the defaults of {@link #config}, except
 * the app's own {@code eos-app.input=<topic>} (the input topic, default {@link #INPUT}) and
 * {@code eos-app.topology=all|kv|passthrough} (see {@link Shape}; default {@code all}), which the
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
    /** App argument (not a Streams config): the topology's {@link Shape}, by its lower-case name. */
    static final String TOPOLOGY_ARG = "eos-app.topology";

    /** What the app computes from its input ({@link #TOPOLOGY_ARG}). */
    enum Shape {
        /** The word count, the windowed count and the session count: three stores, three outputs (the crash tests' app). */
        ALL,
        /** The word count alone: one key-value store, one output (the recovery benchmark). */
        KV,
        /**
         * No state: every record goes to the three outputs of {@link #ALL} as a count of 1, keyed as
         * {@link #ALL} keys them (word, word@window start, word@session start-end for a session of
         * that record alone). No stores and no changelogs, so this is the Streams runtime and the
         * broker alone: the throughput benchmark's ceiling.
         */
        PASSTHROUGH;

        static Shape of(String arg) {
            for (Shape s : values()) {
                if (s.name().equalsIgnoreCase(arg)) return s;
            }
            throw new IllegalArgumentException(TOPOLOGY_ARG + " must be all, kv or passthrough, not " + arg);
        }
    }

    private EosCrashApp() {}

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
        return List.of(KV_STORE, WINDOW_STORE, SESSION_STORE).stream()
                .map(s -> appId + "-" + s + "-changelog")
                .toList();
    }

    static Topology topology(String appId, AtomicLong processed) {
        return topology(appId, processed, INPUT, Shape.ALL);
    }

    /** The topology of {@code shape} over {@code input}. */
    static Topology topology(String appId, AtomicLong processed, String input, Shape shape) {
        StreamsBuilder builder = new StreamsBuilder();
        KStream<String, String> records = builder.stream(input, Consumed.with(Serdes.String(), Serdes.String()))
                .peek((k, v) -> {
                    long n = processed.incrementAndGet();
                    if (n == 1) out("FIRST-PROCESSED");
                    if (n % 500 == 0) out("PROCESSED " + n);
                });
        if (shape == Shape.PASSTHROUGH) {
            Produced<String, Long> produced = Produced.with(Serdes.String(), Serdes.Long());
            records.process(countOfOne((k, ts) -> k)).to(kvOut(appId), produced);
            records.process(countOfOne((k, ts) -> k + "@" + (ts - Math.floorMod(ts, WINDOW_SIZE.toMillis()))))
                    .to(windowOut(appId), produced);
            records.process(countOfOne((k, ts) -> k + "@" + ts + "-" + ts)).to(sessionOut(appId), produced);
            return builder.build();
        }
        KGroupedStream<String, String> grouped = records.groupByKey();
        grouped.count(Materialized
                        .<String, Long,
                                org.apache.kafka.streams.state.KeyValueStore<
                                        org.apache.kafka.common.utils.Bytes, byte[]>>
                                as(KV_STORE)
                        .withKeySerde(Serdes.String())
                        .withValueSerde(Serdes.Long()))
                .toStream()
                .to(kvOut(appId), Produced.with(Serdes.String(), Serdes.Long()));
        if (shape == Shape.KV) return builder.build();
        grouped.windowedBy(TimeWindows.ofSizeAndGrace(WINDOW_SIZE, GRACE))
                .count(Materialized
                        .<String, Long,
                                org.apache.kafka.streams.state.WindowStore<org.apache.kafka.common.utils.Bytes, byte[]>>
                                as(WINDOW_STORE)
                        .withKeySerde(Serdes.String())
                        .withValueSerde(Serdes.Long()))
                .toStream()
                .map((w, c) -> KeyValue.pair(w.key() + "@" + w.window().start(), c))
                .to(windowOut(appId), Produced.with(Serdes.String(), Serdes.Long()));
        grouped.windowedBy(SessionWindows.ofInactivityGapAndGrace(SESSION_GAP, GRACE))
                .count(Materialized
                        .<String, Long,
                                org.apache.kafka.streams.state.SessionStore<
                                        org.apache.kafka.common.utils.Bytes, byte[]>>
                                as(SESSION_STORE)
                        .withKeySerde(Serdes.String())
                        .withValueSerde(Serdes.Long()))
                .toStream()
                .map((w, c) -> KeyValue.pair(
                        w.key() + "@" + w.window().start() + "-" + w.window().end(), c))
                .to(sessionOut(appId), Produced.with(Serdes.String(), Serdes.Long()));
        return builder.build();
    }

    /** Forwards every record as {@code (outputKey(key, timestamp), 1)}, with no state: {@link Shape#PASSTHROUGH}. */
    private static ProcessorSupplier<String, String, String, Long> countOfOne(
            BiFunction<String, Long, String> outputKey) {
        return () -> new Processor<>() {
            private ProcessorContext<String, Long> context;

            @Override
            public void init(ProcessorContext<String, Long> context) {
                this.context = context;
            }

            @Override
            public void process(Record<String, String> record) {
                context.forward(record.withKey(outputKey.apply(record.key(), record.timestamp()))
                        .withValue(1L));
            }
        };
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
        Shape shape = Shape.ALL;
        for (int i = 4; i < args.length; i++) {
            int eq = args[i].indexOf('=');
            String key = args[i].substring(0, eq);
            String value = args[i].substring(eq + 1);
            if (key.equals(INPUT_ARG)) {
                input = value;
            } else if (key.equals(TOPOLOGY_ARG)) {
                shape = Shape.of(value);
            } else {
                config.put(key, value);
            }
        }
        AtomicLong processed = new AtomicLong();
        KafkaStreams streams = new KafkaStreams(topology(appId, processed, input, shape), config);
        streams.setGlobalStateRestoreListener(new StateRestoreListener() {
            @Override
            public void onRestoreStart(TopicPartition tp, String store, long start, long end) {
                out("RESTORE-START " + tp + " " + store + " " + start + " " + end);
            }

            @Override
            public void onBatchRestored(TopicPartition tp, String store, long batchEnd, long n) {}

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
            public void onUpdateSuspended(
                    TopicPartition tp, String store, long storeOffset, long endOffset, SuspendReason reason) {
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
            if (line.trim().startsWith("metric "))
                out(metric(streams, line.trim().substring(7).trim()));
        }
        streams.close(Duration.ofSeconds(30));
        out("STOPPED processed=" + processed.get());
        System.exit(0);
    }

    /**
     * {@code METRIC <name> <sum> <count>}: the sum of the store-level metric {@code name} over every
     * store of the app that has it, and how many have it.
     */
    static String metric(KafkaStreams streams, String name) {
        double sum = 0;
        int count = 0;
        for (var e : streams.metrics().entrySet()) {
            if (e.getKey().name().equals(name)
                    && e.getKey().group().equals("stream-state-metrics")
                    && e.getValue().metricValue() instanceof Number n) {
                sum += n.doubleValue();
                count++;
            }
        }
        return "METRIC " + name + " " + (long) sum + " " + count;
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
            streams.allLocalStorePartitionLags()
                    .forEach((store, byPartition) ->
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
