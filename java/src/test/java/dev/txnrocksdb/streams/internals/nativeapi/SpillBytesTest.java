package dev.txnrocksdb.streams.internals.nativeapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.txnrocksdb.streams.TransactionStrategy;
import dev.txnrocksdb.streams.TxnRocksDBConfig;
import dev.txnrocksdb.streams.internals.nativeapi.NativeWindowStore.RetentionEdge;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.BiFunction;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The secondary-store spill size ({@link OpenOptions#spillBytes()}) reaches the engine through
 * every kind's native open: with 0 a transaction's first write already lands in the temporary
 * store ({@link StoreStatistic#TEMPORARY_STORE_BYTES} grows), with the default 16 MiB a small
 * transaction stays in memory (the temporary store does not grow); a negative size is refused at
 * the JNI boundary, and Java's default is the engine's.
 */
class SpillBytesTest {
    private static final long DAY = 86_400_000L;
    private static final long SEGMENT = 3_600_000L;
    private static final long NOW = 1_700_000_000_000L;

    @TempDir
    Path dir;

    /** Every store kind: opening it, and staging {@code n} small writes into it. */
    enum Kind {
        KEY_VALUE((dir, options) -> NativeKeyValueStore.open("kv", dir, options)) {
            @Override
            void write(NativeStore store, byte[] key, byte[] value) {
                ((NativeKeyValueStore) store).put(key, value, -1);
            }
        },
        WINDOW((dir, options) -> NativeWindowStore.open("window", dir, options, DAY, SEGMENT, RetentionEdge.EXCLUDED)) {
            @Override
            void write(NativeStore store, byte[] key, byte[] value) {
                assertTrue(((NativeWindowStore) store).put(key, NOW, 0, value));
            }
        },
        SESSION((dir, options) -> NativeSessionStore.open("session", dir, options, DAY, SEGMENT)) {
            @Override
            void write(NativeStore store, byte[] key, byte[] value) {
                assertTrue(((NativeSessionStore) store).put(key, NOW, NOW + 10, value));
            }
        },
        VERSIONED((dir, options) -> NativeVersionedStore.open("versioned", dir, options, DAY, SEGMENT)) {
            @Override
            void write(NativeStore store, byte[] key, byte[] value) {
                ((NativeVersionedStore) store).put(key, value, NOW);
            }
        };

        private final BiFunction<Path, OpenOptions, NativeStore> opener;

        Kind(BiFunction<Path, OpenOptions, NativeStore> opener) {
            this.opener = opener;
        }

        NativeStore open(Path dir, OpenOptions options) {
            return opener.apply(dir, options);
        }

        abstract void write(NativeStore store, byte[] key, byte[] value);
    }

    private static OpenOptions secondaryStore(long spillBytes) {
        return OpenOptions.builder()
                .strategy(TransactionStrategy.SECONDARY_STORE)
                .spillBytes(spillBytes)
                .build();
    }

    private static long temporaryStoreBytes(NativeStore store) {
        return StoreStatistic.TEMPORARY_STORE_BYTES.of(NativeStoreStatistics.read(store));
    }

    /** The temporary store's growth from staging 100 writes of ~110 bytes (11 KB, far below 16 MiB). */
    private static long temporaryStoreGrowth(Kind kind, Path dir, long spillBytes) {
        try (NativeStore store = kind.open(dir, secondaryStore(spillBytes))) {
            long before = temporaryStoreBytes(store);
            for (int i = 0; i < 100; i++) {
                kind.write(store, String.format("key-%04d", i).getBytes(StandardCharsets.UTF_8), new byte[100]);
            }
            long after = temporaryStoreBytes(store);
            // committed either way: the spill size changes where the writes wait, not what commits
            store.commit(Map.of(new TopicPartition("changelog", 0), 1L), null);
            assertEquals(Map.of(new TopicPartition("changelog", 0), 1L), store.committedOffsets());
            return after - before;
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aSpillSizeOfZeroSendsTheFirstWritesToTheTemporaryStoreAndTheDefaultKeepsThemInMemory(Kind kind) {
        long spilled = temporaryStoreGrowth(kind, dir.resolve("zero"), 0);
        long kept = temporaryStoreGrowth(
                kind, dir.resolve("default"), TxnRocksDBConfig.SECONDARY_STORE_SPILL_BYTES_DEFAULT);
        assertTrue(
                spilled >= 100 * 100,
                "spill size 0: the 10 KB of values are in the temporary store's memtable, grew by " + spilled);
        assertEquals(0, kept, "spill size 16 MiB: nothing reached the temporary store");
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void theNativeOpenRefusesANegativeSpillSizeNamingTheSetting(Kind kind) {
        Path storeDir = dir.resolve("negative");
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> kind.open(storeDir, secondaryStore(-1)).close());
        assertTrue(e.getMessage().contains(TxnRocksDBConfig.SECONDARY_STORE_SPILL_BYTES_CONFIG), e.getMessage());
        assertTrue(e.getMessage().contains("-1"), e.getMessage());
        assertFalse(Files.exists(storeDir), "refused before RocksDB opens anything");
    }

    @Test
    void javasDefaultIsTheEnginesDefault() {
        assertEquals(NativeStore.defaultSpillBytes(), TxnRocksDBConfig.SECONDARY_STORE_SPILL_BYTES_DEFAULT);
        assertEquals(16L << 20, TxnRocksDBConfig.SECONDARY_STORE_SPILL_BYTES_DEFAULT);
    }
}
