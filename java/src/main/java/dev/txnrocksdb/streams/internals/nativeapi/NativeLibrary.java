package dev.txnrocksdb.streams.internals.nativeapi;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads {@code libtxn_rocksdb_jni} once per JVM, and holds the settings of the whole process
 * ({@link #configureMemory}; natives in {@code rust/jni/src/library.rs}).
 *
 * <p>Where the library comes from, first match wins:
 * <ol>
 *   <li>the override directory ({@value #DIR_PROPERTY} system property, else the
 *       {@value #DIR_ENV} environment variable) if it holds a file named
 *       {@code libtxn_rocksdb_jni.so} ({@code .dylib} on macOS): a library built by hand, e.g.
 *       for a platform the jar does not carry;</li>
 *   <li>{@code java.library.path} ({@link System#loadLibrary(String)});</li>
 *   <li>the jar's {@code /native/<os>-<arch>/<library file>}, extracted to the override directory,
 *       else to {@code <java.io.tmpdir>/txn-rocksdb-<user.name>}, under a name carrying the jar's
 *       version and the library's SHA-256 ({@code libtxn_rocksdb_jni-0.1.0-SNAPSHOT-<hash>.so}):
 *       every JVM using the same jar reuses that one file. A jar whose
 *       {@code /native/<os>-<arch>/library.properties} declares another SHA-256 than the library's
 *       is refused (a damaged jar, or one put together from mismatched files).</li>
 * </ol>
 *
 * <p>What an extraction trusts: nothing it did not check. A file already under the versioned name
 * is loaded only if it is a regular file (a link is not followed) whose SHA-256 is the jar
 * library's; anything else there (planted, damaged, truncated, a link) is replaced by a copy
 * written to a temporary file in the same directory and moved over it, so JVMs starting together
 * never see half a file, and is never loaded. The default directory, in the shared temp dir, is
 * created {@code rwx------}, and used only while it is a directory (not a link) owned by this JVM's
 * user that nobody else can write to ({@code DirectorySafety}: POSIX owner and mode, or the owner
 * and ACL on Windows); otherwise it is left alone, the library goes to a fresh private directory
 * of this JVM's (removed at exit where the system allows) and a WARN names the unsafe directory
 * and why. An override directory is used as configured, its files verified the same way. A
 * read-only or {@code noexec} temp dir fails with a message naming the override setting.
 *
 * <p>Whichever is loaded, its version ({@code nativeVersion}, the Rust crate's) must be the jar's
 * (its Maven version without {@code -SNAPSHOT}): a stale library on {@code java.library.path} or in
 * the override directory fails the load with both versions named. The jar's libraries are built for
 * glibc; on musl libc (Alpine) the load fails saying so. Failures are
 * {@link UnsatisfiedLinkError}s naming the platform, the resource looked for and the override
 * directory; the first one is kept and thrown again by every later call, so the error a store
 * supplier's constructor throws (suppliers load the library when created) is the one a stream
 * thread would see. Thread-safe; later calls return immediately.
 */
public final class NativeLibrary {
    /** The name passed to {@link System#loadLibrary(String)}. */
    public static final String LIBRARY_NAME = "txn_rocksdb_jni";
    /** System property naming the override directory (see the class comment). */
    public static final String DIR_PROPERTY = "txn.rocksdb.native.dir";
    /** Environment variable naming the override directory when {@link #DIR_PROPERTY} is not set. */
    public static final String DIR_ENV = "TXN_ROCKSDB_NATIVE_DIR";
    /**
     * The platforms txn-rocksdb's release jar carries a library for ({@code scripts/release.sh
     * --platforms=all}; README, "Platforms"). A jar built by {@code mvn install} carries only the
     * library of the machine that built it.
     */
    static final List<String> RELEASE_PLATFORMS =
        List.of("linux-x86_64", "linux-aarch64", "darwin-aarch64", "darwin-x86_64", "windows-x86_64");
    /** The jar resource holding the jar's version (filtered by the build). */
    static final String JAR_PROPERTIES = "/native/txn-rocksdb.properties";

    private static final Logger LOG = LoggerFactory.getLogger(NativeLibrary.class);
    private static final Object LOCK = new Object();
    private static volatile boolean loaded;
    private static UnsatisfiedLinkError failure;
    private static String loadedFrom;

    private NativeLibrary() {}

    /**
     * Loads the native library unless this JVM already did.
     *
     * @throws UnsatisfiedLinkError if no library for this platform can be found or loaded, or the
     *     loaded one is another version than the jar's; the message names the platform, the
     *     resource looked for and the override directory
     */
    public static void load() {
        if (loaded) {
            return;
        }
        synchronized (LOCK) {
            if (loaded) {
                return;
            }
            if (failure == null) {
                try {
                    loadedFrom = new Loader(new SystemHost()).load();
                    loaded = true;
                    return;
                } catch (UnsatisfiedLinkError e) {
                    failure = e;
                }
            }
            UnsatisfiedLinkError again = new UnsatisfiedLinkError(failure.getMessage());
            again.initCause(failure);
            throw again;
        }
    }

    /**
     * Where the loaded library came from, for diagnostics: the file and whether it was the override
     * directory's, found on {@code java.library.path} or extracted from the jar (and from which
     * {@code /native/<os>-<arch>/} resource). Loads the library first if needed.
     *
     * @throws UnsatisfiedLinkError as {@link #load()}
     */
    public static String loadedFrom() {
        load();
        return loadedFrom;
    }

    /**
     * The {@code <os>-<arch>} folder name for a JVM's {@code os.name} and {@code os.arch}.
     *
     * @throws IllegalArgumentException for an operating system or architecture with no build
     */
    public static String platform(String osName, String osArch) {
        String os = osName.toLowerCase(Locale.ROOT);
        String arch = osArch.toLowerCase(Locale.ROOT);
        String osPart;
        if (os.startsWith("linux")) {
            osPart = "linux";
        } else if (os.startsWith("mac") || os.startsWith("darwin")) {
            osPart = "darwin";
        } else if (os.startsWith("windows")) {
            osPart = "windows";
        } else {
            throw new IllegalArgumentException("unsupported operating system '" + osName + "'");
        }
        String archPart;
        switch (arch) {
            case "amd64":
            case "x86_64":
                archPart = "x86_64";
                break;
            case "aarch64":
            case "arm64":
                archPart = "aarch64";
                break;
            default:
                throw new IllegalArgumentException("unsupported architecture '" + osArch + "'");
        }
        return osPart + "-" + archPart;
    }

    /** The jar resource that holds the library for a platform, e.g. {@code /native/linux-x86_64/libtxn_rocksdb_jni.so}. */
    static String resourcePath(String platform) {
        return "/native/" + platform + "/" + System.mapLibraryName(LIBRARY_NAME);
    }

    /** The jar resource describing a platform's library (version, SHA-256, toolchain), e.g. {@code /native/linux-x86_64/library.properties}. */
    static String libraryPropertiesPath(String platform) {
        return "/native/" + platform + "/library.properties";
    }

    /** The native version a jar version needs: the Maven version without {@code -SNAPSHOT}. */
    static String nativeVersionFor(String jarVersion) {
        return jarVersion.endsWith("-SNAPSHOT") ? jarVersion.substring(0, jarVersion.length() - "-SNAPSHOT".length()) : jarVersion;
    }

    /** True if a process's memory map ({@code /proc/self/maps} lines) shows musl's dynamic loader or libc. */
    static boolean mapsShowMusl(List<String> maps) {
        return maps.stream().anyMatch(line -> line.contains("ld-musl-") || line.contains("libc.musl-"));
    }

    /**
     * Sets the process-wide memory budget shared by every store: one LRU block cache of
     * {@code blockCacheBytes} and a write-buffer manager of {@code writeBufferBytes} whose
     * memtables are charged to that cache. Only takes effect before the first store of the process
     * opens. Loads the library first if needed.
     *
     * @return true if the budget was set; false (and nothing changed) once a store has opened
     * @throws IllegalArgumentException if either budget is not positive
     */
    public static boolean configureMemory(long blockCacheBytes, long writeBufferBytes) {
        load();
        return setMemoryBudget(blockCacheBytes, writeBufferBytes);
    }

    /**
     * What the loader reads from and does to the process; {@link SystemHost} is the real one,
     * tests simulate platforms, override directories and stale libraries with their own.
     */
    interface Host {
        String osName();

        String osArch();

        /** True on musl libc. */
        boolean musl();

        /** The override directory's setting as {@code "system property txn.rocksdb.native.dir"} or the like; null if unset. */
        String overrideSource();

        /** The override directory; null if unset. */
        Path overrideDir();

        /** Where the jar's library is extracted without an override. */
        Path defaultExtractDir();

        /** The jar's Maven version. */
        String jarVersion();

        /** A jar resource, or null if the jar does not hold it. */
        InputStream resource(String path);

        /** {@link System#loadLibrary}. */
        void loadFromLibraryPath();

        /** {@link System#load}. */
        void loadFile(Path file);

        /** The loaded library's version. */
        String nativeVersion();

        /** The user this JVM runs as, whose the default extraction directory must be; null if it cannot be told. */
        UserPrincipal currentUser();

        /** A new directory only this JVM's user can write to, removed at exit where possible. */
        Path createPrivateDirectory() throws IOException;

        /** Logs a warning. */
        void warn(String message);
    }

    /**
     * A library's SHA-256 (lower-case hex) and size. (A class rather than a record: the Gradle
     * build also compiles with Gradle 4.4, which knows no source level past 12.)
     */
    static final class Digest {
        final String sha256;
        final long size;

        private Digest(String sha256, long size) {
            this.sha256 = sha256;
            this.size = size;
        }

        static Digest of(InputStream in) throws IOException {
            MessageDigest sha = sha256();
            long size = new DigestInputStream(in, sha).transferTo(OutputStream.nullOutputStream());
            return new Digest(hex(sha.digest()), size);
        }
    }

    /** One load attempt's logic, separate from the JVM-wide state above. */
    static final class Loader {
        /** What {@link #mismatch} says when no file is there. */
        private static final String ABSENT = "absent";
        private final Host host;
        /** The private directory this load fell back to, if it did. */
        private Path privateDirectory;

        Loader(Host host) {
            this.host = host;
        }

        /** Loads a library as the class comment describes and checks its version; returns what was loaded. */
        String load() {
            String fileName = System.mapLibraryName(LIBRARY_NAME);
            Path overrideDir = host.overrideDir();
            if (overrideDir != null && Files.isRegularFile(overrideDir.resolve(fileName))) {
                Path own = overrideDir.resolve(fileName).toAbsolutePath();
                String what = own + " (the override directory, " + host.overrideSource() + ")";
                host.loadFile(own);
                checkVersion(what);
                return what;
            }
            UnsatisfiedLinkError notOnLibraryPath;
            try {
                host.loadFromLibraryPath();
                String what = "'" + fileName + "' on java.library.path (" + System.getProperty("java.library.path") + ")";
                checkVersion(what);
                return what;
            } catch (UnsatisfiedLinkError e) {
                if (e instanceof StaleLibraryError) {
                    throw e;
                }
                notOnLibraryPath = e;
            }
            String platform;
            try {
                platform = platform(host.osName(), host.osArch());
            } catch (IllegalArgumentException unsupported) {
                throw failure("txn-rocksdb has no native library for os.name='" + host.osName() + "', os.arch='"
                    + host.osArch() + "' (" + unsupported.getMessage() + "); " + lookedFor(null, fileName), notOnLibraryPath);
            }
            String resource = resourcePath(platform);
            if (platform.startsWith("linux-") && host.musl()) {
                throw failure("txn-rocksdb does not support musl libc (e.g. Alpine Linux): its native library " + resource
                    + " is built for glibc. Run on a glibc distribution (Debian, Ubuntu, RHEL, ...); " + lookedFor(null, fileName),
                    notOnLibraryPath);
            }
            Path extracted = extract(platform, resource, notOnLibraryPath);
            try {
                host.loadFile(extracted);
            } catch (UnsatisfiedLinkError e) {
                throw failure("txn-rocksdb extracted its native library " + resource + " to " + extracted
                    + " (verified against its SHA-256), but the JVM cannot load it from there: " + e.getMessage()
                    + ". If " + extracted.getParent() + " is on a file system mounted noexec (as /tmp often is in containers), "
                    + "point " + settingNames() + " at a directory code may be loaded from.", e);
            }
            String what = extracted + " (extracted from the jar's " + resource + ")";
            checkVersion(what);
            return what;
        }

        /**
         * Extracts the jar's library under its versioned name into the extraction directory (see
         * {@link #extractionDirectory}) and returns the file to load: an existing file is used only
         * if it is a regular file (not a link) whose SHA-256 is the library's; anything else under
         * that name is replaced by a fresh copy, written to a temporary file in the same directory
         * and moved over it, so JVMs starting together never see half a file.
         */
        Path extract(String platform, String resource, UnsatisfiedLinkError notOnLibraryPath) {
            String fileName = System.mapLibraryName(LIBRARY_NAME);
            Path dir = null;
            try {
                Digest library;
                try (InputStream in = host.resource(resource)) {
                    if (in == null) {
                        throw failure("txn-rocksdb has no native library for platform " + platform + ": the jar has no resource "
                            + resource + "; " + lookedFor(platform, fileName), notOnLibraryPath);
                    }
                    library = Digest.of(in);
                }
                String declared = declaredSha256(platform);
                if (declared != null && !declared.equalsIgnoreCase(library.sha256)) {
                    throw failure("txn-rocksdb: the jar's native library " + resource + " does not match the SHA-256 that "
                        + libraryPropertiesPath(platform) + " declares (" + declared + "; the library's is " + library.sha256
                        + "): the jar is damaged or was put together from mismatched files; build or download it again. "
                        + lookedFor(platform, fileName), notOnLibraryPath);
                }
                dir = extractionDirectory();
                int dot = fileName.lastIndexOf('.');
                Path target = dir.resolve(fileName.substring(0, dot) + "-" + host.jarVersion() + "-" + library.sha256.substring(0, 16)
                    + fileName.substring(dot)).toAbsolutePath();
                String mismatch = mismatch(target, library);
                if (mismatch == null) {
                    return target; // another JVM (or an earlier run) extracted this very library
                }
                if (!mismatch.equals(ABSENT)) {
                    host.warn("txn-rocksdb: replacing " + target + ", which is not the jar's native library " + resource + " ("
                        + mismatch + "); it is never loaded");
                }
                Path temp = Files.createTempFile(dir, "." + fileName + "-", ".tmp");
                try {
                    try (InputStream in = host.resource(resource)) {
                        Files.copy(in, temp, StandardCopyOption.REPLACE_EXISTING);
                    }
                    String written = mismatch(temp, library);
                    if (written != null) {
                        throw new IOException("the copy written to " + temp + " is not the library (" + written + ")");
                    }
                    try {
                        Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                    } catch (AtomicMoveNotSupportedException e) {
                        Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
                    } catch (IOException e) {
                        // Windows cannot replace a library another JVM has loaded: usable only if it is this very library.
                        if (mismatch(target, library) != null) {
                            throw e;
                        }
                    }
                } finally {
                    Files.deleteIfExists(temp);
                }
                if (dir.equals(privateDirectory)) {
                    target.toFile().deleteOnExit(); // before its directory: deleteOnExit runs in reverse order
                }
                return target;
            } catch (IOException | UncheckedIOException e) {
                Path where = dir != null ? dir : host.overrideDir() != null ? host.overrideDir() : host.defaultExtractDir();
                throw failure("txn-rocksdb cannot extract its native library " + resource + " for platform " + platform
                    + " to " + where.toAbsolutePath() + " (" + e + "). If that directory is read-only (as /tmp can be in "
                    + "containers), point " + settingNames() + " at a writable directory code may be loaded from; "
                    + lookedFor(platform, fileName), notOnLibraryPath);
            }
        }

        /**
         * Where the jar's library goes: the override directory as configured (created if missing);
         * else the default directory in the shared temp dir, created {@code rwx------} if missing and
         * used only while it is a real directory (not a link) owned by this JVM's user and writable
         * by nobody else ({@link DirectorySafety}). An unsafe default directory is left alone: this
         * JVM extracts to a fresh private directory instead, removed at exit where the system allows,
         * and says so in a WARN.
         */
        private Path extractionDirectory() throws IOException {
            Path override = host.overrideDir();
            if (override != null) {
                Files.createDirectories(override);
                return override;
            }
            Path dir = host.defaultExtractDir();
            try {
                if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
                    Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
                } else {
                    Files.createDirectory(dir);
                }
            } catch (FileAlreadyExistsException existing) {
                // someone's: checked below like any other
            }
            String unsafe = DirectorySafety.whyUnsafe(dir, host.currentUser());
            if (unsafe == null) {
                return dir;
            }
            Path own = host.createPrivateDirectory();
            privateDirectory = own;
            host.warn("txn-rocksdb: not extracting its native library to " + dir.toAbsolutePath() + ": " + unsafe
                + ". This JVM uses the private directory " + own + " instead (removed at exit); to choose the directory, set "
                + settingNames() + ".");
            return own;
        }

        /**
         * Null if {@code file} is a regular file (links not followed) holding exactly the library;
         * else what it is instead ({@link #ABSENT} if nothing is there).
         */
        private static String mismatch(Path file, Digest library) throws IOException {
            BasicFileAttributes attributes;
            try {
                attributes = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            } catch (NoSuchFileException e) {
                return ABSENT;
            }
            if (attributes.isSymbolicLink()) {
                return "a symbolic link to " + Files.readSymbolicLink(file);
            }
            if (!attributes.isRegularFile()) {
                return "not a regular file";
            }
            if (attributes.size() != library.size) {
                return attributes.size() + " bytes, not " + library.size;
            }
            Digest found;
            try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
                found = Digest.of(in);
            }
            return found.sha256.equals(library.sha256) ? null : "SHA-256 " + found.sha256 + ", not " + library.sha256;
        }

        /**
         * The SHA-256 the jar's {@code /native/<platform>/library.properties} (written by
         * {@code scripts/build-native.sh}) declares for the library, or null if the jar has none.
         */
        private String declaredSha256(String platform) throws IOException {
            try (InputStream in = host.resource(libraryPropertiesPath(platform))) {
                if (in == null) {
                    return null;
                }
                Properties properties = new Properties();
                properties.load(in);
                String sha256 = properties.getProperty("sha256", "").trim();
                return sha256.isEmpty() ? null : sha256;
            }
        }

        private void checkVersion(String what) {
            String expected = nativeVersionFor(host.jarVersion());
            String actual;
            try {
                actual = host.nativeVersion();
            } catch (UnsatisfiedLinkError noVersionFunction) {
                actual = "older than 0.1.0 (it has no nativeVersion function)";
            }
            if (!expected.equals(actual)) {
                throw new StaleLibraryError("txn-rocksdb: the native library loaded from " + what + " is version " + actual
                    + ", but this jar (txn-rocksdb-streams " + host.jarVersion() + ") needs version " + expected
                    + ". Remove the stale library, or replace it with a build of this version.");
            }
        }

        /** Where the loader looked: the override directory and java.library.path, and what to do. */
        private String lookedFor(String platform, String fileName) {
            String override = host.overrideDir() == null
                ? "no override directory is set (system property " + DIR_PROPERTY + " or environment variable " + DIR_ENV + ")"
                : "the override directory " + host.overrideDir().toAbsolutePath() + " (" + host.overrideSource() + ") holds no "
                    + fileName;
            return override + ", and java.library.path (" + System.getProperty("java.library.path") + ") holds no " + fileName
                + ". To use a library built for this machine (README, \"Platforms\"), put it in a directory named by "
                + DIR_PROPERTY + " or " + DIR_ENV
                + (platform == null
                    ? ". txn-rocksdb's release jar carries libraries for " + String.join(", ", RELEASE_PLATFORMS) + " only."
                    : ", or use txn-rocksdb's release jar: it carries libraries for " + String.join(", ", RELEASE_PLATFORMS)
                        + " (a jar built by mvn install carries only its build machine's). scripts/build-native.sh --platform="
                        + platform + " DIR builds this one on a " + platform + " machine, or cross-builds it on a linux-x86_64 "
                        + "Debian machine.");
        }

        private static String settingNames() {
            return "system property " + DIR_PROPERTY + " (or environment variable " + DIR_ENV + ")";
        }

        private static UnsatisfiedLinkError failure(String message, UnsatisfiedLinkError notOnLibraryPath) {
            UnsatisfiedLinkError error = new UnsatisfiedLinkError(message);
            if (notOnLibraryPath != null) {
                error.addSuppressed(notOnLibraryPath);
            }
            return error;
        }
    }

    /** A loaded library of another version than the jar's: never hidden by a fallback. */
    static final class StaleLibraryError extends UnsatisfiedLinkError {
        private static final long serialVersionUID = 1L;

        StaleLibraryError(String message) {
            super(message);
        }
    }

    /** The real process: system properties, the environment, {@code /proc/self/maps}, the jar. */
    static final class SystemHost implements Host {
        @Override
        public String osName() {
            return System.getProperty("os.name", "");
        }

        @Override
        public String osArch() {
            return System.getProperty("os.arch", "");
        }

        @Override
        public boolean musl() {
            Path maps = Paths.get("/proc/self/maps");
            try {
                return Files.isReadable(maps) && mapsShowMusl(Files.readAllLines(maps));
            } catch (IOException | UncheckedIOException e) {
                return false;
            }
        }

        @Override
        public String overrideSource() {
            if (notBlank(System.getProperty(DIR_PROPERTY))) {
                return "system property " + DIR_PROPERTY;
            }
            return notBlank(System.getenv(DIR_ENV)) ? "environment variable " + DIR_ENV : null;
        }

        @Override
        public Path overrideDir() {
            String property = System.getProperty(DIR_PROPERTY);
            if (notBlank(property)) {
                return Paths.get(property);
            }
            String env = System.getenv(DIR_ENV);
            return notBlank(env) ? Paths.get(env) : null;
        }

        @Override
        public Path defaultExtractDir() {
            return Paths.get(System.getProperty("java.io.tmpdir"), "txn-rocksdb-" + System.getProperty("user.name", "user"));
        }

        @Override
        public String jarVersion() {
            return jarVersionFromResource();
        }

        @Override
        public InputStream resource(String path) {
            return NativeLibrary.class.getResourceAsStream(path);
        }

        @Override
        public void loadFromLibraryPath() {
            System.loadLibrary(LIBRARY_NAME);
        }

        @Override
        public void loadFile(Path file) {
            System.load(file.toAbsolutePath().toString());
        }

        @Override
        public String nativeVersion() {
            return NativeLibrary.nativeVersion();
        }

        @Override
        public UserPrincipal currentUser() {
            String name = System.getProperty("user.name", "");
            try {
                return FileSystems.getDefault().getUserPrincipalLookupService().lookupPrincipalByName(name);
            } catch (IOException | UnsupportedOperationException e) {
                return null; // e.g. a container's uid with no passwd entry (user.name '?')
            }
        }

        @Override
        public Path createPrivateDirectory() throws IOException {
            // createTempDirectory makes it rwx------ on POSIX systems; on Windows it inherits the
            // user's own temp directory's ACL.
            Path dir = Files.createTempDirectory(Paths.get(System.getProperty("java.io.tmpdir")), "txn-rocksdb-");
            dir.toFile().deleteOnExit();
            return dir;
        }

        @Override
        public void warn(String message) {
            LOG.warn(message);
        }

        private static boolean notBlank(String s) {
            return s != null && !s.isBlank();
        }
    }

    /** The jar's Maven version, from {@value #JAR_PROPERTIES} (written by the build). */
    static String jarVersionFromResource() {
        Properties properties = new Properties();
        try (InputStream in = NativeLibrary.class.getResourceAsStream(JAR_PROPERTIES)) {
            if (in == null) {
                throw new UnsatisfiedLinkError("txn-rocksdb: the jar lacks " + JAR_PROPERTIES + " (built without its resources?)");
            }
            properties.load(in);
        } catch (IOException e) {
            throw new UnsatisfiedLinkError("txn-rocksdb: cannot read " + JAR_PROPERTIES + ": " + e);
        }
        String version = properties.getProperty("version", "");
        if (version.isEmpty() || version.contains("${")) {
            throw new UnsatisfiedLinkError("txn-rocksdb: " + JAR_PROPERTIES + " has no version (the build did not filter it): '"
                + version + "'");
        }
        return version;
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }

    private static String hex(byte[] bytes) {
        StringBuilder s = new StringBuilder(bytes.length * 2);
        for (byte b : bytes) {
            s.append(Character.forDigit((b >> 4) & 0xF, 16)).append(Character.forDigit(b & 0xF, 16));
        }
        return s.toString();
    }

    // ---------------------------------------------------------------- natives (rust/jni/src/library.rs)

    private static native boolean setMemoryBudget(long blockCacheBytes, long writeBufferBytes);

    /** The loaded library's version: its Rust crate's ({@code CARGO_PKG_VERSION}). */
    private static native String nativeVersion();
}
