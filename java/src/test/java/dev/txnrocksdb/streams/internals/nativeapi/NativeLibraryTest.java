package dev.txnrocksdb.streams.internals.nativeapi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.AclEntry;
import java.nio.file.attribute.AclEntryPermission;
import java.nio.file.attribute.AclEntryType;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

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
        IllegalArgumentException arch =
                assertThrows(IllegalArgumentException.class, () -> NativeLibrary.platform("Linux", "s390x"));
        assertTrue(arch.getMessage().contains("s390x"), arch.getMessage());
        IllegalArgumentException os =
                assertThrows(IllegalArgumentException.class, () -> NativeLibrary.platform("AIX", "ppc64"));
        assertTrue(os.getMessage().contains("AIX"), os.getMessage());
    }

    @Test
    void resourcePathIsUnderNative() {
        assertEquals("/native/linux-x86_64/libtxn_rocksdb_jni.so", NativePlatform.resourcePath("linux-x86_64"));
    }

    @Test
    void loadsFromTheJarResourcesAndIsIdempotent() {
        assertDoesNotThrow(NativeLibrary::load);
        assertDoesNotThrow(NativeLibrary::load);
    }

    @Test
    void theBuildPackagedTheLibraryOfThisMachineAndItsVersionIsTheJars() {
        String platform = NativeLibrary.platform(System.getProperty("os.name"), System.getProperty("os.arch"));
        assertTrue(
                NativeLibrary.class.getResource(NativePlatform.resourcePath(platform)) != null,
                "the build must put the library under " + NativePlatform.resourcePath(platform));
        // The jar's Maven version (pom.xml) and the crate's (Cargo.toml) are one version.
        NativeLibrary.load();
        assertEquals(
                LibraryVersion.nativeVersionFor(LibraryVersion.jarVersionFromResource()),
                new SystemHost().nativeVersion());
    }

    @Test
    void snapshotVersionsNeedTheirRelease() {
        assertEquals("0.1.0", LibraryVersion.nativeVersionFor("0.1.0-SNAPSHOT"));
        assertEquals("0.2.0", LibraryVersion.nativeVersionFor("0.2.0"));
    }

    @Test
    void muslIsRecognizedFromTheMemoryMap() {
        assertTrue(NativePlatform.mapsShowMusl(
                List.of("7f0c4a1e5000-7f0c4a1fa000 r-xp 00000000 08:01 1234 /lib/ld-musl-x86_64.so.1")));
        assertFalse(NativePlatform.mapsShowMusl(
                List.of("7f0c4a1e5000-7f0c4a1fa000 r-xp 00000000 08:01 1234 /usr/lib/x86_64-linux-gnu/libc.so.6")));
        assertFalse(new SystemHost().musl(), "this test machine runs glibc");
    }

    @Test
    void muslIsRefusedNamingTheLibc() {
        FakeHost host = new FakeHost();
        host.musl = true;
        UnsatisfiedLinkError e = assertThrows(UnsatisfiedLinkError.class, () -> new LibraryLoader(host).load());
        assertTrue(
                e.getMessage().startsWith("txn-rocksdb does not support musl libc (e.g. Alpine Linux)"),
                e.getMessage());
        assertTrue(
                e.getMessage().contains("/native/linux-x86_64/libtxn_rocksdb_jni.so is built for glibc"),
                e.getMessage());
        assertTrue(
                e.getMessage().contains(NativeLibrary.DIR_PROPERTY)
                        && e.getMessage().contains(NativeLibrary.DIR_ENV),
                e.getMessage());
        assertTrue(host.loadedFiles.isEmpty(), "nothing loaded");
    }

    @Test
    void aMissingResourceNamesThePlatformTheResourceAndTheOverride() {
        FakeHost host = new FakeHost();
        host.osArch = "aarch64";
        UnsatisfiedLinkError e = assertThrows(UnsatisfiedLinkError.class, () -> new LibraryLoader(host).load());
        assertTrue(
                e.getMessage()
                        .startsWith(
                                "txn-rocksdb has no native library for platform linux-aarch64: the jar has no resource "
                                        + "/native/linux-aarch64/libtxn_rocksdb_jni.so"),
                e.getMessage());
        assertTrue(
                e.getMessage()
                        .contains("no override directory is set (system property txn.rocksdb.native.dir or environment "
                                + "variable TXN_ROCKSDB_NATIVE_DIR)"),
                e.getMessage());
        assertTrue(
                e.getMessage()
                        .contains(
                                "use txn-rocksdb's release jar: it carries libraries for linux-x86_64, linux-aarch64, "
                                        + "darwin-aarch64, darwin-x86_64, windows-x86_64"),
                e.getMessage());
        assertTrue(e.getMessage().contains("scripts/build-native.sh --platform=linux-aarch64 DIR"), e.getMessage());
    }

    @Test
    void anUnsupportedArchitectureIsNamed() {
        FakeHost host = new FakeHost();
        host.osArch = "s390x";
        UnsatisfiedLinkError e = assertThrows(UnsatisfiedLinkError.class, () -> new LibraryLoader(host).load());
        assertTrue(
                e.getMessage()
                        .startsWith("txn-rocksdb has no native library for os.name='Linux', os.arch='s390x' "
                                + "(unsupported architecture 's390x')"),
                e.getMessage());
        assertTrue(
                e.getMessage()
                        .endsWith("txn-rocksdb's release jar carries libraries for linux-x86_64, linux-aarch64, "
                                + "darwin-aarch64, darwin-x86_64, windows-x86_64 only."),
                e.getMessage());
    }

    @Test
    void aBogusOverrideDirectoryFailsNamingIt() throws IOException {
        Path notADirectory = Files.writeString(tmp.resolve("not-a-directory"), "x");
        FakeHost host = new FakeHost();
        host.overrideDir = notADirectory;
        host.overrideSource = "system property " + NativeLibrary.DIR_PROPERTY;
        UnsatisfiedLinkError e = assertThrows(UnsatisfiedLinkError.class, () -> new LibraryLoader(host).load());
        assertTrue(
                e.getMessage()
                        .startsWith(
                                "txn-rocksdb cannot extract its native library /native/linux-x86_64/libtxn_rocksdb_jni.so "
                                        + "for platform linux-x86_64 to " + notADirectory),
                e.getMessage());
        assertTrue(
                e.getMessage()
                        .contains("the override directory " + notADirectory
                                + " (system property txn.rocksdb.native.dir) holds no " + "libtxn_rocksdb_jni.so"),
                e.getMessage());
        assertTrue(host.loadedFiles.isEmpty(), "nothing loaded");
    }

    @Test
    void aStaleLibraryOnTheLibraryPathFailsNamingBothVersions() {
        FakeHost host = new FakeHost();
        host.onLibraryPath = true;
        host.nativeVersion = "0.0.9";
        UnsatisfiedLinkError e = assertThrows(UnsatisfiedLinkError.class, () -> new LibraryLoader(host).load());
        assertInstanceOf(LibraryVersion.StaleLibraryError.class, e);
        assertTrue(
                e.getMessage()
                        .startsWith(
                                "txn-rocksdb: the native library loaded from 'libtxn_rocksdb_jni.so' on java.library.path"),
                e.getMessage());
        assertTrue(
                e.getMessage()
                        .contains(
                                "is version 0.0.9, but this jar (txn-rocksdb-streams 0.1.0-SNAPSHOT) needs version 0.1.0"),
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
        UnsatisfiedLinkError e = assertThrows(UnsatisfiedLinkError.class, () -> new LibraryLoader(host).load());
        assertEquals(
                "txn-rocksdb: the native library loaded from " + own + " (the override directory, environment variable "
                        + "TXN_ROCKSDB_NATIVE_DIR) is version older than 0.1.0 (it has no nativeVersion function), but this jar "
                        + "(txn-rocksdb-streams 0.1.0-SNAPSHOT) needs version 0.1.0. Remove the stale library, or replace it with a build of "
                        + "this version.",
                e.getMessage());
        assertEquals(List.of(own), host.loadedFiles, "the override directory's library comes first");
    }

    @Test
    void aLibraryOfTheRightVersionInTheOverrideDirectoryIsUsedAsIs() throws IOException {
        Path own = Files.writeString(
                tmp.resolve(System.mapLibraryName(NativeLibrary.LIBRARY_NAME)), "a build for this machine");
        FakeHost host = new FakeHost();
        host.overrideDir = tmp;
        host.overrideSource = "system property " + NativeLibrary.DIR_PROPERTY;
        host.musl = true; // a hand-made library is the way to run on a platform the jar has no build for
        assertTrue(new LibraryLoader(host).load().startsWith(own.toString()));
        assertEquals(List.of(own), host.loadedFiles);
    }

    @Test
    void theJarsLibraryIsExtractedOnceUnderAVersionedNameAndReused() throws IOException {
        FakeHost first = new FakeHost();
        first.defaultExtractDir = tmp.resolve("extract");
        new LibraryLoader(first).load();
        Path extracted = first.loadedFiles.get(0);
        assertEquals(first.defaultExtractDir, extracted.getParent());
        assertTrue(
                extracted.getFileName().toString().matches("libtxn_rocksdb_jni-0\\.1\\.0-SNAPSHOT-[0-9a-f]{16}\\.so"),
                extracted.toString());
        assertEquals(FakeHost.LIBRARY, Files.readString(extracted));
        long modified = Files.getLastModifiedTime(extracted).toMillis();

        FakeHost second = new FakeHost();
        second.defaultExtractDir = first.defaultExtractDir;
        new LibraryLoader(second).load();
        assertEquals(List.of(extracted), second.loadedFiles, "a second JVM loads the same file");
        assertEquals(modified, Files.getLastModifiedTime(extracted).toMillis(), "and does not rewrite it");
        assertEquals(List.of(extracted), list(first.defaultExtractDir), "no temporary copies are left");

        FakeHost rebuilt = new FakeHost();
        rebuilt.defaultExtractDir = first.defaultExtractDir;
        rebuilt.library = "another build of the same version";
        new LibraryLoader(rebuilt).load();
        assertFalse(rebuilt.loadedFiles.get(0).equals(extracted), "another build has another name");
    }

    @Test
    void aLibraryMatchingTheChecksumItsJarDeclaresIsLoaded() throws Exception {
        FakeHost host = new FakeHost();
        host.defaultExtractDir = tmp.resolve("extract");
        host.libraryProperties = "platform=linux-x86_64\nsha256=" + sha256Hex(FakeHost.LIBRARY) + "\n";
        new LibraryLoader(host).load();
        assertEquals(FakeHost.LIBRARY, Files.readString(host.loadedFiles.get(0)));
    }

    @Test
    void aLibraryNotMatchingTheChecksumItsJarDeclaresIsRefused() throws Exception {
        FakeHost host = new FakeHost();
        host.defaultExtractDir = tmp.resolve("extract");
        host.libraryProperties = "sha256=" + sha256Hex("another library") + "\n";
        UnsatisfiedLinkError e = assertThrows(UnsatisfiedLinkError.class, () -> new LibraryLoader(host).load());
        assertTrue(
                e.getMessage()
                        .startsWith(
                                "txn-rocksdb: the jar's native library /native/linux-x86_64/libtxn_rocksdb_jni.so does not "
                                        + "match the SHA-256 that /native/linux-x86_64/library.properties declares ("
                                        + sha256Hex("another library")
                                        + "; the library's is " + sha256Hex(FakeHost.LIBRARY) + ")"),
                e.getMessage());
        assertTrue(host.loadedFiles.isEmpty(), "nothing loaded");
        assertFalse(Files.exists(host.defaultExtractDir), "nothing extracted");
    }

    @Test
    void theBuildDescribesTheLibraryItPackaged() throws Exception {
        String platform = NativeLibrary.platform(System.getProperty("os.name"), System.getProperty("os.arch"));
        java.util.Properties properties = new java.util.Properties();
        try (InputStream in = NativeLibrary.class.getResourceAsStream(NativePlatform.libraryPropertiesPath(platform))) {
            assertTrue(in != null, "the build must write " + NativePlatform.libraryPropertiesPath(platform));
            properties.load(in);
        }
        byte[] library;
        try (InputStream in = NativeLibrary.class.getResourceAsStream(NativePlatform.resourcePath(platform))) {
            library = in.readAllBytes();
        }
        assertEquals(platform, properties.getProperty("platform"));
        assertEquals(sha256Hex(library), properties.getProperty("sha256"));
        assertEquals(Integer.toString(library.length), properties.getProperty("bytes"));
        assertEquals(
                LibraryVersion.nativeVersionFor(LibraryVersion.jarVersionFromResource()),
                properties.getProperty("version"));
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
                    new LibraryLoader(host).load();
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

    // ---------------------------------------------------------------- what an extraction trusts

    /** The versioned name the jar's (fake) library is extracted under. */
    private static Path versionedName(Path dir) throws Exception {
        return dir.resolve("libtxn_rocksdb_jni-0.1.0-SNAPSHOT-"
                + sha256Hex(FakeHost.LIBRARY).substring(0, 16) + ".so");
    }

    /** A file of the library's exact size, all zeros: what someone planting a library would leave. */
    private static Path plant(Path file) throws IOException {
        Files.createDirectories(file.getParent());
        return Files.write(file, new byte[FakeHost.LIBRARY.length()]);
    }

    private static Path directory(Path dir, String mode) throws IOException {
        Files.createDirectories(dir);
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString(mode));
        return dir;
    }

    private FakeHost hostExtractingTo(Path defaultDir) {
        FakeHost host = new FakeHost();
        host.defaultExtractDir = defaultDir;
        host.privateParent = tmp.resolve("private");
        return host;
    }

    /** The loaded file is the genuine library, in a private directory of this JVM's, not in {@code unsafe}. */
    private static Path assertLoadedPrivately(FakeHost host, Path unsafe) throws IOException {
        assertEquals(1, host.loadedFiles.size(), host.loadedFiles.toString());
        Path loaded = host.loadedFiles.get(0);
        assertNotEquals(unsafe.toAbsolutePath(), loaded.getParent(), "the unsafe directory was used");
        assertEquals(host.privateParent, loaded.getParent().getParent(), loaded.toString());
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(loaded.getParent())));
        assertEquals(FakeHost.LIBRARY, Files.readString(loaded));
        return loaded;
    }

    @ParameterizedTest
    @CsvSource({
        "rwxrwxrwx, its group and every user",
        "rwxrwx---, its group",
        "rwx-w--w-, its group and every user",
        "rwx---rwx, every user"
    })
    void aDefaultDirectoryOthersCanWriteToIsNeverUsed(String mode, String writers) throws Exception {
        Path shared = directory(tmp.resolve("txn-rocksdb-user"), mode);
        Path planted = plant(versionedName(shared));
        FakeHost host = hostExtractingTo(shared);
        new LibraryLoader(host).load();
        assertLoadedPrivately(host, shared);
        assertArrayEquals(
                new byte[FakeHost.LIBRARY.length()],
                Files.readAllBytes(planted),
                "someone else's directory is left alone");
        assertEquals(1, host.warnings.size(), host.warnings.toString());
        assertTrue(
                host.warnings
                        .get(0)
                        .startsWith("txn-rocksdb: not extracting its native library to " + shared
                                + ": it is writable by " + writers + " (mode " + mode + ")"),
                host.warnings.get(0));
        assertTrue(host.warnings.get(0).contains(NativeLibrary.DIR_PROPERTY), host.warnings.get(0));
    }

    @Test
    void aDefaultDirectoryOfAnotherUserIsNeverUsed() throws Exception {
        Path shared = directory(tmp.resolve("txn-rocksdb-user"), "rwx------");
        plant(versionedName(shared));
        FakeHost host = hostExtractingTo(shared);
        // The directory is this test's user's; the JVM loading the library runs as another user.
        host.currentUser =
                FileSystems.getDefault().getUserPrincipalLookupService().lookupPrincipalByName("nobody");
        new LibraryLoader(host).load();
        assertLoadedPrivately(host, shared);
        assertTrue(
                host.warnings
                        .get(0)
                        .contains(": it is owned by " + thisUser().getName()
                                + ", not by nobody, the user this JVM runs as"),
                host.warnings.get(0));
    }

    @Test
    void aDefaultDirectoryThatIsASymbolicLinkIsNeverUsed() throws Exception {
        Path elsewhere = directory(tmp.resolve("elsewhere"), "rwx------");
        plant(versionedName(elsewhere));
        Path link = Files.createSymbolicLink(tmp.resolve("txn-rocksdb-user"), elsewhere);
        FakeHost host = hostExtractingTo(link);
        new LibraryLoader(host).load();
        assertLoadedPrivately(host, elsewhere);
        assertTrue(
                host.warnings.get(0).contains(": it is a symbolic link (to " + elsewhere + "), which is not followed"),
                host.warnings.get(0));
    }

    @Test
    void aDefaultDirectoryOfThisUserWithNoOtherWritersIsUsedAndCreatedPrivate() throws Exception {
        Path dir = tmp.resolve("txn-rocksdb-user");
        FakeHost host = hostExtractingTo(dir);
        new LibraryLoader(host).load();
        assertEquals(List.of(versionedName(dir)), host.loadedFiles);
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)));
        assertEquals(List.of(), host.warnings);
        // r-x and rwxr-xr-x directories of this user are fine too: nobody else can add a file.
        FakeHost again = hostExtractingTo(directory(dir, "rwxr-xr-x"));
        new LibraryLoader(again).load();
        assertEquals(List.of(versionedName(dir)), again.loadedFiles);
        assertEquals(List.of(), again.warnings);
    }

    @Test
    void whenTheUserCannotBeToldTheLibraryGoesToAPrivateDirectory() throws Exception {
        Path dir = directory(tmp.resolve("txn-rocksdb-user"), "rwx------");
        FakeHost host = hostExtractingTo(dir);
        host.currentUser = null;
        new LibraryLoader(host).load();
        assertLoadedPrivately(host, dir);
        assertTrue(
                host.warnings.get(0).contains("the user this JVM runs as cannot be looked up"), host.warnings.get(0));
    }

    /** What sits under the library's name in a private directory, and what the loader must say when it replaces it. */
    @ParameterizedTest
    @CsvSource({
        "same size other bytes, SHA-256 ",
        "truncated, '10 bytes, not 27'",
        "symbolic link, a symbolic link to ",
        "directory, not a regular file"
    })
    void aFileUnderTheLibrarysNameThatIsNotTheLibraryIsReplacedNeverLoaded(String what, String said) throws Exception {
        Path dir = directory(tmp.resolve("txn-rocksdb-user"), "rwx------");
        Path target = versionedName(dir);
        Path linkedTo = tmp.resolve("planted-elsewhere.so");
        switch (what) {
            case "same size other bytes":
                plant(target);
                break;
            case "truncated":
                Files.writeString(target, FakeHost.LIBRARY.substring(0, 10));
                break;
            case "symbolic link":
                plant(linkedTo);
                Files.createSymbolicLink(target, linkedTo);
                break;
            default:
                Files.createDirectory(target);
                Files.writeString(target.resolve("inside"), "x");
                break;
        }
        FakeHost host = hostExtractingTo(dir);
        if (what.equals("directory")) {
            UnsatisfiedLinkError e = assertThrows(UnsatisfiedLinkError.class, () -> new LibraryLoader(host).load());
            assertTrue(e.getMessage().startsWith("txn-rocksdb cannot extract its native library"), e.getMessage());
            assertTrue(host.loadedFiles.isEmpty(), "nothing loaded");
        } else {
            new LibraryLoader(host).load();
            assertEquals(List.of(target), host.loadedFiles, "the genuine library, under its own name");
            assertFalse(Files.isSymbolicLink(target), "the link itself was replaced");
            assertEquals(FakeHost.LIBRARY, Files.readString(target));
            assertEquals(List.of(target), list(dir), "no temporary copies are left");
        }
        if (what.equals("symbolic link")) {
            assertArrayEquals(
                    new byte[FakeHost.LIBRARY.length()],
                    Files.readAllBytes(linkedTo),
                    "the link's target is left alone");
        }
        assertEquals(1, host.warnings.size(), host.warnings.toString());
        assertTrue(
                host.warnings
                        .get(0)
                        .startsWith("txn-rocksdb: replacing " + target + ", which is not the jar's native library "
                                + "/native/linux-x86_64/libtxn_rocksdb_jni.so (" + said),
                host.warnings.get(0));
    }

    @Test
    void anOverrideDirectoryIsUsedAsConfiguredButItsFilesAreVerified() throws Exception {
        Path override = directory(tmp.resolve("configured"), "rwxrwxrwx");
        Path planted = plant(versionedName(override));
        FakeHost host = hostExtractingTo(tmp.resolve("unused-default"));
        host.overrideDir = override;
        host.overrideSource = "system property " + NativeLibrary.DIR_PROPERTY;
        new LibraryLoader(host).load();
        assertEquals(List.of(planted), host.loadedFiles, "the configured directory, as configured");
        assertEquals(FakeHost.LIBRARY, Files.readString(planted), "but the planted file was replaced before loading");
        assertFalse(Files.exists(tmp.resolve("unused-default")));
    }

    @Test
    void aReadOnlyExtractionDirectoryNamesTheSettingThatMovesIt() throws Exception {
        Path notWritable = Files.writeString(tmp.resolve("tmp-is-a-file"), "x").resolve("txn-rocksdb-user");
        FakeHost host = hostExtractingTo(notWritable);
        UnsatisfiedLinkError e = assertThrows(UnsatisfiedLinkError.class, () -> new LibraryLoader(host).load());
        assertTrue(
                e.getMessage()
                        .startsWith(
                                "txn-rocksdb cannot extract its native library /native/linux-x86_64/libtxn_rocksdb_jni.so "
                                        + "for platform linux-x86_64 to " + notWritable),
                e.getMessage());
        assertTrue(
                e.getMessage()
                        .contains(
                                "If that directory is read-only (as /tmp can be in containers), point system property "
                                        + "txn.rocksdb.native.dir (or environment variable TXN_ROCKSDB_NATIVE_DIR) at a writable directory code may be loaded from"),
                e.getMessage());
    }

    @Test
    void aLibraryTheJvmCannotMapNamesNoexecAndTheSetting() throws Exception {
        FakeHost host = hostExtractingTo(tmp.resolve("txn-rocksdb-user"));
        host.loadFailure = new UnsatisfiedLinkError("/tmp/x.so: failed to map segment from shared object");
        UnsatisfiedLinkError e = assertThrows(UnsatisfiedLinkError.class, () -> new LibraryLoader(host).load());
        assertEquals(
                "txn-rocksdb extracted its native library /native/linux-x86_64/libtxn_rocksdb_jni.so to "
                        + versionedName(tmp.resolve("txn-rocksdb-user"))
                        + " (verified against its SHA-256), but the JVM cannot load it from there: "
                        + "/tmp/x.so: failed to map segment from shared object. If " + tmp.resolve("txn-rocksdb-user")
                        + " is on a file system "
                        + "mounted noexec (as /tmp often is in containers), point system property txn.rocksdb.native.dir (or environment variable "
                        + "TXN_ROCKSDB_NATIVE_DIR) at a directory code may be loaded from.",
                e.getMessage());
    }

    @Test
    void windowsAclsAllowWritesByTheOwnerSystemAndAdministratorsOnly() {
        UserPrincipal me = principal("HOST\\alice");
        AclEntry mine = allow(me, AclEntryPermission.WRITE_DATA, AclEntryPermission.READ_DATA);
        AclEntry system = allow(principal("NT AUTHORITY\\SYSTEM"), AclEntryPermission.WRITE_DATA);
        AclEntry admins = allow(principal("BUILTIN\\Administrators"), AclEntryPermission.ADD_FILE);
        AclEntry usersRead =
                allow(principal("BUILTIN\\Users"), AclEntryPermission.READ_DATA, AclEntryPermission.EXECUTE);
        assertEquals(null, DirectorySafety.whyUnsafe(me, List.of(mine, system, admins, usersRead), me));
        assertEquals(
                "its ACL lets BUILTIN\\Users write to it",
                DirectorySafety.whyUnsafe(
                        me, List.of(mine, allow(principal("BUILTIN\\Users"), AclEntryPermission.APPEND_DATA)), me));
        assertEquals(
                "its ACL lets Everyone write to it",
                DirectorySafety.whyUnsafe(
                        me, List.of(allow(principal("Everyone"), AclEntryPermission.WRITE_DATA)), me));
        AclEntry denyEveryone = AclEntry.newBuilder()
                .setType(AclEntryType.DENY)
                .setPrincipal(principal("Everyone"))
                .setPermissions(AclEntryPermission.WRITE_DATA)
                .build();
        assertEquals(null, DirectorySafety.whyUnsafe(me, List.of(mine, denyEveryone), me));
        assertEquals(
                "it is owned by HOST\\mallory, not by HOST\\alice, the user this JVM runs as",
                DirectorySafety.whyUnsafe(principal("HOST\\mallory"), List.of(mine), me));
    }

    private static UserPrincipal principal(String name) {
        return () -> name;
    }

    private static AclEntry allow(UserPrincipal who, AclEntryPermission... permissions) {
        return AclEntry.newBuilder()
                .setType(AclEntryType.ALLOW)
                .setPrincipal(who)
                .setPermissions(permissions)
                .build();
    }

    private static UserPrincipal thisUser() {
        UserPrincipal me = new SystemHost().currentUser();
        assertTrue(me != null, "the test's user can be looked up");
        return me;
    }

    private static List<Path> list(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.collect(Collectors.toList());
        }
    }

    /** A linux-x86_64 glibc machine whose jar (0.1.0-SNAPSHOT) holds a small fake library; nothing on java.library.path. */
    private static final class FakeHost implements LoaderHost {
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
        UserPrincipal currentUser = thisUser();
        /** Where {@link #createPrivateDirectory} makes its directories; null: the default temp dir. */
        Path privateParent;

        UnsatisfiedLinkError loadFailure;
        final List<Path> loadedFiles = new ArrayList<>();
        final List<String> warnings = new ArrayList<>();

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
            if (loadFailure != null) {
                throw loadFailure;
            }
            loadedFiles.add(file);
        }

        @Override
        public UserPrincipal currentUser() {
            return currentUser;
        }

        @Override
        public Path createPrivateDirectory() throws IOException {
            Files.createDirectories(privateParent);
            return Files.createTempDirectory(privateParent, "txn-rocksdb-");
        }

        @Override
        public void warn(String message) {
            warnings.add(message);
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
