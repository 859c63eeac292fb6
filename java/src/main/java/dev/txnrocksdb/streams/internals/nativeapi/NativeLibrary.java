package dev.txnrocksdb.streams.internals.nativeapi;

/**
 * The native library as the rest of txn-rocksdb sees it: loads {@code libtxn_rocksdb_jni} once per
 * JVM ({@link #load}) and holds the natives of {@code rust/jni/src/library.rs}, the settings of the
 * whole process ({@link #configureMemory}) and the loaded library's version.
 *
 * <p>The parts it uses, one job each: {@link LibraryLoader} (one load attempt: the override
 * directory, {@code java.library.path}, then the jar; the errors that say where it looked),
 * {@link NativePlatform} (the jar's {@code <os>-<arch>} folder for this machine; musl libc),
 * {@link LibraryExtraction} (the jar's library to a verified file), {@link LibraryVersion} (the
 * loaded library must be the jar's version) and {@link LoaderHost} (the process as the loader sees
 * it, {@link SystemHost} the real one; tests substitute their own).
 *
 * <p>The first failure to load is kept and thrown again by every later call, so the error a store
 * supplier's constructor throws (suppliers load the library when created) is the one a stream
 * thread would see. Thread-safe; later calls return immediately.
 */
public final class NativeLibrary {
    /** The name passed to {@link System#loadLibrary(String)}. */
    public static final String LIBRARY_NAME = NativePlatform.LIBRARY_NAME;
    /** System property naming the override directory (see {@link LibraryLoader}). */
    public static final String DIR_PROPERTY = LoaderHost.DIR_PROPERTY;
    /** Environment variable naming the override directory when {@link #DIR_PROPERTY} is not set. */
    public static final String DIR_ENV = LoaderHost.DIR_ENV;

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
                    loadedFrom = new LibraryLoader(new SystemHost()).load();
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
        return NativePlatform.name(osName, osArch);
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
