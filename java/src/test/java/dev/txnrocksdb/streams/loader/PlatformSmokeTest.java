package dev.txnrocksdb.streams.loader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.txnrocksdb.streams.children.CrashWriterMain;
import dev.txnrocksdb.streams.children.PlatformSmokeMain;
import dev.txnrocksdb.streams.children.SegmentedCrashWriterMain;
import dev.txnrocksdb.streams.fixtures.ChildJvm;
import dev.txnrocksdb.streams.internals.nativeapi.NativeLibrary;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The platform smoke test: in a child JVM that loads the library from the jar, a key-value, a window
 * and a session store are opened, written, committed and staged with more writes; the child is
 * killed with SIGKILL; a second child reopens the store and checks that exactly the commit is there
 * with a range scan ({@link PlatformSmokeMain}), under both transaction strategies.
 *
 * <p>In the test command the children are this JVM on its class path (this machine's platform).
 * {@code scripts/test-aarch64.sh} runs the same test with children on the aarch64 JDK under qemu and
 * on the release jar: system properties {@value #JAVA} (the children's {@code java}),
 * {@value #CLASS_PATH} (their class path) and {@value #PLATFORM} (the jar folder their library must
 * come from, e.g. {@code linux-aarch64}).
 */
class PlatformSmokeTest {
    static final String JAVA = "txn.rocksdb.smoke.java";
    static final String CLASS_PATH = "txn.rocksdb.smoke.classpath";
    static final String PLATFORM = "txn.rocksdb.smoke.platform";
    private static final long OFFSET = 31_337L;
    private static final int COMMITTED = 1_000;

    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({
        "kv, indexed-batch",
        "kv, secondary-store",
        "window, indexed-batch",
        "window, secondary-store",
        "session, indexed-batch",
        "session, secondary-store"
    })
    void aStoreKilledAfterACommitReopensWithExactlyThatCommit(String kind, String strategy) throws Exception {
        Path stateDir = Files.createDirectory(dir.resolve("state"));
        // A fresh temp dir: the children extract the library from the jar, as a new installation would.
        ChildJvm.Launcher launcher = new ChildJvm.Launcher(
                System.getProperty(JAVA, ChildJvm.Launcher.THIS_JVM.java()),
                System.getProperty(CLASS_PATH, ChildJvm.Launcher.THIS_JVM.classPath()),
                List.of(
                        "-Djava.io.tmpdir=" + Files.createDirectory(dir.resolve("tmp")),
                        "-XX:TieredStopAtLevel=1",
                        "-Xcheck:jni"));
        String platform = System.getProperty(
                PLATFORM, NativeLibrary.platform(System.getProperty("os.name"), System.getProperty("os.arch")));
        String store = "smoke-" + kind;

        ChildJvm writer = kind.equals("kv")
                ? ChildJvm.start(
                        launcher,
                        CrashWriterMain.class,
                        stateDir.toString(),
                        store,
                        Integer.toString(COMMITTED),
                        "500",
                        Long.toString(OFFSET),
                        strategy)
                : ChildJvm.start(
                        launcher,
                        SegmentedCrashWriterMain.class,
                        kind,
                        stateDir.toString(),
                        store,
                        Long.toString(OFFSET),
                        strategy);
        try {
            writer.awaitLine(CrashWriterMain.READY);
        } finally {
            writer.killAndAssertSigkill();
        }

        ChildJvm verifier = ChildJvm.start(
                launcher,
                PlatformSmokeMain.class,
                kind,
                stateDir.toString(),
                store,
                Long.toString(OFFSET),
                strategy,
                platform,
                Integer.toString(COMMITTED));
        assertEquals(0, verifier.awaitExit(), "the reopened store differs from its commit: " + verifier.output());
        assertTrue(
                verifier.output().stream().anyMatch(line -> line.startsWith(PlatformSmokeMain.VERIFIED + " " + kind)),
                "no verification line: " + verifier.output());
        verifier.output().forEach(System.out::println);
    }
}
