package dev.txnrocksdb.streams.dsl;

import java.util.List;
import org.apache.kafka.streams.StreamsConfig;

/**
 * One combination of run settings: processing guarantee, record cache on (Kafka's default
 * {@code statestore.cache.max.bytes}) or off (0), {@code dsl.store.format} and the input seed.
 */
record DslSettings(String guarantee, boolean caching, boolean headersFormat, long seed) {

    static final List<Long> SEEDS = List.of(11L, 2026L, 777_000L, 31_337L);

    boolean exactlyOnce() {
        return StreamsConfig.EXACTLY_ONCE_V2.equals(guarantee);
    }

    @Override
    public String toString() {
        return (exactlyOnce() ? "eos-v2" : "alos") + ", cache " + (caching ? "on" : "off")
                + (headersFormat ? ", format HEADERS" : "") + ", seed " + seed;
    }

    /**
     * The settings matrix. With {@code cachingMatters}: both guarantees with caching on and off
     * (DEFAULT format), each with its own seed, plus the HEADERS format once per guarantee
     * (at-least-once with caching on, exactly-once with caching off): 6 combinations. Without:
     * both guarantees with caching on, plus HEADERS under exactly-once: 3 combinations. Seeds
     * rotate over {@link #SEEDS} so that every scenario sees several inputs while the whole
     * suite stays within its time budget (TopologyTestDriver commits persistent stores after
     * every record).
     */
    static List<DslSettings> matrix(boolean cachingMatters) {
        String alos = StreamsConfig.AT_LEAST_ONCE;
        String eos = StreamsConfig.EXACTLY_ONCE_V2;
        if (!cachingMatters) {
            return List.of(
                    new DslSettings(alos, true, false, SEEDS.get(0)),
                    new DslSettings(eos, true, false, SEEDS.get(1)),
                    new DslSettings(eos, true, true, SEEDS.get(2)));
        }
        return List.of(
                new DslSettings(alos, true, false, SEEDS.get(0)),
                new DslSettings(alos, false, false, SEEDS.get(1)),
                new DslSettings(eos, true, false, SEEDS.get(2)),
                new DslSettings(eos, false, false, SEEDS.get(3)),
                new DslSettings(alos, true, true, SEEDS.get(1)),
                new DslSettings(eos, false, true, SEEDS.get(2)));
    }
}
