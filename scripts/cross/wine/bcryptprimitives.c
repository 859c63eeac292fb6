/*
 * Test-only stand-in for Windows' bcryptprimitives.dll under Wine 8 (Debian bookworm's), which lacks
 * it: Rust's standard library (1.78 and later) takes its random numbers from ProcessPrng there, so
 * no Rust program, test executable or txn_rocksdb_jni.dll, loads without it ("Can't find dependent
 * libraries"). Every Windows since 10 ships the DLL; this one exists only in the Wine prefix of
 * scripts/test-windows.sh and is never part of the jar. ProcessPrng fills the buffer from the
 * system's RNG, as the real one does; BCryptGenRandom is Wine's.
 */
#include <windows.h>
#include <bcrypt.h>

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
    while (len > 0) {
        ULONG chunk = len > 0x40000000 ? 0x40000000 : (ULONG)len;
        if (BCryptGenRandom(NULL, data, chunk, BCRYPT_USE_SYSTEM_PREFERRED_RNG) != 0) {
            return FALSE;
        }
        data += chunk;
        len -= chunk;
    }
    return TRUE;
}
