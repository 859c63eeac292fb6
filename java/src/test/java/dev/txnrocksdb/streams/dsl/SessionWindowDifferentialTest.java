package dev.txnrocksdb.streams.dsl;

import static dev.txnrocksdb.streams.dsl.Scenarios.Emit.ON_UPDATE;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Session windows (emit on update): count and an aggregate whose merger shows every merge; the
 * merged sessions' tombstones come out in the store's findSessions order.
 */
class SessionWindowDifferentialTest {
    @TempDir
    Path stateDir;

    static Stream<Arguments> cases() {
        return DslCases.cross(
                List.of(Scenarios.sessionCount(), Scenarios.sessionAggregate(ON_UPDATE)), DslSettings.matrix(true));
    }

    @ParameterizedTest(name = "{0} [{1}]")
    @MethodSource("cases")
    void sameOutputAndStoresAsBuiltIn(Scenario scenario, DslSettings settings) {
        Differential.assertSameAsBuiltIn(scenario, settings, StoreSide.OURS_BY_CONFIG, stateDir);
    }
}
