package dev.txnrocksdb.streams.dsl;

import dev.txnrocksdb.streams.dsl.Scenarios.JoinKind;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Stream-stream inner, left and outer joins, without and with grace. The join window stores are
 * never cached and the left/outer shared store is not either, so caching does not change
 * behaviour: only caching on is run.
 */
class StreamStreamJoinDifferentialTest {
    @TempDir
    Path stateDir;

    static Stream<Arguments> cases() {
        List<Scenario> scenarios = new ArrayList<>();
        for (JoinKind kind : JoinKind.values()) {
            scenarios.add(Scenarios.streamStreamJoin(kind, false));
            scenarios.add(Scenarios.streamStreamJoin(kind, true));
        }
        return DslCases.cross(scenarios, DslSettings.matrix(false));
    }

    @ParameterizedTest(name = "{0} [{1}]")
    @MethodSource("cases")
    void sameOutputAndStoresAsBuiltIn(Scenario scenario, DslSettings settings) {
        Differential.assertSameAsBuiltIn(scenario, settings, StoreSide.OURS_BY_CONFIG, stateDir);
    }
}
