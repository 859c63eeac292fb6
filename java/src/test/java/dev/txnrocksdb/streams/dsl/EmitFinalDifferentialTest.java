package dev.txnrocksdb.streams.dsl;

import static dev.txnrocksdb.streams.dsl.Scenarios.Emit.ON_CLOSE;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Emit-final windows ({@code EmitStrategy.onWindowClose()}): tumbling, hopping, sliding, session.
 *
 * <p>Sliding and session emit-final turn caching off themselves, so only caching on is run for
 * them. Tumbling/hopping emit-final with caching OFF must match exactly. Tumbling/hopping
 * emit-final with caching ON is the one known design difference (see
 * docs/kafka-window-session-semantics.md 1.9): Kafka puts its {@code TimeOrderedCachingWindowStore}
 * only over its own {@code RocksDBTimeOrderedWindowStore}, every other store gets the key-first
 * {@code CachingWindowStore}, so the order of the records emitted by ONE input record may differ;
 * that case alone is compared as a multiset per emission (input record).
 */
class EmitFinalDifferentialTest {
    @TempDir
    Path stateDir;

    static Stream<Arguments> exactCases() {
        return Stream.concat(
                DslCases.cross(
                        List.of(Scenarios.tumblingCount(ON_CLOSE), Scenarios.hoppingAggregate(ON_CLOSE)),
                        DslSettings.matrix(true).stream()
                                .filter(s -> !s.caching())
                                .toList()),
                DslCases.cross(
                        List.of(Scenarios.slidingAggregate(ON_CLOSE), Scenarios.sessionAggregate(ON_CLOSE)),
                        DslSettings.matrix(false)));
    }

    static Stream<Arguments> cachedTimeWindowCases() {
        return DslCases.cross(
                List.of(Scenarios.tumblingCount(ON_CLOSE), Scenarios.hoppingAggregate(ON_CLOSE)),
                DslSettings.matrix(true).stream().filter(DslSettings::caching).toList());
    }

    @ParameterizedTest(name = "{0} [{1}]")
    @MethodSource("exactCases")
    void sameOutputAndStoresAsBuiltIn(Scenario scenario, DslSettings settings) {
        Differential.assertSameAsBuiltIn(scenario, settings, StoreSide.OURS_BY_CONFIG, stateDir);
    }

    @ParameterizedTest(name = "{0} [{1}] (KNOWN DIFFERENCE: order within one emission ignored)")
    @MethodSource("cachedTimeWindowCases")
    void cachedTimeWindowsSameRecordsPerEmission(Scenario scenario, DslSettings settings) {
        Differential.assertSameAsBuiltIn(
                scenario, settings, StoreSide.OURS_BY_CONFIG, stateDir, Differential.Order.MULTISET_PER_EMISSION);
    }
}
