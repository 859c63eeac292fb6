package dev.txnrocksdb.tool;

import dev.txnrocksdb.streams.internals.nativeapi.CorruptionPolicy;
import dev.txnrocksdb.streams.internals.nativeapi.StoreInspection;
import dev.txnrocksdb.streams.internals.nativeapi.ValueFormat;
import java.time.Instant;
import java.util.Locale;

/** How the tool names what the records carry, in text and in JSON (the same words in both). */
final class Words {
    private Words() {}

    /** {@code key-value}, {@code window}, ...; null for a store that recorded no kind. */
    static String kind(StoreInspection.StoreKind kind) {
        return kind == null ? null : kind.words();
    }

    /** {@code plain}, {@code timestamped}, {@code timestamped-with-headers}, {@code with-headers}; null for none. */
    static String valueFormat(ValueFormat format) {
        return format == null ? null : constant(format);
    }

    /** {@code note} or {@code damage}. */
    static String severity(StoreInspection.Severity severity) {
        return constant(severity);
    }

    /** {@code refuse}, {@code open-at-last-consistent-commit}, {@code restore-from-changelog}. */
    static String policy(CorruptionPolicy policy) {
        return constant(policy);
    }

    /** When the library chooses a damage policy ({@code txn.rocksdb.wal.corruption}, and whether the store has a changelog). */
    static String whenChosen(CorruptionPolicy policy) {
        switch (policy) {
            case REFUSE:
                return "txn.rocksdb.wal.corruption=fail, or a store without a changelog by default";
            case OPEN_AT_LAST_CONSISTENT_COMMIT:
                return "a store without a changelog under txn.rocksdb.wal.corruption=recover";
            default:
                return "a store with a changelog, unless txn.rocksdb.wal.corruption=fail";
        }
    }

    /** {@code opens}, {@code rolls-forward}, {@code opens-before-damage}, {@code refuses}, {@code wipes}. */
    static String outcome(StoreInspection.Outcome outcome) {
        return constant(outcome);
    }

    /** What an outcome means, in a sentence's words. */
    static String outcomeSentence(StoreInspection.Outcome outcome) {
        switch (outcome) {
            case OPENS:
                return "opens at its last commit";
            case ROLLS_FORWARD:
                return "rolls a secondary-store commit's copy forward, then opens at its last commit";
            case OPENS_BEFORE_DAMAGE:
                return "opens at the last commit before the damage (the changelog restores the later ones)";
            case REFUSES:
                return "refuses to open";
            default:
                return "deletes the store's files and opens empty (the changelog restores all of it)";
        }
    }

    /** A byte count for people: {@code 512 bytes}, {@code 4.0 KiB}, {@code 5.0 GiB}. */
    static String bytes(long bytes) {
        if (bytes < 1024) {
            return bytes + (bytes == 1 ? " byte" : " bytes");
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
        double value = bytes;
        int unit = -1;
        while (value >= 1024 && unit < units.length - 1) {
            value /= 1024;
            unit++;
        }
        return String.format(Locale.ROOT, "%.1f %s", value, units[unit]);
    }

    /** Milliseconds since the epoch, with the instant they name: {@code 1700000000000 (2023-11-14T22:13:20Z)}. */
    static String time(long epochMillis) {
        return epochMillis + " (" + Instant.ofEpochMilli(epochMillis) + ")";
    }

    private static String constant(Enum<?> constant) {
        return constant.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /**
     * A committed changelog offset in words: Kafka Streams commits {@code -4} ({@code
     * OffsetCheckpoint.OFFSET_UNKNOWN}) for a store that has processed and restored nothing yet.
     */
    static String offset(long offset) {
        return offset >= 0 ? Long.toString(offset) : offset + " (unknown: nothing processed or restored yet)";
    }
}
