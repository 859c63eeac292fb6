package dev.txnrocksdb.streams.internals;

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
}
