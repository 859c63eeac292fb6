package dev.txnrocksdb.examples.wordcount;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;

/**
 * A real single-node KRaft broker (broker + controller in one process), started from the Maven jars
 * in its own JVM, so that the Streams app can be killed with SIGKILL without touching the broker.
 */
public final class KafkaBroker implements AutoCloseable {

    private final Path dir;
    private final Path logFile;
    private final int port;
    private Process process;

    public KafkaBroker(Path dir) throws IOException {
        this.dir = dir;
        this.logFile = dir.resolve("broker.log");
        this.port = freePort();
    }

    public String bootstrapServers() {
        return "127.0.0.1:" + port;
    }

    public void start(Duration timeout) throws Exception {
        // The kernel may hand out the broker's port again once its probe socket is closed.
        int controllerPort = freePort();
        while (controllerPort == port) {
            controllerPort = freePort();
        }
        Path logDirs = Files.createDirectories(dir.resolve("kafka-logs"));
        Path config = dir.resolve("server.properties");
        Files.writeString(
                config,
                String.join(
                        "\n",
                        "process.roles=broker,controller",
                        "node.id=1",
                        "controller.quorum.voters=1@127.0.0.1:" + controllerPort,
                        "listeners=PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort,
                        "advertised.listeners=PLAINTEXT://127.0.0.1:" + port,
                        "controller.listener.names=CONTROLLER",
                        "inter.broker.listener.name=PLAINTEXT",
                        "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                        "log.dirs=" + logDirs,
                        "num.partitions=1",
                        "offsets.topic.replication.factor=1",
                        "offsets.topic.num.partitions=1",
                        "transaction.state.log.replication.factor=1",
                        "transaction.state.log.min.isr=1",
                        "transaction.state.log.num.partitions=1",
                        "group.initial.rebalance.delay.ms=0",
                        "auto.create.topics.enable=false",
                        // A client quota measured over 2 s rather than 11: the demo's slow network
                        // (part 3) then delivers steadily, not in one burst and a long pause.
                        "quota.window.num=2",
                        "quota.window.size.seconds=1",
                        ""));

        // 1. Format the storage (Kafka 4.4: kafka.tools.StorageTool, static quorum => no --standalone).
        String clusterId = Uuid.randomUuid().toString();
        Process format = java("kafka.tools.StorageTool", "format", "-t", clusterId, "-c", config.toString())
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("format.log").toFile())
                .start();
        if (!format.waitFor(60, TimeUnit.SECONDS) || format.exitValue() != 0) {
            format.destroyForcibly();
            throw new IllegalStateException(
                    "kafka storage format failed:\n" + Files.readString(dir.resolve("format.log")));
        }

        // 2. Start kafka.Kafka in its own JVM.
        process = java("kafka.Kafka", config.toString())
                .redirectErrorStream(true)
                .redirectOutput(logFile.toFile())
                .start();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (process.isAlive()) process.destroyForcibly();
        }));

        // 3. Wait until it answers an AdminClient.
        long deadline = System.nanoTime() + timeout.toNanos();
        Exception last = null;
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("broker exited with " + process.exitValue() + ":\n" + logTail());
            }
            try (Admin admin = admin()) {
                admin.describeCluster().nodes().get(5, TimeUnit.SECONDS);
                admin.listTopics().names().get(5, TimeUnit.SECONDS);
                return;
            } catch (Exception e) {
                last = e;
                Thread.sleep(300);
            }
        }
        throw new IllegalStateException("broker not reachable within " + timeout + " (" + last + "):\n" + logTail());
    }

    public Admin admin() {
        return Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5000,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10000));
    }

    public long pid() {
        return process.pid();
    }

    public String logTail() {
        try {
            List<String> lines = Files.readAllLines(logFile);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(no broker log: " + e + ")";
        }
    }

    @Override
    public void close() throws Exception {
        if (process != null && process.isAlive()) {
            process.destroy(); // SIGTERM: controlled shutdown
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    /** A JVM with the same java binary and this example's classpath, its heap at most 512 MiB. */
    public static ProcessBuilder java(String mainClass, String... args) {
        return java(List.of("-Xmx512m"), mainClass, args);
    }

    /** A JVM with the same java binary, this example's classpath and the given JVM options. */
    public static ProcessBuilder java(List<String> jvmOptions, String mainClass, String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmOptions);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(mainClass);
        cmd.addAll(List.of(args));
        return new ProcessBuilder(cmd);
    }

    public static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 0, java.net.InetAddress.getLoopbackAddress())) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        }
    }

    public static void deleteRecursively(Path root) {
        if (root == null || !Files.exists(root)) return;
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
        }
    }
}
