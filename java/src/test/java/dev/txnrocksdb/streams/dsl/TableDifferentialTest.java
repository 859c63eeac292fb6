package dev.txnrocksdb.streams.dsl;

import dev.txnrocksdb.streams.dsl.Scenarios.JoinKind;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** KTable-KTable joins, foreign-key joins and toTable, with tombstones. */
class TableDifferentialTest {
    @TempDir
    Path stateDir;

    static Stream<Arguments> cases() {
        return DslCases.cross(
                List.of(
                        Scenarios.tableTableJoin(JoinKind.INNER),
                        Scenarios.tableTableJoin(JoinKind.LEFT),
                        Scenarios.tableTableJoin(JoinKind.OUTER),
                        Scenarios.foreignKeyJoin(false),
                        Scenarios.foreignKeyJoin(true),
                        Scenarios.toTable()),
                DslSettings.matrix(true));
    }

    @ParameterizedTest(name = "{0} [{1}]")
    @MethodSource("cases")
    void sameOutputAndStoresAsBuiltIn(Scenario scenario, DslSettings settings) {
        Differential.assertSameAsBuiltIn(scenario, settings, StoreSide.OURS_BY_CONFIG, stateDir);
    }
}
