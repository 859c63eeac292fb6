package dev.txnrocksdb.tool;

import static dev.txnrocksdb.tool.ToolTesting.listing;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.txnrocksdb.streams.TxnStores;
import dev.txnrocksdb.tool.ToolTesting.Result;
import java.lang.reflect.Field;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.internals.StateDirectory;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tool on stores the library wrote: a {@link TopologyTestDriver} application with one store of
 * ours ({@code counts}) and one of Kafka's ({@code kafka-kv}), closed keeping its state directory,
 * then inspected, verified and dumped through the real natives ({@code NativeStoreInspection}),
 * each command leaving every file as it was. Needs the native library with the inspection natives.
 */
class ToolOnRealStoresTest {
    private static final String APP_ID = "tool-app";

    @TempDir
    Path tmp;

    private Path stateDir;
    private Path counts;

    @BeforeEach
    void writeStores() throws Exception {
        stateDir = tmp.toRealPath().resolve("state");
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, APP_ID);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());

        StreamsBuilder builder = new StreamsBuilder();
        builder.addStateStore(Stores.keyValueStoreBuilder(
                TxnStores.persistentTransactionalKeyValueStore("counts"), Serdes.String(), Serdes.String()));
        builder.addStateStore(Stores.keyValueStoreBuilder(
                Stores.persistentKeyValueStore("kafka-kv"), Serdes.String(), Serdes.String()));
        builder.stream("input", Consumed.with(Serdes.String(), Serdes.String()))
                .process(
                        () -> new Processor<String, String, Void, Void>() {
                            private KeyValueStore<String, String> ours;
                            private KeyValueStore<String, String> kafkas;

                            @Override
                            public void init(ProcessorContext<Void, Void> context) {
                                ours = context.getStateStore("counts");
                                kafkas = context.getStateStore("kafka-kv");
                            }

                            @Override
                            public void process(Record<String, String> record) {
                                ours.put(record.key(), record.value());
                                kafkas.put(record.key(), record.value());
                            }
                        },
                        "counts",
                        "kafka-kv");

        TopologyTestDriver driver = new TopologyTestDriver(builder.build(), props);
        TestInputTopic<String, String> input =
                driver.createInputTopic("input", new StringSerializer(), new StringSerializer());
        input.pipeInput("alpha", "1");
        input.pipeInput("beta", "2");
        input.pipeInput("gamma", "3");
        closeKeepingState(driver, props);
        counts = stateDir.resolve(APP_ID).resolve("0_0").resolve("counts");
    }

    /**
     * Closes the driver as {@code close()} does, without its last step, which deletes every task
     * directory (the java module's {@code TestDrivers.closeKeepingState}).
     */
    private static void closeKeepingState(TopologyTestDriver driver, Properties props) throws Exception {
        Field field = TopologyTestDriver.class.getDeclaredField("stateDirectory");
        field.setAccessible(true);
        field.set(driver, new StateDirectory(new StreamsConfig(props), Time.SYSTEM, true, false) {
            @Override
            public synchronized void clean() {
                // keep the task directories: the tool reads them
            }
        });
        driver.close();
    }

    @Test
    void inspectsOurStoreAndNamesKafkas() throws Exception {
        Map<String, String> before = listing(stateDir);
        Result result = ToolTesting.runWithNatives("inspect", stateDir.toString());
        assertEquals(TxnRocksDbTool.EXIT_OK, result.exit(), result.out() + result.err());
        String out = result.out();
        assertTrue(out.contains(APP_ID + "/0_0/counts\n  directory: " + counts + "\n  kind: key-value\n"), out);
        assertTrue(
                out.contains("  committed changelog offsets:\n    " + APP_ID + "-counts-changelog partition 0: "), out);
        assertTrue(out.contains(APP_ID + "/0_0/rocksdb/kafka-kv: Kafka Streams' own store (not inspected)\n"), out);
        assertEquals(before, listing(stateDir), "inspect changed nothing");

        Result json = ToolTesting.runWithNatives(
                "--json", "inspect", stateDir.resolve(APP_ID).toString());
        assertEquals(TxnRocksDbTool.EXIT_OK, json.exit(), json.err());
        assertTrue(json.out().contains("\"status\": \"inspected\""), json.out());
        assertTrue(json.out().contains("\"kind\": \"key-value\""), json.out());
        assertEquals(before, listing(stateDir), "inspect --json changed nothing");
    }

    @Test
    void verifiesOurStore() throws Exception {
        Map<String, String> before = listing(stateDir);
        Result result = ToolTesting.runWithNatives("verify", counts.toString());
        assertEquals(TxnRocksDbTool.EXIT_OK, result.exit(), result.out() + result.err());
        assertTrue(result.out().endsWith("No damage found.\n"), result.out());
        assertTrue(result.out().contains("    refuse ("), result.out());
        assertEquals(before, listing(stateDir), "verify changed nothing");
    }

    @Test
    void dumpsOurStoresCommittedEntries() throws Exception {
        Map<String, String> before = listing(stateDir);
        Result all = ToolTesting.runWithNatives("dump", counts.toString());
        assertEquals(TxnRocksDbTool.EXIT_OK, all.exit(), all.err());
        assertEquals("alpha -> 1\nbeta -> 2\ngamma -> 3\n", all.out());

        Result range = ToolTesting.runWithNatives("dump", "--from", "b", "--to", "beta", counts.toString());
        assertEquals("beta -> 2\n", range.out(), range.err());

        Result limited = ToolTesting.runWithNatives("--json", "dump", "--limit", "1", counts.toString());
        assertEquals(TxnRocksDbTool.EXIT_OK, limited.exit(), limited.err());
        assertTrue(limited.out().contains("\"utf8\": \"alpha\""), limited.out());
        assertTrue(limited.out().contains("\"count\": 1"), limited.out());
        assertTrue(limited.out().contains("\"limitReached\": true"), limited.out());
        assertEquals(before, listing(stateDir), "dump changed nothing");
    }
}
