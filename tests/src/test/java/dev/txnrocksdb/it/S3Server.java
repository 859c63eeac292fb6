package dev.txnrocksdb.it;

import dev.txnrocksdb.examples.wordcount.KafkaBroker;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real S3-compatible server for the tests: s3proxy (Maven Central's {@code org.gaul:s3proxy},
 * copied by the build into {@code target/s3proxy}) in a JVM of its own, on a free loopback port,
 * with its file system backend under {@code dir} and AWS signature checking on. {@link #stop()}
 * kills it (the object store going down) and {@link #start()} brings it back on the same port and
 * data.
 */
final class S3Server implements AutoCloseable {
    static final String BUCKET = "snapshots";
    static final String ACCESS_KEY = "test-access-key";
    static final String SECRET_KEY = "test-secret-key";

    private final Path dir;
    private final int port;
    private Process process;

    private S3Server(Path dir, int port) {
        this.dir = dir;
        this.port = port;
    }

    /** Starts a server keeping its objects under {@code dir}, with the bucket {@link #BUCKET}. */
    static S3Server start(Path dir) throws Exception {
        S3Server server = new S3Server(dir, KafkaBroker.freePort());
        Files.createDirectories(dir.resolve("data").resolve(BUCKET));
        server.start();
        return server;
    }

    void start() throws Exception {
        String jar = System.getProperty("it.s3proxy.jar", "target/s3proxy/s3proxy.jar");
        if (!Files.isRegularFile(Path.of(jar))) {
            throw new IllegalStateException(
                    "s3proxy is missing at " + jar + ": the tests module's build copies it (mvn package)");
        }
        Path properties = dir.resolve("s3proxy.properties");
        Files.writeString(
                properties,
                String.join(
                                "\n",
                                "s3proxy.endpoint=http://127.0.0.1:" + port,
                                "s3proxy.authorization=aws-v2-or-v4",
                                "s3proxy.identity=" + ACCESS_KEY,
                                "s3proxy.credential=" + SECRET_KEY,
                                "jclouds.provider=filesystem",
                                "jclouds.filesystem.basedir=" + dir.resolve("data"))
                        + "\n");
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                "-jar",
                jar,
                "--properties",
                properties.toString()));
        process = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("s3proxy.log").toFile())
                .start();
        Runtime.getRuntime().addShutdownHook(new Thread(process::destroyForcibly));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            try (Socket ignored = new Socket(InetAddress.getLoopbackAddress(), port)) {
                return;
            } catch (IOException notYet) {
                if (!process.isAlive() || System.nanoTime() > deadline) {
                    throw new IllegalStateException("s3proxy did not start (see " + dir.resolve("s3proxy.log") + "): "
                            + Files.readString(dir.resolve("s3proxy.log")));
                }
                Thread.sleep(100);
            }
        }
    }

    /** Kills the server (SIGKILL): the object store is down until {@link #start()}. */
    void stop() throws InterruptedException {
        if (process != null) {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }
    }

    /** The location URI of a prefix in the bucket. */
    String uri(String prefix) {
        return "s3://" + BUCKET + "/" + prefix;
    }

    /** The settings that point a Streams app at this server. */
    List<String> settings() {
        return settings(port);
    }

    /** The settings that point a Streams app at this server through a proxy on {@code endpointPort}. */
    List<String> settings(int endpointPort) {
        String option = "txn.rocksdb.snapshot.option.";
        return List.of(
                option + "aws_endpoint=http://127.0.0.1:" + endpointPort,
                option + "aws_allow_http=true",
                option + "aws_region=us-east-1",
                option + "aws_access_key_id=" + ACCESS_KEY,
                option + "aws_secret_access_key=" + SECRET_KEY);
    }

    /** The server's loopback port. */
    int port() {
        return port;
    }

    /** The directory holding the bucket's objects (the file system backend's). */
    Path bucketDir() {
        return dir.resolve("data").resolve(BUCKET);
    }

    @Override
    public void close() throws InterruptedException {
        stop();
    }
}
