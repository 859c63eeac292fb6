package dev.txnrocksdb.streams.internals.nativeapi;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Locale;

/**
 * Which of the jar's native folders fits a machine: the {@code <os>-<arch>} folder name for a JVM's
 * {@code os.name} and {@code os.arch}, the resources in that folder, and whether the process runs on
 * musl libc, for which the jar carries no library (its builds are glibc's). The folder names must
 * stay those {@code scripts/platform.sh} and {@code scripts/build-native.sh} write.
 */
final class NativePlatform {
    /** The library's name: {@link System#mapLibraryName} gives its file name on each platform. */
    static final String LIBRARY_NAME = "txn_rocksdb_jni";

    /**
     * The platforms txn-rocksdb's release jar carries a library for ({@code scripts/release.sh
     * --platforms=all}; README, "Platforms"). A jar built by {@code mvn install} carries only the
     * library of the machine that built it.
     */
    static final List<String> RELEASE_PLATFORMS =
            List.of("linux-x86_64", "linux-aarch64", "darwin-aarch64", "darwin-x86_64", "windows-x86_64");

    private NativePlatform() {}

    /**
     * The {@code <os>-<arch>} folder name for a JVM's {@code os.name} and {@code os.arch}.
     *
     * @throws IllegalArgumentException for an operating system or architecture with no build
     */
    static String name(String osName, String osArch) {
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

    /**
     * The jar resource that holds the library for a platform, e.g.
     * {@code /native/linux-x86_64/libtxn_rocksdb_jni.so}.
     */
    static String resourcePath(String platform) {
        return "/native/" + platform + "/" + System.mapLibraryName(LIBRARY_NAME);
    }

    /**
     * The jar resource describing a platform's library (version, SHA-256, toolchain), e.g.
     * {@code /native/linux-x86_64/library.properties}.
     */
    static String libraryPropertiesPath(String platform) {
        return "/native/" + platform + "/library.properties";
    }

    /**
     * True if this process runs on musl libc, as its memory map ({@code /proc/self/maps}) shows;
     * false where there is no such file or it cannot be read (not Linux, or a restricted process).
     */
    static boolean runningOnMusl() {
        Path maps = Paths.get("/proc/self/maps");
        try {
            return Files.isReadable(maps) && mapsShowMusl(Files.readAllLines(maps));
        } catch (IOException | UncheckedIOException e) {
            return false;
        }
    }

    /** True if a process's memory map ({@code /proc/self/maps} lines) shows musl's dynamic loader or libc. */
    static boolean mapsShowMusl(List<String> maps) {
        return maps.stream().anyMatch(line -> line.contains("ld-musl-") || line.contains("libc.musl-"));
    }
}
