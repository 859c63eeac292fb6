package dev.txnrocksdb.streams.internals.nativeapi;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

/**
 * Loads {@code libtxn_rocksdb_jni} once per JVM, and holds the settings of the whole process
 * ({@link #configureMemory}; natives in {@code rust/jni/src/library.rs}).
 *
 * <p>First tries {@code java.library.path} (so a developer or a distribution can point at its own
 * build), then extracts {@code /native/<os>-<arch>/<library file>} from the jar to a temporary file
 * and loads that. Thread-safe; later calls return immediately.
 */
public final class NativeLibrary {
    /** The name passed to {@link System#loadLibrary(String)}. */
    public static final String LIBRARY_NAME = "txn_rocksdb_jni";

    private static final Object LOCK = new Object();
    private static volatile boolean loaded;

    private NativeLibrary() {}

    /**
     * Loads the native library unless this JVM already did.
     *
     * @throws UnsatisfiedLinkError if neither {@code java.library.path} nor the jar holds a library
     *     for this platform, or the library cannot be loaded; the message names the platform and
     *     the resource looked for
     */
    public static void load() {
        if (loaded) {
            return;
        }
        synchronized (LOCK) {
            if (loaded) {
                return;
            }
            try {
                System.loadLibrary(LIBRARY_NAME);
            } catch (UnsatisfiedLinkError notOnLibraryPath) {
                loadFromJar(notOnLibraryPath);
            }
            loaded = true;
        }
    }

    private static void loadFromJar(UnsatisfiedLinkError notOnLibraryPath) {
        String osName = System.getProperty("os.name", "");
        String osArch = System.getProperty("os.arch", "");
        String platform;
        try {
            platform = platform(osName, osArch);
        } catch (IllegalArgumentException unsupported) {
            throw linkError("txn-rocksdb has no native library for os.name='" + osName + "', os.arch='"
                + osArch + "': " + unsupported.getMessage(), notOnLibraryPath);
        }
        String resource = resourcePath(platform);
        Path extracted;
        try (InputStream in = NativeLibrary.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw linkError("txn-rocksdb native library not found for platform " + platform
                    + ": no '" + LIBRARY_NAME + "' on java.library.path and no resource " + resource
                    + " in the jar", notOnLibraryPath);
            }
            String fileName = System.mapLibraryName(LIBRARY_NAME);
            extracted = Files.createTempFile("lib" + LIBRARY_NAME + "-", fileName.substring(fileName.lastIndexOf('.')));
            extracted.toFile().deleteOnExit();
            Files.copy(in, extracted, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw linkError("cannot extract txn-rocksdb native library " + resource + " for platform "
                + platform + " to a temporary file: " + e, notOnLibraryPath);
        }
        System.load(extracted.toAbsolutePath().toString());
    }

    /**
     * The {@code <os>-<arch>} folder name for a JVM's {@code os.name} and {@code os.arch}.
     *
     * @throws IllegalArgumentException for an operating system or architecture with no build
     */
    static String platform(String osName, String osArch) {
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

    private static UnsatisfiedLinkError linkError(String message, Throwable cause) {
        UnsatisfiedLinkError error = new UnsatisfiedLinkError(message);
        error.addSuppressed(cause);
        return error;
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

    // ---------------------------------------------------------------- natives (rust/jni/src/library.rs)

    private static native boolean setMemoryBudget(long blockCacheBytes, long writeBufferBytes);
}
