package dev.txnrocksdb.streams.internals;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class KafkaStreamsCompatibilityTest {
    @Test
    void theKafkaStreamsOfThisBuildPasses() {
        assertDoesNotThrow(() -> KafkaStreamsCompatibility.check());
    }

    @Test
    void patchVersionsOfTheSupportedMinorPass() {
        assertDoesNotThrow(() -> KafkaStreamsCompatibility.check("4.4.0", "test"));
        assertDoesNotThrow(() -> KafkaStreamsCompatibility.check("4.4.3-SNAPSHOT", "test"));
        assertDoesNotThrow(() -> KafkaStreamsCompatibility.check("unknown", "test"));
    }

    @Test
    void anotherMinorIsRefusedNamingBothVersions() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
            () -> KafkaStreamsCompatibility.check("4.5.0", "/m2/kafka-streams-4.5.0.jar"));
        assertEquals("txn-rocksdb-streams supports Kafka Streams 4.4.x only (it uses Kafka Streams internals that change between "
            + "minor versions), but found Kafka Streams 4.5.0 (from /m2/kafka-streams-4.5.0.jar). Use org.apache.kafka:kafka-streams "
            + "4.4.x with this txn-rocksdb-streams version.", e.getMessage());
        assertThrows(IllegalStateException.class, () -> KafkaStreamsCompatibility.check("4.40.0", "test"));
        assertThrows(IllegalStateException.class, () -> KafkaStreamsCompatibility.check("3.9.1", "test"));
    }
}
