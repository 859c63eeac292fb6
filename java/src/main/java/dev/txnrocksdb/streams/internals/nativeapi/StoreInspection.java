package dev.txnrocksdb.streams.internals.nativeapi;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.common.TopicPartition;

/**
 * The records {@link NativeStoreInspection}'s natives return, whose layouts the format crate owns
 * ({@code rust/format/src/inspection.rs}): what a store's files say about it ({@link Facts}), what
 * a check of every file found and what the next open would do under each damage policy
 * ({@link Verification}), and committed entries read out of a store ({@link DumpChunk}). Every
 * record starts with its version byte; big-endian, strings as {@code [int32 len][UTF-8]}.
 * {@code StoreInspectionTest} checks each against the format crate's golden records
 * ({@code rust/format/tests/golden/inspection.txt}). The operators' tool ({@code txn-rocksdb-tool})
 * is their reader.
 */
public final class StoreInspection {
    /** The version byte every record starts with ({@code inspection::VERSION}). */
    static final byte VERSION = 1;

    /** "No such time" in {@link Facts#storeTime()} and the times of a {@link DumpEntry} ({@code inspection::NO_TIME}). */
    public static final long NO_TIME = Long.MIN_VALUE;

    /** The byte {@link Facts} carries for a store that recorded no value format. */
    private static final int NO_VALUE_FORMAT = 0xFF;

    private StoreInspection() {}

    /**
     * The kind of store a directory holds, as the store records it (the format crate's
     * {@code store_kind.rs}); stores written before kinds were recorded carry none (null).
     */
    public enum StoreKind {
        KEY_VALUE(1, "key-value"),
        WINDOW(2, "window"),
        SESSION(3, "session"),
        VERSIONED(4, "versioned");

        private final byte code;
        private final String words;

        StoreKind(int code, String words) {
            this.code = (byte) code;
            this.words = words;
        }

        /** The kind in words, as messages name it ({@code StoreKind::name}). */
        public String words() {
            return words;
        }

        /** The byte a store records for it ({@code StoreKind::code}; never 0, "not recorded"). */
        byte code() {
            return code;
        }
    }

    /** How serious a {@link Finding} is (its code in the records: its ordinal, {@code Severity::code}). */
    public enum Severity {
        /**
         * Worth knowing, nothing lost: a write-ahead log's torn end (a write cut short by a crash,
         * which no commit was acknowledged from), a snapshot checkpoint left behind.
         */
        NOTE,
        /**
         * Damage: files whose checksums fail, a write-ahead log damaged before its end, a store
         * marked damaged, missing files. The store does not open as it was last committed.
         */
        DAMAGE
    }

    /** What the next open of a store does under a damage policy (its code in the records: its ordinal, {@code Outcome::code}). */
    public enum Outcome {
        /** Opens at its last commit. */
        OPENS,
        /** Opens at its last commit after rolling a secondary-store commit's copy forward. */
        ROLLS_FORWARD,
        /**
         * Opens at the last commit before a damaged write-ahead log record; the changelog restores
         * the later commits.
         */
        OPENS_BEFORE_DAMAGE,
        /** Refuses to open. */
        REFUSES,
        /** Deletes the store's files and opens empty; the changelog restores all of it. */
        WIPES
    }

    /**
     * One thing a look at a store's files found, in words an operator can act on.
     *
     * @param severity whether it is damage
     * @param what what was found, and where
     */
    public record Finding(Severity severity, String what) {
        public Finding {
            Objects.requireNonNull(severity, "severity cannot be null");
            Objects.requireNonNull(what, "what cannot be null");
        }
    }

    /**
     * What the files of one store say about it, read without writing to them.
     *
     * @param kind the store's kind; null when the store recorded none (written by an older version)
     * @param valueFormat the format of its values; null when the store recorded none (an empty store)
     * @param upgradePending a value format upgrade was cut short: the next open finishes it
     * @param timeToLive the store's rows are in the time-to-live layout
     * @param storeTime a store with a time-to-live: its committed time ({@link #NO_TIME}: none yet)
     * @param commitPending a secondary-store commit is being copied into the main store: the next
     *     open rolls it forward (the offsets are the ones it reaches)
     * @param uncommittedPending the temporary store holds writes of a secondary-store transaction
     *     that was never committed: the next open throws them away
     * @param estimatedKeys RocksDB's estimate of the rows in the store's data
     * @param liveDataBytes the bytes of the store's live data files (SST)
     * @param walBytes the bytes of its write-ahead log files
     * @param offsets the changelog offsets of the commit the store opens at, in the record's order
     * @param findings what the look found
     */
    public record Facts(
            StoreKind kind,
            ValueFormat valueFormat,
            boolean upgradePending,
            boolean timeToLive,
            long storeTime,
            boolean commitPending,
            boolean uncommittedPending,
            long estimatedKeys,
            long liveDataBytes,
            long walBytes,
            Map<TopicPartition, Long> offsets,
            List<Finding> findings) {
        private static final String WHAT = "store facts";

        public Facts {
            offsets = Collections.unmodifiableMap(new LinkedHashMap<>(offsets));
            findings = List.copyOf(findings);
        }

        /** Whether any finding is {@link Severity#DAMAGE}. */
        public boolean damaged() {
            return anyDamage(findings);
        }

        /** Decodes the record {@code facts0} returns. */
        static Facts decode(byte[] bytes) {
            RecordDecoder in = new RecordDecoder(bytes, WHAT, VERSION);
            int kindCode = in.u8();
            StoreKind kind = kindCode == 0 ? null : kindOf(in, kindCode);
            int formatCode = in.u8();
            ValueFormat valueFormat = formatCode == NO_VALUE_FORMAT ? null : in.valueFormat(formatCode);
            boolean upgradePending = in.flag("upgradePending");
            boolean timeToLive = in.flag("timeToLive");
            long storeTime = in.getLong();
            boolean commitPending = in.flag("commitPending");
            boolean uncommittedPending = in.flag("uncommittedPending");
            long estimatedKeys = in.getLong();
            long liveDataBytes = in.getLong();
            long walBytes = in.getLong();
            Map<TopicPartition, Long> offsets = in.offsets();
            List<Finding> findings = readFindings(in);
            return in.end(new Facts(
                    kind,
                    valueFormat,
                    upgradePending,
                    timeToLive,
                    storeTime,
                    commitPending,
                    uncommittedPending,
                    estimatedKeys,
                    liveDataBytes,
                    walBytes,
                    offsets,
                    findings));
        }
    }

    /**
     * What the next open of a store does under one damage policy.
     *
     * @param policy the damage policy
     * @param outcome what the open does
     * @param detail the offsets it opens at, the error it refuses with (may be empty)
     */
    public record NextOpen(CorruptionPolicy policy, Outcome outcome, String detail) {
        public NextOpen {
            Objects.requireNonNull(policy, "policy cannot be null");
            Objects.requireNonNull(outcome, "outcome cannot be null");
            Objects.requireNonNull(detail, "detail cannot be null");
        }
    }

    /**
     * What a check of every file of a store found, and what its next open does under each policy.
     *
     * @param findings what the check found
     * @param nextOpen one per damage policy, in the order of {@link CorruptionPolicy}'s codes
     */
    public record Verification(List<Finding> findings, List<NextOpen> nextOpen) {
        private static final String WHAT = "store verification";

        public Verification {
            findings = List.copyOf(findings);
            nextOpen = List.copyOf(nextOpen);
        }

        /** Whether any finding is {@link Severity#DAMAGE}. */
        public boolean damaged() {
            return anyDamage(findings);
        }

        /** Decodes the record {@code verify0} returns. */
        static Verification decode(byte[] bytes) {
            RecordDecoder in = new RecordDecoder(bytes, WHAT, VERSION);
            List<Finding> findings = readFindings(in);
            int count = in.count(6);
            List<NextOpen> nextOpen = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                CorruptionPolicy policy = policyOf(in, in.u8());
                Outcome outcome = outcomeOf(in, in.u8());
                nextOpen.add(new NextOpen(policy, outcome, in.str("an outcome's detail")));
            }
            return in.end(new Verification(findings, nextOpen));
        }
    }

    /**
     * One committed entry of a store. {@code first} and {@code second} are the kind's times
     * ({@link #NO_TIME} where the kind has none): a key-value store with a time-to-live, the key's
     * write time; a window store, the window's start and the entry's sequence number; a session
     * store, the session's start and end; a versioned store, the value's valid-from time. The
     * arrays are the record's own (a record of arrays compares them by identity).
     *
     * @param key the key's bytes
     * @param value the value's bytes, as stored (in the store's value format)
     * @param first the kind's first time, or {@link #NO_TIME}
     * @param second the kind's second time, or {@link #NO_TIME}
     */
    public record DumpEntry(byte[] key, byte[] value, long first, long second) {
        public DumpEntry {
            Objects.requireNonNull(key, "key cannot be null");
            Objects.requireNonNull(value, "value cannot be null");
        }
    }

    /**
     * Some of a store's committed entries, in its order, and where the next chunk starts.
     *
     * @param resume what {@link NativeStoreInspection#dump} takes to read on; null: the entries end here
     * @param entries the entries
     */
    public record DumpChunk(byte[] resume, List<DumpEntry> entries) {
        private static final String WHAT = "dump chunk";

        public DumpChunk {
            entries = List.copyOf(entries);
        }

        /** Decodes the record {@code dump0} returns. */
        static DumpChunk decode(byte[] bytes) {
            RecordDecoder in = new RecordDecoder(bytes, WHAT, VERSION);
            byte[] resume = in.bytes(true);
            int count = in.count(24);
            List<DumpEntry> entries = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                byte[] key = in.bytes(false);
                byte[] value = in.bytes(false);
                long first = in.getLong();
                entries.add(new DumpEntry(key, value, first, in.getLong()));
            }
            return in.end(new DumpChunk(resume, entries));
        }
    }

    private static boolean anyDamage(List<Finding> findings) {
        return findings.stream().anyMatch(finding -> finding.severity() == Severity.DAMAGE);
    }

    private static List<Finding> readFindings(RecordDecoder in) {
        int count = in.count(5);
        List<Finding> findings = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            Severity severity = severityOf(in, in.u8());
            findings.add(new Finding(severity, in.str("a finding")));
        }
        return findings;
    }

    private static StoreKind kindOf(RecordDecoder in, int code) {
        for (StoreKind kind : StoreKind.values()) {
            if (kind.code() == code) {
                return kind;
            }
        }
        throw in.malformed("unknown store kind " + code);
    }

    private static Severity severityOf(RecordDecoder in, int code) {
        if (code >= Severity.values().length) {
            throw in.malformed("unknown finding severity " + code);
        }
        return Severity.values()[code];
    }

    private static CorruptionPolicy policyOf(RecordDecoder in, int code) {
        for (CorruptionPolicy policy : CorruptionPolicy.values()) {
            if (policy.code() == code) {
                return policy;
            }
        }
        throw in.malformed("unknown damage policy " + code);
    }

    private static Outcome outcomeOf(RecordDecoder in, int code) {
        if (code >= Outcome.values().length) {
            throw in.malformed("unknown outcome " + code);
        }
        return Outcome.values()[code];
    }
}
