package dev.txnrocksdb.it;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP proxy on a loopback port in front of a server (the tests' S3 server), which behaves as an
 * object store on a bad day, switched at any time by {@link #mode}: {@link Mode#FORWARD} passes
 * bytes both ways; {@link Mode#SILENT} accepts connections, reads what it is sent and never answers
 * (connections already forwarding are cut); {@link Mode#SLOW} forwards, but holds each answer back
 * {@code delayMs} before its first byte; {@link Mode#THROTTLED} forwards answers at {@link
 * #THROTTLED_BYTES_PER_SECOND} per connection, 1 KiB at a time (a slow link, never silent for long).
 * Its threads are daemons; {@link #close()} stops it.
 */
final class UnreliableProxy implements AutoCloseable {
    enum Mode {
        FORWARD,
        SILENT,
        SLOW,
        THROTTLED
    }

    /** The rate of each connection's answers in {@link Mode#THROTTLED}. */
    static final int THROTTLED_BYTES_PER_SECOND = 48 << 10;

    private final ServerSocket listener;
    private final int target;
    private final long delayMs;
    private final List<Socket> open = new CopyOnWriteArrayList<>();
    private volatile Mode mode;

    UnreliableProxy(int target, Mode mode, long delayMs) throws IOException {
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.target = target;
        this.mode = mode;
        this.delayMs = delayMs;
        Thread accept = new Thread(this::accept, "unreliable-proxy");
        accept.setDaemon(true);
        accept.start();
    }

    int port() {
        return listener.getLocalPort();
    }

    /** Switches the behaviour; connections open now are cut, so that clients reconnect to the new one. */
    void mode(Mode mode) {
        this.mode = mode;
        for (Socket socket : open) {
            closeQuietly(socket);
        }
        open.clear();
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                open.add(client);
                Mode now = mode;
                daemon(() -> serve(client, now));
            } catch (IOException e) {
                return;
            }
        }
    }

    private void serve(Socket client, Mode mode) {
        if (mode == Mode.SILENT) {
            try (InputStream in = client.getInputStream()) {
                byte[] buffer = new byte[8192];
                while (in.read(buffer) >= 0) {
                    // read and stay silent
                }
            } catch (IOException e) {
                // cut
            }
            return;
        }
        try {
            Socket server = new Socket(InetAddress.getLoopbackAddress(), target);
            open.add(server);
            // the time the client last sent bytes, and the time an answer last started after it
            AtomicLong requested = new AtomicLong();
            AtomicLong answered = new AtomicLong();
            daemon(() -> pump(client, server, () -> requested.set(System.nanoTime()), false));
            pump(
                    server,
                    client,
                    () -> {
                        if (mode == Mode.SLOW && requested.get() > answered.get()) {
                            sleep(delayMs);
                            answered.set(System.nanoTime());
                        }
                    },
                    mode == Mode.THROTTLED);
        } catch (IOException e) {
            closeQuietly(client);
        }
    }

    /**
     * Copies {@code from} to {@code to}, calling {@code beforeChunk} before forwarding each chunk;
     * {@code throttled}: 1 KiB at a time at {@link #THROTTLED_BYTES_PER_SECOND}.
     */
    private static void pump(Socket from, Socket to, Runnable beforeChunk, boolean throttled) {
        try (InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream()) {
            byte[] buffer = new byte[64 << 10];
            int read;
            long next = System.nanoTime(); // when the next piece may go: a link idle meanwhile saves no credit
            while ((read = in.read(buffer)) >= 0) {
                beforeChunk.run();
                if (!throttled) {
                    out.write(buffer, 0, read);
                    out.flush();
                    continue;
                }
                for (int at = 0; at < read; at += 1024) {
                    int piece = Math.min(1024, read - at);
                    long now = System.nanoTime();
                    if (next > now) sleep((next - now) / 1_000_000);
                    out.write(buffer, at, piece);
                    out.flush();
                    next = Math.max(next, now) + (piece * 1_000_000_000L) / THROTTLED_BYTES_PER_SECOND;
                }
            }
        } catch (IOException e) {
            // one side closed
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void daemon(Runnable task) {
        Thread thread = new Thread(task, "unreliable-proxy-connection");
        thread.setDaemon(true);
        thread.start();
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing
        }
    }

    @Override
    public void close() throws IOException {
        listener.close();
        mode(Mode.SILENT);
    }
}
