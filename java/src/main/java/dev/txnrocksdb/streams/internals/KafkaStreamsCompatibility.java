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
 * transactional-store contract, which change between minor versions, and API that Kafka Streams
 * 4.3 and 4.4 added ({@code DslStoreFormat}, the headers stores).
 *
 * <p>{@link #check()} runs first on every way into the library (the API classes' constructors
 * and static initializers, {@code configure}, the suppliers, the stores), before anything newer
 * than Kafka Streams 4.0 is touched, so an application that brings another Kafka Streams (the
 * frameworks' defaults: Spring Boot 4.0 and Quarkus 3.33 bring 4.1) fails with a message naming
 * the version found, the one needed and the fix for Maven, Gradle, Spring Boot and Quarkus, not
 * with a {@code NoSuchMethodError}. The version comes from the resource Kafka Streams itself
 * reports its version from ({@code kafka/kafka-streams-version.properties}, as its
 * {@code ClientMetrics} reads it), which nested (Spring Boot), shaded and modular class paths
 * keep; the jar's file name and kafka-clients' version are the fallbacks.
 */
public final class KafkaStreamsCompatibility {
    /** The Kafka Streams {@code major.minor} this jar is built and tested against. */
    public static final String SUPPORTED = "4.4";
    /** The Kafka Streams release this jar is built and tested against (the build's {@code kafka.version}). */
    public static final String BUILT_AGAINST = "4.4.0";
    /** Kafka Streams' own version resource. */
    static final String STREAMS_VERSION_RESOURCE = "/kafka/kafka-streams-version.properties";

    private static final Logger log = LoggerFactory.getLogger(KafkaStreamsCompatibility.class);
    private static final Pattern STREAMS_JAR = Pattern.compile("kafka-streams-(\\d+\\.\\d+[^/!]*?)\\.jar");
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
        String version = versionProperty(KafkaStreams.class, STREAMS_VERSION_RESOURCE);
        if (version != null) {
            check(version, "kafka-streams' " + STREAMS_VERSION_RESOURCE.substring(1));
        } else {
            String jar = streamsJar();
            Matcher m = jar == null ? null : STREAMS_JAR.matcher(jar);
            if (m != null && m.find()) {
                check(m.group(1), jar);
            } else {
                // A shaded or repackaged jar without the resource: Kafka Streams needs the kafka-clients of its own
                // version.
                String clients = versionProperty(KafkaStreams.class, "/kafka/kafka-version.properties");
                check(
                        clients == null ? "unknown" : clients,
                        "kafka-clients' version, as Kafka Streams' jar (" + jar + ") has neither "
                                + STREAMS_VERSION_RESOURCE.substring(1) + " nor a version in its name");
            }
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
            log.warn(
                    "txn-rocksdb supports Kafka Streams {}.x; cannot tell which version is on the class path ({})",
                    SUPPORTED,
                    source);
            return;
        }
        if (!(version.equals(SUPPORTED) || version.startsWith(SUPPORTED + "."))) {
            throw new IllegalStateException(message(version, source));
        }
    }

    /** What an application with Kafka Streams {@code version} is told, with the fix for each build. */
    static String message(String version, String source) {
        String v = BUILT_AGAINST;
        return "txn-rocksdb-streams needs Kafka Streams " + SUPPORTED + ".x, but found Kafka Streams " + version
                + " (from " + source
                + "): it uses Kafka Streams internals that change between minor versions, and API that " + SUPPORTED
                + " added. Put kafka-streams and kafka-clients " + v
                + " on the class path (a framework's BOM often brings an older "
                + "Kafka). Maven: manage org.apache.kafka:kafka-streams and org.apache.kafka:kafka-clients at " + v
                + " in <dependencyManagement>, ahead of any BOM import. Gradle: implementation 'org.apache.kafka:kafka-streams:"
                + v
                + "' and implementation 'org.apache.kafka:kafka-clients:" + v
                + "'. Spring Boot (Maven or Gradle): set the property "
                + "kafka.version to " + v + " (<kafka.version>" + v + "</kafka.version>, or ext['kafka.version'] = '"
                + v + "'). Quarkus: "
                + "org.apache.kafka:kafka-clients and org.apache.kafka:kafka-streams " + v
                + " in <dependencyManagement> ahead of the "
                + "Quarkus BOM import.";
    }

    /** The {@code version} entry of a resource seen from {@code anchor}'s jar and class loader; null without it. */
    private static String versionProperty(Class<?> anchor, String resource) {
        Properties properties = new Properties();
        try (InputStream in = anchor.getResourceAsStream(resource)) {
            if (in == null) {
                return null;
            }
            properties.load(in);
        } catch (IOException e) {
            log.debug("cannot read {}", resource, e);
            return null;
        }
        String version = properties.getProperty("version", "").trim();
        return version.isEmpty() ? null : version;
    }

    private static String streamsJar() {
        CodeSource code = KafkaStreams.class.getProtectionDomain().getCodeSource();
        URL location = code == null ? null : code.getLocation();
        return location == null ? null : location.toString();
    }
}
