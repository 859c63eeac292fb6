package dev.txnrocksdb.streams.internals.nativeapi;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NativeLibraryTest {
    @TempDir
    Path tmp;

    @Test
    void platformNamesFollowTheJarLayout() {
        assertEquals("linux-x86_64", NativeLibrary.platform("Linux", "amd64"));
        assertEquals("linux-x86_64", NativeLibrary.platform("Linux", "x86_64"));
        assertEquals("linux-aarch64", NativeLibrary.platform("Linux", "aarch64"));
        assertEquals("darwin-aarch64", NativeLibrary.platform("Mac OS X", "aarch64"));
    }

    @Test
    void unsupportedPlatformsAreNamed() {
        IllegalArgumentException arch = assertThrows(IllegalArgumentException.class, () -> NativeLibrary.platform("Linux", "s390x"));
        assertTrue(arch.getMessage().contains("s390x"), arch.getMessage());
        IllegalArgumentException os = assertThrows(IllegalArgumentException.class, () -> NativeLibrary.platform("AIX", "ppc64"));
        assertTrue(os.getMessage().contains("AIX"), os.getMessage());
    }

    @Test
    void resourcePathIsUnderNative() {
        assertEquals("/native/linux-x86_64/libtxn_rocksdb_jni.so", NativeLibrary.resourcePath("linux-x86_64"));
    }

    @Test
    void loadsFromTheJarResourcesAndIsIdempotent() {
        assertDoesNotThrow(NativeLibrary::load);
        assertDoesNotThrow(NativeLibrary::load);
    }

    @Test
    void theBuildPackagedTheLibraryOfThisMachineAndItsVersionIsTheJars() {
        String platform = NativeLibrary.platform(System.getProperty("os.name"), System.getProperty("os.arch"));
        assertTrue(NativeLibrary.class.getResource(NativeLibrary.resourcePath(platform)) != null,
            "the build must put the library under " + NativeLibrary.resourcePath(platform));
        // The jar's Maven version (pom.xml) and the crate's (Cargo.toml) are one version.
        NativeLibrary.load();
        assertEquals(NativeLibrary.nativeVersionFor(NativeLibrary.jarVersionFromResource()), new NativeLibrary.SystemHost().nativeVersion());
    }

    @Test
    void snapshotVersionsNeedTheirRelease() {
        assertEquals("0.1.0", NativeLibrary.nativeVersionFor("0.1.0-SNAPSHOT"));
        assertEquals("0.2.0", NativeLibrary.nativeVersionFor("0.2.0"));
    }

    @Test
    void muslIsRecognizedFromTheMemoryMap() {
        assertTrue(NativeLibrary.mapsShowMusl(List.of(
            "7f0c4a1e5000-7f0c4a1fa000 r-xp 00000000 08:01 1234 /lib/ld-musl-x86_64.so.1")));
        assertFalse(NativeLibrary.mapsShowMusl(List.of(
            "7f0c4a1e5000-7f0c4a1fa000 r-xp 00000000 08:01 1234 /usr/lib/x86_64-linux-gnu/libc.so.6")));
        assertFalse(new NativeLibrary.SystemHost().musl(), "this test machine runs glibc");
    }

    @Test
    void muslIsRefusedNamingTheLibc() {
        FakeHost host = new FakeHost();
        host.musl = true;
        UnsatisfiedLinkError e = assertThrows(UnsatisfiedLinkError.class, () -> new NativeLibrary.Loader(host).load());
        assertTrue(e.getMessage().startsWith("txn-rocksdb does not support musl libc (e.g. Alpine Linux)"), e.getMessage());
        assertTrue(e.getMessage().contains("/native/linux-x86_64/libtxn_rocksdb_jni.so is built for glibc"), e.getMessage());
        assertTrue(e.getMessage().contains(NativeLibrary.DIR_PROPERTY) && e.getMessage().contains(NativeLibrary.DIR_ENV), e.getMessage());
        assertTrue(host.loadedFiles.isEmpty(), "nothing loaded");
    }

    @Test
    void aMissingResourceNamesThePlatformTheResourceAndTheOverride() {
        FakeHost host = new FakeHost();
        host.osArch = "aarch64";
        UnsatisfiedLinkError e = assertThrows(UnsatisfiedLinkError.class, () -> new NativeLibrary.Loader(host).load());
        assertTrue(e.getMessage().startsWith("txn-rocksdb has no native library for platform linux-aarch64: the jar has no resource "
            + "/native/linux-aarch64/libtxn_rocksdb_jni.so"), e.getMessage());
        assertTrue(e.getMessage().contains("no override directory is set (system property txn.rocksdb.native.dir or environment "
            + "variable TXN_ROCKSDB_NATIVE_DIR)"), e.getMessage());
        assertTrue(e.getMessage().contains("rebuild the jar on a linux-aarch64 machine"), e.getMessage());
    }

    @Test
    void anUnsupportedArchitectureIsNamed() {
        FakeHost host = new FakeHost();
        host.osArch = "s390x";
        UnsatisfiedLinkError e = assertThrows(UnsatisfiedLinkError.class, () -> new NativeLibrary.Loader(host).load());
        assertTrue(e.getMessage().startsWith("txn-rocksdb has no native library for os.name='Linux', os.arch='s390x' "
            + "(unsupported architecture 's390x')"), e.getMessage());
    }

    @Test
    void aBogusOverrideDirectoryFailsNamingIt() throws IOException {
        Path notADirectory = Files.writeString(tmp.resolve("not-a-directory"), "x");
        FakeHost host = new FakeHost();
        host.overrideDir = notADirectory;
        host.overrideSource = "system property " + NativeLibrary.DIR_PROPERTY;
        UnsatisfiedLinkError e = assertThrows(UnsatisfiedLinkError.class, () -> new NativeLibrary.Loader(host).load());
        assertTrue(e.getMessage().startsWith("txn-rocksdb cannot extract its native library /native/linux-x86_64/libtxn_rocksdb_jni.so "
            + "for platform linux-x86_64 to " + notADirectory), e.getMessage());
        assertTrue(e.getMessage().contains("the override directory " + notADirectory + " (system property txn.rocksdb.native.dir) holds no "
            + "libtxn_rocksdb_jni.so"), e.getMessage());
        assertTrue(host.loadedFiles.isEmpty(), "nothing loaded");
    }

    @Test
    void aStaleLibraryOnTheLibraryPathFailsNamingBothVersions() {
        FakeHost host = new FakeHost();
        host.onLibraryPath = true;
        host.nativeVersion = "0.0.9";
        UnsatisfiedLinkError e = assertThrows(UnsatisfiedLinkError.class, () -> new NativeLibrary.Loader(host).load());
        assertInstanceOf(NativeLibrary.StaleLibraryError.class, e);
        assertTrue(e.getMessage().startsWith("txn-rocksdb: the native library loaded from 'libtxn_rocksdb_jni.so' on java.library.path"),
            e.getMessage());
        assertTrue(e.getMessage().contains("is version 0.0.9, but this jar (txn-rocksdb-streams 0.1.0-SNAPSHOT) needs version 0.1.0"),
            e.getMessage());
        assertTrue(host.loadedFiles.isEmpty(), "no fallback to the jar's library after a stale one was loaded");
    }

    @Test
    void aStaleLibraryInTheOverrideDirectoryFailsNamingItsFile() throws IOException {
        Path own = Files.writeString(tmp.resolve(System.mapLibraryName(NativeLibrary.LIBRARY_NAME)), "an old build");
        FakeHost host = new FakeHost();
        host.overrideDir = tmp;
        host.overrideSource = "environment variable " + NativeLibrary.DIR_ENV;
        host.onLibraryPath = true;
        host.nativeVersion = null; // a library from before the version check: no nativeVersion function
        UnsatisfiedLinkError e = assertThrows(UnsatisfiedLinkError.class, () -> new NativeLibrary.Loader(host).load());
        assertEquals("txn-rocksdb: the native library loaded from " + own + " (the override directory, environment variable "
            + "TXN_ROCKSDB_NATIVE_DIR) is version older than 0.1.0 (it has no nativeVersion function), but this jar "
            + "(txn-rocksdb-streams 0.1.0-SNAPSHOT) needs version 0.1.0. Remove the stale library, or replace it with a build of "
            + "this version.", e.getMessage());
        assertEquals(List.of(own), host.loadedFiles, "the override directory's library comes first");
    }

    @Test
    void aLibraryOfTheRightVersionInTheOverrideDirectoryIsUsedAsIs() throws IOException {
        Path own = Files.writeString(tmp.resolve(System.mapLibraryName(NativeLibrary.LIBRARY_NAME)), "a build for this machine");
        FakeHost host = new FakeHost();
        host.overrideDir = tmp;
        host.overrideSource = "system property " + NativeLibrary.DIR_PROPERTY;
        host.musl = true; // a hand-made library is the way to run on a platform the jar has no build for
        assertTrue(new NativeLibrary.Loader(host).load().startsWith(own.toString()));
        assertEquals(List.of(own), host.loadedFiles);
    }

    @Test
    void theJarsLibraryIsExtractedOnceUnderAVersionedNameAndReused() throws IOException {
        FakeHost first = new FakeHost();
        first.defaultExtractDir = tmp.resolve("extract");
        new NativeLibrary.Loader(first).load();
        Path extracted = first.loadedFiles.get(0);
        assertEquals(first.defaultExtractDir, extracted.getParent());
        assertTrue(extracted.getFileName().toString().matches("libtxn_rocksdb_jni-0\\.1\\.0-SNAPSHOT-[0-9a-f]{16}\\.so"), extracted.toString());
        assertEquals(FakeHost.LIBRARY, Files.readString(extracted));
        long modified = Files.getLastModifiedTime(extracted).toMillis();

        FakeHost second = new FakeHost();
        second.defaultExtractDir = first.defaultExtractDir;
        new NativeLibrary.Loader(second).load();
        assertEquals(List.of(extracted), second.loadedFiles, "a second JVM loads the same file");
        assertEquals(modified, Files.getLastModifiedTime(extracted).toMillis(), "and does not rewrite it");
        assertEquals(List.of(extracted), list(first.defaultExtractDir), "no temporary copies are left");

        FakeHost rebuilt = new FakeHost();
        rebuilt.defaultExtractDir = first.defaultExtractDir;
        rebuilt.library = "another build of the same version";
        new NativeLibrary.Loader(rebuilt).load();
        assertFalse(rebuilt.loadedFiles.get(0).equals(extracted), "another build has another name");
    }

    @Test
    void aLibraryMatchingTheChecksumItsJarDeclaresIsLoaded() throws Exception {
        FakeHost host = new FakeHost();
        host.defaultExtractDir = tmp.resolve("extract");
        host.libraryProperties = "platform=linux-x86_64\nsha256=" + sha256Hex(FakeHost.LIBRARY) + "\n";
        new NativeLibrary.Loader(host).load();
        assertEquals(FakeHost.LIBRARY, Files.readString(host.loadedFiles.get(0)));
    }

    @Test
    void aLibraryNotMatchingTheChecksumItsJarDeclaresIsRefused() throws Exception {
        FakeHost host = new FakeHost();
        host.defaultExtractDir = tmp.resolve("extract");
        host.libraryProperties = "sha256=" + sha256Hex("another library") + "\n";
        UnsatisfiedLinkError e = assertThrows(UnsatisfiedLinkError.class, () -> new NativeLibrary.Loader(host).load());
        assertTrue(e.getMessage().startsWith("txn-rocksdb: the jar's native library /native/linux-x86_64/libtxn_rocksdb_jni.so does not "
            + "match the SHA-256 that /native/linux-x86_64/library.properties declares (" + sha256Hex("another library")
            + "; the library's is " + sha256Hex(FakeHost.LIBRARY) + ")"), e.getMessage());
        assertTrue(host.loadedFiles.isEmpty(), "nothing loaded");
        assertFalse(Files.exists(host.defaultExtractDir), "nothing extracted");
    }

    @Test
    void theBuildDescribesTheLibraryItPackaged() throws Exception {
        String platform = NativeLibrary.platform(System.getProperty("os.name"), System.getProperty("os.arch"));
        java.util.Properties properties = new java.util.Properties();
        try (InputStream in = NativeLibrary.class.getResourceAsStream(NativeLibrary.libraryPropertiesPath(platform))) {
            assertTrue(in != null, "the build must write " + NativeLibrary.libraryPropertiesPath(platform));
            properties.load(in);
        }
        byte[] library;
        try (InputStream in = NativeLibrary.class.getResourceAsStream(NativeLibrary.resourcePath(platform))) {
            library = in.readAllBytes();
        }
        assertEquals(platform, properties.getProperty("platform"));
        assertEquals(sha256Hex(library), properties.getProperty("sha256"));
        assertEquals(Integer.toString(library.length), properties.getProperty("bytes"));
        assertEquals(NativeLibrary.nativeVersionFor(NativeLibrary.jarVersionFromResource()), properties.getProperty("version"));
    }

    private static String sha256Hex(String s) throws Exception {
        return sha256Hex(s.getBytes(StandardCharsets.UTF_8));
    }

    private static String sha256Hex(byte[] bytes) throws Exception {
        StringBuilder hex = new StringBuilder();
        for (byte b : java.security.MessageDigest.getInstance("SHA-256").digest(bytes)) {
            hex.append(String.format("%02x", b));
        }
        return hex.toString();
    }

    @Test
    void jvmsExtractingAtOnceAllLoadOneCompleteFile() throws Exception {
        Path dir = tmp.resolve("shared");
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Callable<Path>> jvms = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                jvms.add(() -> {
                    FakeHost host = new FakeHost();
                    host.overrideDir = dir;
                    host.overrideSource = "system property " + NativeLibrary.DIR_PROPERTY;
                    new NativeLibrary.Loader(host).load();
                    return host.loadedFiles.get(0);
                });
            }
            List<Path> loaded = new ArrayList<>();
            for (Future<Path> f : pool.invokeAll(jvms)) {
                loaded.add(f.get());
            }
            assertEquals(1, loaded.stream().distinct().count(), loaded.toString());
            assertEquals(FakeHost.LIBRARY, Files.readString(loaded.get(0)));
            assertEquals(List.of(loaded.get(0)), list(dir), "no temporary copies are left");
        } finally {
            pool.shutdownNow();
        }
    }

    private static List<Path> list(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.collect(Collectors.toList());
        }
    }

    /** A linux-x86_64 glibc machine whose jar (0.1.0-SNAPSHOT) holds a small fake library; nothing on java.library.path. */
    private static final class FakeHost implements NativeLibrary.Host {
        static final String LIBRARY = "not really a shared library";
        String osName = "Linux";
        String osArch = "amd64";
        boolean musl;
        String overrideSource;
        Path overrideDir;
        Path defaultExtractDir;
        String library = LIBRARY;
        String libraryProperties;
        boolean onLibraryPath;
        String nativeVersion = "0.1.0";
        final List<Path> loadedFiles = new ArrayList<>();

        @Override
        public String osName() {
            return osName;
        }

        @Override
        public String osArch() {
            return osArch;
        }

        @Override
        public boolean musl() {
            return musl;
        }

        @Override
        public String overrideSource() {
            return overrideSource;
        }

        @Override
        public Path overrideDir() {
            return overrideDir;
        }

        @Override
        public Path defaultExtractDir() {
            return defaultExtractDir;
        }

        @Override
        public String jarVersion() {
            return "0.1.0-SNAPSHOT";
        }

        @Override
        public InputStream resource(String path) {
            if (path.equals("/native/linux-x86_64/libtxn_rocksdb_jni.so")) {
                return new ByteArrayInputStream(library.getBytes(StandardCharsets.UTF_8));
            }
            if (path.equals("/native/linux-x86_64/library.properties") && libraryProperties != null) {
                return new ByteArrayInputStream(libraryProperties.getBytes(StandardCharsets.UTF_8));
            }
            return null;
        }

        @Override
        public void loadFromLibraryPath() {
            if (!onLibraryPath) {
                throw new UnsatisfiedLinkError("no txn_rocksdb_jni in java.library.path");
            }
        }

        @Override
        public void loadFile(Path file) {
            loadedFiles.add(file);
        }

        @Override
        public String nativeVersion() {
            if (nativeVersion == null) {
                throw new UnsatisfiedLinkError("'java.lang.String nativeVersion()'");
            }
            return nativeVersion;
        }
    }
}
