package dev.txnrocksdb.streams.internals;

import dev.txnrocksdb.streams.TimeBasis;
import dev.txnrocksdb.streams.TransactionStrategy;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import org.apache.kafka.common.config.ConfigException;

/** Typed reads of entries of {@code StateStoreContext#appConfigs()}, which may hold strings or parsed values. */
public final class ConfigValues {
    private ConfigValues() {}

    public static boolean booleanValue(Map<String, ?> configs, String name, boolean defaultValue) {
        Object value = configs.get(name);
        if (value == null) {
            return defaultValue;
        }
        if (value instanceof Boolean) {
            return (Boolean) value;
        }
        String text = value.toString().trim().toLowerCase(Locale.ROOT);
        if (text.equals("true")) {
            return true;
        }
        if (text.equals("false")) {
            return false;
        }
        throw new ConfigException(name, value, "Expected true or false");
    }

    public static String stringValue(Map<String, ?> configs, String name) {
        Object value = configs.get(name);
        return value == null ? null : value.toString();
    }

    /**
     * Parses a transaction strategy setting ({@code txn.rocksdb.transaction.strategy}, or a store's
     * own): {@code indexed-batch} or {@code secondary-store} (surrounding whitespace and letter case
     * are ignored).
     *
     * @param name the setting's name, for the message
     * @param value the configured value
     * @return the strategy it names
     * @throws ConfigException naming the setting, the value and the allowed values, if
     *     {@code value} is null or names no strategy
     */
    public static TransactionStrategy transactionStrategy(String name, String value) {
        return byConfigName(name, value, TransactionStrategy.values(), TransactionStrategy::configName);
    }

    /** The allowed values of the strategy setting, comma-separated: {@code indexed-batch, secondary-store}. */
    public static String transactionStrategies() {
        return configNames(TransactionStrategy.values(), TransactionStrategy::configName);
    }

    /**
     * Parses a time-to-live basis setting ({@code txn.rocksdb.ttl.time}): {@code stream} or
     * {@code wall-clock} (surrounding whitespace and letter case are ignored).
     *
     * @throws ConfigException naming the setting, the value and the allowed values, if
     *     {@code value} is null or names no basis
     */
    public static TimeBasis timeBasis(String name, String value) {
        return byConfigName(name, value, TimeBasis.values(), TimeBasis::configName);
    }

    /** The allowed values of the time basis setting, comma-separated: {@code stream, wall-clock}. */
    public static String timeBases() {
        return configNames(TimeBasis.values(), TimeBasis::configName);
    }

    /** The constant whose configuration spelling {@code value} is (trimmed, any letter case). */
    private static <E> E byConfigName(String name, String value, E[] all, Function<E, String> configName) {
        if (value != null) {
            String text = value.trim().toLowerCase(Locale.ROOT);
            for (E candidate : all) {
                if (configName.apply(candidate).equals(text)) {
                    return candidate;
                }
            }
        }
        throw new ConfigException(name, value, "Expected one of: " + configNames(all, configName));
    }

    private static <E> String configNames(E[] all, Function<E, String> configName) {
        StringBuilder out = new StringBuilder();
        for (E constant : all) {
            if (out.length() > 0) {
                out.append(", ");
            }
            out.append(configName.apply(constant));
        }
        return out.toString();
    }
}
