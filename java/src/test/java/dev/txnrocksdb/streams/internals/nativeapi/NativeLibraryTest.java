package dev.txnrocksdb.streams.internals.nativeapi;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class NativeLibraryTest {
    @Test
    void platformNamesFollowTheJarLayout() {
        assertEquals("linux-x86_64", NativeLibrary.platform("Linux", "amd64"));
        assertEquals("linux-x86_64", NativeLibrary.platform("Linux", "x86_64"));
        assertEquals("linux-aarch64", NativeLibrary.platform("Linux", "aarch64"));
        assertEquals("darwin-aarch64", NativeLibrary.platform("Mac OS X", "aarch64"));
    }

    @Test
    void unsupportedPlatformsAreNamed() {
        IllegalArgumentException arch = assertThrows(IllegalArgumentException.class, () -> NativeLibrary.platform("Linux", "s390x"));
        assertTrue(arch.getMessage().contains("s390x"), arch.getMessage());
        IllegalArgumentException os = assertThrows(IllegalArgumentException.class, () -> NativeLibrary.platform("AIX", "ppc64"));
        assertTrue(os.getMessage().contains("AIX"), os.getMessage());
    }

    @Test
    void resourcePathIsUnderNative() {
        assertEquals("/native/linux-x86_64/libtxn_rocksdb_jni.so", NativeLibrary.resourcePath("linux-x86_64"));
    }

    @Test
    void loadsFromTheJarResourcesAndIsIdempotent() {
        assertDoesNotThrow(NativeLibrary::load);
        assertDoesNotThrow(NativeLibrary::load);
    }
}
