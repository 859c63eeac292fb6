package dev.txnrocksdb.streams.dsl;

import static dev.txnrocksdb.streams.dsl.Scenarios.Emit.ON_UPDATE;

import dev.txnrocksdb.streams.dsl.Scenarios.JoinKind;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Ours selected per operator, with no DSL config: {@code Materialized.withStoreType(TxnStoreTypes.TXN_ROCKS_DB)}
 * and {@code StreamJoined.withDslStoreSuppliers(TxnStoreTypes.TXN_ROCKS_DB)}.
 */
class PerOperatorStoreTypeDifferentialTest {
    @TempDir
    Path stateDir;

    static Stream<Arguments> cases() {
        List<DslSettings> settings = List.of(
                new DslSettings(StreamsConfig.AT_LEAST_ONCE, true, false, DslSettings.SEEDS.get(0)),
                new DslSettings(StreamsConfig.AT_LEAST_ONCE, false, false, DslSettings.SEEDS.get(1)),
                new DslSettings(StreamsConfig.EXACTLY_ONCE_V2, true, false, DslSettings.SEEDS.get(2)),
                new DslSettings(StreamsConfig.EXACTLY_ONCE_V2, false, true, DslSettings.SEEDS.get(0)));
        return DslCases.cross(
                List.of(
                        Scenarios.tumblingCount(ON_UPDATE),
                        Scenarios.sessionAggregate(ON_UPDATE),
                        Scenarios.streamStreamJoin(JoinKind.OUTER, true),
                        Scenarios.tableTableJoin(JoinKind.LEFT),
                        Scenarios.toTable()),
                settings);
    }

    @ParameterizedTest(name = "{0} [{1}]")
    @MethodSource("cases")
    void sameOutputAndStoresAsBuiltIn(Scenario scenario, DslSettings settings) {
        Differential.assertSameAsBuiltIn(scenario, settings, StoreSide.OURS_PER_OPERATOR, stateDir);
    }
}
