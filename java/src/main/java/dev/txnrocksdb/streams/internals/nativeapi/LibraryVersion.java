package dev.txnrocksdb.streams.internals.nativeapi;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * Whether a loaded library is the one these Java classes were built with: its version
 * ({@code nativeVersion}, the Rust crate's) must be the jar's (its Maven version without
 * {@code -SNAPSHOT}). The natives of another version may differ in name, types or meaning, so a
 * stale library on {@code java.library.path} or in the override directory fails the load with both
 * versions named ({@link StaleLibraryError}) instead of being used or quietly passed over.
 */
final class LibraryVersion {
    /** The jar resource holding the jar's version (filtered by the build). */
    static final String JAR_PROPERTIES = "/native/txn-rocksdb.properties";

    private LibraryVersion() {}

    /** The native version a jar version needs: the Maven version without {@code -SNAPSHOT}. */
    static String nativeVersionFor(String jarVersion) {
        return jarVersion.endsWith("-SNAPSHOT")
                ? jarVersion.substring(0, jarVersion.length() - "-SNAPSHOT".length())
                : jarVersion;
    }

    /**
     * Checks the library the host just loaded from {@code what} (a description of where, for the
     * message) against the jar's version.
     *
     * @throws StaleLibraryError if it is another version, or too old to tell its version
     */
    static void check(LoaderHost host, String what) {
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

    /** The jar's Maven version, from {@value #JAR_PROPERTIES} (written by the build). */
    static String jarVersionFromResource() {
        Properties properties = new Properties();
        try (InputStream in = LibraryVersion.class.getResourceAsStream(JAR_PROPERTIES)) {
            if (in == null) {
                throw new UnsatisfiedLinkError(
                        "txn-rocksdb: the jar lacks " + JAR_PROPERTIES + " (built without its resources?)");
            }
            properties.load(in);
        } catch (IOException e) {
            throw new UnsatisfiedLinkError("txn-rocksdb: cannot read " + JAR_PROPERTIES + ": " + e);
        }
        String version = properties.getProperty("version", "");
        if (version.isEmpty() || version.contains("${")) {
            throw new UnsatisfiedLinkError("txn-rocksdb: " + JAR_PROPERTIES
                    + " has no version (the build did not filter it): '" + version + "'");
        }
        return version;
    }

    /**
     * A loaded library of another version than the jar's. The loader rethrows it rather than
     * trying the next place, so a stale library is never hidden by a fallback.
     */
    static final class StaleLibraryError extends UnsatisfiedLinkError {
        private static final long serialVersionUID = 1L;

        StaleLibraryError(String message) {
            super(message);
        }
    }

    /**
     * The loaded library's version: its Rust crate's ({@code CARGO_PKG_VERSION}).
     *
     * @throws UnsatisfiedLinkError if no library is loaded, or the loaded one has no such function
     */
    static String loadedVersion() {
        return nativeVersion();
    }

    // ---------------------------------------------------------------- natives (rust/jni/src/library.rs)

    private static native String nativeVersion();
}
