package dev.txnrocksdb.streams.children;

import dev.txnrocksdb.streams.TxnStores;
import dev.txnrocksdb.streams.internals.nativeapi.NativeLibrary;

/**
 * Child JVM of {@link NativeLibraryLoadTest}: sets the override directory to {@code args[0]}, then
 * creates a store supplier twice, printing {@code LOADED} or {@code FAILED: <message>} each time,
 * then {@code DONE}.
 */
public final class NativeLoadMain {
    private NativeLoadMain() {}

    public static void main(String[] args) {
        System.setProperty(NativeLibrary.DIR_PROPERTY, args[0]);
        for (int attempt = 0; attempt < 2; attempt++) {
            try {
                TxnStores.persistentTransactionalKeyValueStore("counts");
                System.out.println("LOADED");
            } catch (UnsatisfiedLinkError e) {
                System.out.println("FAILED: " + e.getMessage());
            }
        }
        System.out.println("DONE");
    }
}
