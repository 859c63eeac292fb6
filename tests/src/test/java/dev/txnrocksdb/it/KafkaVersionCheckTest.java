package dev.txnrocksdb.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Our jar on the Kafka Streams that frameworks bring by default (Spring Boot 4.0 and Quarkus 3.33:
 * 4.1; Spring Boot 4.1: 4.2) and on 4.3: every way into the library (the DSL suppliers named in the
 * configuration, {@code TxnStores}, {@code TxnStoreTypes}, the suppliers' constructor) fails with
 * our message naming the version found, the one needed and the fix, never with a
 * {@code NoSuchMethodError} or {@code NoClassDefFoundError} from deep inside. The class path is this
 * module's with kafka-streams and kafka-clients swapped for the other version's (copied by the
 * build into {@code target/kafka-versions/<version>/}).
 */
class KafkaVersionCheckTest {
    @ParameterizedTest
    @ValueSource(strings = {"4.1.2", "4.2.2", "4.3.2"})
    void everyWayInFailsWithOurMessage(String version) throws Exception {
        Path jars = Paths.get(System.getProperty("it.kafka.versions.dir", "target/kafka-versions"), version);
        List<String> classPath = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            String name = Paths.get(entry).getFileName().toString();
            if (!name.matches("kafka-(streams|clients)-\\d.*\\.jar")) {
                classPath.add(entry);
            }
        }
        try (Stream<Path> files = Files.list(jars)) {
            files.map(Path::toString).forEach(classPath::add);
        }
        Process p = new ProcessBuilder(
                        Paths.get(System.getProperty("java.home"), "bin", "java")
                                .toString(),
                        "-cp",
                        String.join(File.pathSeparator, classPath),
                        VersionCheckApp.class.getName())
                .redirectErrorStream(true)
                .start();
        List<String> out;
        try (var reader = new java.io.BufferedReader(new java.io.InputStreamReader(p.getInputStream()))) {
            out = reader.lines().collect(Collectors.toList());
        }
        assertTrue(p.waitFor(2, TimeUnit.MINUTES), "the check app did not finish");
        assertEquals(0, p.exitValue(), String.join("\n", out));
        List<String> ways = out.stream().filter(l -> l.startsWith("PATH ")).collect(Collectors.toList());
        assertEquals(4, ways.size(), String.join("\n", out));
        String expected = "needs Kafka Streams 4.4.x, but found Kafka Streams " + version + " (from kafka-streams' "
                + "kafka/kafka-streams-version.properties)";
        for (String way : ways) {
            assertTrue(way.contains("java.lang.IllegalStateException: txn-rocksdb-streams " + expected), way);
            assertTrue(way.contains("Spring Boot (Maven or Gradle): set the property kafka.version to 4.4.0"), way);
            assertFalse(way.contains("NoSuchMethodError") || way.contains("NoClassDefFoundError"), way);
        }
    }
}
