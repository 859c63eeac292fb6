package dev.txnrocksdb.streams.ttl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.txnrocksdb.streams.TimeBasis;
import dev.txnrocksdb.streams.TxnKeyValueStoreSupplier;
import dev.txnrocksdb.streams.TxnRocksDBConfig;
import dev.txnrocksdb.streams.TxnStores;
import dev.txnrocksdb.streams.fixtures.StoreFixture;
import dev.txnrocksdb.streams.fixtures.TestStateStoreContext;
import dev.txnrocksdb.streams.internals.StoreSettings;
import dev.txnrocksdb.streams.internals.TxnKeyValueStore;
import dev.txnrocksdb.streams.internals.TxnWindowStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.utils.Bytes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Turning a time-to-live on: the supplier's own, the application-wide setting and the per-store
 * override, in that order; bad values refused where they are given, naming the store or setting;
 * a TTL named for a store kind with retention refused at init.
 */
class TtlSettingsTest {
    @TempDir
    Path dir;

    @Test
    void theStoresOwnTtlWinsThenThePerStoreSettingThenTheApplications() {
        StoreSettings settings = StoreSettings.from(Map.of(
                TxnRocksDBConfig.TTL_MS_CONFIG,
                "60000",
                TxnRocksDBConfig.TTL_MS_STORE_PREFIX + "short",
                "1000",
                TxnRocksDBConfig.TTL_MS_STORE_PREFIX + "forever",
                " "));
        assertEquals(Duration.ofMinutes(1), settings.ttl("any", null));
        assertEquals(Duration.ofSeconds(1), settings.ttl("short", null));
        assertNull(settings.ttl("forever", null), "an empty per-store value turns it off for that store");
        assertEquals(Duration.ofHours(2), settings.ttl("short", Duration.ofHours(2)));
        assertNull(StoreSettings.from(Map.of()).ttl("any", null), "off by default");
        assertEquals(TimeBasis.STREAM_TIME, StoreSettings.from(Map.of()).timeBasis());
        assertEquals(
                TimeBasis.WALL_CLOCK_TIME,
                StoreSettings.from(Map.of(TxnRocksDBConfig.TTL_TIME_CONFIG, " Wall-Clock"))
                        .timeBasis());
    }

    @Test
    void badValuesAreRefusedNamingTheSetting() {
        for (Map<String, Object> bad : new Map[] {
            Map.of(TxnRocksDBConfig.TTL_MS_CONFIG, "0"),
            Map.of(TxnRocksDBConfig.TTL_MS_CONFIG, -5L),
            Map.of(TxnRocksDBConfig.TTL_MS_STORE_PREFIX + "s", "-1"),
            Map.of(TxnRocksDBConfig.TTL_MS_STORE_PREFIX + "s", "soon"),
            Map.of(TxnRocksDBConfig.TTL_TIME_CONFIG, "event"),
            Map.of(TxnRocksDBConfig.TTL_EXPIRY_KEYS_PER_COMMIT_CONFIG, 0)
        }) {
            ConfigException e = assertThrows(ConfigException.class, () -> StoreSettings.from(bad), bad.toString());
            String key = bad.keySet().iterator().next();
            assertTrue(e.getMessage().contains(key), e.getMessage());
        }
    }

    @Test
    void aSupplierTakesATtlOfAtLeastOneMillisecond() {
        TxnKeyValueStoreSupplier supplier = TxnStores.persistentTransactionalKeyValueStore("s");
        assertNull(supplier.ttl());
        TxnKeyValueStoreSupplier withTtl = supplier.withTtl(Duration.ofMinutes(5));
        assertEquals(Duration.ofMinutes(5), withTtl.ttl());
        assertNull(supplier.ttl(), "withTtl returns a new supplier");
        assertEquals(Duration.ofMinutes(5), ((TxnKeyValueStore) withTtl.get()).ownTtl());
        assertEquals(
                Duration.ofSeconds(1),
                TxnStores.persistentTransactionalTimestampedKeyValueStoreWithHeaders("h")
                        .withTtl(Duration.ofSeconds(1))
                        .ttl());
        for (Duration bad : new Duration[] {Duration.ZERO, Duration.ofMillis(-1), Duration.ofNanos(999_999)}) {
            IllegalArgumentException e =
                    assertThrows(IllegalArgumentException.class, () -> supplier.withTtl(bad), bad.toString());
            assertTrue(e.getMessage().contains("store s"), e.getMessage());
        }
        assertThrows(NullPointerException.class, () -> supplier.withTtl(null));
    }

    @Test
    void aTtlNamedForAWindowStoreIsRefusedAtInitNamingTheSetting() {
        TestStateStoreContext context = new TestStateStoreContext(dir.toFile())
                .config(TxnRocksDBConfig.TTL_MS_STORE_PREFIX + "window", 1000L)
                .config(TxnRocksDBConfig.TTL_MS_CONFIG, 1000L);
        TxnWindowStore window = new TxnWindowStore("window", 300_000L, 150_000L, 10L, false, true);
        ConfigException e = assertThrows(ConfigException.class, () -> window.init(context, window));
        assertTrue(e.getMessage().contains(TxnRocksDBConfig.TTL_MS_STORE_PREFIX + "window"), e.getMessage());
        assertTrue(e.getMessage().contains("retention"), e.getMessage());
        // the application-wide setting alone applies to key-value stores only
        TestStateStoreContext appWide =
                new TestStateStoreContext(dir.toFile()).config(TxnRocksDBConfig.TTL_MS_CONFIG, 1000L);
        TxnWindowStore other = new TxnWindowStore("other", 300_000L, 150_000L, 10L, false, true);
        other.init(appWide, other);
        other.close();
    }

    @Test
    void aKeyValueStoreOpensWithTheConfiguredTtlAndFiltersExpiredKeys() {
        TestStateStoreContext context =
                new TestStateStoreContext(dir.toFile()).config(TxnRocksDBConfig.TTL_MS_CONFIG, 1000L);
        TxnKeyValueStore store = StoreFixture.open(new TxnKeyValueStore("kv", true), context);
        try {
            assertEquals(Duration.ofSeconds(1), store.core().ttl());
            // no record context here: writes take the store's time (none yet, so 0)
            store.put(Bytes.wrap(new byte[] {1}), new byte[] {7});
            assertEquals(7, store.get(Bytes.wrap(new byte[] {1}))[0]);
        } finally {
            store.close();
        }
    }
}
