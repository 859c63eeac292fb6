package dev.txnrocksdb.streams.dsl;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code suppress(untilWindowCloses(unbounded()))} after a windowed count and a session
 * aggregate. The suppression buffer itself is not pluggable (stays Kafka's); the window and
 * session stores feeding it are ours.
 */
class SuppressDifferentialTest {
    @TempDir
    Path stateDir;

    static Stream<Arguments> cases() {
        return DslCases.cross(
                List.of(Scenarios.suppressedTumblingCount(), Scenarios.suppressedSessionAggregate()),
                DslSettings.matrix(true));
    }

    @ParameterizedTest(name = "{0} [{1}]")
    @MethodSource("cases")
    void sameOutputAndStoresAsBuiltIn(Scenario scenario, DslSettings settings) {
        Differential.assertSameAsBuiltIn(scenario, settings, StoreSide.OURS_BY_CONFIG, stateDir);
    }
}
