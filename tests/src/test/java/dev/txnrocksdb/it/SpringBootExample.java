package dev.txnrocksdb.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
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
 * {@code examples/spring-boot}: builds it with a Maven subprocess and runs its fat jar in a child
 * JVM ({@code java -jar}), stdout and stderr merged, every line kept (and written to
 * {@code <log>}; echoed with {@code -Dit.verbose=true}).
 */
final class SpringBootExample {

    /** The repository root: the tests module's parent (surefire sets {@code basedir}). */
    static Path repoRoot() {
        return Path.of(System.getProperty("basedir", "."))
                .toAbsolutePath()
                .normalize()
                .getParent();
    }

    static Path exampleDir() {
        return repoRoot().resolve("examples").resolve("spring-boot");
    }

    /**
     * {@code mvn -B -q --no-transfer-progress -f examples/spring-boot/pom.xml package -DskipTests <extra>};
     * returns the fat jar. {@code -Dit.mvn=<path>} picks the Maven executable (default {@code mvn} on the
     * PATH), {@code -Dit.mvn.offline=true} adds {@code -o}.
     */
    static Path build(Path log, String jarName, String... extra) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(
                System.getProperty("it.mvn", "mvn"),
                "-B",
                "-q",
                "--no-transfer-progress",
                "-f",
                exampleDir().resolve("pom.xml").toString(),
                "package",
                "-DskipTests"));
        if (Boolean.getBoolean("it.mvn.offline")) cmd.add("-o");
        cmd.addAll(List.of(extra));
        long t = System.nanoTime();
        Process p = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        Runtime.getRuntime().addShutdownHook(new Thread(p::destroyForcibly));
        boolean done = p.waitFor(15, TimeUnit.MINUTES);
        if (!done || p.exitValue() != 0) {
            p.destroyForcibly();
            List<String> lines = Files.readAllLines(log);
            throw new AssertionError(String.join(" ", cmd) + (done ? " exited " + p.exitValue() : " timed out") + ":\n"
                    + String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size())));
        }
        Path jar = exampleDir().resolve("target").resolve(jarName);
        assertTrue(Files.isRegularFile(jar), jar + " was not built");
        BrokerFixture.say(String.join(" ", cmd.subList(1, cmd.size())) + ": " + BrokerFixture.ms(t) + " ms, "
                + jar.getFileName() + " " + Files.size(jar) / (1024 * 1024) + " MiB");
        return jar;
    }

    final String name;
    final Process process;
    private final List<String> lines = new ArrayList<>();
    /** The pump read the process's output to its end. */
    private boolean eof;

    private SpringBootExample(String name, Process process) {
        this.name = name;
        this.process = process;
    }

    /** {@code java -jar <jar> <args>}, each arg a Spring property as {@code --key=value}. */
    static SpringBootExample start(String name, Path jar, Path log, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-jar",
                jar.toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        Runtime.getRuntime().addShutdownHook(new Thread(p::destroyForcibly));
        SpringBootExample app = new SpringBootExample(name, p);
        boolean verbose = Boolean.getBoolean("it.verbose");
        Thread pump = new Thread(
                () -> {
                    try (BufferedReader r = new BufferedReader(
                                    new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
                            PrintWriter out = new PrintWriter(Files.newBufferedWriter(log, StandardCharsets.UTF_8))) {
                        String l;
                        while ((l = r.readLine()) != null) {
                            out.println(l);
                            out.flush();
                            if (verbose) BrokerFixture.say("  [" + name + "] " + l);
                            synchronized (app) {
                                app.lines.add(l);
                                app.notifyAll();
                            }
                        }
                    } catch (IOException ignored) {
                        // the process died
                    }
                    synchronized (app) {
                        app.eof = true;
                        app.notifyAll();
                    }
                },
                name + "-stdout");
        pump.setDaemon(true);
        pump.start();
        return app;
    }

    synchronized List<String> lines() {
        return new ArrayList<>(lines);
    }

    /** The first line that matches; fails when the timeout passes or the process ended without it. */
    synchronized String awaitLine(Predicate<String> p, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (int i = 0; ; ) {
            for (; i < lines.size(); i++) {
                if (p.test(lines.get(i))) return lines.get(i);
            }
            long left = deadline - System.nanoTime();
            if (left <= 0 || eof) {
                throw new AssertionError(name + ": expected line not seen (alive=" + process.isAlive()
                        + "), last lines:\n"
                        + String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size())));
            }
            wait(Math.max(1, Math.min(200, left / 1_000_000)));
        }
    }

    /** Records restored, summed over this run's {@code RESTORE-END <tp> <store> <n>} lines. */
    synchronized long restored() {
        return lines.stream()
                .filter(l -> l.startsWith("RESTORE-END "))
                .mapToLong(l -> Long.parseLong(l.split(" ")[3]))
                .sum();
    }

    /** SIGKILL ({@link Process#destroyForcibly()}), and asserts the JVM died of it (exit 137). */
    void kill() throws Exception {
        process.destroyForcibly();
        assertTrue(process.waitFor(30, TimeUnit.SECONDS), name + " did not die");
        assertEquals(AppProcess.SIGKILL_EXIT, process.exitValue(), name + " exit code (128 + SIGKILL)");
    }

    /** Waits for the process to exit on its own and returns its exit code. */
    int awaitExit(Duration timeout) throws Exception {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            throw new AssertionError(name + " still running after " + timeout);
        }
        return process.exitValue();
    }

    void destroy() {
        process.destroyForcibly();
    }
}
