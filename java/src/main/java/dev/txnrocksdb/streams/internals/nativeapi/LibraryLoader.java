package dev.txnrocksdb.streams.internals.nativeapi;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * One attempt to load {@code libtxn_rocksdb_jni} on a {@link LoaderHost}: which library, in which
 * order, and the errors that say where it looked. First match wins:
 * <ol>
 *   <li>the override directory ({@value LoaderHost#DIR_PROPERTY} system property, else the
 *       {@value LoaderHost#DIR_ENV} environment variable) if it holds a file named
 *       {@code libtxn_rocksdb_jni.so} ({@code .dylib} on macOS): a library built by hand, e.g.
 *       for a platform the jar does not carry;</li>
 *   <li>{@code java.library.path} ({@link System#loadLibrary(String)});</li>
 *   <li>the jar's {@code /native/<os>-<arch>/<library file>} ({@link NativePlatform}), extracted
 *       and verified by {@link LibraryExtraction}, to the override directory, else to
 *       {@code <java.io.tmpdir>/txn-rocksdb-<user.name>}.</li>
 * </ol>
 *
 * <p>Whichever is loaded must pass {@link LibraryVersion#check}; a stale one fails the load rather
 * than being passed over for the next place. The jar's libraries are built for glibc: on musl libc (Alpine)
 * the load fails saying so. Failures are {@link UnsatisfiedLinkError}s naming the platform, the
 * resource looked for and the override directory, with {@code java.library.path}'s error
 * suppressed in them; a library extracted to a {@code noexec} directory fails naming the override
 * setting. The JVM-wide state (load once, keep the first failure) is {@link NativeLibrary}'s.
 */
final class LibraryLoader {
    private final LoaderHost host;

    LibraryLoader(LoaderHost host) {
        this.host = host;
    }

    /** Loads a library as the class comment describes and checks its version; returns what was loaded. */
    String load() {
        String fileName = System.mapLibraryName(NativePlatform.LIBRARY_NAME);
        Path overrideDir = host.overrideDir();
        if (overrideDir != null && Files.isRegularFile(overrideDir.resolve(fileName))) {
            Path own = overrideDir.resolve(fileName).toAbsolutePath();
            String what = own + " (the override directory, " + host.overrideSource() + ")";
            host.loadFile(own);
            LibraryVersion.check(host, what);
            return what;
        }
        UnsatisfiedLinkError notOnLibraryPath;
        try {
            host.loadFromLibraryPath();
            String what = "'" + fileName + "' on java.library.path (" + System.getProperty("java.library.path") + ")";
            LibraryVersion.check(host, what);
            return what;
        } catch (UnsatisfiedLinkError e) {
            if (e instanceof LibraryVersion.StaleLibraryError) {
                throw e;
            }
            notOnLibraryPath = e;
        }
        String platform;
        try {
            platform = NativePlatform.name(host.osName(), host.osArch());
        } catch (IllegalArgumentException unsupported) {
            throw failure(
                    "txn-rocksdb has no native library for os.name='" + host.osName() + "', os.arch='" + host.osArch()
                            + "' (" + unsupported.getMessage() + "); " + lookedFor(null, fileName),
                    notOnLibraryPath);
        }
        String resource = NativePlatform.resourcePath(platform);
        if (platform.startsWith("linux-") && host.musl()) {
            throw failure(
                    "txn-rocksdb does not support musl libc (e.g. Alpine Linux): its native library " + resource
                            + " is built for glibc. Run on a glibc distribution (Debian, Ubuntu, RHEL, ...); "
                            + lookedFor(null, fileName),
                    notOnLibraryPath);
        }
        Path extracted;
        try {
            extracted = new LibraryExtraction(host).extract(platform, resource);
        } catch (LibraryExtraction.Failure e) {
            throw failure(e.getMessage() + lookedFor(platform, fileName), notOnLibraryPath);
        }
        try {
            host.loadFile(extracted);
        } catch (UnsatisfiedLinkError e) {
            throw failure(
                    "txn-rocksdb extracted its native library " + resource + " to " + extracted
                            + " (verified against its SHA-256), but the JVM cannot load it from there: "
                            + e.getMessage()
                            + ". If " + extracted.getParent()
                            + " is on a file system mounted noexec (as /tmp often is in "
                            + "containers), point " + LoaderHost.overrideSettingNames()
                            + " at a directory code may be loaded "
                            + "from.",
                    e);
        }
        String what = extracted + " (extracted from the jar's " + resource + ")";
        LibraryVersion.check(host, what);
        return what;
    }

    /**
     * Where the loader looked: the override directory and java.library.path, and what to do.
     * {@code platform} is null where this machine has no platform folder the jar could carry
     * (an unsupported os or architecture, or musl libc).
     */
    private String lookedFor(String platform, String fileName) {
        String override = host.overrideDir() == null
                ? "no override directory is set (system property " + LoaderHost.DIR_PROPERTY
                        + " or environment variable " + LoaderHost.DIR_ENV + ")"
                : "the override directory " + host.overrideDir().toAbsolutePath() + " (" + host.overrideSource()
                        + ") holds no " + fileName;
        String releasePlatforms = String.join(", ", NativePlatform.RELEASE_PLATFORMS);
        return override + ", and java.library.path (" + System.getProperty("java.library.path") + ") holds no "
                + fileName + ". To use a library built for this machine (README, \"Platforms\"), put it in a directory "
                + "named by " + LoaderHost.DIR_PROPERTY + " or " + LoaderHost.DIR_ENV
                + (platform == null
                        ? ". txn-rocksdb's release jar carries libraries for " + releasePlatforms + " only."
                        : ", or use txn-rocksdb's release jar: it carries libraries for " + releasePlatforms
                                + " (a jar built by mvn install carries only its build machine's). scripts/build-native.sh "
                                + "--platform=" + platform + " DIR builds this one on a " + platform + " machine, or "
                                + "cross-builds it on a linux-x86_64 Debian machine.");
    }

    private static UnsatisfiedLinkError failure(String message, UnsatisfiedLinkError notOnLibraryPath) {
        UnsatisfiedLinkError error = new UnsatisfiedLinkError(message);
        if (notOnLibraryPath != null) {
            error.addSuppressed(notOnLibraryPath);
        }
        return error;
    }
}
