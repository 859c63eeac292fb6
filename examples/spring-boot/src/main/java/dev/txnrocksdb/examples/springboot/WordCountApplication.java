package dev.txnrocksdb.examples.springboot;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.state.KeyValueStore;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.kafka.annotation.EnableKafkaStreams;
import org.springframework.kafka.config.StreamsBuilderFactoryBeanConfigurer;

/**
 * The README's word count as a Spring Boot application: words (key = the word) from
 * {@code wordcount.input-topic}, {@code groupByKey().count()} into the store {@code word-counts},
 * the counts to {@code wordcount.output-topic}.
 *
 * <p>Nothing here names txn-rocksdb: the stores are chosen in {@code application.properties}
 * ({@code spring.kafka.streams.properties.dsl.store.suppliers.class}), like every other Kafka
 * Streams setting. Spring Boot builds the Streams config from {@code spring.kafka.*};
 * {@link EnableKafkaStreams} gives the {@link StreamsBuilder} and runs the resulting
 * {@code KafkaStreams} with the application context.
 */
@SpringBootApplication
@EnableKafkaStreams
public class WordCountApplication {

    public static void main(String[] args) {
        SpringApplication.run(WordCountApplication.class, args);
    }

    @Bean
    KStream<String, String> wordCount(
            StreamsBuilder builder,
            @Value("${wordcount.input-topic}") String input,
            @Value("${wordcount.output-topic}") String output) {
        KStream<String, String> words = builder.stream(input, Consumed.with(Serdes.String(), Serdes.String()));
        words.groupByKey()
                .count(Materialized.<String, Long, KeyValueStore<Bytes, byte[]>>as("word-counts")
                        .withKeySerde(Serdes.String())
                        .withValueSerde(Serdes.Long()))
                .toStream()
                .to(output, Produced.with(Serdes.String(), Serdes.Long()));
        return words;
    }

    /**
     * Spring Boot applies every {@link StreamsBuilderFactoryBeanConfigurer} bean to the
     * {@code StreamsBuilderFactoryBean} before it creates {@code KafkaStreams}: here it reports
     * restores and state changes on stdout.
     */
    @Bean
    StreamsBuilderFactoryBeanConfigurer restoreReporting() {
        return factoryBean -> {
            factoryBean.setStateRestoreListener(new PrintingRestoreListener());
            factoryBean.setStateListener((newState, oldState) -> PrintingRestoreListener.print(
                    "STATE " + newState + " restored=" + PrintingRestoreListener.restoredTotal()));
        };
    }
}
