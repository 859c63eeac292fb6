package dev.txnrocksdb.streams.internals.nativeapi;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends what the native code logs (Rust {@code log} records) to SLF4J, under logger names
 * {@code dev.txnrocksdb.native.<Rust module path>} (e.g.
 * {@code dev.txnrocksdb.native.txn_rocksdb.secondary.roll_forward}). Natives in
 * {@code rust/jni/src/logging.rs}, which filters levels (asking {@link #enabledLevel} once per
 * logger, again every 30 s and whenever {@link #install} runs) and rate-limits before calling
 * {@link #log}.
 */
public final class NativeLogging {
    private static final Map<String, Logger> LOGGERS = new ConcurrentHashMap<>();

    static {
        NativeLibrary.load();
    }

    private NativeLogging() {}

    /**
     * Installs the bridge on first use, and reads the loggers' levels again on every call (so a
     * level changed at run time applies from the next store that opens). Cheap; called whenever a
     * store opens.
     */
    public static void install() {
        install0();
    }

    private static Logger logger(String name) {
        return LOGGERS.computeIfAbsent(name, LoggerFactory::getLogger);
    }

    /** Called from native code: the most verbose level enabled, as Rust's {@code log::Level} (0 = off, 1 = error ... 5 = trace). */
    @SuppressWarnings("unused")
    private static int enabledLevel(String loggerName) {
        Logger logger = logger(loggerName);
        if (logger.isTraceEnabled()) {
            return 5;
        }
        if (logger.isDebugEnabled()) {
            return 4;
        }
        if (logger.isInfoEnabled()) {
            return 3;
        }
        if (logger.isWarnEnabled()) {
            return 2;
        }
        return logger.isErrorEnabled() ? 1 : 0;
    }

    /** Called from native code: writes one message at a Rust {@code log::Level} (1 = error ... 5 = trace). */
    @SuppressWarnings("unused")
    private static void log(String loggerName, int level, String message) {
        Logger logger = logger(loggerName);
        switch (level) {
            case 1:
                logger.error(message);
                break;
            case 2:
                logger.warn(message);
                break;
            case 3:
                logger.info(message);
                break;
            case 4:
                logger.debug(message);
                break;
            default:
                logger.trace(message);
                break;
        }
    }

    // ---------------------------------------------------------------- natives (rust/jni/src/logging.rs)

    private static native void install0();
}
