package dev.txnrocksdb.streams.loader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.txnrocksdb.streams.children.NativeLoadMain;
import dev.txnrocksdb.streams.fixtures.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The loader in fresh JVMs (this one has loaded the library already): a failure surfaces when a
 * supplier is created, with the same message every time, and the jar's library is extracted once
 * and reused by the next JVM. Its messages for simulated platforms are in {@code NativeLibraryTest}.
 */
class NativeLibraryLoadTest {
    @TempDir
    Path tmp;

    @Test
    void aBogusOverrideDirectoryFailsWhenASupplierIsCreatedNamingPlatformResourceAndOverride() throws Exception {
        Path notADirectory = Files.writeString(tmp.resolve("not-a-directory"), "x");
        List<String> out = run(notADirectory);
        String expected = "FAILED: txn-rocksdb cannot extract its native library /native/linux-x86_64/libtxn_rocksdb_jni.so for platform "
            + "linux-x86_64 to " + notADirectory;
        assertEquals(3, out.size(), out.toString());
        assertTrue(out.get(0).startsWith(expected), out.get(0));
        assertTrue(out.get(0).contains("the override directory " + notADirectory + " (system property txn.rocksdb.native.dir)"), out.get(0));
        assertEquals(out.get(0), out.get(1), "the second supplier gets the same error, not a NoClassDefFoundError");
    }

    @Test
    void theJarsLibraryIsExtractedOnceAndReusedByTheNextJvm() throws Exception {
        Path dir = tmp.resolve("native");
        assertEquals(List.of("LOADED", "LOADED", "DONE"), run(dir));
        List<Path> files = list(dir);
        assertEquals(1, files.size(), files.toString());
        assertTrue(files.get(0).getFileName().toString().matches("libtxn_rocksdb_jni-0\\.1\\.0-SNAPSHOT-[0-9a-f]{16}\\.so"), files.toString());
        long modified = Files.getLastModifiedTime(files.get(0)).toMillis();

        assertEquals(List.of("LOADED", "LOADED", "DONE"), run(dir));
        assertEquals(files, list(dir));
        assertEquals(modified, Files.getLastModifiedTime(files.get(0)).toMillis(), "the second JVM reused the file");
    }

    private static List<String> run(Path overrideDir) throws Exception {
        ChildJvm child = ChildJvm.start(NativeLoadMain.class, overrideDir.toString());
        child.awaitLine("DONE");
        return child.output().stream().filter(l -> l.equals("LOADED") || l.equals("DONE") || l.startsWith("FAILED: "))
            .collect(Collectors.toList());
    }

    private static List<Path> list(Path dir) throws Exception {
        try (Stream<Path> files = Files.list(dir)) {
            return files.collect(Collectors.toList());
        }
    }
}
