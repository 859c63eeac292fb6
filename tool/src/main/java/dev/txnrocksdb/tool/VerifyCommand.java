package dev.txnrocksdb.tool;

import dev.txnrocksdb.streams.internals.nativeapi.NativeStoreInspection;
import dev.txnrocksdb.streams.internals.nativeapi.StoreInspection.Finding;
import dev.txnrocksdb.streams.internals.nativeapi.StoreInspection.NextOpen;
import dev.txnrocksdb.streams.internals.nativeapi.StoreInspection.Verification;
import java.io.IOException;
import java.io.PrintStream;

/**
 * {@code verify <store dir>}: every file of one store checked ({@link NativeStoreInspection#verify},
 * under {@link StoreLocks}), and what its next open would do under each damage policy. Exit code
 * {@link TxnRocksDbTool#EXIT_DAMAGE} on any damage found.
 */
final class VerifyCommand {
    private VerifyCommand() {}

    static int run(ToolArguments args, PrintStream out, StoreReader reader)
            throws IOException, TxnRocksDbTool.Refused, ToolArguments.UsageException {
        StateLayout.Entry store = TxnRocksDbTool.storeAt(args.dir());
        Verification verification;
        try (StoreLocks locks = new StoreLocks()) {
            TxnRocksDbTool.lockOrRefuse(locks, store);
            verification = reader.verify(store.path());
        }
        if (args.json()) {
            JsonWriter json = new JsonWriter(out).beginObject();
            InspectCommand.names(json, store);
            InspectCommand.findings(json, verification.findings());
            json.name("nextOpen").beginArray();
            for (NextOpen next : verification.nextOpen()) {
                json.beginObject()
                        .field("policy", Words.policy(next.policy()))
                        .field("outcome", Words.outcome(next.outcome()))
                        .field("detail", next.detail())
                        .endObject();
            }
            json.endArray().field("damage", verification.damaged()).endObject();
        } else {
            out.println(store.name());
            out.println("  directory: " + store.path());
            if (verification.findings().isEmpty()) {
                out.println("  findings: none");
            } else {
                out.println("  findings:");
                for (Finding finding : verification.findings()) {
                    out.println("    " + finding.severity() + ": " + finding.what());
                }
            }
            out.println("  the next open, by damage policy:");
            for (NextOpen next : verification.nextOpen()) {
                out.println("    " + Words.policy(next.policy()) + " (" + Words.whenChosen(next.policy()) + "): "
                        + Words.outcomeSentence(next.outcome())
                        + (next.detail().isEmpty() ? "" : ": " + next.detail()));
            }
            out.println(verification.damaged() ? "Damage found." : "No damage found.");
        }
        return verification.damaged() ? TxnRocksDbTool.EXIT_DAMAGE : TxnRocksDbTool.EXIT_OK;
    }
}
