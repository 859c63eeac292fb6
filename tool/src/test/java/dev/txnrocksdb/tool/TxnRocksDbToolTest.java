package dev.txnrocksdb.tool;

import static dev.txnrocksdb.tool.ToolTesting.NEVER;
import static dev.txnrocksdb.tool.ToolTesting.fakeApp;
import static dev.txnrocksdb.tool.ToolTesting.fakeStore;
import static dev.txnrocksdb.tool.ToolTesting.run;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.txnrocksdb.tool.ToolTesting.Result;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command line: what it takes, and every way it is refused with exit code 2 and a message that
 * names what was wrong (nothing is read then: the stand-in for the natives fails the test if asked).
 */
class TxnRocksDbToolTest {
    @TempDir
    Path dir;

    private static void assertUsage(Result result, String expected) {
        assertEquals(TxnRocksDbTool.EXIT_USAGE, result.exit(), result.err());
        assertTrue(result.err().startsWith("txn-rocksdb: " + expected), result.err());
        assertTrue(result.err().contains("Run 'txn-rocksdb --help' for usage."), result.err());
        assertEquals("", result.out());
    }

    @Test
    void helpPrintsTheUsageWithEveryExitCode() {
        for (String[] args :
                new String[][] {{"--help"}, {"-h"}, {"help"}, {"--json", "--help"}, {"inspect", "--help"}}) {
            Result result = run(NEVER, args);
            assertEquals(TxnRocksDbTool.EXIT_OK, result.exit(), String.join(" ", args));
            assertEquals(TxnRocksDbTool.USAGE, result.out());
            for (String command :
                    new String[] {"inspect <dir>", "verify <store dir>", "dump <store dir>", "snapshots"}) {
                assertTrue(result.out().contains(command), command);
            }
            for (int code = 0; code <= 4; code++) {
                assertTrue(result.out().contains("\n  " + code + "  "), "exit code " + code + " documented");
            }
        }
    }

    @Test
    void versionIsTheLibrarysVersion() {
        Result result = run(NEVER, "--version");
        assertEquals(TxnRocksDbTool.EXIT_OK, result.exit());
        assertTrue(result.out().matches("txn-rocksdb \\d+\\.\\d+\\.\\d+(-SNAPSHOT)?\n"), result.out());
    }

    @Test
    void exitCodesAreDistinct() {
        assertEquals(0, TxnRocksDbTool.EXIT_OK);
        assertEquals(1, TxnRocksDbTool.EXIT_DAMAGE);
        assertEquals(2, TxnRocksDbTool.EXIT_USAGE);
        assertEquals(3, TxnRocksDbTool.EXIT_REFUSED);
        assertEquals(4, TxnRocksDbTool.EXIT_FAILED);
        assertEquals(TxnRocksDbTool.EXIT_FAILED, TxnRocksDbTool.worse(TxnRocksDbTool.EXIT_REFUSED, 4));
        assertEquals(TxnRocksDbTool.EXIT_REFUSED, TxnRocksDbTool.worse(TxnRocksDbTool.EXIT_DAMAGE, 3));
        assertEquals(TxnRocksDbTool.EXIT_DAMAGE, TxnRocksDbTool.worse(TxnRocksDbTool.EXIT_OK, 1));
    }

    @Test
    void usageErrorsNameWhatWasWrong() throws IOException {
        Path store = fakeStore(dir.resolve("app/0_1/counts"));
        String storeDir = store.toString();
        assertUsage(run(NEVER), "no command given");
        assertUsage(run(NEVER, "--json"), "no command given");
        assertUsage(run(NEVER, "frobnicate", storeDir), "unknown command 'frobnicate'");
        assertUsage(run(NEVER, "inspect", "--verbose", storeDir), "unknown option --verbose");
        assertUsage(run(NEVER, "inspect"), "inspect needs a directory");
        assertUsage(run(NEVER, "verify"), "verify needs a store's directory");
        assertUsage(run(NEVER, "dump", "--limit", "5"), "dump needs a store's directory");
        assertUsage(run(NEVER, "inspect", storeDir, storeDir), "inspect takes one directory; unexpected");
        assertUsage(run(NEVER, "inspect", "--limit", "5", storeDir), "--limit is an option of dump, not of inspect");
        assertUsage(run(NEVER, "verify", "--hex", storeDir), "--hex is an option of dump, not of verify");
        assertUsage(run(NEVER, "dump", storeDir, "--limit"), "--limit needs a value");
        assertUsage(run(NEVER, "dump", storeDir, "--limit", "0"), "--limit takes a positive whole number, not '0'");
        assertUsage(run(NEVER, "dump", storeDir, "--limit=ten"), "--limit takes a positive whole number, not 'ten'");
        assertUsage(run(NEVER, "dump", storeDir, "--from", "hex:0g"), "--from: 'hex:0g' is not hex");
        assertUsage(run(NEVER, "dump", storeDir, "--to=hex:abc"), "--to: 'hex:abc' is not hex");
        assertUsage(run(NEVER, "--json=yes", "inspect", storeDir), "--json takes no value, not 'yes'");
        assertUsage(run(NEVER, "help", "me"), "help takes no arguments, not 'me'");
        assertUsage(run(NEVER, "snapshots"), "snapshots needs list, verify or fetch");
        assertUsage(run(NEVER, "snapshots", "take", "s3://bucket"), "unknown snapshots command 'take'");
        assertUsage(run(NEVER, "snapshots", "list"), "snapshots list takes one location");
        assertUsage(
                run(NEVER, "snapshots", "fetch", "s3://bucket", "app/counts/0-x"),
                "snapshots fetch takes a location, a store id and a store directory");
        assertUsage(
                run(NEVER, "snapshots", "list", "s3://bucket", "--option", "aws_endpoint"),
                "--option takes KEY=VALUE, not 'aws_endpoint'");
        assertUsage(run(NEVER, "snapshots", "list", "s3://bucket", "--hex"), "unknown option of snapshots: --hex");
        assertUsage(
                run(NEVER, "--hex", "snapshots", "list", "s3://bucket"), "snapshots comes first, after --json only");
        assertUsage(
                run(NEVER, "snapshots", "list", "s3://bucket", "--bootstrap-server"),
                "--bootstrap-server needs a value");
        assertUsage(
                run(NEVER, "snapshots", "list", "s3://bucket", "--command-config", "/no/such/admin.properties"),
                "no such file: /no/such/admin.properties");
        assertUsage(
                run(NEVER, "snapshots", "list", "s3://bucket", "--command-config", "pom.xml"),
                "--command-config goes with --bootstrap-server");
    }

    @Test
    void aPathThatIsNoDirectoryOrNoStoreIsAUsageError() throws IOException {
        Path missing = dir.resolve("missing");
        assertUsage(run(NEVER, "inspect", missing.toString()), "no such directory: " + missing);
        assertUsage(run(NEVER, "verify", missing.toString()), "no such directory: " + missing);
        Path file = Files.writeString(dir.resolve("file"), "x");
        assertUsage(run(NEVER, "inspect", file.toString()), "not a directory: " + file);
        Path app = fakeApp(dir.resolve("app"));
        fakeStore(app.resolve("0_1/counts"));
        assertUsage(run(NEVER, "verify", app.toString()), app.toRealPath() + " is not a store's directory");
        assertUsage(
                run(NEVER, "dump", app.resolve("0_1").toString()),
                app.toRealPath().resolve("0_1") + " is not a store's directory");
        Path kafka = fakeStore(app.resolve("0_1/rocksdb/kv"));
        assertUsage(
                run(NEVER, "verify", kafka.toString()), kafka.toRealPath() + " is one of Kafka Streams' own stores");
        Path segment = fakeStore(app.resolve("0_1/windows/windows.1700000000000"));
        assertUsage(
                run(NEVER, "dump", segment.toString()),
                segment.toRealPath().getParent() + " is one of Kafka Streams' own stores");
        assertUsage(
                run(NEVER, "dump", segment.getParent().toString()),
                segment.toRealPath().getParent() + " is one of Kafka Streams' own stores");
        Path restoring = Files.createDirectories(app.resolve("0_1/.counts.restoring"));
        assertUsage(run(NEVER, "verify", restoring.toString()), restoring.toRealPath() + " is a snapshot restore");
    }

    @Test
    void optionsGoAnywhereInEitherForm() throws ToolArguments.UsageException {
        ToolArguments args = ToolArguments.parse(new String[] {
            "--hex", "dump", "--from=hex:0aff", "/state/app/0_1/counts", "--json", "--to", "zz", "--limit=7"
        });
        assertEquals(ToolArguments.Command.DUMP, args.command());
        assertTrue(args.json());
        assertTrue(args.hex());
        assertEquals(Path.of("/state/app/0_1/counts"), args.dir());
        assertArrayEquals(new byte[] {0x0a, (byte) 0xff}, args.from());
        assertArrayEquals("zz".getBytes(StandardCharsets.UTF_8), args.to());
        assertEquals(7, args.limit());

        ToolArguments defaults = ToolArguments.parse(new String[] {"dump", "store"});
        assertFalse(defaults.json());
        assertNull(defaults.from());
        assertNull(defaults.to());
        assertEquals(ToolArguments.DEFAULT_LIMIT, defaults.limit());

        ToolArguments dashed = ToolArguments.parse(new String[] {"inspect", "--", "--odd-name"});
        assertEquals(Path.of("--odd-name"), dashed.dir());
        assertThrows(
                ToolArguments.UsageException.class,
                () -> ToolArguments.parse(new String[] {"inspect", "--", "a", "b"}));
    }
}
