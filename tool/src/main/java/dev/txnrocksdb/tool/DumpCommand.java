package dev.txnrocksdb.tool;

import dev.txnrocksdb.streams.internals.nativeapi.NativeStoreInspection;
import dev.txnrocksdb.streams.internals.nativeapi.StoreInspection;
import dev.txnrocksdb.streams.internals.nativeapi.StoreInspection.DumpChunk;
import dev.txnrocksdb.streams.internals.nativeapi.StoreInspection.DumpEntry;
import dev.txnrocksdb.streams.internals.nativeapi.StoreInspection.StoreKind;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * {@code dump <store dir> [--from K] [--to K] [--limit N] [--hex]}: a store's committed entries,
 * never uncommitted writes, read in chunks of at most {@value #CHUNK} entries
 * ({@link NativeStoreInspection#dump}) until the range ends or the limit is reached, under
 * {@link StoreLocks}. Text: one entry a line, {@code key -> value} (UTF-8 where printable, else
 * {@code hex:...}), then the kind's times; JSON: one document, each key and value as
 * {@code {"hex": ..., "utf8": ...}}.
 */
final class DumpCommand {
    /** The most entries one native call returns. */
    static final int CHUNK = 10_000;

    private DumpCommand() {}

    /** What a kind's two numbers of a {@link DumpEntry} are: names in text and JSON, and whether each is a time. */
    record Labels(String firstText, String firstJson, String secondText, String secondJson, boolean secondIsTime) {
        static Labels of(StoreKind kind) {
            if (kind == null) {
                return new Labels("first", "first", "second", "second", false);
            }
            switch (kind) {
                case KEY_VALUE:
                    return new Labels("write time", "writeTime", "second", "second", false);
                case WINDOW:
                    return new Labels("window start", "windowStart", "sequence", "sequence", false);
                case SESSION:
                    return new Labels("session start", "sessionStart", "session end", "sessionEnd", true);
                default:
                    return new Labels("valid from", "validFrom", "second", "second", false);
            }
        }
    }

    static int run(ToolArguments args, PrintStream out, PrintStream err, StoreReader reader)
            throws IOException, TxnRocksDbTool.Refused, ToolArguments.UsageException {
        StateLayout.Entry store = TxnRocksDbTool.storeAt(args.dir());
        try (StoreLocks locks = new StoreLocks()) {
            TxnRocksDbTool.lockOrRefuse(locks, store);
            StoreKind kind = reader.facts(store.path()).kind();
            Labels labels = Labels.of(kind);
            JsonWriter json = null;
            if (args.json()) {
                json = new JsonWriter(out).beginObject();
                InspectCommand.names(json, store);
                json.field("kind", Words.kind(kind));
                json.name("entries").beginArray();
            }
            long shown = 0;
            byte[] resume = null;
            boolean more;
            do {
                int max = (int) Math.min(args.limit() - shown, CHUNK);
                byte[] before = resume;
                DumpChunk chunk = reader.dump(store.path(), args.from(), args.to(), resume, max);
                List<DumpEntry> entries = chunk.entries();
                if (entries.size() > max) {
                    entries = new ArrayList<>(entries.subList(0, max));
                }
                for (DumpEntry entry : entries) {
                    if (json != null) {
                        json(json, entry, labels);
                    } else {
                        out.println(text(entry, labels, args.hex()));
                    }
                }
                shown += entries.size();
                resume = chunk.resume();
                more = resume != null || entries.size() < chunk.entries().size();
                if (entries.isEmpty() && resume != null && before != null && Arrays.equals(before, resume)) {
                    throw new IllegalStateException("the native dump returned no entries and the same resume point"
                            + " again (a bug: the dump would never end)");
                }
            } while (resume != null && shown < args.limit());
            if (json != null) {
                json.endArray()
                        .field("count", shown)
                        .field("limitReached", more)
                        .endObject();
            } else if (more) {
                out.flush();
                err.println("(" + shown + " entries shown, the limit; more may follow: --limit N shows more, --from K"
                        + " starts elsewhere)");
            }
        }
        return TxnRocksDbTool.EXIT_OK;
    }

    /** {@code key -> value}, then the kind's times where the entry has them. */
    static String text(DumpEntry entry, Labels labels, boolean hex) {
        StringBuilder line = new StringBuilder()
                .append(ByteText.forText(entry.key(), hex))
                .append(" -> ")
                .append(ByteText.forText(entry.value(), hex));
        List<String> times = new ArrayList<>();
        if (entry.first() != StoreInspection.NO_TIME) {
            times.add(labels.firstText() + " " + Words.time(entry.first()));
        }
        if (entry.second() != StoreInspection.NO_TIME) {
            times.add(labels.secondText() + " "
                    + (labels.secondIsTime() ? Words.time(entry.second()) : Long.toString(entry.second())));
        }
        if (!times.isEmpty()) {
            line.append("  [").append(String.join(", ", times)).append(']');
        }
        return line.toString();
    }

    private static void json(JsonWriter json, DumpEntry entry, Labels labels) {
        json.beginObject();
        bytes(json.name("key"), entry.key());
        bytes(json.name("value"), entry.value());
        if (entry.first() != StoreInspection.NO_TIME) {
            json.field(labels.firstJson(), entry.first());
        }
        if (entry.second() != StoreInspection.NO_TIME) {
            json.field(labels.secondJson(), entry.second());
        }
        json.endObject();
    }

    /** {@code {"hex": "...", "utf8": "..."}}, {@code utf8} only where the bytes are printable UTF-8. */
    static void bytes(JsonWriter json, byte[] bytes) {
        json.beginObject().field("hex", ByteText.hex(bytes));
        String text = ByteText.printableUtf8(bytes);
        if (text != null) {
            json.field("utf8", text);
        }
        json.endObject();
    }
}
