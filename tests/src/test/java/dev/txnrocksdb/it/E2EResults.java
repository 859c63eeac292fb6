package dev.txnrocksdb.it;

import static dev.txnrocksdb.it.BrokerFixture.say;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The JSON file {@link E2EBench} writes ({@code bench/results/e2e.json}), which
 * {@code bench/report_e2e.py} reads. One map per part ({@link #PARTS}), each carrying its own
 * {@code provenance} (when it was measured, by which command, at which commit, on which machine) and
 * {@code complete} flag, so that a run of some parts ({@code -De2e.parts=...}) replaces those parts in
 * an existing file and keeps the others as they were measured ({@code -De2e.merge=false} starts a
 * new file instead). The top level describes the last run that wrote the file ({@code generated},
 * {@code command}, {@code gitCommit}, {@code machine}, {@code elapsedSeconds}), plus {@code smoke},
 * {@code reference}, the descriptions of every column ({@code columns}) and {@code complete} (every
 * part in the file complete). The file is rewritten after every measurement ({@link #checkpoint}),
 * so a failure late in a run keeps what was measured.
 *
 * <p>A file written before parts had their own provenance (one run, every part) is read with the
 * file's top-level provenance given to each part, and its {@code complete} flag to each part.
 */
final class E2EResults {

    /** The parts, in the order the file and the report list them. */
    static final List<String> PARTS = List.of("recovery", "throughput", "memory", "ttl");

    private final File file;
    private final Map<String, Object> provenance;
    private final Map<String, Object> top = new LinkedHashMap<>();
    private final Map<String, Map<String, Object>> parts = new LinkedHashMap<>();
    private final long started = System.nanoTime();

    private E2EResults(File file, Map<String, Object> provenance) {
        this.file = file;
        this.provenance = provenance;
    }

    /**
     * The results file {@code file} of a run of {@code measuring} (parts) described by
     * {@code provenance} (generated, command, gitCommit, machine): with the parts of the file already
     * there if {@code merge} and the file holds results of the same kind (smoke or not), else empty.
     * The parts measured replace those of the file as each starts.
     */
    @SuppressWarnings("unchecked")
    static E2EResults open(
            File file, boolean merge, boolean smoke, Map<String, Object> provenance, List<String> measuring)
            throws IOException {
        if (file.getParentFile() != null)
            Files.createDirectories(file.getParentFile().toPath());
        E2EResults r = new E2EResults(file, provenance);
        Map<String, Object> columns = new LinkedHashMap<>();
        if (merge && file.isFile()) {
            Map<String, Object> old;
            try {
                old = new ObjectMapper().readValue(file, Map.class);
            } catch (IOException e) {
                throw new IOException(
                        "cannot merge into " + file + " (" + e.getMessage()
                                + "); move it away or pass -De2e.merge=false",
                        e);
            }
            if (Boolean.TRUE.equals(old.get("smoke")) != smoke) {
                say("e2e: " + file + " holds " + (smoke ? "full" : "smoke") + " results; not merging into it");
            } else {
                for (String part : PARTS) {
                    Object p = old.get(part);
                    if (p instanceof Map<?, ?> m) r.parts.put(part, keptPart(old, (Map<String, Object>) m));
                }
                if (old.get("columns") instanceof Map<?, ?> m) columns.putAll((Map<String, Object>) m);
                List<String> kept = r.parts.keySet().stream()
                        .filter(p -> !measuring.contains(p))
                        .toList();
                if (!r.parts.isEmpty()) {
                    say("e2e: merging into " + file + ": keeping " + kept + " as measured before, measuring "
                            + measuring);
                }
            }
        }
        r.top.put("generated", provenance.get("generated"));
        r.top.put("command", provenance.get("command"));
        r.top.put("gitCommit", provenance.get("gitCommit"));
        r.top.put("smoke", smoke);
        r.top.put("machine", provenance.get("machine"));
        r.top.put("columns", columns);
        return r;
    }

    /** A part of an older file, with the provenance and completeness a file without them implies. */
    private static Map<String, Object> keptPart(Map<String, Object> oldFile, Map<String, Object> part) {
        Map<String, Object> p = new LinkedHashMap<>(part);
        if (!p.containsKey("provenance")) {
            Map<String, Object> prov = new LinkedHashMap<>();
            for (String k : List.of("generated", "command", "gitCommit", "machine")) prov.put(k, oldFile.get(k));
            p.put("provenance", prov);
        }
        p.putIfAbsent("complete", !Boolean.FALSE.equals(oldFile.get("complete")));
        return p;
    }

    /** A top-level entry (e.g. {@code reference}). */
    void put(String key, Object value) {
        top.put(key, value);
    }

    /** Adds (or replaces) column descriptions; those of columns this run does not know stay. */
    @SuppressWarnings("unchecked")
    void describeColumns(Map<String, String> descriptions) {
        ((Map<String, Object>) top.get("columns")).putAll(descriptions);
    }

    /**
     * A new, empty map for {@code part}, filled by the caller as its runs complete; it replaces any
     * kept from the file, and is marked incomplete until {@link #finish}.
     */
    Map<String, Object> start(String part) {
        if (!PARTS.contains(part)) throw new IllegalArgumentException("unknown part " + part);
        Map<String, Object> m = new LinkedHashMap<>();
        Map<String, Object> prov = new LinkedHashMap<>(provenance);
        prov.put("generated", now()); // when this part started
        m.put("provenance", prov);
        m.put("complete", false);
        parts.put(part, m);
        return m;
    }

    /** Marks {@code part} complete and writes the file. */
    void finish(String part) throws IOException {
        parts.get(part).put("complete", true);
        checkpoint();
    }

    /** Rewrites the file with the results so far. */
    void checkpoint() throws IOException {
        Map<String, Object> json = new LinkedHashMap<>(top);
        json.put("elapsedSeconds", Math.round((System.nanoTime() - started) / 1e8) / 10.0);
        json.put("complete", parts.values().stream().allMatch(p -> Boolean.TRUE.equals(p.get("complete"))));
        for (String part : PARTS) {
            if (parts.containsKey(part)) json.put(part, parts.get(part));
        }
        new ObjectMapper().writerWithDefaultPrettyPrinter().writeValue(file, json);
    }

    File file() {
        return file;
    }

    /** The provenance of a run that starts now: generated (now), command, gitCommit, machine. */
    static Map<String, Object> provenance(String command, String gitCommit, Object machine) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("generated", now());
        p.put("command", command);
        p.put("gitCommit", gitCommit);
        p.put("machine", machine);
        return p;
    }

    private static String now() {
        return OffsetDateTime.now().truncatedTo(ChronoUnit.SECONDS).toString();
    }
}
