package dev.txnrocksdb.streams.children;

import dev.txnrocksdb.streams.TxnStores;
import dev.txnrocksdb.streams.internals.nativeapi.NativeLibrary;

/**
 * Child JVM of {@link NativeLibraryLoadTest}: sets the override directory to {@code args[0]} (none
 * for {@code -}), then creates a store supplier twice, printing {@code LOADED} or
 * {@code FAILED: <message>} each time, then {@code FROM: <where the library came from>} if it
 * loaded, then {@code DONE}.
 */
public final class NativeLoadMain {
    private NativeLoadMain() {}

    public static void main(String[] args) {
        if (!args[0].equals("-")) {
            System.setProperty(NativeLibrary.DIR_PROPERTY, args[0]);
        }
        boolean loaded = false;
        for (int attempt = 0; attempt < 2; attempt++) {
            try {
                TxnStores.persistentTransactionalKeyValueStore("counts");
                System.out.println("LOADED");
                loaded = true;
            } catch (UnsatisfiedLinkError e) {
                System.out.println("FAILED: " + e.getMessage());
            }
        }
        if (loaded) {
            System.out.println("FROM: " + NativeLibrary.loadedFrom());
        }
        System.out.println("DONE");
    }
}
