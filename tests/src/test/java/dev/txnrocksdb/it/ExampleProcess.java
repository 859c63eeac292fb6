package dev.txnrocksdb.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A framework example's application (any command line) in a child process: its stdout and stderr
 * together are collected line by line, written to a log file and echoed when
 * {@code -Dit.verbose=true}. The restore protocol is the examples' {@code RESTORE-END <partition>
 * <store> <records>} lines; {@link #kill()} is a real SIGKILL. Also runs the examples' Maven builds.
 */
final class ExampleProcess {

    /** 128 + SIGKILL(9): how a JVM killed by SIGKILL exits on Linux. */
    static final int SIGKILL_EXIT = 137;

    final String name;
    final Process process;
    private final List<String> lines = new ArrayList<>();
    private Thread pump;

    private ExampleProcess(String name, Process process) {
        this.name = name;
        this.process = process;
    }

    static ExampleProcess start(String name, Path log, List<String> command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        Runtime.getRuntime().addShutdownHook(new Thread(p::destroyForcibly));
        ExampleProcess c = new ExampleProcess(name, p);
        boolean verbose = Boolean.getBoolean("it.verbose");
        Thread pump = new Thread(
                () -> {
                    try (BufferedReader r = new BufferedReader(
                                    new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
                            PrintWriter w =
                                    new PrintWriter(Files.newBufferedWriter(log, StandardCharsets.UTF_8), true)) {
                        String l;
                        while ((l = r.readLine()) != null) {
                            w.println(l);
                            if (verbose) BrokerFixture.say("  [" + name + "] " + l);
                            synchronized (c) {
                                c.lines.add(l);
                                c.notifyAll();
                            }
                        }
                    } catch (Exception ignored) {
                        // the process died
                    }
                },
                name + "-output");
        pump.setDaemon(true);
        c.pump = pump;
        pump.start();
        return c;
    }

    /** The java launcher of the JVM running the tests (the examples run on the same JDK). */
    static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /**
     * Runs {@code mvn -B -q --no-transfer-progress -f <pom> package -DskipTests <extra...>} with the
     * tests' JDK as JAVA_HOME, its output to {@code log}; fails with the output's tail if Maven fails.
     * Returns the milliseconds it took.
     */
    static long mavenPackage(Path pom, Path log, String... extra) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(
                System.getProperty("it.mvn", "mvn"),
                "-B",
                "-q",
                "--no-transfer-progress",
                "-f",
                pom.toString(),
                "package",
                "-DskipTests"));
        cmd.addAll(List.of(extra));
        return build(cmd, log, 15);
    }

    /**
     * Runs a build command (Maven, Gradle) with the tests' JDK as JAVA_HOME, its output to {@code log}; fails
     * with the command and the output's last 40 lines unless it exits 0 within {@code minutes}. Returns its
     * milliseconds.
     */
    static long build(List<String> cmd, Path log, int minutes) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        long t = System.nanoTime();
        Process p = pb.start();
        boolean done = p.waitFor(minutes, TimeUnit.MINUTES);
        if (!done) p.destroyForcibly();
        if (!done || p.exitValue() != 0) {
            List<String> out = Files.readAllLines(log);
            throw new AssertionError(String.join(" ", cmd) + (done ? " exited with " + p.exitValue() : " timed out")
                    + ":\n" + String.join("\n", out.subList(Math.max(0, out.size() - 40), out.size())));
        }
        return BrokerFixture.ms(t);
    }

    /** The index of the next line: {@link #awaitLine(int, Predicate, Duration)} can start there. */
    synchronized int mark() {
        return lines.size();
    }

    synchronized List<String> lines() {
        return new ArrayList<>(lines);
    }

    /** The first line at index {@code from} or later that matches; fails if the process ends first or on timeout. */
    synchronized String awaitLine(int from, Predicate<String> p, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            for (; from < lines.size(); from++) {
                if (p.test(lines.get(from))) return lines.get(from);
            }
            long left = deadline - System.nanoTime();
            if (left <= 0 || !process.isAlive() && from == lines.size()) {
                throw new AssertionError(name + ": expected line not seen (alive=" + process.isAlive()
                        + "), last lines:\n"
                        + String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size())));
            }
            wait(Math.max(1, Math.min(200, left / 1_000_000)));
        }
    }

    /** Records restored since the start, from the RESTORE-END lines, summed over every changelog partition. */
    synchronized long restoredTotal() {
        long n = 0;
        for (String l : lines) {
            if (l.startsWith("RESTORE-END ")) n += Long.parseLong(l.split(" ")[3]);
        }
        return n;
    }

    /** SIGKILL (Process.destroyForcibly), and asserts the JVM died of it. */
    void kill() throws Exception {
        process.destroyForcibly();
        assertTrue(process.waitFor(30, TimeUnit.SECONDS), name + " did not die");
        assertEquals(SIGKILL_EXIT, process.exitValue(), name + " exit code (128 + SIGKILL)");
    }

    /** Waits for the process to end by itself; returns its exit code, or fails. */
    int awaitExit(Duration timeout) throws Exception {
        assertTrue(
                process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS), name + " did not exit within " + timeout);
        pump.join(5_000); // the last lines
        return process.exitValue();
    }

    void destroy() throws Exception {
        if (process.isAlive()) {
            process.destroy();
            if (!process.waitFor(30, TimeUnit.SECONDS)) process.destroyForcibly();
        }
    }
}
