package dev.txnrocksdb.streams.internals;

import dev.txnrocksdb.streams.TimeBasis;
import dev.txnrocksdb.streams.TransactionStrategy;
import dev.txnrocksdb.streams.TxnRocksDBConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.streams.StreamsConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Validates the {@code txn.rocksdb.*} entries of an application configuration against
 * {@link TxnRocksDBConfig#configDef()}, and warns (once per process and message) about unknown
 * {@code txn.rocksdb.*} keys and about {@code rocksdb.config.setter}, which does not apply to
 * txn-rocksdb stores.
 */
public final class ConfigValidation {
    private static final Logger log = LoggerFactory.getLogger(ConfigValidation.class);
    private static final ConfigDef DEFINITION = TxnRocksDBConfig.configDef();
    private static final Set<String> WARNED = ConcurrentHashMap.newKeySet();

    private ConfigValidation() {}

    /**
     * Every {@code txn.rocksdb.*} setting, parsed (defaults for absent ones), after logging the
     * {@link #warnings} not logged before.
     *
     * @throws org.apache.kafka.common.config.ConfigException naming the key, the value and what is
     *     allowed, for a malformed value
     */
    public static Map<String, Object> parse(Map<String, ?> configs) {
        Map<String, Object> ours = new HashMap<>();
        configs.forEach((key, value) -> {
            if (value != null && DEFINITION.names().contains(key)) {
                ours.put(key, configValue(value));
            } else if (value != null && isStoreOptionsKey(key)) {
                DEFINITION
                        .configKeys()
                        .get(TxnRocksDBConfig.ROCKSDB_OPTIONS_CONFIG)
                        .validator
                        .ensureValid(key, value);
            } else if (value != null && isStoreSpillBytesKey(key)) {
                storeSpillBytes(key, value);
            } else if (value != null && isSnapshotOptionKey(key)) {
                snapshotOption(key, value);
            } else if (value != null && isStoreTtlKey(key)) {
                storeTtl(key, value);
            } else if (value != null && isStoreSnapshotLocationKey(key)) {
                DEFINITION
                        .configKeys()
                        .get(TxnRocksDBConfig.SNAPSHOT_LOCATION_CONFIG)
                        .validator
                        .ensureValid(key, value);
            }
        });
        for (String warning : warnings(configs)) {
            if (WARNED.add(warning)) {
                log.warn(warning);
            }
        }
        return DEFINITION.parse(ours);
    }

    /** An enumeration's value as its configuration spelling, anything else as it is. */
    private static Object configValue(Object value) {
        if (value instanceof TransactionStrategy) {
            return ((TransactionStrategy) value).configName();
        }
        if (value instanceof TimeBasis) {
            return ((TimeBasis) value).configName();
        }
        return value;
    }

    /** Whether {@code key} is the per-store form of {@link TxnRocksDBConfig#TTL_MS_CONFIG}. */
    static boolean isStoreTtlKey(String key) {
        return key.startsWith(TxnRocksDBConfig.TTL_MS_STORE_PREFIX)
                && key.length() > TxnRocksDBConfig.TTL_MS_STORE_PREFIX.length();
    }

    /**
     * A value of the per-store form of {@link TxnRocksDBConfig#TTL_MS_CONFIG}: empty for none,
     * else checked as the entry itself is.
     *
     * @return the time-to-live, or empty for none
     * @throws org.apache.kafka.common.config.ConfigException naming {@code key}, for a malformed value
     *     or one below 1 ms
     */
    static Optional<Duration> storeTtl(String key, Object value) {
        if (value.toString().trim().isEmpty()) {
            return Optional.empty();
        }
        ConfigDef.ConfigKey definition = DEFINITION.configKeys().get(TxnRocksDBConfig.TTL_MS_CONFIG);
        Object parsed =
                ConfigDef.parseType(key, value instanceof String ? ((String) value).trim() : value, definition.type);
        definition.validator.ensureValid(key, parsed);
        return Optional.of(Duration.ofMillis((Long) parsed));
    }

    /** Whether {@code key} is the per-store form of {@link TxnRocksDBConfig#ROCKSDB_OPTIONS_CONFIG}. */
    static boolean isStoreOptionsKey(String key) {
        return key.startsWith(TxnRocksDBConfig.ROCKSDB_OPTIONS_STORE_PREFIX)
                && key.length() > TxnRocksDBConfig.ROCKSDB_OPTIONS_STORE_PREFIX.length();
    }

    /** Whether {@code key} is the per-store form of {@link TxnRocksDBConfig#SECONDARY_STORE_SPILL_BYTES_CONFIG}. */
    static boolean isStoreSpillBytesKey(String key) {
        return key.startsWith(TxnRocksDBConfig.SECONDARY_STORE_SPILL_BYTES_STORE_PREFIX)
                && key.length() > TxnRocksDBConfig.SECONDARY_STORE_SPILL_BYTES_STORE_PREFIX.length();
    }

    /** Whether {@code key} is an option of the snapshot location ({@link TxnRocksDBConfig#SNAPSHOT_OPTION_PREFIX}). */
    static boolean isSnapshotOptionKey(String key) {
        return key.startsWith(TxnRocksDBConfig.SNAPSHOT_OPTION_PREFIX)
                && key.length() > TxnRocksDBConfig.SNAPSHOT_OPTION_PREFIX.length();
    }

    /**
     * A snapshot location option's value, as a string on one line.
     *
     * @throws org.apache.kafka.common.config.ConfigException naming {@code key} (never the value,
     *     which may be a secret) for a value with a line break
     */
    static String snapshotOption(String key, Object value) {
        String text = value instanceof org.apache.kafka.common.config.types.Password
                ? ((org.apache.kafka.common.config.types.Password) value).value()
                : value.toString();
        if (text.indexOf('\n') >= 0 || text.indexOf('\r') >= 0) {
            throw new org.apache.kafka.common.config.ConfigException(
                    key, "(not shown)", "A snapshot location option" + " must be on one line");
        }
        return text;
    }

    /** Whether {@code key} is the per-store form of {@link TxnRocksDBConfig#SNAPSHOT_LOCATION_CONFIG}. */
    static boolean isStoreSnapshotLocationKey(String key) {
        return key.startsWith(TxnRocksDBConfig.SNAPSHOT_LOCATION_STORE_PREFIX)
                && key.length() > TxnRocksDBConfig.SNAPSHOT_LOCATION_STORE_PREFIX.length();
    }

    /**
     * A value of the per-store form of {@link TxnRocksDBConfig#SECONDARY_STORE_SPILL_BYTES_CONFIG},
     * parsed and checked as the entry itself is.
     *
     * @throws org.apache.kafka.common.config.ConfigException naming {@code key}, for a malformed or
     *     negative value
     */
    static long storeSpillBytes(String key, Object value) {
        ConfigDef.ConfigKey definition =
                DEFINITION.configKeys().get(TxnRocksDBConfig.SECONDARY_STORE_SPILL_BYTES_CONFIG);
        Object parsed = ConfigDef.parseType(key, value, definition.type);
        definition.validator.ensureValid(key, parsed);
        return (Long) parsed;
    }

    /** What {@link #parse} warns about: unknown {@code txn.rocksdb.*} keys, and {@code rocksdb.config.setter}. */
    static List<String> warnings(Map<String, ?> configs) {
        List<String> warnings = new ArrayList<>();
        new TreeMap<>(configs).forEach((key, value) -> {
            if (key.startsWith(TxnRocksDBConfig.PREFIX)
                    && !DEFINITION.names().contains(key)
                    && !isStoreOptionsKey(key)
                    && !isStoreSpillBytesKey(key)
                    && !isStoreSnapshotLocationKey(key)
                    && !isStoreTtlKey(key)
                    && !isSnapshotOptionKey(key)) {
                warnings.add(
                        "Unknown txn-rocksdb setting " + key + " is ignored; did you mean " + closestKey(key) + "?");
            }
        });
        Object setter = configs.get(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG);
        if (setter != null) {
            String name = setter instanceof Class ? ((Class<?>) setter).getName() : setter.toString();
            warnings.add(
                    StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG + "=" + name + " does not apply to txn-rocksdb"
                            + " stores (only to Kafka's own RocksDB stores): tune them with "
                            + TxnRocksDBConfig.ROCKSDB_OPTIONS_CONFIG
                            + " (or " + TxnRocksDBConfig.ROCKSDB_OPTIONS_STORE_PREFIX
                            + "<store name>), and set their shared memory budget"
                            + " with " + TxnRocksDBConfig.MEMORY_BLOCK_CACHE_BYTES_CONFIG + " and "
                            + TxnRocksDBConfig.MEMORY_WRITE_BUFFER_BYTES_CONFIG);
        }
        return warnings;
    }

    /**
     * The defined key closest to {@code key}: among those that contain what follows
     * {@code txn.rocksdb.} in it (a key with a part left out), else among all, the one with the
     * smallest edit distance.
     */
    static String closestKey(String key) {
        String rest = key.substring(TxnRocksDBConfig.PREFIX.length());
        List<String> candidates = new ArrayList<>();
        for (String candidate : new TreeMap<>(DEFINITION.configKeys()).keySet()) {
            if (!rest.isEmpty()
                    && candidate.substring(TxnRocksDBConfig.PREFIX.length()).contains(rest)) {
                candidates.add(candidate);
            }
        }
        if (candidates.isEmpty()) {
            candidates.addAll(new TreeMap<>(DEFINITION.configKeys()).keySet());
        }
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String candidate : candidates) {
            int distance = editDistance(key, candidate);
            if (distance < bestDistance) {
                best = candidate;
                bestDistance = distance;
            }
        }
        return best;
    }

    private static int editDistance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
