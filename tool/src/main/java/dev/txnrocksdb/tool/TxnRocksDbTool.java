package dev.txnrocksdb.tool;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;

/**
 * The operators' command-line tool, {@code txn-rocksdb}: reads txn-rocksdb's state stores on disk
 * without starting the application (issue 50). {@code inspect} lists every store under a
 * directory with what its files say, {@code verify} checks one store's files and says what its
 * next open would do, {@code dump} prints a store's committed entries; {@code --json} for one JSON
 * document instead of text. Run as {@code java -jar txn-rocksdb-tool-<version>.jar <command>}; the
 * jar carries the library and its native library, which reads the stores.
 *
 * <p>Read-only: nothing under the directories given is created, changed or deleted (stores are
 * read through the engine's read-only view; lock files are opened for reading). A store or
 * application directory an application has open is refused ({@link StoreLocks}): run the tool on
 * a stopped application, or on a copy.
 *
 * <p>Exit codes: {@link #EXIT_OK}, {@link #EXIT_DAMAGE}, {@link #EXIT_USAGE}, {@link #EXIT_REFUSED},
 * {@link #EXIT_FAILED}.
 */
public final class TxnRocksDbTool {
    /** 0: done, and nothing wrong found. */
    public static final int EXIT_OK = 0;
    /** 1: damage found ({@code verify}, or {@code inspect} in any store). */
    public static final int EXIT_DAMAGE = 1;
    /** 2: a usage error: an unknown command or option, a missing argument, a path that does not exist. */
    public static final int EXIT_USAGE = 2;
    /** 3: refused: a store or application directory is in use by a running application. */
    public static final int EXIT_REFUSED = 3;
    /** 4: failed: an unexpected error (its message printed; its stack trace with {@value #DEBUG_ENV}=1). */
    public static final int EXIT_FAILED = 4;

    /** The environment variable that makes a failure print its stack trace ({@code 1}). */
    public static final String DEBUG_ENV = "TXN_ROCKSDB_TOOL_DEBUG";

    /** The program's name in messages and usage. */
    static final String PROGRAM = "txn-rocksdb";

    /** The library's resource that holds its version (written by its build). */
    private static final String VERSION_RESOURCE = "/native/txn-rocksdb.properties";

    static final String USAGE = String.join(
            "\n",
            "Usage: " + PROGRAM + " [--json] <command> <arguments>",
            "       (java -jar txn-rocksdb-tool-<version>.jar [--json] <command> <arguments>)",
            "",
            "Reads txn-rocksdb's state stores on disk without starting the application. Never writes to",
            "them, and refuses a store or application directory that a running application has open.",
            "",
            "Commands:",
            "  inspect <dir>        every store under <dir>: a state.dir, an application's directory",
            "                       (<state.dir>/<application.id>), a task's or a store's directory;",
            "                       Kafka Streams' own stores and unknown directories are named, not opened",
            "  verify <store dir>   checks every file of one store, and says what its next open would do",
            "                       under each damage policy (txn.rocksdb.wal.corruption)",
            "  dump <store dir> [--from K] [--to K] [--limit N] [--hex]",
            "                       the store's committed entries from key K to key K (both included;",
            "                       K as UTF-8 text, or hex:0a0b for bytes), at most N (default "
                    + ToolArguments.DEFAULT_LIMIT + ");",
            "                       keys and values as UTF-8 where printable, else hex:...; --hex: all hex",
            "  snapshots list <location> [--store ID] [--option KEY=VALUE ...]",
            "                       every snapshot at a location (file://, s3://, az://, abfs[s]://), as its",
            "                       manifest says; the newest usable one per store marked",
            "  snapshots verify <location> [--store ID] [--option KEY=VALUE ...]",
            "                       downloads each store's newest usable snapshot into a temporary directory,",
            "                       checking every object's size and checksum as a restore does",
            "  snapshots fetch <location> <store id> <store dir> [--option KEY=VALUE ...]",
            "                       puts the newest usable snapshot into a missing or empty store directory",
            "                       (<state.dir>/<application.id>/<task>/<store>) before its application",
            "                       starts",
            "                       --option: the location's own options (aws_endpoint, ...);",
            "                       --bootstrap-server HOST:PORT [--command-config FILE]: each store's",
            "                       changelog as the cluster has it now, so that each command takes the",
            "                       snapshot a new host would restore now (list marks it), passing over",
            "                       those of a recreated changelog topic or of an offset it no longer has",
            "  help, --help         this text",
            "  --version            the version",
            "",
            "Options:",
            "  --json               one JSON document on standard output instead of text",
            "",
            "Exit codes (inspect: the first that applies to any store, in the order 4, 3, 1):",
            "  " + EXIT_OK + "  done, and nothing wrong found",
            "  " + EXIT_DAMAGE + "  damage found (verify; inspect: in any store)",
            "  " + EXIT_USAGE + "  usage error: unknown command or option, missing argument, no such directory,",
            "     not a store's directory",
            "  " + EXIT_REFUSED + "  refused: a store or application directory is in use by a running application",
            "     (stop it, or run the tool on a copy of the directory)",
            "  " + EXIT_FAILED + "  failed: an unexpected error (" + DEBUG_ENV + "=1 prints its stack trace)",
            "");

    private TxnRocksDbTool() {}

    /** Runs the command line and exits with its exit code. */
    public static void main(String[] args) {
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        PrintStream err = new PrintStream(System.err, true, StandardCharsets.UTF_8);
        System.exit(run(args, out, err));
    }

    /**
     * Runs a command line: output on {@code out}, messages on {@code err}.
     *
     * @return the exit code
     */
    static int run(String[] args, PrintStream out, PrintStream err) {
        return run(args, out, err, StoreReader.natives());
    }

    /** {@link #run(String[], PrintStream, PrintStream)} reading stores with {@code reader}. */
    static int run(String[] args, PrintStream out, PrintStream err, StoreReader reader) {
        try {
            List<String> words = List.of(args);
            int at = words.indexOf("snapshots");
            if (at >= 0 && words.subList(0, at).stream().allMatch("--json"::equals)) {
                SnapshotsCommand.Arguments snapshots =
                        SnapshotsCommand.parse(words.subList(at + 1, words.size()), at > 0);
                return SnapshotsCommand.run(snapshots, out);
            }
            ToolArguments parsed = ToolArguments.parse(args);
            switch (parsed.command()) {
                case HELP:
                    out.print(USAGE);
                    return EXIT_OK;
                case VERSION:
                    out.println(PROGRAM + " " + version());
                    return EXIT_OK;
                default:
                    break;
            }
            Path dir = parsed.dir();
            if (!Files.exists(dir)) {
                throw new ToolArguments.UsageException("no such directory: " + dir);
            }
            if (!Files.isDirectory(dir)) {
                throw new ToolArguments.UsageException("not a directory: " + dir);
            }
            switch (parsed.command()) {
                case INSPECT:
                    return InspectCommand.run(parsed, out, reader);
                case VERIFY:
                    return VerifyCommand.run(parsed, out, reader);
                default:
                    return DumpCommand.run(parsed, out, err, reader);
            }
        } catch (ToolArguments.UsageException e) {
            err.println(PROGRAM + ": " + e.getMessage());
            err.println("Run '" + PROGRAM + " --help' for usage.");
            return EXIT_USAGE;
        } catch (Refused e) {
            err.println(PROGRAM + ": refused: " + e.getMessage());
            return EXIT_REFUSED;
        } catch (Throwable e) {
            out.flush();
            err.println(PROGRAM + ": failed: " + describe(e));
            if ("1".equals(System.getenv(DEBUG_ENV))) {
                e.printStackTrace(err);
            } else {
                err.println("(" + DEBUG_ENV + "=1 prints the stack trace)");
            }
            return EXIT_FAILED;
        } finally {
            out.flush();
            err.flush();
        }
    }

    /** A store or application directory in use by an application: not read (exit code {@link #EXIT_REFUSED}). */
    static final class Refused extends Exception {
        private static final long serialVersionUID = 1L;

        Refused(String message) {
            super(message);
        }
    }

    /** The worse of two exit codes of stores: failed, then refused, then damage, then fine. */
    static int worse(int a, int b) {
        return rank(a) >= rank(b) ? a : b;
    }

    private static int rank(int exitCode) {
        switch (exitCode) {
            case EXIT_FAILED:
                return 4;
            case EXIT_REFUSED:
                return 3;
            case EXIT_USAGE:
                return 2;
            case EXIT_DAMAGE:
                return 1;
            default:
                return 0;
        }
    }

    /**
     * The store whose directory {@code dir} is (verify and dump take one).
     *
     * @throws ToolArguments.UsageException if {@code dir} is not a store of ours: no store at all,
     *     one of Kafka Streams' own, a snapshot restore's download
     */
    static StateLayout.Entry storeAt(Path dir) throws IOException, ToolArguments.UsageException {
        StateLayout layout = StateLayout.scan(dir);
        List<StateLayout.Entry> entries = layout.entries();
        if (entries.size() == 1) {
            StateLayout.Entry entry = entries.get(0);
            boolean here = entry.path().equals(layout.root()) || layout.root().startsWith(entry.path());
            if (here && entry.type() == StateLayout.Type.STORE) {
                return entry;
            }
            if (here && entry.type() == StateLayout.Type.KAFKA_STORE) {
                throw new ToolArguments.UsageException(entry.path() + " is one of Kafka Streams' own stores, which "
                        + PROGRAM + " does not read (it reads txn-rocksdb stores only)");
            }
            if (here && entry.type() == StateLayout.Type.RESTORING) {
                throw new ToolArguments.UsageException(entry.path() + " is " + StateLayout.RESTORE
                        + ", not a store: the store is the directory it becomes");
            }
        }
        throw new ToolArguments.UsageException(layout.root() + " is not a store's directory (it has no "
                + StateLayout.CURRENT + " file): give one store's directory,"
                + " <state.dir>/<application.id>/<task>/<store>; '" + PROGRAM + " inspect " + dir
                + "' lists the stores under it");
    }

    /** Takes {@code store}'s locks, or refuses. */
    static void lockOrRefuse(StoreLocks locks, StateLayout.Entry store) throws IOException, Refused {
        String refused = locks.lock(store);
        if (refused != null) {
            throw new Refused(refused);
        }
    }

    /** An error's message for an operator: its own words, and its type where they need it. */
    static String describe(Throwable e) {
        String message = e.getMessage();
        if (message == null || message.isBlank()) {
            return e.getClass().getName();
        }
        if (e instanceof IOException || (e instanceof Error && !message.startsWith("txn-rocksdb"))) {
            // NoSuchFileException: <path>; UnsatisfiedLinkError: <the native method missing>
            return e.getClass().getSimpleName() + ": " + message;
        }
        return message;
    }

    /** The library's version, from its jar's resource. */
    static String version() {
        Properties properties = new Properties();
        try (InputStream in = TxnRocksDbTool.class.getResourceAsStream(VERSION_RESOURCE)) {
            if (in != null) {
                properties.load(in);
            }
        } catch (IOException e) {
            // unknown, below
        }
        String version = properties.getProperty("version", "");
        return version.isEmpty() || version.contains("${") ? "(version unknown)" : version;
    }
}
