package dev.txnrocksdb.streams.dsl;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/** Builds JUnit arguments: every scenario with every settings combination. */
final class DslCases {
    private DslCases() {}

    static Stream<Arguments> cross(List<Scenario> scenarios, List<DslSettings> settings) {
        List<Arguments> out = new ArrayList<>();
        for (Scenario scenario : scenarios) {
            for (DslSettings s : settings) {
                out.add(Arguments.of(scenario, s));
            }
        }
        return out.stream();
    }
}
