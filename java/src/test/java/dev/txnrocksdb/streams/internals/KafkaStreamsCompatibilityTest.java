package dev.txnrocksdb.streams.internals;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.util.Properties;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.Test;

/**
 * The version rule and its message; the check on real Kafka Streams 4.1, 4.2 and 4.3 class paths,
 * through every way into the library, is {@code KafkaVersionCheckTest} in the integration tests.
 */
class KafkaStreamsCompatibilityTest {
    @Test
    void theKafkaStreamsOfThisBuildPasses() {
        assertDoesNotThrow(() -> KafkaStreamsCompatibility.check());
    }

    @Test
    void theVersionBuiltAgainstIsTheOneOnTheTestClassPath() throws Exception {
        Properties properties = new Properties();
        try (InputStream in =
                KafkaStreams.class.getResourceAsStream(KafkaStreamsCompatibility.STREAMS_VERSION_RESOURCE)) {
            assertTrue(in != null, "kafka-streams carries " + KafkaStreamsCompatibility.STREAMS_VERSION_RESOURCE);
            properties.load(in);
        }
        assertEquals(KafkaStreamsCompatibility.BUILT_AGAINST, properties.getProperty("version"));
        assertTrue(KafkaStreamsCompatibility.BUILT_AGAINST.startsWith(KafkaStreamsCompatibility.SUPPORTED + "."));
    }

    @Test
    void patchVersionsOfTheSupportedMinorPass() {
        assertDoesNotThrow(() -> KafkaStreamsCompatibility.check("4.4.0", "test"));
        assertDoesNotThrow(() -> KafkaStreamsCompatibility.check("4.4.3-SNAPSHOT", "test"));
        assertDoesNotThrow(() -> KafkaStreamsCompatibility.check("unknown", "test"));
    }

    @Test
    void anotherMinorIsRefusedNamingBothVersionsAndTheFixForEachBuild() {
        IllegalStateException e = assertThrows(
                IllegalStateException.class,
                () -> KafkaStreamsCompatibility.check(
                        "4.1.2", "kafka-streams' kafka/kafka-streams-version.properties"));
        assertEquals(
                "txn-rocksdb-streams needs Kafka Streams 4.4.x, but found Kafka Streams 4.1.2 (from kafka-streams' "
                        + "kafka/kafka-streams-version.properties): it uses Kafka Streams internals that change between minor versions, and API "
                        + "that 4.4 added. Put kafka-streams and kafka-clients 4.4.0 on the class path (a framework's BOM often brings an older "
                        + "Kafka). Maven: manage org.apache.kafka:kafka-streams and org.apache.kafka:kafka-clients at 4.4.0 in "
                        + "<dependencyManagement>, ahead of any BOM import. Gradle: implementation 'org.apache.kafka:kafka-streams:4.4.0' and "
                        + "implementation 'org.apache.kafka:kafka-clients:4.4.0'. Spring Boot (Maven or Gradle): set the property kafka.version "
                        + "to 4.4.0 (<kafka.version>4.4.0</kafka.version>, or ext['kafka.version'] = '4.4.0'). Quarkus: "
                        + "org.apache.kafka:kafka-clients and org.apache.kafka:kafka-streams 4.4.0 in <dependencyManagement> ahead of the "
                        + "Quarkus BOM import.",
                e.getMessage());
        assertThrows(IllegalStateException.class, () -> KafkaStreamsCompatibility.check("4.5.0", "test"));
        assertThrows(IllegalStateException.class, () -> KafkaStreamsCompatibility.check("4.40.0", "test"));
        assertThrows(IllegalStateException.class, () -> KafkaStreamsCompatibility.check("3.9.1", "test"));
    }
}
