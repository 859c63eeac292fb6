package dev.txnrocksdb.streams.dsl;

import static dev.txnrocksdb.streams.dsl.Scenarios.Emit.ON_UPDATE;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Tumbling, hopping and sliding windowed count/aggregate (emit on update), ours by config vs built-in. */
class WindowedAggregationDifferentialTest {
    @TempDir
    Path stateDir;

    static Stream<Arguments> cases() {
        return DslCases.cross(
                List.of(
                        Scenarios.tumblingCount(ON_UPDATE),
                        Scenarios.hoppingAggregate(ON_UPDATE),
                        Scenarios.slidingCount(ON_UPDATE),
                        Scenarios.slidingAggregate(ON_UPDATE)),
                DslSettings.matrix(true));
    }

    @ParameterizedTest(name = "{0} [{1}]")
    @MethodSource("cases")
    void sameOutputAndStoresAsBuiltIn(Scenario scenario, DslSettings settings) {
        Differential.assertSameAsBuiltIn(scenario, settings, StoreSide.OURS_BY_CONFIG, stateDir);
    }
}
