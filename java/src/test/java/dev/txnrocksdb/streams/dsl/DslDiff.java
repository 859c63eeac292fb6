package dev.txnrocksdb.streams.dsl;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/** Comparison of two record lists with a readable message on mismatch. */
final class DslDiff {
    private static final int CONTEXT = 4;
    private static final int MAX_LISTED = 15;

    private DslDiff() {}

    /** Null if equal, else a description: sizes, first difference with context, and the multiset difference. */
    static String describe(String what, List<?> expected, List<?> actual) {
        List<String> e = strings(expected);
        List<String> a = strings(actual);
        if (e.equals(a)) {
            return null;
        }
        int first = 0;
        while (first < e.size() && first < a.size() && e.get(first).equals(a.get(first))) {
            first++;
        }
        StringBuilder sb = new StringBuilder();
        sb.append(what)
                .append(" differs: built-in has ")
                .append(e.size())
                .append(" entries, ours has ")
                .append(a.size())
                .append("; first difference at index ")
                .append(first)
                .append('\n');
        appendWindow(sb, "built-in", e, first);
        appendWindow(sb, "ours    ", a, first);
        List<String> onlyExpected = minus(e, a);
        List<String> onlyActual = minus(a, e);
        if (onlyExpected.isEmpty() && onlyActual.isEmpty()) {
            sb.append("  same entries as a multiset: ORDER differs only\n");
        } else {
            appendList(sb, "only in built-in", onlyExpected);
            appendList(sb, "only in ours", onlyActual);
        }
        return sb.toString();
    }

    /** True if both lists hold the same elements, ignoring order. */
    static boolean sameMultiset(List<?> expected, List<?> actual) {
        return minus(strings(expected), strings(actual)).isEmpty()
                && minus(strings(actual), strings(expected)).isEmpty();
    }

    /**
     * True if the lists have the same entries in the same order except that, in some entries,
     * the rendered record headers at the end ({@code [k=v, ...]}) are empty ({@code []}) in
     * {@code actual} but not in {@code expected}.
     */
    static boolean differsOnlyByEmptiedHeaders(List<?> expected, List<?> actual) {
        List<String> e = strings(expected);
        List<String> a = strings(actual);
        if (e.size() != a.size()) {
            return false;
        }
        for (int i = 0; i < e.size(); i++) {
            if (e.get(i).equals(a.get(i))) {
                continue;
            }
            if (!a.get(i).endsWith(" []") || !stripHeaders(e.get(i)).equals(stripHeaders(a.get(i)))) {
                return false;
            }
        }
        return true;
    }

    private static String stripHeaders(String s) {
        return s.replaceAll(" \\[[^\\]]*\\]$", "");
    }

    /**
     * Null if, for every emitting input record ("batch"), both sides emitted the same records as
     * a multiset (order inside a batch ignored); else a description of the first differing batch.
     */
    static String describeBatchMultisets(List<DslRunner.OutRecord> expected, List<DslRunner.OutRecord> actual) {
        Map<Integer, List<DslRunner.OutRecord>> e = byBatch(expected);
        Map<Integer, List<DslRunner.OutRecord>> a = byBatch(actual);
        TreeMap<Integer, Boolean> batches = new TreeMap<>();
        e.keySet().forEach(b -> batches.put(b, true));
        a.keySet().forEach(b -> batches.put(b, true));
        for (int batch : batches.keySet()) {
            List<DslRunner.OutRecord> eb = e.getOrDefault(batch, List.of());
            List<DslRunner.OutRecord> ab = a.getOrDefault(batch, List.of());
            if (!sameMultiset(eb, ab)) {
                return describe("output of input record #" + batch + " (as a multiset)", eb, ab);
            }
        }
        return null;
    }

    private static Map<Integer, List<DslRunner.OutRecord>> byBatch(List<DslRunner.OutRecord> records) {
        Map<Integer, List<DslRunner.OutRecord>> out = new TreeMap<>();
        for (DslRunner.OutRecord r : records) {
            out.computeIfAbsent(r.batch(), b -> new ArrayList<>()).add(r);
        }
        return out;
    }

    private static List<String> strings(List<?> list) {
        List<String> out = new ArrayList<>(list.size());
        for (Object o : list) {
            out.add(Objects.toString(o));
        }
        return out;
    }

    private static List<String> minus(List<String> from, List<String> remove) {
        Map<String, Integer> counts = new HashMap<>();
        for (String s : remove) {
            counts.merge(s, 1, Integer::sum);
        }
        List<String> out = new ArrayList<>();
        for (String s : from) {
            Integer c = counts.get(s);
            if (c == null || c == 0) {
                out.add(s);
            } else {
                counts.put(s, c - 1);
            }
        }
        return out;
    }

    private static void appendWindow(StringBuilder sb, String label, List<String> list, int first) {
        sb.append("  ").append(label).append(":\n");
        int from = Math.max(0, first - CONTEXT);
        int to = Math.min(list.size(), first + CONTEXT + 1);
        if (from > 0) {
            sb.append("        ...\n");
        }
        for (int i = from; i < to; i++) {
            sb.append(i == first ? "    >> " : "       ")
                    .append('[')
                    .append(i)
                    .append("] ")
                    .append(list.get(i))
                    .append('\n');
        }
        if (first >= list.size()) {
            sb.append("    >> [").append(first).append("] <end>\n");
        } else if (to < list.size()) {
            sb.append("        ... (").append(list.size() - to).append(" more)\n");
        }
    }

    private static void appendList(StringBuilder sb, String label, List<String> list) {
        sb.append("  ").append(label).append(" (").append(list.size()).append("):\n");
        for (int i = 0; i < Math.min(MAX_LISTED, list.size()); i++) {
            sb.append("       ").append(list.get(i)).append('\n');
        }
        if (list.size() > MAX_LISTED) {
            sb.append("       ... (").append(list.size() - MAX_LISTED).append(" more)\n");
        }
    }
}
