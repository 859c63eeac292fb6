package dev.txnrocksdb.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.txnrocksdb.examples.wordcount.KafkaBroker;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * {@link EosCrashApp} in a child JVM (stderr to {@code <tmp>/<name>.log}); its stdout lines are
 * collected with the {@link System#nanoTime()} each arrived at (restore events are read from them,
 * the recovery benchmark times them), and echoed when {@code -Dit.verbose=true}.
 */
final class AppProcess {
    /** 128 + SIGKILL(9): how a JVM killed by SIGKILL exits on Linux. */
    static final int SIGKILL_EXIT = 137;

    final String name;
    final Process process;
    private final List<String> lines = new ArrayList<>();
    /** {@link System#nanoTime()} at which each line of {@link #lines} was read. */
    private final List<Long> arrived = new ArrayList<>();

    private AppProcess(String name, Process process) {
        this.name = name;
        this.process = process;
    }

    /**
     * Starts {@code EosCrashApp <bootstrap> <stateDir> <appId> <txn> <overrides...>}; each override is
     * a {@code key=value} Streams config applied over the app's defaults.
     */
    static AppProcess start(
            String name, BrokerFixture kafka, String appId, String stateDir, boolean txn, String... overrides)
            throws Exception {
        return start(List.of("-Xmx512m"), name, kafka, appId, stateDir, txn, overrides);
    }

    /** As {@link #start(String, BrokerFixture, String, String, boolean, String...)}, with these JVM options. */
    static AppProcess start(
            List<String> jvmOptions,
            String name,
            BrokerFixture kafka,
            String appId,
            String stateDir,
            boolean txn,
            String... overrides)
            throws Exception {
        List<String> args = new ArrayList<>(List.of(kafka.bootstrap(), stateDir, appId, Boolean.toString(txn)));
        args.addAll(List.of(overrides));
        return start(jvmOptions, name, kafka, EosCrashApp.class, args.toArray(String[]::new));
    }

    /**
     * Starts {@code main} with {@code args} in a child JVM: an app that speaks the same stdout and
     * stdin protocol as {@code EosCrashApp} (at least RUNNING, and the {@code stop} command).
     */
    static AppProcess start(List<String> jvmOptions, String name, BrokerFixture kafka, Class<?> main, String... args)
            throws Exception {
        Process p = KafkaBroker.java(jvmOptions, main.getName(), args)
                .redirectError(
                        kafka.tmp.resolve(name.replace('#', '-') + ".log").toFile())
                .start();
        Runtime.getRuntime().addShutdownHook(new Thread(p::destroyForcibly));
        AppProcess c = new AppProcess(name, p);
        boolean verbose = Boolean.getBoolean("it.verbose");
        Thread pump = new Thread(
                () -> {
                    try (BufferedReader r =
                            new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                        String l;
                        while ((l = r.readLine()) != null) {
                            if (verbose) BrokerFixture.say("  [" + name + "] " + l);
                            long now = System.nanoTime();
                            synchronized (c) {
                                c.arrived.add(now);
                                c.lines.add(l);
                                c.notifyAll();
                            }
                        }
                    } catch (Exception ignored) {
                        // the process died
                    }
                },
                name + "-stdout");
        pump.setDaemon(true);
        pump.start();
        return c;
    }

    /** Records restored since the start, summed over every changelog partition. */
    long restoredTotal() {
        return restoredSince(0).values().stream().mapToLong(Long::longValue).sum();
    }

    /** Records restored per "topic-partition store", from the RESTORE-END lines at index {@code from} or later. */
    synchronized Map<String, Long> restoredSince(int from) {
        Map<String, Long> r = new TreeMap<>();
        for (String l : lines.subList(from, lines.size())) {
            if (l.startsWith("RESTORE-END ")) {
                String[] f = l.split(" ");
                r.merge(f[1] + " " + f[2], Long.parseLong(f[3]), Long::sum);
            }
        }
        return r;
    }

    /** Restored records per store and partition, e.g. {@code " [word-counts/0=12, ...]"}. */
    String restoredDetail() {
        Map<String, Long> restored = restoredSince(0);
        if (restored.isEmpty()) return "";
        StringBuilder b = new StringBuilder(" [");
        restored.forEach((k, v) -> b.append(b.length() > 2 ? ", " : "")
                .append(k.substring(k.lastIndexOf(' ') + 1))
                .append('/')
                .append(k, k.lastIndexOf('-', k.indexOf(' ')) + 1, k.indexOf(' '))
                .append('=')
                .append(v));
        return b.append(']').toString();
    }

    synchronized long lastProcessed() {
        for (int i = lines.size() - 1; i >= 0; i--) {
            if (lines.get(i).startsWith("PROCESSED "))
                return Long.parseLong(lines.get(i).substring(10));
        }
        return 0;
    }

    /** The number of lines seen so far: {@link #awaitLine(int, Predicate, Duration)} can start there. */
    synchronized int mark() {
        return lines.size();
    }

    /** When the first line at index {@code from} or later that matches arrived ({@link System#nanoTime()}), or -1. */
    synchronized long arrivalOf(int from, Predicate<String> p) {
        for (int i = from; i < lines.size(); i++) {
            if (p.test(lines.get(i))) return arrived.get(i);
        }
        return -1;
    }

    /** When the last line at index {@code from} or later that matches arrived ({@link System#nanoTime()}), or -1. */
    synchronized long lastArrivalOf(int from, Predicate<String> p) {
        for (int i = lines.size() - 1; i >= from; i--) {
            if (p.test(lines.get(i))) return arrived.get(i);
        }
        return -1;
    }

    synchronized List<String> linesFrom(int from) {
        return new ArrayList<>(lines.subList(from, lines.size()));
    }

    /** The first line ever printed that matches. */
    String awaitLine(Predicate<String> p, Duration timeout) throws Exception {
        return awaitLine(0, p, timeout);
    }

    /** The first line at index {@code from} or later that matches. */
    synchronized String awaitLine(int from, Predicate<String> p, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            for (; from < lines.size(); from++) {
                if (p.test(lines.get(from))) return lines.get(from);
            }
            long left = deadline - System.nanoTime();
            if (left <= 0 || !process.isAlive() && from == lines.size()) {
                throw new IllegalStateException(name + ": expected line not seen (alive=" + process.isAlive()
                        + "), last lines: " + lines.subList(Math.max(0, lines.size() - 10), lines.size()));
            }
            wait(Math.max(1, Math.min(200, left / 1_000_000)));
        }
    }

    /** Sends a command line and returns the first answer line starting with {@code answerPrefix}. */
    String ask(String command, String answerPrefix, Duration timeout) throws Exception {
        int from = mark();
        send(command);
        return awaitLine(from, l -> l.startsWith(answerPrefix), timeout);
    }

    /**
     * A store metric over the app's stores ({@code EosCrashApp}'s {@code metric} command): its sum
     * and the number of stores that have it.
     */
    long[] metric(String name) throws Exception {
        String[] answer = ask("metric " + name, "METRIC " + name + " ", Duration.ofSeconds(30))
                .split(" ");
        return new long[] {Long.parseLong(answer[2]), Long.parseLong(answer[3])};
    }

    void send(String line) throws Exception {
        process.getOutputStream().write((line + "\n").getBytes(StandardCharsets.UTF_8));
        process.getOutputStream().flush();
    }

    /** SIGKILL, and asserts the JVM died of it; returns the exit code. */
    int kill() throws Exception {
        process.destroyForcibly();
        assertTrue(process.waitFor(30, TimeUnit.SECONDS), name + " did not die");
        int exit = process.exitValue();
        assertEquals(SIGKILL_EXIT, exit, name + " exit code (128 + SIGKILL)");
        return exit;
    }

    /** Asks the app to close cleanly; kills it if it has not exited within a minute. */
    void stop() throws Exception {
        if (!process.isAlive()) return;
        send("stop");
        if (!process.waitFor(60, TimeUnit.SECONDS)) process.destroyForcibly();
    }
}
