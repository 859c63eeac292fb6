package dev.txnrocksdb.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.NoBenchmarksException;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * Runs every benchmark of this package for every store column, {@code bench.rounds} times, then
 * prints a comparison table and writes it as Markdown (default {@code bench/results/latest.md})
 * and as JSON beside it ({@code latest.json}, what {@code bench/report.py} turns into
 * {@code docs/benchmarks.md}), with JMH's own JSON of each run ({@code latest.jmh.r<round>.<suite>.json}).
 *
 * <p>Before any benchmark, {@link TransactionalCheck} proves that the reference ({@code kafka-txn})
 * and our stores drop uncommitted writes on reopen; the run aborts if not.
 *
 * <p>Each cell is the median over rounds of each round's median over its measurement iterations,
 * with the min–max of every iteration of every round; each ratio is against {@code kafka-txn},
 * > 1 meaning faster than Kafka's transactional store (for commit latency, a time, the ratio is
 * kafka-txn's time over the column's). Rounds run the whole suite again with the stores in a
 * rotated order, so slow drifts of a noisy machine fall on every column.
 *
 * <p>System properties: {@code bench.include} (regex over benchmark names, default all of this
 * package), {@code bench.stores} (default all five), {@code bench.rounds} (3),
 * {@code bench.forks} (1), {@code bench.warmupIterations} (2), {@code bench.warmupTime} (1s),
 * {@code bench.iterations} (5), {@code bench.time} (1s), {@code bench.commitWarmups} (3) and
 * {@code bench.commitIterations} (10) (commit latency: single shots), {@code bench.jvmArgs} (extra
 * JVM arguments for the forks, space separated), {@code bench.out} (the Markdown file),
 * {@code bench.skipCheck} (false), {@code bench.smoke} (false: with true, every benchmark runs once
 * in-process on tiny data, to prove the harness works; its figures mean nothing). The data sizes
 * of {@link Sizes} ({@code bench.keys}, {@code bench.fullScanKeys}, ...) are passed on to the forks.
 */
public final class CompareStores {
    static final String REFERENCE = StoreKind.KAFKA_TXN.id;
    private static final String COMMIT_BENCHMARK = CommitBenchmark.class.getName() + ".commit";

    /** Row order: benchmark methods in this order, then their parameters ascending. */
    private static final List<String> ORDER = List.of(
            "PutBenchmark.put",
            "ReadBenchmark.get",
            "ReadBenchmark.getMiss",
            "LargeStateBenchmark.get",
            "LargeStateBenchmark.getMiss",
            "ReadBenchmark.range",
            "ReadBenchmark.fullScan",
            "ReadBenchmark.prefixScan",
            "RestoreBenchmark.restore",
            "CommitBenchmark.commit",
            "WindowBenchmark.put",
            "WindowBenchmark.fetch",
            "WindowBenchmark.fetchAll",
            "SessionBenchmark.findSessions",
            "HeadersBenchmark.put",
            "HeadersBenchmark.get",
            "VersionedBenchmark.put",
            "VersionedBenchmark.get");

    /**
     * Benchmark classes that some columns have no store for, with the columns that have one. JMH
     * sets the store parameter for every benchmark of a run, so each of these runs as a suite of its
     * own, over those of the run's columns only (its rows show "-" for the others).
     */
    private static final Map<String, List<String>> LIMITED_COLUMNS = Map.of(
            VersionedBenchmark.class.getName(), StoreKind.versionedIds(),
            LargeStateBenchmark.class.getName(), StoreKind.persistentIds());

    /** Sizes the smoke run shrinks the data to, unless set explicitly. */
    private static final Map<String, String> SMOKE_SIZES = Map.of(
            "bench.keys",
            "2000",
            "bench.hotKeys",
            "200",
            "bench.fullScanKeys",
            "2000",
            "bench.putKeys",
            "5000",
            "bench.largeKeys",
            "5000",
            "bench.windowKeys",
            "20",
            "bench.windows",
            "12",
            "bench.sessionKeys",
            "100",
            "bench.sessionsPerKey",
            "3");

    private CompareStores() {}

    /** One row of the table: a benchmark method with its parameters other than the store. */
    record Row(String benchmark, Map<String, String> params, Mode mode) {
        String id() {
            StringBuilder sb = new StringBuilder(benchmark);
            params.forEach((k, v) -> sb.append(' ').append(k).append('=').append(v));
            return sb.toString();
        }

        boolean higherIsBetter() {
            return mode != Mode.SingleShotTime && mode != Mode.AverageTime && mode != Mode.SampleTime;
        }
    }

    /** Scores of one row and store, over rounds. */
    static final class Cell {
        final List<Double> roundMedians = new ArrayList<>();
        final List<Double> iterations = new ArrayList<>();

        double median() {
            return median(roundMedians);
        }

        double min() {
            return iterations.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
        }

        double max() {
            return iterations.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
        }

        static double median(List<Double> values) {
            if (values.isEmpty()) {
                return Double.NaN;
            }
            List<Double> sorted = new ArrayList<>(values);
            sorted.sort(Comparator.naturalOrder());
            int n = sorted.size();
            return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
        }
    }

    public static void main(String[] args) throws RunnerException, IOException {
        boolean smoke = Boolean.getBoolean("bench.smoke");
        if (smoke) {
            SMOKE_SIZES.forEach((k, v) -> {
                if (System.getProperty(k) == null) {
                    System.setProperty(k, v);
                }
            });
        }
        Instant started = Instant.now();
        String include = System.getProperty(
                "bench.include", Pattern.quote(CompareStores.class.getPackageName()) + "\\..*Benchmark\\..*");
        List<String> stores = new ArrayList<>();
        for (String s : System.getProperty("bench.stores", StoreKind.ids()).split(",")) {
            stores.add(StoreKind.of(s.trim()).id);
        }
        int rounds = Integer.getInteger("bench.rounds", smoke ? 1 : 3);
        Path out = Paths.get(System.getProperty("bench.out", "bench/results/latest.md"))
                .toAbsolutePath();
        String base = out.getFileName().toString().replaceFirst("\\.md$", "");
        Path json = out.resolveSibling(base + ".json");
        Files.createDirectories(out.getParent());

        List<TransactionalCheck.Outcome> check = List.of();
        if (!Boolean.getBoolean("bench.skipCheck")) {
            List<StoreKind> kinds = stores.stream().map(StoreKind::of).toList();
            check = TransactionalCheck.run(kinds);
            System.out.println("Transactional check (before any benchmark):");
            System.out.print(TransactionalCheck.table(check));
            TransactionalCheck.abortIfFailed(check);
        }

        Settings settings = new Settings(smoke, include, stores, rounds);
        Map<Row, Map<String, Cell>> cells = new TreeMap<>(ROW_ORDER);
        List<String> jmhFiles = new ArrayList<>();
        for (int round = 1; round <= rounds; round++) {
            List<String> order = new ArrayList<>(stores);
            java.util.Collections.rotate(order, -(round - 1));
            System.out.println("\n=== Round " + round + " of " + rounds + ", stores in the order " + order);
            Path throughputJson = out.resolveSibling(base + ".jmh.r" + round + ".throughput.json");
            collect(cells, run(settings, order, false, null, throughputJson), jmhFiles, throughputJson);
            for (Map.Entry<String, List<String>> limited : new TreeMap<>(LIMITED_COLUMNS).entrySet()) {
                List<String> columns =
                        order.stream().filter(limited.getValue()::contains).toList();
                if (!columns.isEmpty()) {
                    String suite = limited.getKey()
                            .substring(limited.getKey().lastIndexOf('.') + 1)
                            .replaceFirst("Benchmark$", "")
                            .toLowerCase(Locale.ROOT);
                    Path limitedJson = out.resolveSibling(base + ".jmh.r" + round + "." + suite + ".json");
                    collect(cells, run(settings, columns, false, limited.getKey(), limitedJson), jmhFiles, limitedJson);
                }
            }
            if (Pattern.compile(include).matcher(COMMIT_BENCHMARK).find()) {
                Path commitJson = out.resolveSibling(base + ".jmh.r" + round + ".commit.json");
                collect(cells, run(settings, order, true, null, commitJson), jmhFiles, commitJson);
            }
            // Written after every round, so that a long run cut short still leaves its results.
            write(settings, cells, check, jmhFiles, round, started, out, json);
        }
        System.out.println();
        System.out.println(table(cells, stores));
        System.out.println("Wrote " + out + " and " + json);
    }

    /**
     * Runs one suite once: the single-shot commit benchmark, the benchmarks of one class of
     * {@link #LIMITED_COLUMNS} ({@code onlyClass}), or every other throughput benchmark.
     */
    private static Collection<RunResult> run(
            Settings s, List<String> order, boolean commitSuite, String onlyClass, Path result) throws RunnerException {
        ChainedOptionsBuilder builder = new OptionsBuilder()
                .param("store", order.toArray(new String[0]))
                .forks(s.forks)
                .threads(1)
                .shouldFailOnError(true)
                .verbosity(VerboseMode.valueOf(System.getProperty("bench.verbosity", s.smoke ? "SILENT" : "NORMAL")))
                .resultFormat(ResultFormatType.JSON)
                .result(result.toString());
        if (commitSuite) {
            builder.include(Pattern.quote(COMMIT_BENCHMARK))
                    .warmupIterations(s.commitWarmups)
                    .measurementIterations(s.commitIterations);
        } else {
            builder.include(s.include)
                    .exclude(Pattern.quote(CommitBenchmark.class.getName()))
                    .warmupIterations(s.warmupIterations)
                    .warmupTime(s.warmupTime)
                    .measurementIterations(s.iterations)
                    .measurementTime(s.time);
            if (onlyClass == null) {
                LIMITED_COLUMNS.keySet().forEach(c -> builder.exclude(Pattern.quote(c) + "\\."));
            } else {
                builder.exclude("^(?!" + Pattern.quote(onlyClass) + "\\.)");
            }
        }
        if (s.smoke) {
            builder.param("staged", "0", "50").param("length", "10", "100").param("dirtyKeys", "10", "100", "1000");
        }
        List<String> jvmArgs = new ArrayList<>();
        // The data sizes (and anything else under bench.) reach the forks as they reach this JVM.
        System.getProperties().stringPropertyNames().stream()
                .filter(k -> k.startsWith("bench."))
                .sorted()
                .forEach(k -> jvmArgs.add("-D" + k + "=" + System.getProperty(k)));
        String extra = System.getProperty("bench.jvmArgs", "").trim();
        if (!extra.isEmpty()) {
            jvmArgs.addAll(List.of(extra.split("\\s+")));
        }
        builder.jvmArgsAppend(jvmArgs.toArray(new String[0]));
        try {
            return new Runner(builder.build()).run();
        } catch (NoBenchmarksException e) {
            return List.of();
        }
    }

    private static void collect(
            Map<Row, Map<String, Cell>> cells, Collection<RunResult> results, List<String> jmhFiles, Path jmhJson) {
        if (!results.isEmpty()) {
            jmhFiles.add(jmhJson.getFileName().toString());
        }
        for (RunResult r : results) {
            BenchmarkParams p = r.getParams();
            Map<String, String> params = new TreeMap<>();
            for (String key : p.getParamsKeys()) {
                if (!key.equals("store")) {
                    params.put(key, p.getParam(key));
                }
            }
            Row row = new Row(shortName(p.getBenchmark()), params, p.getMode());
            Cell cell = cells.computeIfAbsent(row, k -> new LinkedHashMap<>())
                    .computeIfAbsent(p.getParam("store"), k -> new Cell());
            List<Double> iterations = new ArrayList<>();
            for (BenchmarkResult br : r.getBenchmarkResults()) {
                for (IterationResult ir : br.getIterationResults()) {
                    iterations.add(ir.getPrimaryResult().getScore());
                }
            }
            cell.iterations.addAll(iterations);
            cell.roundMedians.add(Cell.median(iterations));
        }
    }

    static String shortName(String benchmark) {
        String[] parts = benchmark.split("\\.");
        return parts[parts.length - 2] + "." + parts[parts.length - 1];
    }

    private static final Comparator<Row> ROW_ORDER = Comparator.comparingInt(
                    (Row r) -> ORDER.contains(r.benchmark()) ? ORDER.indexOf(r.benchmark()) : ORDER.size())
            .thenComparing(Row::benchmark)
            .thenComparing(r -> r.params().toString(), CompareStores::compareParams);

    /** Compares "{a=1, b=100}" with "{a=1, b=20}" numerically where the values are numbers. */
    private static int compareParams(String a, String b) {
        String[] x = a.split("(?<=\\D)(?=\\d)|(?<=\\d)(?=\\D)");
        String[] y = b.split("(?<=\\D)(?=\\d)|(?<=\\d)(?=\\D)");
        for (int i = 0; i < Math.min(x.length, y.length); i++) {
            int c = Character.isDigit(x[i].charAt(0)) && Character.isDigit(y[i].charAt(0))
                    ? Long.compare(Long.parseLong(x[i]), Long.parseLong(y[i]))
                    : x[i].compareTo(y[i]);
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(x.length, y.length);
    }

    /** What one row measures, for people: "range of 10,000, 5,000 staged". */
    static String label(Row row) {
        Map<String, String> p = row.params();
        String staged = p.containsKey("staged")
                ? (p.get("staged").equals("0") ? "nothing staged" : n(p.get("staged")) + " staged")
                : null;
        return switch (row.benchmark()) {
            case "PutBenchmark.put" ->
                "put, " + n(p.get("valueSize")) + " B values, commit every " + n(p.get("commitEvery"));
            case "ReadBenchmark.get" -> "get (hit), " + n(String.valueOf(Sizes.KEYS)) + " keys, " + staged;
            case "ReadBenchmark.getMiss" -> "get (miss), " + n(String.valueOf(Sizes.KEYS)) + " keys";
            case "LargeStateBenchmark.get" ->
                "get (hit), " + n(String.valueOf(Sizes.LARGE_KEYS)) + " keys (restored, reopened)";
            case "LargeStateBenchmark.getMiss" ->
                "get (miss), " + n(String.valueOf(Sizes.LARGE_KEYS)) + " keys (restored, reopened)";
            case "ReadBenchmark.range" -> "range of " + n(p.get("length")) + ", " + staged;
            case "ReadBenchmark.fullScan" -> "full scan of " + n(String.valueOf(Sizes.FULL_SCAN_KEYS)) + ", " + staged;
            case "ReadBenchmark.prefixScan" -> "prefix scan (" + Keys.PREFIX_SPAN + " entries)";
            case "RestoreBenchmark.restore" -> "restore, batches of " + n(String.valueOf(RestoreBenchmark.BATCH));
            case "CommitBenchmark.commit" -> "commit of " + n(p.get("dirtyKeys")) + " dirty keys";
            case "WindowBenchmark.put" -> "window put, commit every " + n(String.valueOf(Sizes.LOAD_COMMIT_INTERVAL));
            case "WindowBenchmark.fetch" -> "window fetch(key, from, to), " + Sizes.FETCH_WINDOWS + " windows";
            case "WindowBenchmark.fetchAll" ->
                "window fetchAll(from, to), " + n(String.valueOf((long) Sizes.FETCH_WINDOWS * Sizes.WINDOW_KEYS))
                        + " entries";
            case "SessionBenchmark.findSessions" ->
                "session findSessions (1 of " + Sizes.SESSIONS_PER_KEY + " per key)";
            case "HeadersBenchmark.put" -> "headers store put, 100 B values, commit every " + n(p.get("commitEvery"));
            case "HeadersBenchmark.get" -> "headers store get (hit)";
            case "VersionedBenchmark.put" -> "versioned put (timestamp order), commit every " + n(p.get("commitEvery"));
            case "VersionedBenchmark.get" ->
                "versioned get as of a random time (" + n(String.valueOf(VersionedBenchmark.KEYS)) + " keys x "
                        + VersionedBenchmark.VERSIONS + " versions)";
            default -> row.id();
        };
    }

    /** The unit of one row's scores. */
    static String unit(Row row) {
        return switch (row.benchmark()) {
            case "PutBenchmark.put", "WindowBenchmark.put", "HeadersBenchmark.put", "VersionedBenchmark.put" ->
                "puts/s";
            case "ReadBenchmark.get",
                    "ReadBenchmark.getMiss",
                    "LargeStateBenchmark.get",
                    "LargeStateBenchmark.getMiss",
                    "HeadersBenchmark.get",
                    "VersionedBenchmark.get" -> "gets/s";
            case "ReadBenchmark.range", "ReadBenchmark.fullScan", "ReadBenchmark.prefixScan" -> "scans/s";
            case "RestoreBenchmark.restore" -> "records/s";
            case "CommitBenchmark.commit" -> "ms/commit";
            case "WindowBenchmark.fetch", "WindowBenchmark.fetchAll" -> "fetches/s";
            case "SessionBenchmark.findSessions" -> "lookups/s";
            default -> row.higherIsBetter() ? "ops/s" : "ms/op";
        };
    }

    /** Which of issue 10's goals a row falls under. */
    static String group(Row row) {
        return switch (row.benchmark()) {
            case "PutBenchmark.put",
                    "ReadBenchmark.get",
                    "ReadBenchmark.getMiss",
                    "LargeStateBenchmark.get",
                    "LargeStateBenchmark.getMiss" -> "point";
            case "ReadBenchmark.range", "ReadBenchmark.fullScan" -> "scan";
            case "ReadBenchmark.prefixScan" -> "prefix";
            case "RestoreBenchmark.restore" -> "restore";
            case "CommitBenchmark.commit" -> "commit";
            case "WindowBenchmark.put", "WindowBenchmark.fetch", "WindowBenchmark.fetchAll" -> "window";
            case "SessionBenchmark.findSessions" -> "session";
            case "HeadersBenchmark.put", "HeadersBenchmark.get" -> "headers";
            case "VersionedBenchmark.put", "VersionedBenchmark.get" -> "versioned";
            default -> "other";
        };
    }

    /**
     * The committed entries of the store a read row reads (0 for rows that read no loaded state:
     * puts, restore, commit), so that the report can tell the state sizes apart.
     */
    static long stateKeys(Row row) {
        return switch (row.benchmark()) {
            case "ReadBenchmark.get", "ReadBenchmark.getMiss", "ReadBenchmark.range", "ReadBenchmark.prefixScan" ->
                Sizes.KEYS;
            case "ReadBenchmark.fullScan" -> Sizes.FULL_SCAN_KEYS;
            case "LargeStateBenchmark.get", "LargeStateBenchmark.getMiss" -> Sizes.LARGE_KEYS;
            default -> 0;
        };
    }

    private static String n(String number) {
        try {
            return String.format(Locale.ROOT, "%,d", Long.parseLong(number));
        } catch (NumberFormatException e) {
            return number;
        }
    }

    /** > 1: the store is faster than the reference. */
    static double ratio(Row row, Cell store, Cell reference) {
        if (store == null || reference == null) {
            return Double.NaN;
        }
        double s = store.median();
        double r = reference.median();
        return row.higherIsBetter() ? s / r : r / s;
    }

    /** "1.23x"; small ratios keep two significant digits ("0.0042x"). */
    static String ratioText(double r) {
        if (Double.isNaN(r)) {
            return "-";
        }
        return r >= 0.1 ? String.format(Locale.ROOT, "%.2fx", r) : String.format(Locale.ROOT, "%.2gx", r);
    }

    static String fmt(double v) {
        if (Double.isNaN(v)) {
            return "-";
        }
        double a = Math.abs(v);
        if (a >= 100) {
            return String.format(Locale.ROOT, "%,.0f", v);
        }
        if (a >= 10) {
            return String.format(Locale.ROOT, "%.1f", v);
        }
        if (a >= 1) {
            return String.format(Locale.ROOT, "%.2f", v);
        }
        return String.format(Locale.ROOT, "%.3g", v);
    }

    private static String cellText(Cell c) {
        if (c == null) {
            return "-";
        }
        return c.iterations.size() > 1
                ? fmt(c.median()) + " (" + fmt(c.min()) + "–" + fmt(c.max()) + ")"
                : fmt(c.median());
    }

    /** One row per operation: each store's median (min–max) and its ratio against kafka-txn. */
    static String table(Map<Row, Map<String, Cell>> cells, List<String> stores) {
        List<String> columns = new ArrayList<>();
        // The reference first, then every other store with its ratio.
        List<String> ordered = new ArrayList<>();
        if (stores.contains(REFERENCE)) {
            ordered.add(REFERENCE);
        }
        stores.stream().filter(s -> !s.equals(REFERENCE)).forEach(ordered::add);
        List<String[]> lines = new ArrayList<>();
        columns.add("operation");
        columns.add("unit");
        for (String s : ordered) {
            columns.add(s);
            if (!s.equals(REFERENCE) && stores.contains(REFERENCE)) {
                columns.add(s + " / " + REFERENCE);
            }
        }
        lines.add(columns.toArray(new String[0]));
        for (Map.Entry<Row, Map<String, Cell>> e : cells.entrySet()) {
            Row row = e.getKey();
            List<String> line = new ArrayList<>();
            line.add(label(row));
            line.add(unit(row));
            for (String s : ordered) {
                line.add(cellText(e.getValue().get(s)));
                if (!s.equals(REFERENCE) && stores.contains(REFERENCE)) {
                    double r = ratio(row, e.getValue().get(s), e.getValue().get(REFERENCE));
                    line.add(ratioText(r));
                }
            }
            lines.add(line.toArray(new String[0]));
        }
        int[] width = new int[columns.size()];
        for (String[] l : lines) {
            for (int i = 0; i < l.length; i++) {
                width[i] = Math.max(width[i], l[i].length());
            }
        }
        StringBuilder sb = new StringBuilder();
        for (int n = 0; n < lines.size(); n++) {
            sb.append('|');
            for (int i = 0; i < width.length; i++) {
                String cell = lines.get(n)[i];
                String fill = " ".repeat(width[i] - cell.length());
                sb.append(' ').append(i >= 2 ? fill + cell : cell + fill).append(" |");
            }
            sb.append('\n');
            if (n == 0) {
                sb.append('|');
                for (int i = 0; i < width.length; i++) {
                    sb.append(' ')
                            .append(i >= 2 ? "-".repeat(width[i] - 1) + ":" : "-".repeat(width[i]))
                            .append(" |");
                }
                sb.append('\n');
            }
        }
        return sb.toString();
    }

    private static void write(
            Settings s,
            Map<Row, Map<String, Cell>> cells,
            List<TransactionalCheck.Outcome> check,
            List<String> jmhFiles,
            int roundsDone,
            Instant started,
            Path md,
            Path json)
            throws IOException {
        String date = DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(
                started.atOffset(ZoneOffset.UTC).withNano(0));
        Duration elapsed = Duration.between(started, Instant.now());
        Machine m = Machine.describe();
        StringBuilder text = new StringBuilder();
        text.append("# txn-rocksdb vs Kafka 4.4's stores")
                .append(s.smoke ? " (SMOKE RUN: figures mean nothing)" : "")
                .append("\n\nGenerated by `")
                .append(s.command)
                .append("` (`dev.txnrocksdb.bench.CompareStores`), started ")
                .append(date)
                .append(", ")
                .append(roundsDone)
                .append(" of ")
                .append(s.rounds)
                .append(" round(s) in ")
                .append(minutes(elapsed))
                .append(s.gitCommit.isEmpty() ? "" : ", commit " + s.gitCommit)
                .append(".\n\n")
                .append("Machine: ")
                .append(m.summary())
                .append(".  \n")
                .append(s.summary())
                .append("\n\n")
                .append(
                        "Each cell: median over rounds of each round's median over its measurement iterations, with the "
                                + "min–max of all iterations. Ratios are against `kafka-txn` (Kafka's RocksDB store with "
                                + "enable.transactional.statestores=true); > 1 means faster than it (for ms/commit, its time "
                                + "over the column's).\n\n")
                .append(table(cells, s.stores));
        if (!check.isEmpty()) {
            text.append(
                            "\nTransactional check, before any benchmark (committed write, uncommitted write, close, reopen):\n\n")
                    .append(TransactionalCheck.table(check));
        }
        text.append("\nJMH's own results: ")
                .append(String.join(
                        ", ", jmhFiles.stream().map(f -> "`" + f + "`").toList()))
                .append(".\n");
        Files.writeString(md, text.toString());

        StringBuilder j = new StringBuilder("{\n");
        j.append("  \"generated\": ").append(Json.str(date)).append(",\n");
        j.append("  \"elapsedSeconds\": ").append(elapsed.toSeconds()).append(",\n");
        j.append("  \"smoke\": ").append(s.smoke).append(",\n");
        j.append("  \"command\": ").append(Json.str(s.command)).append(",\n");
        j.append("  \"gitCommit\": ").append(Json.str(s.gitCommit)).append(",\n");
        j.append("  \"machine\": ").append(m.json()).append(",\n");
        j.append("  \"settings\": ").append(s.json(roundsDone)).append(",\n");
        j.append("  \"reference\": ").append(Json.str(REFERENCE)).append(",\n");
        j.append("  \"stores\": [")
                .append(String.join(", ", s.stores.stream().map(Json::str).toList()))
                .append("],\n");
        j.append("  \"check\": ").append(TransactionalCheck.json(check)).append(",\n");
        j.append("  \"jmhFiles\": [")
                .append(String.join(", ", jmhFiles.stream().map(Json::str).toList()))
                .append("],\n");
        j.append("  \"rows\": [");
        boolean first = true;
        for (Map.Entry<Row, Map<String, Cell>> e : cells.entrySet()) {
            Row row = e.getKey();
            j.append(first ? "\n" : ",\n")
                    .append("    {\"id\": ")
                    .append(Json.str(row.id()))
                    .append(", \"benchmark\": ")
                    .append(Json.str(row.benchmark()))
                    .append(", \"label\": ")
                    .append(Json.str(label(row)))
                    .append(", \"group\": ")
                    .append(Json.str(group(row)))
                    .append(", \"stateKeys\": ")
                    .append(stateKeys(row))
                    .append(", \"unit\": ")
                    .append(Json.str(unit(row)))
                    .append(", \"higherIsBetter\": ")
                    .append(row.higherIsBetter())
                    .append(", \"params\": {");
            j.append(String.join(
                    ", ",
                    row.params().entrySet().stream()
                            .map(p -> Json.str(p.getKey()) + ": " + Json.str(p.getValue()))
                            .toList()));
            j.append("},\n     \"scores\": {");
            List<String> scores = new ArrayList<>();
            List<String> ratios = new ArrayList<>();
            for (String store : s.stores) {
                Cell c = e.getValue().get(store);
                if (c == null) {
                    continue;
                }
                scores.add("\n       " + Json.str(store) + ": {\"median\": " + Json.num(c.median()) + ", \"min\": "
                        + Json.num(c.min()) + ", \"max\": " + Json.num(c.max()) + ", \"samples\": "
                        + c.iterations.size()
                        + ", \"roundMedians\": ["
                        + String.join(
                                ", ", c.roundMedians.stream().map(Json::num).toList()) + "]}");
                double r = ratio(row, c, e.getValue().get(REFERENCE));
                if (!Double.isNaN(r)) {
                    ratios.add(Json.str(store) + ": " + Json.num(r));
                }
            }
            j.append(String.join(",", scores))
                    .append("},\n     \"ratios\": {")
                    .append(String.join(", ", ratios))
                    .append("}}");
            first = false;
        }
        j.append("\n  ]\n}\n");
        Files.writeString(json, j.toString());
    }

    private static String minutes(Duration d) {
        long s = d.toSeconds();
        return s >= 120 ? (s / 60) + " min" : s + " s";
    }

    /** The run's settings, as read from the system properties. */
    static final class Settings {
        final boolean smoke;
        final String include;
        final List<String> stores;
        final int rounds;
        final int forks;
        final int warmupIterations;
        final TimeValue warmupTime;
        final int iterations;
        final TimeValue time;
        final int commitWarmups;
        final int commitIterations;
        final String command;
        final String gitCommit;

        Settings(boolean smoke, String include, List<String> stores, int rounds) {
            this.smoke = smoke;
            this.include = include;
            this.stores = stores;
            this.rounds = rounds;
            this.forks = Integer.getInteger("bench.forks", smoke ? 0 : 1);
            this.warmupIterations = Integer.getInteger("bench.warmupIterations", smoke ? 0 : 2);
            this.warmupTime = TimeValue.fromString(System.getProperty("bench.warmupTime", smoke ? "100ms" : "1s"));
            this.iterations = Integer.getInteger("bench.iterations", smoke ? 1 : 5);
            this.time = TimeValue.fromString(System.getProperty("bench.time", smoke ? "100ms" : "1s"));
            this.commitWarmups = Integer.getInteger("bench.commitWarmups", smoke ? 0 : 3);
            this.commitIterations = Integer.getInteger("bench.commitIterations", smoke ? 1 : 10);
            this.command = System.getProperty("bench.command", "bench/run.sh" + (smoke ? " --smoke" : ""));
            this.gitCommit = System.getProperty("bench.gitCommit", "");
        }

        String summary() {
            return "JMH: " + rounds + " round(s); per round " + forks + " fork(s) per store and benchmark"
                    + (forks == 0 ? " (in-process)" : "") + ", " + warmupIterations + " warmup x " + warmupTime + ", "
                    + iterations + " measurement x " + time + ", 1 thread; commit latency: " + commitWarmups
                    + " warmup + " + commitIterations + " measured single shots. Data: " + sizes()
                    + ". Bare stores (no caching or change-logging layers), each in a fresh temp dir; key-value stores "
                    + "opened through kafka-streams-test-utils' MockProcessorContext, window and session stores through "
                    + "a minimal internal context (Kafka's segmented stores refuse the mock).";
        }

        static String sizes() {
            return String.format(
                    Locale.ROOT,
                    "%,d committed keys (16 B) with 100 B values for reads, staged writes among "
                            + "the first %,d, full scan of %,d, large state %,d keys (restored, reopened), puts over %,d keys, "
                            + "window %,d keys x %d windows, session %,d keys x %d sessions",
                    Sizes.KEYS,
                    Sizes.HOT_KEYS,
                    Sizes.FULL_SCAN_KEYS,
                    Sizes.LARGE_KEYS,
                    Sizes.PUT_KEYS,
                    Sizes.WINDOW_KEYS,
                    Sizes.WINDOWS,
                    Sizes.SESSION_KEYS,
                    Sizes.SESSIONS_PER_KEY);
        }

        String json(int roundsDone) {
            return "{\"rounds\": " + rounds + ", \"roundsDone\": " + roundsDone + ", \"forks\": " + forks
                    + ", \"warmupIterations\": " + warmupIterations + ", \"warmupTime\": "
                    + Json.str(warmupTime.toString())
                    + ", \"iterations\": " + iterations + ", \"time\": " + Json.str(time.toString())
                    + ", \"commitWarmups\": " + commitWarmups + ", \"commitIterations\": " + commitIterations
                    + ", \"include\": " + Json.str(include) + ", \"summary\": " + Json.str(summary())
                    + ", \"sizes\": {\"keys\": " + Sizes.KEYS + ", \"hotKeys\": " + Sizes.HOT_KEYS
                    + ", \"fullScanKeys\": " + Sizes.FULL_SCAN_KEYS + ", \"largeKeys\": " + Sizes.LARGE_KEYS
                    + ", \"putKeys\": " + Sizes.PUT_KEYS
                    + ", \"windowKeys\": " + Sizes.WINDOW_KEYS + ", \"windows\": " + Sizes.WINDOWS
                    + ", \"sessionKeys\": " + Sizes.SESSION_KEYS + ", \"sessionsPerKey\": " + Sizes.SESSIONS_PER_KEY
                    + "}}";
        }
    }

    /** What the numbers were measured on. */
    record Machine(int cores, String cpu, String memory, String java, String os) {
        static Machine describe() {
            String cpu = "unknown CPU";
            String memory = "";
            try {
                cpu = Files.readAllLines(Paths.get("/proc/cpuinfo")).stream()
                        .filter(l -> l.startsWith("model name"))
                        .findFirst()
                        .map(l -> l.substring(l.indexOf(':') + 1).trim())
                        .orElse(cpu);
                memory = Files.readAllLines(Paths.get("/proc/meminfo")).stream()
                        .filter(l -> l.startsWith("MemTotal"))
                        .findFirst()
                        .map(l -> {
                            long kb = Long.parseLong(l.replaceAll("\\D", ""));
                            return String.format(Locale.ROOT, "%.0f GiB RAM", kb / 1024.0 / 1024.0);
                        })
                        .orElse("");
            } catch (IOException | RuntimeException ignored) {
                // Not Linux: leave it out.
            }
            return new Machine(
                    Runtime.getRuntime().availableProcessors(),
                    cpu,
                    memory,
                    "Java " + System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + ")",
                    System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                            + System.getProperty("os.arch"));
        }

        String summary() {
            return cores + " cores (" + cpu + ")" + (memory.isEmpty() ? "" : ", " + memory) + ", " + java + ", " + os;
        }

        String json() {
            return "{\"cores\": " + cores + ", \"cpu\": " + Json.str(cpu) + ", \"memory\": " + Json.str(memory)
                    + ", \"java\": " + Json.str(java) + ", \"os\": " + Json.str(os) + "}";
        }
    }
}
