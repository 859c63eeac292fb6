package dev.txnrocksdb.streams.internals.nativeapi;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;

/**
 * Everything the loader reads from and does to the process, so that one load attempt
 * ({@link LibraryLoader}) can run against a simulated one: tests substitute platforms, override
 * directories, jar resources, stale libraries and users. {@link SystemHost} is the real process.
 * Files are not behind it: a test gives the host directories of its own to extract to.
 */
interface LoaderHost {
    /** System property naming the override directory (see {@link LibraryLoader}). */
    String DIR_PROPERTY = "txn.rocksdb.native.dir";
    /** Environment variable naming the override directory when {@link #DIR_PROPERTY} is not set. */
    String DIR_ENV = "TXN_ROCKSDB_NATIVE_DIR";

    /** How the override directory is set, for messages that tell the user to set it. */
    static String overrideSettingNames() {
        return "system property " + DIR_PROPERTY + " (or environment variable " + DIR_ENV + ")";
    }

    String osName();

    String osArch();

    /** True on musl libc. */
    boolean musl();

    /**
     * The override directory's setting as {@code "system property txn.rocksdb.native.dir"} or the
     * like; null if unset.
     */
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

    /**
     * The user this JVM runs as, whose the default extraction directory must be; null if it cannot
     * be told.
     */
    UserPrincipal currentUser();

    /** A new directory only this JVM's user can write to, removed at exit where possible. */
    Path createPrivateDirectory() throws IOException;

    /** Logs a warning. */
    void warn(String message);
}
