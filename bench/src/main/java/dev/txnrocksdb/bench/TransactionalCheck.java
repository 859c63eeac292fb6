package dev.txnrocksdb.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.kstream.internals.SessionWindow;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.SessionStore;
import org.apache.kafka.streams.state.WindowStore;

/**
 * Proves, before any benchmark runs, that each column's stores are what the column claims, opened
 * exactly as the benchmarks open them ({@link BenchStore}): for every persistent kind and every
 * store type (key-value, window, session), a write is committed, a second write is left
 * uncommitted (and must be readable by the writer), the store is closed and reopened on the same
 * directory; the committed write must be there and, for a transactional kind, the uncommitted one
 * gone. If Kafka's store with {@code enable.transactional.statestores=true} kept the uncommitted
 * write, the reference would be the plain store and every ratio meaningless: {@link #main} and
 * {@link CompareStores} then abort.
 *
 * <p>The flag-off {@code kafka} column is expected to keep the uncommitted write (it is
 * write-through); that is reported, not enforced, and shows the check can tell the two apart. The
 * in-memory column keeps nothing across a close, so it is not reopened.
 *
 * <p>A last, informational probe reopens each transactional key-value store under
 * {@code processing.guarantee=exactly_once_v2}, after a clean close, and reports whether it opens.
 */
final class TransactionalCheck {
    private static final Bytes COMMITTED = Keys.sequential(1);
    private static final Bytes UNCOMMITTED = Keys.sequential(2);
    private static final byte[] VALUE = "value".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    private static final long TS = WindowBenchmark.BASE;

    /** One kind and store type: what survived the reopen. */
    record Outcome(
            String store,
            String type,
            boolean expectTransactional,
            boolean stagedVisible,
            boolean committedKept,
            boolean uncommittedGone,
            String note) {
        boolean failed() {
            return note == null && (!stagedVisible || !committedKept || (expectTransactional && !uncommittedGone));
        }

        String verdict() {
            if (note != null) {
                return note;
            }
            if (failed()) {
                return "FAILED";
            }
            return expectTransactional
                    ? "transactional"
                    : (uncommittedGone ? "dropped the uncommitted write" : "write-through, as expected");
        }
    }

    private TransactionalCheck() {}

    public static void main(String[] args) {
        List<StoreKind> kinds = new ArrayList<>();
        for (String id : System.getProperty("bench.stores", StoreKind.ids()).split(",")) {
            kinds.add(StoreKind.of(id.trim()));
        }
        List<Outcome> outcomes = run(kinds);
        System.out.print(table(outcomes));
        abortIfFailed(outcomes);
        System.out.println("Transactional check passed.");
    }

    static void abortIfFailed(List<Outcome> outcomes) {
        List<Outcome> failed = outcomes.stream().filter(Outcome::failed).toList();
        if (!failed.isEmpty()) {
            StringBuilder sb = new StringBuilder("Transactional check FAILED; the comparison would be meaningless:\n");
            for (Outcome o : failed) {
                sb.append("  ").append(o.store()).append(' ').append(o.type()).append(": ");
                if (!o.stagedVisible()) {
                    sb.append("the writer could not read its own uncommitted write; ");
                }
                if (!o.committedKept()) {
                    sb.append("a committed write was lost on close and reopen; ");
                }
                if (o.expectTransactional() && !o.uncommittedGone()) {
                    sb.append("an uncommitted write survived close and reopen, so the store is not transactional "
                            + "(is enable.transactional.statestores=true reaching it?); ");
                }
                sb.append('\n');
            }
            throw new IllegalStateException(sb.toString());
        }
    }

    static List<Outcome> run(List<StoreKind> kinds) {
        List<Outcome> outcomes = new ArrayList<>();
        for (StoreKind kind : kinds) {
            if (!kind.persistent) {
                for (String type : List.of("key-value", "window", "session")) {
                    outcomes.add(new Outcome(
                            kind.id, type, false, true, true, true, "n/a (in memory: nothing survives a close)"));
                }
                continue;
            }
            outcomes.add(keyValue(kind));
            outcomes.add(window(kind));
            outcomes.add(session(kind));
        }
        for (StoreKind kind : kinds) {
            if (kind.expectTransactional()) {
                outcomes.add(exactlyOnceReopen(kind));
            }
        }
        return outcomes;
    }

    private static Outcome keyValue(StoreKind kind) {
        BenchStore<KeyValueStore<Bytes, byte[]>> bench = BenchStore.keyValue(kind.id);
        try {
            bench.store.put(COMMITTED, VALUE);
            bench.commit(1);
            bench.store.put(UNCOMMITTED, VALUE);
            boolean visible = bench.store.get(UNCOMMITTED) != null;
            bench = bench.reopen();
            return new Outcome(
                    kind.id,
                    "key-value",
                    kind.expectTransactional(),
                    visible,
                    bench.store.get(COMMITTED) != null,
                    bench.store.get(UNCOMMITTED) == null,
                    null);
        } finally {
            bench.close();
        }
    }

    private static Outcome window(StoreKind kind) {
        BenchStore<WindowStore<Bytes, byte[]>> bench = BenchStore.window(kind.id);
        try {
            bench.store.put(COMMITTED, VALUE, TS);
            bench.commit(1);
            bench.store.put(UNCOMMITTED, VALUE, TS);
            boolean visible = bench.store.fetch(UNCOMMITTED, TS) != null;
            bench = bench.reopen();
            return new Outcome(
                    kind.id,
                    "window",
                    kind.expectTransactional(),
                    visible,
                    bench.store.fetch(COMMITTED, TS) != null,
                    bench.store.fetch(UNCOMMITTED, TS) == null,
                    null);
        } finally {
            bench.close();
        }
    }

    private static Outcome session(StoreKind kind) {
        BenchStore<SessionStore<Bytes, byte[]>> bench = BenchStore.session(kind.id);
        try {
            bench.store.put(new Windowed<>(COMMITTED, new SessionWindow(TS, TS + 1)), VALUE);
            bench.commit(1);
            bench.store.put(new Windowed<>(UNCOMMITTED, new SessionWindow(TS, TS + 1)), VALUE);
            boolean visible = bench.store.fetchSession(UNCOMMITTED, TS, TS + 1) != null;
            bench = bench.reopen();
            return new Outcome(
                    kind.id,
                    "session",
                    kind.expectTransactional(),
                    visible,
                    bench.store.fetchSession(COMMITTED, TS, TS + 1) != null,
                    bench.store.fetchSession(UNCOMMITTED, TS, TS + 1) == null,
                    null);
        } finally {
            bench.close();
        }
    }

    /** Informational: does a clean close and reopen work under exactly_once_v2? */
    private static Outcome exactlyOnceReopen(StoreKind kind) {
        String eos = StreamsConfig.EXACTLY_ONCE_V2;
        BenchStore<KeyValueStore<Bytes, byte[]>> bench = BenchStore.keyValue(kind.id, eos);
        String note;
        try {
            bench.store.put(COMMITTED, VALUE);
            bench.commit(1);
            try {
                bench = bench.reopen();
                note = bench.store.get(COMMITTED) != null
                        ? "reopens, committed write kept"
                        : "reopens, committed write LOST";
            } catch (RuntimeException e) {
                note = "reopen throws " + e.getClass().getSimpleName() + ": " + rootMessage(e);
            }
        } finally {
            closeQuietly(bench);
        }
        return new Outcome(
                kind.id, "key-value, exactly_once_v2, clean close + reopen (info)", false, true, true, true, note);
    }

    private static String rootMessage(Throwable e) {
        String msg = e.getMessage();
        Throwable t = e;
        while (t.getCause() != null) {
            t = t.getCause();
            if (t.getMessage() != null) {
                msg = t.getMessage();
            }
        }
        return msg;
    }

    private static void closeQuietly(BenchStore<? extends StateStore> bench) {
        try {
            bench.close();
        } catch (RuntimeException ignored) {
            // Reported by the caller's note.
        }
    }

    /** The outcomes as a Markdown table. */
    static String table(List<Outcome> outcomes) {
        StringBuilder sb = new StringBuilder(
                "| store | store type | uncommitted write readable before close "
                        + "| committed write after reopen | uncommitted write after reopen | verdict |\n|---|---|---|---|---|---|\n");
        for (Outcome o : outcomes) {
            boolean info = o.note() != null;
            sb.append(String.format(
                    Locale.ROOT,
                    "| %s | %s | %s | %s | %s | %s |%n",
                    o.store(),
                    o.type(),
                    info ? "" : yes(o.stagedVisible()),
                    info ? "" : (o.committedKept() ? "kept" : "LOST"),
                    info ? "" : (o.uncommittedGone() ? "gone" : "kept"),
                    o.verdict()));
        }
        return sb.toString();
    }

    private static String yes(boolean b) {
        return b ? "yes" : "NO";
    }

    static String json(List<Outcome> outcomes) {
        List<String> items = new ArrayList<>();
        for (Outcome o : outcomes) {
            items.add("{\"store\": " + Json.str(o.store()) + ", \"type\": " + Json.str(o.type())
                    + ", \"expectTransactional\": " + o.expectTransactional()
                    + ", \"stagedVisible\": " + o.stagedVisible() + ", \"committedKept\": " + o.committedKept()
                    + ", \"uncommittedGone\": " + o.uncommittedGone() + ", \"failed\": " + o.failed()
                    + ", \"verdict\": " + Json.str(o.verdict()) + "}");
        }
        return "[" + String.join(",\n    ", items) + "]";
    }
}
