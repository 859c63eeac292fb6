package dev.txnrocksdb.streams.loader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.txnrocksdb.streams.children.NativeLoadMain;
import dev.txnrocksdb.streams.fixtures.ChildJvm;
import dev.txnrocksdb.streams.internals.nativeapi.NativeLibrary;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The loader in fresh JVMs (this one has loaded the library already): a failure surfaces when a
 * supplier is created, with the same message every time, and the jar's library is extracted once
 * and reused by the next JVM. Its messages for simulated platforms are in {@code NativeLibraryTest}.
 */
class NativeLibraryLoadTest {
    @TempDir
    Path tmp;

    @Test
    void aBogusOverrideDirectoryFailsWhenASupplierIsCreatedNamingPlatformResourceAndOverride() throws Exception {
        Path notADirectory = Files.writeString(tmp.resolve("not-a-directory"), "x");
        List<String> out = run(notADirectory);
        String expected =
                "FAILED: txn-rocksdb cannot extract its native library /native/linux-x86_64/libtxn_rocksdb_jni.so for platform "
                        + "linux-x86_64 to " + notADirectory;
        assertEquals(3, out.size(), out.toString());
        assertTrue(out.get(0).startsWith(expected), out.get(0));
        assertTrue(
                out.get(0)
                        .contains("the override directory " + notADirectory
                                + " (system property txn.rocksdb.native.dir)"),
                out.get(0));
        assertEquals(out.get(0), out.get(1), "the second supplier gets the same error, not a NoClassDefFoundError");
    }

    @Test
    void theJarsLibraryIsExtractedOnceAndReusedByTheNextJvm() throws Exception {
        Path dir = tmp.resolve("native");
        assertEquals(List.of("LOADED", "LOADED", "DONE"), run(dir));
        List<Path> files = list(dir);
        assertEquals(1, files.size(), files.toString());
        assertTrue(
                files.get(0)
                        .getFileName()
                        .toString()
                        .matches("libtxn_rocksdb_jni-0\\.1\\.0-SNAPSHOT-[0-9a-f]{16}\\.so"),
                files.toString());
        long modified = Files.getLastModifiedTime(files.get(0)).toMillis();

        assertEquals(List.of("LOADED", "LOADED", "DONE"), run(dir));
        assertEquals(files, list(dir));
        assertEquals(modified, Files.getLastModifiedTime(files.get(0)).toMillis(), "the second JVM reused the file");
    }

    // ---------------------------------------------------------------- extraction to the shared temp dir, in real JVMs

    /** The jar's library for this machine, as the test class path holds it. */
    private static byte[] library() throws Exception {
        String platform = NativeLibrary.platform(System.getProperty("os.name"), System.getProperty("os.arch"));
        try (InputStream in = NativeLibrary.class.getResourceAsStream(
                "/native/" + platform + "/" + System.mapLibraryName("txn_rocksdb_jni"))) {
            return in.readAllBytes();
        }
    }

    /** The name the loader extracts the library under. */
    private static String versionedName(byte[] library) throws Exception {
        StringBuilder hex = new StringBuilder();
        for (byte b : MessageDigest.getInstance("SHA-256").digest(library)) {
            hex.append(String.format("%02x", b));
        }
        return "libtxn_rocksdb_jni-0.1.0-SNAPSHOT-" + hex.substring(0, 16) + ".so";
    }

    /** A JVM whose java.io.tmpdir is {@code tmpdir}, with no override directory; returns its output. */
    private static List<String> runWithTempDir(Path tmpdir) throws Exception {
        ChildJvm child = ChildJvm.start(withTempDir(tmpdir), NativeLoadMain.class, "-");
        assertEquals(0, child.awaitExit(), child.output().toString());
        return child.output();
    }

    private static ChildJvm.Launcher withTempDir(Path tmpdir, String... jvmOptions) {
        List<String> options = new ArrayList<>(List.of("-Djava.io.tmpdir=" + tmpdir));
        options.addAll(List.of(jvmOptions));
        return new ChildJvm.Launcher(
                ChildJvm.Launcher.THIS_JVM.java(), ChildJvm.Launcher.THIS_JVM.classPath(), options);
    }

    private static String from(List<String> output) {
        return output.stream()
                .filter(l -> l.startsWith("FROM: "))
                .findFirst()
                .orElseThrow(() -> new AssertionError(output.toString()));
    }

    /** The reproduction of the planted-library report: a same-size file in a world-writable txn-rocksdb-<user>. */
    @Test
    void aLibraryPlantedInAWorldWritableTempDirectoryIsNeverLoaded() throws Exception {
        byte[] library = library();
        Path tmpdir = Files.createDirectory(tmp.resolve("shared-tmp"));
        Path planted = Files.createDirectory(tmpdir.resolve("txn-rocksdb-" + System.getProperty("user.name")));
        Files.setPosixFilePermissions(planted, PosixFilePermissions.fromString("rwxrwxrwx"));
        Path plantedFile = Files.write(planted.resolve(versionedName(library)), new byte[library.length]);

        List<String> out = runWithTempDir(tmpdir);
        assertEquals(
                List.of("LOADED", "LOADED"),
                out.stream().filter(l -> l.equals("LOADED")).collect(Collectors.toList()),
                out.toString());
        assertTrue(from(out).startsWith("FROM: " + tmpdir.resolve("txn-rocksdb-")), out.toString());
        assertFalse(from(out).startsWith("FROM: " + planted + "/"), "the planted directory was used: " + out);
        assertTrue(
                out.stream()
                        .anyMatch(l -> l.contains("WARN")
                                && l.contains("not extracting its native library to " + planted
                                        + ": it is writable by its group and every user (mode rwxrwxrwx)")),
                out.toString());
        assertArrayEquals(
                new byte[library.length], Files.readAllBytes(plantedFile), "someone else's file is left alone");
        assertEquals(List.of(planted), list(tmpdir), "the JVM's private directory is removed at exit");
    }

    /**
     * The other ways someone else's file reaches the extraction name: the user's directory is a
     * link to theirs, the directory is theirs (made by another user before this one's first run),
     * or the library's name in the user's own directory is a link to their file.
     */
    @ParameterizedTest
    @ValueSource(strings = {"linked directory", "directory of another user", "linked file"})
    void aPlantedLibraryReachedThroughALinkOrAnotherUsersDirectoryIsNeverLoaded(String how) throws Exception {
        byte[] library = library();
        Path tmpdir = Files.createDirectory(tmp.resolve("shared-tmp"));
        Path own = tmpdir.resolve("txn-rocksdb-" + System.getProperty("user.name"));
        Path theirs = Files.createDirectory(tmp.resolve("theirs"));
        Path planted = Files.write(
                theirs.resolve(how.equals("linked file") ? "planted.so" : versionedName(library)),
                new byte[library.length]);
        switch (how) {
            case "linked directory":
                Files.createSymbolicLink(own, theirs);
                break;
            case "directory of another user":
                assumeTrue(
                        System.getProperty("user.name").equals("root"),
                        "giving a directory to another user needs root");
                Files.move(theirs, own);
                planted = own.resolve(versionedName(library));
                Files.setOwner(
                        own, own.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody"));
                break;
            default:
                Files.createDirectory(
                        own, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
                Files.createSymbolicLink(own.resolve(versionedName(library)), planted);
                break;
        }
        List<String> out = runWithTempDir(tmpdir);
        assertEquals(
                List.of("LOADED", "LOADED"),
                out.stream().filter(l -> l.equals("LOADED")).collect(Collectors.toList()),
                out.toString());
        assertArrayEquals(new byte[library.length], Files.readAllBytes(planted), "someone else's file is left alone");
        if (how.equals("linked file")) {
            Path name = own.resolve(versionedName(library));
            assertTrue(from(out).startsWith("FROM: " + name + " "), out.toString());
            assertFalse(Files.isSymbolicLink(name), "the link was replaced by the library");
            assertArrayEquals(library, Files.readAllBytes(name));
        } else {
            assertFalse(from(out).startsWith("FROM: " + own + "/"), "the unsafe directory was used: " + out);
            assertTrue(
                    out.stream()
                            .anyMatch(l ->
                                    l.contains("WARN") && l.contains("not extracting its native library to " + own)),
                    out.toString());
        }
    }

    @Test
    void aDamagedEarlierExtractionIsRepairedNotLoaded() throws Exception {
        byte[] library = library();
        Path tmpdir = Files.createDirectory(tmp.resolve("own-tmp"));
        Path dir = Files.createDirectory(
                tmpdir.resolve("txn-rocksdb-" + System.getProperty("user.name")),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Path damaged = Files.write(dir.resolve(versionedName(library)), new byte[library.length]);

        List<String> out = runWithTempDir(tmpdir);
        assertTrue(from(out).startsWith("FROM: " + damaged + " "), out.toString());
        assertArrayEquals(library, Files.readAllBytes(damaged));
        assertEquals(List.of(damaged), list(dir), "no temporary copies are left");
    }

    @Test
    void twoJvmsExtractingAtOnceLoadOneGenuineFile() throws Exception {
        byte[] library = library();
        Path tmpdir = Files.createDirectory(tmp.resolve("race-tmp"));
        ChildJvm first = ChildJvm.start(withTempDir(tmpdir), NativeLoadMain.class, "-");
        ChildJvm second = ChildJvm.start(withTempDir(tmpdir), NativeLoadMain.class, "-");
        assertEquals(0, first.awaitExit(), first.output().toString());
        assertEquals(0, second.awaitExit(), second.output().toString());
        Path dir = tmpdir.resolve("txn-rocksdb-" + System.getProperty("user.name"));
        Path file = dir.resolve(versionedName(library));
        assertTrue(
                from(first.output()).startsWith("FROM: " + file + " "),
                first.output().toString());
        assertTrue(
                from(second.output()).startsWith("FROM: " + file + " "),
                second.output().toString());
        assertArrayEquals(library, Files.readAllBytes(file));
        assertEquals(List.of(file), list(dir), "no temporary copies are left");
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)));
    }

    /**
     * A JVM whose java.io.tmpdir is a fresh tmpfs mounted with {@code options} in a mount namespace
     * of its own (so nothing outlives it): needs root, as the test command runs.
     */
    private static List<String> runOnMount(Path mountPoint, String options, String... jvmOptions) throws Exception {
        Files.createDirectories(mountPoint);
        List<String> wrapper = List.of(
                "unshare",
                "-m",
                "sh",
                "-c",
                "mount -t tmpfs -o " + options + " tmpfs \"$0\" && exec \"$@\"",
                mountPoint.toString());
        ChildJvm child = ChildJvm.startWrapped(wrapper, withTempDir(mountPoint, jvmOptions), NativeLoadMain.class, "-");
        assertEquals(0, child.awaitExit(), child.output().toString());
        return child.output();
    }

    private static boolean canMount() throws Exception {
        Process p = new ProcessBuilder("unshare", "-m", "true")
                .redirectErrorStream(true)
                .start();
        return p.waitFor() == 0;
    }

    @Test
    void aNoexecTempDirectoryFailsNamingTheSettingAndTheSettingWorks() throws Exception {
        assumeTrue(canMount(), "mounting a noexec tmpfs needs root (unshare -m); the test command runs as root");
        Path mountPoint = tmp.resolve("noexec-tmp");
        List<String> out = runOnMount(mountPoint, "noexec");
        String failed = out.stream()
                .filter(l -> l.startsWith("FAILED: "))
                .findFirst()
                .orElseThrow(() -> new AssertionError(out.toString()));
        assertTrue(failed.startsWith("FAILED: txn-rocksdb extracted its native library "), failed);
        assertTrue(failed.contains("but the JVM cannot load it from there"), failed);
        assertTrue(
                failed.contains(
                        "mounted noexec (as /tmp often is in containers), point system property txn.rocksdb.native.dir "
                                + "(or environment variable TXN_ROCKSDB_NATIVE_DIR) at a directory code may be loaded from."),
                failed);

        Path elsewhere = tmp.resolve("exec-allowed");
        List<String> fixed = runOnMount(mountPoint, "noexec", "-Dtxn.rocksdb.native.dir=" + elsewhere);
        assertTrue(
                from(fixed).startsWith("FROM: " + elsewhere.resolve(versionedName(library())) + " "), fixed.toString());
    }

    @Test
    void aReadOnlyTempDirectoryFailsNamingTheSetting() throws Exception {
        assumeTrue(canMount(), "mounting a read-only tmpfs needs root (unshare -m); the test command runs as root");
        List<String> out = runOnMount(tmp.resolve("read-only-tmp"), "ro");
        String failed = out.stream()
                .filter(l -> l.startsWith("FAILED: "))
                .findFirst()
                .orElseThrow(() -> new AssertionError(out.toString()));
        assertTrue(failed.startsWith("FAILED: txn-rocksdb cannot extract its native library "), failed);
        assertTrue(
                failed.contains(
                        "If that directory is read-only (as /tmp can be in containers), point system property "
                                + "txn.rocksdb.native.dir (or environment variable TXN_ROCKSDB_NATIVE_DIR) at a writable directory"),
                failed);
    }

    private static List<String> run(Path overrideDir) throws Exception {
        ChildJvm child = ChildJvm.start(NativeLoadMain.class, overrideDir.toString());
        child.awaitLine("DONE");
        return child.output().stream()
                .filter(l -> l.equals("LOADED") || l.equals("DONE") || l.startsWith("FAILED: "))
                .collect(Collectors.toList());
    }

    private static List<Path> list(Path dir) throws Exception {
        try (Stream<Path> files = Files.list(dir)) {
            return files.collect(Collectors.toList());
        }
    }
}
