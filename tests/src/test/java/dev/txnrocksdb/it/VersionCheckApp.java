package dev.txnrocksdb.it;

import dev.txnrocksdb.streams.TxnRocksDBDslStoreSuppliers;
import dev.txnrocksdb.streams.TxnStoreTypes;
import dev.txnrocksdb.streams.TxnStores;
import java.util.Properties;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TopologyConfig;
import org.apache.kafka.streams.kstream.Materialized;

/**
 * Child JVM of {@link KafkaVersionCheckTest}, run on another Kafka Streams than ours: goes into the
 * library each way an application does and prints, per way, {@code PATH <way>: OK} or
 * {@code PATH <way>: <class>: <message>} of the exception and its causes, innermost last.
 */
public final class VersionCheckApp {
    private VersionCheckApp() {}

    public static void main(String[] args) {
        // A framework's way: the DSL suppliers named in the configuration, built by Kafka Streams.
        attempt("dsl.store.suppliers.class", () -> {
            Properties props = new Properties();
            props.put(StreamsConfig.APPLICATION_ID_CONFIG, "version-check");
            props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:9");
            props.put("dsl.store.suppliers.class", TxnRocksDBDslStoreSuppliers.class.getName());
            StreamsBuilder builder = new StreamsBuilder(new TopologyConfig(new StreamsConfig(props)));
            builder.stream("words").groupByKey().count();
            builder.build(props);
        });
        attempt("TxnStores", () -> TxnStores.persistentTransactionalKeyValueStore("counts"));
        attempt("TxnStoreTypes", () -> Materialized.as("counts").withStoreType(TxnStoreTypes.TXN_ROCKS_DB));
        attempt("new TxnRocksDBDslStoreSuppliers", TxnRocksDBDslStoreSuppliers::new);
        System.out.println("DONE");
    }

    private static void attempt(String way, Runnable action) {
        try {
            action.run();
            System.out.println("PATH " + way + ": OK");
        } catch (Throwable t) {
            StringBuilder out = new StringBuilder("PATH " + way + ": ");
            for (Throwable c = t; c != null; c = c.getCause()) {
                out.append(c.getClass().getName())
                        .append(": ")
                        .append(c.getMessage())
                        .append(c.getCause() == null ? "" : " <- ");
            }
            System.out.println(out);
        }
    }
}
