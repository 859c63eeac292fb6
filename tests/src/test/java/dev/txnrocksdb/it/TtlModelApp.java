package dev.txnrocksdb.it;

import dev.txnrocksdb.streams.TransactionStrategy;
import dev.txnrocksdb.streams.TxnKeyValueStoreSupplier;
import dev.txnrocksdb.streams.TxnStores;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.ValueAndTimestamp;
import org.apache.kafka.streams.state.ValueTimestampHeaders;

/**
 * The application under test of {@code TtlModelTest}: six key-value stores with a time-to-live of
 * {@link #TTL} in stream time, one per kind (key-value, timestamped, headers) and transaction
 * strategy ({@code indexed-batch}, {@code secondary-store}), all under exactly-once with
 * {@code enable.transactional.statestores=true} and no caching layer. One processor applies each
 * op record of {@code <appId>-ops} to all six stores and sends the answer of every op that returns
 * something to {@code <appId>-answers}, keyed {@code <store>|<op sequence number>}, in the
 * canonical text of {@link #render}. Run in a child JVM that the test kills with SIGKILL:
 * {@code TtlModelApp <bootstrap> <stateDir> <appId> [key=value ...]} (Streams configs over the
 * defaults of {@link #config}); prints RUNNING, then PROCESSED n every 50 ops.
 *
 * <p>An op record: key = the store key, timestamp = the op's stream time, value =
 * {@code <seq>|<op>[|<arg>...]} with op one of {@code put|<value>}, {@code pia|<value>}
 * (putIfAbsent: answers the live value it found), {@code delete} (answers the live value it
 * removed), {@code get}, {@code range|<from>|<to>}, {@code reverse|<from>|<to>} ({@code -} for an
 * open bound), {@code all}, {@code rall} (reverseAll) and {@code prefix|<p>} (prefixScan). The
 * headers stores keep the op record's headers with the value (a put carries {@code w=<seq>}).
 */
public final class TtlModelApp {
    static final Duration TTL = Duration.ofMinutes(1);
    /** The six stores: kind {@code kv}, {@code ts} or {@code hd}, strategy {@code ib} or {@code ss}. */
    static final List<String> STORES = List.of("kv-ib", "kv-ss", "ts-ib", "ts-ss", "hd-ib", "hd-ss");
    /** What {@link #render} writes for no value. */
    static final String NONE = "-";
    /** The header that a put's op record carries: its sequence number. */
    static final String WRITE_HEADER = "w";

    private TtlModelApp() {}

    static String opsTopic(String appId) {
        return appId + "-ops";
    }

    static String answersTopic(String appId) {
        return appId + "-answers";
    }

    /**
     * The canonical text of a stored value: {@code v}, {@code v@<timestamp>} (timestamped) or
     * {@code v@<timestamp>#<w header>} (headers); {@link #NONE} for null. The model renders the same.
     */
    static String render(Object stored) {
        if (stored == null) return NONE;
        if (stored instanceof ValueAndTimestamp<?> vt) return vt.value() + "@" + vt.timestamp();
        if (stored instanceof ValueTimestampHeaders<?> vth) {
            Header w = vth.headers() == null ? null : vth.headers().lastHeader(WRITE_HEADER);
            return vth.value() + "@" + vth.timestamp() + "#"
                    + (w == null ? "?" : new String(w.value(), StandardCharsets.UTF_8));
        }
        return stored.toString();
    }

    /** A scan's answer: {@code key=value} in the iterator's order, comma-separated. */
    static String render(KeyValueIterator<String, ?> it) {
        try (it) {
            StringBuilder b = new StringBuilder();
            while (it.hasNext()) {
                KeyValue<String, ?> kv = it.next();
                if (!b.isEmpty()) b.append(',');
                b.append(kv.key).append('=').append(render(kv.value));
            }
            return b.toString();
        }
    }

    /** One store of the six, with how an op's value becomes its stored value. */
    private record Target<X>(String name, KeyValueStore<String, X> store, Function<Record<String, String>, X> wrap) {
        X value(Record<String, String> op, String value) {
            return wrap.apply(op.withValue(value));
        }
    }

    /** Applies every op to the six stores; forwards each answer. */
    static final class Apply implements Processor<String, String, String, String> {
        private final AtomicLong processed;
        private final List<Target<?>> targets = new ArrayList<>();
        private ProcessorContext<String, String> context;

        Apply(AtomicLong processed) {
            this.processed = processed;
        }

        @Override
        public void init(ProcessorContext<String, String> context) {
            this.context = context;
            for (String name : STORES) {
                targets.add(
                        switch (name.substring(0, 2)) {
                            case "kv" -> new Target<String>(name, context.getStateStore(name), Record::value);
                            case "ts" ->
                                new Target<ValueAndTimestamp<String>>(
                                        name,
                                        context.getStateStore(name),
                                        r -> ValueAndTimestamp.make(r.value(), r.timestamp()));
                            default ->
                                new Target<ValueTimestampHeaders<String>>(
                                        name,
                                        context.getStateStore(name),
                                        r -> ValueTimestampHeaders.make(r.value(), r.timestamp(), copy(r.headers())));
                        });
            }
        }

        private static Headers copy(Headers headers) {
            return new RecordHeaders(headers.toArray());
        }

        @Override
        public void process(Record<String, String> record) {
            String[] op = record.value().split("\\|", -1);
            for (Target<?> t : targets) {
                String answer = apply(t, record, op);
                if (answer != null) {
                    context.forward(record.withKey(t.name() + "|" + op[0]).withValue(answer));
                }
            }
            long n = processed.incrementAndGet();
            if (n % 50 == 0) {
                System.out.println("PROCESSED " + n);
            }
        }

        /** The op's answer on one store, or null for a put (which answers nothing). */
        private static <X> String apply(Target<X> t, Record<String, String> record, String[] op) {
            KeyValueStore<String, X> s = t.store();
            String key = record.key();
            return switch (op[1]) {
                case "put" -> {
                    s.put(key, t.value(record, op[2]));
                    yield null;
                }
                case "pia" -> render(s.putIfAbsent(key, t.value(record, op[2])));
                case "delete" -> render(s.delete(key));
                case "get" -> render(s.get(key));
                case "range" -> render(s.range(bound(op[2]), bound(op[3])));
                case "reverse" -> render(s.reverseRange(bound(op[2]), bound(op[3])));
                case "all" -> render(s.all());
                case "rall" -> render(s.reverseAll());
                case "prefix" -> render(s.prefixScan(op[2], new StringSerializer()));
                default -> throw new IllegalArgumentException("unknown op " + record.value());
            };
        }

        private static String bound(String b) {
            return b.equals(NONE) ? null : b;
        }
    }

    private static TxnKeyValueStoreSupplier supplier(String name) {
        TransactionStrategy strategy =
                name.endsWith("-ib") ? TransactionStrategy.INDEXED_BATCH : TransactionStrategy.SECONDARY_STORE;
        TxnKeyValueStoreSupplier s = switch (name.substring(0, 2)) {
            case "kv" -> TxnStores.persistentTransactionalKeyValueStore(name, strategy);
            case "ts" -> TxnStores.persistentTransactionalTimestampedKeyValueStore(name, strategy);
            default -> TxnStores.persistentTransactionalTimestampedKeyValueStoreWithHeaders(name, strategy);
        };
        return s.withTtl(TTL);
    }

    private static StoreBuilder<?> builder(String name) {
        // a TTL store refuses a caching layer (it would serve expired entries): the builders'
        // default is no caching, said here explicitly
        return switch (name.substring(0, 2)) {
            case "kv" ->
                Stores.keyValueStoreBuilder(supplier(name), Serdes.String(), Serdes.String())
                        .withCachingDisabled();
            case "ts" ->
                Stores.timestampedKeyValueStoreBuilder(supplier(name), Serdes.String(), Serdes.String())
                        .withCachingDisabled();
            default ->
                Stores.timestampedKeyValueStoreWithHeadersBuilder(supplier(name), Serdes.String(), Serdes.String())
                        .withCachingDisabled();
        };
    }

    static Topology topology(String appId, AtomicLong processed) {
        Topology topology = new Topology();
        topology.addSource("ops", new StringDeserializer(), new StringDeserializer(), opsTopic(appId));
        topology.addProcessor("apply", () -> new Apply(processed), "ops");
        for (String name : STORES) topology.addStateStore(builder(name), "apply");
        topology.addSink("answers", answersTopic(appId), new StringSerializer(), new StringSerializer(), "apply");
        return topology;
    }

    /** {@link TtlDedupApp#config}'s exactly-once settings, no record cache, one stream thread, static membership. */
    static Properties config(String bootstrap, String stateDir, String appId) {
        Properties p = TtlDedupApp.config(bootstrap, stateDir, appId);
        p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
        // with static membership the restarted instance takes the killed one's place at once
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG), appId + "-instance-1");
        return p;
    }

    public static void main(String[] args) throws Exception {
        Properties p = config(args[0], args[1], args[2]);
        for (int i = 3; i < args.length; i++) {
            String[] kv = args[i].split("=", 2);
            p.put(kv[0], kv[1]);
        }
        AtomicLong processed = new AtomicLong();
        KafkaStreams streams = new KafkaStreams(topology(args[2], processed), p);
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
