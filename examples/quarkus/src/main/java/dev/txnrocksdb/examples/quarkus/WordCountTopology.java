package dev.txnrocksdb.examples.quarkus;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The word count: records keyed by word on the input topic, {@code groupByKey().count()} into the
 * store "word-counts", every new count to the output topic.
 *
 * <p>Nothing here names our stores: {@code kafka-streams.dsl.store.suppliers.class} in
 * application.properties makes Kafka Streams build every DSL store with
 * {@code TxnRocksDBDslStoreSuppliers}.
 */
@ApplicationScoped
public class WordCountTopology {

    public static final String STORE = "word-counts";

    @ConfigProperty(name = "wordcount.input-topic", defaultValue = "words")
    String inputTopic;

    @ConfigProperty(name = "wordcount.output-topic", defaultValue = "word-counts-output")
    String outputTopic;

    @Produces
    public Topology buildTopology() {
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream(inputTopic, Consumed.with(Serdes.String(), Serdes.String()))
                .groupByKey(Grouped.with(Serdes.String(), Serdes.String()))
                .count(Materialized.as(STORE))
                .toStream()
                .to(outputTopic, Produced.with(Serdes.String(), Serdes.Long()));
        return builder.build();
    }
}
