package dev.txnrocksdb.tool;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A command line, parsed: {@code [--json] <command> <arguments>}, options anywhere ({@code --name
 * value} or {@code --name=value}; {@code --} ends them). Anything it cannot take is a
 * {@link UsageException} naming what was wrong.
 *
 * @param command what to do
 * @param json whether the output is one JSON document
 * @param dir the directory the command reads (null for help and version)
 * @param from dump: the first key, inclusive, or null
 * @param to dump: the last key, inclusive, or null
 * @param limit dump: the most entries shown
 * @param hex dump: every key and value in hex
 */
record ToolArguments(Command command, boolean json, Path dir, byte[] from, byte[] to, long limit, boolean hex) {
    /** The entries a dump shows unless {@code --limit} says. */
    static final long DEFAULT_LIMIT = 100;

    /** The commands. */
    enum Command {
        INSPECT,
        VERIFY,
        DUMP,
        HELP,
        VERSION;

        String word() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** A command line the tool cannot take (exit code {@link TxnRocksDbTool#EXIT_USAGE}). */
    static final class UsageException extends Exception {
        private static final long serialVersionUID = 1L;

        UsageException(String message) {
            super(message);
        }
    }

    /**
     * Parses {@code args}.
     *
     * @throws UsageException for an unknown command or option, a missing or extra argument, an
     *     option the command does not take, a value that does not parse
     */
    static ToolArguments parse(String[] args) throws UsageException {
        boolean json = false;
        boolean help = false;
        boolean version = false;
        boolean hex = false;
        String from = null;
        String to = null;
        String limit = null;
        List<String> dumpOptions = new ArrayList<>();
        List<String> positional = new ArrayList<>();
        boolean optionsEnded = false;
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (optionsEnded || !arg.startsWith("-") || arg.equals("-")) {
                positional.add(arg);
                continue;
            }
            if (arg.equals("--")) {
                optionsEnded = true;
                continue;
            }
            String name = arg;
            String value = null;
            int equals = arg.indexOf('=');
            if (arg.startsWith("--") && equals > 0) {
                name = arg.substring(0, equals);
                value = arg.substring(equals + 1);
            }
            switch (name) {
                case "--json":
                    json = noValue(name, value);
                    break;
                case "--help":
                case "-h":
                    help = noValue(name, value);
                    break;
                case "--version":
                    version = noValue(name, value);
                    break;
                case "--hex":
                    hex = noValue(name, value);
                    dumpOptions.add(name);
                    break;
                case "--from":
                case "--to":
                case "--limit":
                    if (value == null) {
                        if (i + 1 >= args.length) {
                            throw new UsageException(name + " needs a value");
                        }
                        value = args[++i];
                    }
                    if (name.equals("--from")) {
                        from = value;
                    } else if (name.equals("--to")) {
                        to = value;
                    } else {
                        limit = value;
                    }
                    dumpOptions.add(name);
                    break;
                default:
                    throw new UsageException("unknown option " + name);
            }
        }
        if (help) {
            return new ToolArguments(Command.HELP, json, null, null, null, DEFAULT_LIMIT, false);
        }
        if (version) {
            return new ToolArguments(Command.VERSION, json, null, null, null, DEFAULT_LIMIT, false);
        }
        if (positional.isEmpty()) {
            throw new UsageException("no command given");
        }
        Command command = command(positional.get(0));
        List<String> rest = positional.subList(1, positional.size());
        if (command == Command.HELP || command == Command.VERSION) {
            if (!rest.isEmpty()) {
                throw new UsageException(command.word() + " takes no arguments, not '" + rest.get(0) + "'");
            }
            return new ToolArguments(command, json, null, null, null, DEFAULT_LIMIT, false);
        }
        if (command != Command.DUMP && !dumpOptions.isEmpty()) {
            throw new UsageException(dumpOptions.get(0) + " is an option of dump, not of " + command.word());
        }
        if (rest.isEmpty()) {
            throw new UsageException(command.word() + " needs a "
                    + (command == Command.INSPECT
                            ? "directory (a state.dir, an application's, a task's or a store's)"
                            : "store's directory"));
        }
        if (rest.size() > 1) {
            throw new UsageException(command.word() + " takes one directory; unexpected '" + rest.get(1) + "'");
        }
        Path dir;
        try {
            dir = Paths.get(rest.get(0));
        } catch (java.nio.file.InvalidPathException e) {
            throw new UsageException("not a path: " + rest.get(0) + " (" + e.getReason() + ")");
        }
        return new ToolArguments(command, json, dir, key("--from", from), key("--to", to), limit(limit), hex);
    }

    private static Command command(String word) throws UsageException {
        switch (word) {
            case "inspect":
                return Command.INSPECT;
            case "verify":
                return Command.VERIFY;
            case "dump":
                return Command.DUMP;
            case "help":
                return Command.HELP;
            case "version":
                return Command.VERSION;
            case "snapshots":
                throw new UsageException("snapshots comes first, after --json only: " + TxnRocksDbTool.PROGRAM
                        + " [--json] snapshots list|verify|fetch ...");
            default:
                throw new UsageException("unknown command '" + word + "'");
        }
    }

    private static boolean noValue(String name, String value) throws UsageException {
        if (value != null) {
            throw new UsageException(name + " takes no value, not '" + value + "'");
        }
        return true;
    }

    private static byte[] key(String option, String typed) throws UsageException {
        if (typed == null) {
            return null;
        }
        try {
            return ByteText.parse(typed);
        } catch (IllegalArgumentException e) {
            throw new UsageException(option + ": " + e.getMessage());
        }
    }

    private static long limit(String typed) throws UsageException {
        if (typed == null) {
            return DEFAULT_LIMIT;
        }
        try {
            long limit = Long.parseLong(typed);
            if (limit > 0) {
                return limit;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new UsageException("--limit takes a positive whole number, not '" + typed + "'");
    }
}
