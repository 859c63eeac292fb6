package dev.txnrocksdb.streams.internals;

import org.apache.kafka.streams.errors.TopologyException;

/**
 * The rule for store names: Kafka's for names in a topology ({@code Named}, the same characters
 * a topic name may use), plus Kafka's topic-name ban on {@code "."} and {@code ".."}. A store's
 * directory is {@code <task dir>/<name>}, so a name with a path separator or {@code ..} would
 * put it outside its task directory.
 */
public final class StoreNames {
    private static final int MAX_LENGTH = 249;

    private StoreNames() {}

    /**
     * @throws NullPointerException if {@code name} is null
     * @throws TopologyException naming the rule {@code name} breaks
     */
    public static String validate(String name) {
        if (name == null) {
            throw new NullPointerException("name cannot be null");
        }
        if (name.isEmpty()) {
            throw new TopologyException("Store name is illegal, it can't be empty");
        }
        if (name.equals(".") || name.equals("..")) {
            throw new TopologyException("Store name cannot be \".\" or \"..\"");
        }
        if (name.length() > MAX_LENGTH) {
            throw new TopologyException(
                    "Store name is illegal, it can't be longer than " + MAX_LENGTH + " characters, name: " + name);
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean legal = (c >= 'a' && c <= 'z')
                    || (c >= 'A' && c <= 'Z')
                    || (c >= '0' && c <= '9')
                    || c == '.'
                    || c == '_'
                    || c == '-';
            if (!legal) {
                throw new TopologyException(
                        "Store name \"" + name + "\" is illegal, it contains a character other than "
                                + "ASCII alphanumerics, '.', '_' and '-'");
            }
        }
        return name;
    }
}
