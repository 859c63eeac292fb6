package dev.txnrocksdb.streams.internals.nativeapi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class NativeStoreStatisticsTest {
    @Test
    void theJavaListIsTheNativeOneInTheSameOrder() {
        String[] java = Arrays.stream(StoreStatistic.values()).map(Enum::name).toArray(String[]::new);
        assertArrayEquals(NativeStoreStatistics.nativeNames(), java);
    }
}
