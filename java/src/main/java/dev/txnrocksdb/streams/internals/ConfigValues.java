package dev.txnrocksdb.streams.internals;

import dev.txnrocksdb.streams.TimeBasis;
import dev.txnrocksdb.streams.TransactionStrategy;
import java.util.Locale;
import java.util.Map;
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
        if (value != null) {
            String text = value.trim().toLowerCase(Locale.ROOT);
            for (TransactionStrategy strategy : TransactionStrategy.values()) {
                if (strategy.configName().equals(text)) {
                    return strategy;
                }
            }
        }
        throw new ConfigException(name, value, "Expected one of: " + transactionStrategies());
    }

    /** The allowed values of the strategy setting, comma-separated: {@code indexed-batch, secondary-store}. */
    public static String transactionStrategies() {
        StringBuilder out = new StringBuilder();
        for (TransactionStrategy strategy : TransactionStrategy.values()) {
            if (out.length() > 0) {
                out.append(", ");
            }
            out.append(strategy.configName());
        }
        return out.toString();
    }

    /**
     * Parses a time-to-live basis setting ({@code txn.rocksdb.ttl.time}): {@code stream} or
     * {@code wall-clock} (surrounding whitespace and letter case are ignored).
     *
     * @throws ConfigException naming the setting, the value and the allowed values, if
     *     {@code value} is null or names no basis
     */
    public static TimeBasis timeBasis(String name, String value) {
        if (value != null) {
            String text = value.trim().toLowerCase(Locale.ROOT);
            for (TimeBasis basis : TimeBasis.values()) {
                if (basis.configName().equals(text)) {
                    return basis;
                }
            }
        }
        throw new ConfigException(name, value, "Expected one of: " + timeBases());
    }

    /** The allowed values of the time basis setting, comma-separated: {@code stream, wall-clock}. */
    public static String timeBases() {
        StringBuilder out = new StringBuilder();
        for (TimeBasis basis : TimeBasis.values()) {
            if (out.length() > 0) {
                out.append(", ");
            }
            out.append(basis.configName());
        }
        return out.toString();
    }
}
