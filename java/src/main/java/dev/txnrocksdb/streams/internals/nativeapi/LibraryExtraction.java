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
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Properties;

/**
 * Puts the jar's library for a platform into a file the JVM may load, trusting nothing it did not
 * check. A jar whose {@code /native/<os>-<arch>/library.properties} declares another SHA-256 than
 * the library's is refused (a damaged jar, or one put together from mismatched files). The library
 * goes under a name carrying the jar's version and its SHA-256
 * ({@code libtxn_rocksdb_jni-0.1.0-SNAPSHOT-<hash>.so}), so every JVM using the same jar reuses
 * that one file. A file already under that name is loaded only if it is a regular file (a link is
 * not followed) whose SHA-256 is the jar library's; anything else there (planted, damaged,
 * truncated, a link) is never loaded but replaced by a copy written to a temporary file in the same
 * directory and moved over it, so JVMs starting together never see half a file.
 *
 * <p>Where it goes: the override directory as configured, its files verified the same way; else
 * {@code <java.io.tmpdir>/txn-rocksdb-<user.name>}, created {@code rwx------} and used only while it
 * is a directory (not a link) owned by this JVM's user that nobody else can write to
 * ({@link DirectorySafety}: POSIX owner and mode, or the owner and ACL on Windows). Otherwise that
 * directory is left alone, the library goes to a fresh private directory of this JVM's (removed at
 * exit where the system allows) and a WARN names the unsafe directory and why. A directory it
 * cannot write to fails with a message naming the override setting.
 */
final class LibraryExtraction {
    /** What {@link #mismatch} says when no file is there. */
    private static final String ABSENT = "absent";

    private final LoaderHost host;
    /** The private directory this extraction fell back to, if it did. */
    private Path privateDirectory;

    LibraryExtraction(LoaderHost host) {
        this.host = host;
    }

    /**
     * Extracts the jar's library {@code resource} under its versioned name into the extraction
     * directory (see {@link #extractionDirectory}) and returns the file to load: an existing file is
     * used only if it is a regular file (not a link) whose SHA-256 is the library's; anything else
     * under that name is replaced by a fresh copy, written to a temporary file in the same directory
     * and moved over it, so JVMs starting together never see half a file.
     *
     * @throws Failure if the jar lacks the resource, the resource is not the library the jar
     *     declares, or it cannot be written to the extraction directory
     */
    Path extract(String platform, String resource) throws Failure {
        String fileName = System.mapLibraryName(NativePlatform.LIBRARY_NAME);
        Path dir = null;
        try {
            Digest library;
            try (InputStream in = host.resource(resource)) {
                if (in == null) {
                    throw new Failure("txn-rocksdb has no native library for platform " + platform
                            + ": the jar has no resource " + resource + "; ");
                }
                library = Digest.of(in);
            }
            String declared = declaredSha256(platform);
            if (declared != null && !declared.equalsIgnoreCase(library.sha256)) {
                throw new Failure("txn-rocksdb: the jar's native library " + resource + " does not match the SHA-256 "
                        + "that " + NativePlatform.libraryPropertiesPath(platform) + " declares (" + declared
                        + "; the library's is " + library.sha256 + "): the jar is damaged or was put together from "
                        + "mismatched files; build or download it again. ");
            }
            dir = extractionDirectory();
            int dot = fileName.lastIndexOf('.');
            Path target = dir.resolve(fileName.substring(0, dot) + "-" + host.jarVersion() + "-"
                            + library.sha256.substring(0, 16) + fileName.substring(dot))
                    .toAbsolutePath();
            String mismatch = mismatch(target, library);
            if (mismatch == null) {
                return target; // another JVM (or an earlier run) extracted this very library
            }
            if (!mismatch.equals(ABSENT)) {
                host.warn("txn-rocksdb: replacing " + target + ", which is not the jar's native library " + resource
                        + " (" + mismatch + "); it is never loaded");
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
            throw new Failure("txn-rocksdb cannot extract its native library " + resource + " for platform " + platform
                    + " to " + where.toAbsolutePath() + " (" + e
                    + "). If that directory is read-only (as /tmp can be in "
                    + "containers), point " + LoaderHost.overrideSettingNames() + " at a writable directory code may "
                    + "be loaded from; ");
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
                Files.createDirectory(
                        dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
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
                + ". This JVM uses the private directory " + own
                + " instead (removed at exit); to choose the directory, "
                + "set " + LoaderHost.overrideSettingNames() + ".");
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
        try (InputStream in = host.resource(NativePlatform.libraryPropertiesPath(platform))) {
            if (in == null) {
                return null;
            }
            Properties properties = new Properties();
            properties.load(in);
            String sha256 = properties.getProperty("sha256", "").trim();
            return sha256.isEmpty() ? null : sha256;
        }
    }

    /**
     * Why the jar's library cannot be put into a file. The message ends in the separator ("; " or
     * ". ") after which {@link LibraryLoader} appends where else it looked and what to do.
     */
    static final class Failure extends Exception {
        private static final long serialVersionUID = 1L;

        Failure(String message) {
            super(message);
        }
    }

    /**
     * A library's SHA-256 (lower-case hex) and size. (A class rather than a record: the Gradle
     * build also compiles with Gradle 4.4, which knows no source level past 12.)
     */
    private static final class Digest {
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
    }
}
