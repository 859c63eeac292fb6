package dev.txnrocksdb.streams.dsl;

import static dev.txnrocksdb.streams.dsl.Scenarios.Emit.ON_CLOSE;
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
 * Ours for the whole DSL with {@code txn.rocksdb.transaction.strategy=secondary-store}: one
 * scenario per store kind (key-value, window with emit-final, session, stream-stream join
 * buffers, foreign-key join subscriptions, suppression) under both guarantees.
 */
class SecondaryStoreDifferentialTest {
    @TempDir
    Path stateDir;

    static Stream<Arguments> cases() {
        List<DslSettings> settings = List.of(
                new DslSettings(StreamsConfig.AT_LEAST_ONCE, true, false, DslSettings.SEEDS.get(2)),
                new DslSettings(StreamsConfig.EXACTLY_ONCE_V2, false, false, DslSettings.SEEDS.get(1)));
        return DslCases.cross(
                List.of(
                        Scenarios.tumblingCount(ON_UPDATE),
                        Scenarios.slidingAggregate(ON_CLOSE),
                        Scenarios.sessionAggregate(ON_UPDATE),
                        Scenarios.suppressedSessionAggregate(),
                        Scenarios.streamStreamJoin(JoinKind.OUTER, true),
                        Scenarios.foreignKeyJoin(true),
                        Scenarios.tableTableJoin(JoinKind.LEFT)),
                settings);
    }

    @ParameterizedTest(name = "{0} [{1}]")
    @MethodSource("cases")
    void sameOutputAndStoresAsBuiltIn(Scenario scenario, DslSettings settings) {
        Differential.assertSameAsBuiltIn(scenario, settings, StoreSide.OURS_SECONDARY_STORE_BY_CONFIG, stateDir);
    }
}
