package dev.txnrocksdb.streams.internals;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.security.CodeSource;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.streams.KafkaStreams;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which Kafka Streams versions this jar runs on: {@value #SUPPORTED}.x only, because the stores use
 * Kafka Streams internals ({@code processor.internals}, {@code state.internals}) and KIP-892's
 * transactional-store contract, which change between minor versions. {@link #check()} (called when a
 * store supplier is created) refuses another version with a message naming both.
 */
public final class KafkaStreamsCompatibility {
    /** The Kafka Streams {@code major.minor} this jar is built and tested against. */
    public static final String SUPPORTED = "4.4";

    private static final Logger log = LoggerFactory.getLogger(KafkaStreamsCompatibility.class);
    private static final Pattern STREAMS_JAR = Pattern.compile("kafka-streams-(\\d+\\.\\d+[^/]*?)\\.jar$");
    private static volatile boolean checked;

    private KafkaStreamsCompatibility() {}

    /**
     * Checks the Kafka Streams on the class path, once per JVM.
     *
     * @throws IllegalStateException if it is not {@value #SUPPORTED}.x
     */
    public static void check() {
        if (checked) {
            return;
        }
        String jar = streamsJar();
        Matcher m = jar == null ? null : STREAMS_JAR.matcher(jar);
        if (m != null && m.find()) {
            check(m.group(1), jar);
        } else {
            // A shaded or repackaged jar: Kafka Streams needs the kafka-clients of its own version.
            check(clientsVersion(), "kafka-clients' version, as Kafka Streams' jar (" + jar + ") has none in its name");
        }
        checked = true;
    }

    /**
     * Checks one Kafka Streams version.
     *
     * @param version the version found, e.g. {@code 4.4.0}; {@code unknown} passes with a warning
     * @param source where it was found, for the message
     * @throws IllegalStateException if it is not {@value #SUPPORTED}.x
     */
    static void check(String version, String source) {
        if (version == null || version.isEmpty() || version.equals("unknown")) {
            log.warn("txn-rocksdb supports Kafka Streams {}.x; cannot tell which version is on the class path ({})", SUPPORTED, source);
            return;
        }
        if (!(version.equals(SUPPORTED) || version.startsWith(SUPPORTED + "."))) {
            throw new IllegalStateException("txn-rocksdb-streams supports Kafka Streams " + SUPPORTED + ".x only (it uses Kafka "
                + "Streams internals that change between minor versions), but found Kafka Streams " + version + " (from " + source
                + "). Use org.apache.kafka:kafka-streams " + SUPPORTED + ".x with this txn-rocksdb-streams version.");
        }
    }

    /** kafka-clients' version, from the resource its own AppInfoParser reads; "unknown" without it. */
    private static String clientsVersion() {
        Properties properties = new Properties();
        try (InputStream in = KafkaStreams.class.getClassLoader().getResourceAsStream("kafka/kafka-version.properties")) {
            if (in != null) {
                properties.load(in);
            }
        } catch (IOException e) {
            log.debug("cannot read kafka/kafka-version.properties", e);
        }
        return properties.getProperty("version", "unknown");
    }

    private static String streamsJar() {
        CodeSource code = KafkaStreams.class.getProtectionDomain().getCodeSource();
        URL location = code == null ? null : code.getLocation();
        return location == null ? null : location.getPath();
    }
}
