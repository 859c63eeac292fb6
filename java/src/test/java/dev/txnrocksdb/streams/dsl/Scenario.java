package dev.txnrocksdb.streams.dsl;

import java.util.List;
import java.util.function.Function;
import org.apache.kafka.streams.Topology;

/**
 * One operator under test: a topology (built for a given {@link StoreSide}), the shape of its
 * generated input, and the names of the stores it materializes explicitly.
 *
 * @param name readable name, used in test names
 * @param topology builds the topology; must pass every Materialized/StreamJoined through the side
 * @param input shape of the generated input
 * @param namedStores stores that must be ours also when ours is selected per operator (the stores
 *     named via {@code Materialized.as(name)}), or {@link #ALL_STORES}; with ours selected by
 *     config every iterable store must be ours
 */
record Scenario(String name, Function<StoreSide, Topology> topology, DslInputs.Spec input, List<String> namedStores) {
    /** In {@link #namedStores}: every iterable store must be ours, also when selected per operator. */
    static final String ALL_STORES = "*";

    @Override
    public String toString() {
        return name;
    }
}
