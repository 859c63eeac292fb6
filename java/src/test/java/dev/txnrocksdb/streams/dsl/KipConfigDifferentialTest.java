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
 * Ours selected with KIP-844's {@code default.dsl.store=txn_rocksDB}, translated by
 * {@code TxnStreamsConfig.translate} (transactional stores also under at-least-once).
 */
class KipConfigDifferentialTest {
    @TempDir
    Path stateDir;

    static Stream<Arguments> cases() {
        List<DslSettings> settings = List.of(
                new DslSettings(StreamsConfig.AT_LEAST_ONCE, true, false, DslSettings.SEEDS.get(3)),
                new DslSettings(StreamsConfig.EXACTLY_ONCE_V2, false, false, DslSettings.SEEDS.get(0)));
        return DslCases.cross(
                List.of(
                        Scenarios.tumblingCount(ON_UPDATE),
                        Scenarios.slidingAggregate(ON_CLOSE),
                        Scenarios.sessionAggregate(ON_UPDATE),
                        Scenarios.streamStreamJoin(JoinKind.OUTER, true),
                        Scenarios.foreignKeyJoin(true)),
                settings);
    }

    @ParameterizedTest(name = "{0} [{1}]")
    @MethodSource("cases")
    void sameOutputAndStoresAsBuiltIn(Scenario scenario, DslSettings settings) {
        Differential.assertSameAsBuiltIn(scenario, settings, StoreSide.OURS_BY_KIP_CONFIG, stateDir);
    }
}
