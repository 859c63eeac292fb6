/**
 * The native bindings: the loader ({@link dev.txnrocksdb.streams.internals.nativeapi.NativeLibrary})
 * and one class per native object, each owning its natives ({@code private static native}, at the
 * bottom of the class) and mirrored by one module of {@code rust/jni/src}:
 * {@link dev.txnrocksdb.streams.internals.nativeapi.NativeStore} ({@code store.rs}),
 * {@link dev.txnrocksdb.streams.internals.nativeapi.NativeKeyValueStore} ({@code key_value.rs}),
 * {@link dev.txnrocksdb.streams.internals.nativeapi.NativeWindowStore} ({@code window.rs}),
 * {@link dev.txnrocksdb.streams.internals.nativeapi.NativeSessionStore} ({@code session.rs}),
 * {@link dev.txnrocksdb.streams.internals.nativeapi.NativeVersionedStore} ({@code versioned.rs}),
 * {@link dev.txnrocksdb.streams.internals.nativeapi.NativeIterator} ({@code iterator.rs}),
 * {@link dev.txnrocksdb.streams.internals.nativeapi.NativeSnapshotLocation} and
 * {@link dev.txnrocksdb.streams.internals.nativeapi.PreparedSnapshot} ({@code snapshot_location.rs}),
 * {@link dev.txnrocksdb.streams.internals.nativeapi.NativeStoreStatistics} ({@code statistics.rs}),
 * {@link dev.txnrocksdb.streams.internals.nativeapi.NativeStoreInspection} ({@code inspection.rs}, for
 * the operators' tool),
 * {@link dev.txnrocksdb.streams.internals.nativeapi.NativeTuning} ({@code tuning.rs}),
 * {@link dev.txnrocksdb.streams.internals.nativeapi.NativeLogging} ({@code logging.rs}),
 * {@code NativeLibrary} and {@code LibraryVersion} ({@code library.rs}). The records and wire
 * formats they exchange are the format crate's ({@code OpenOptions}, {@code SnapshotCalls},
 * {@code StoreInspection}, {@code BatchEncoder}, {@code OffsetsCodec}). No raw native handle leaves this package: callers
 * use the typed methods of the store and iterator objects.
 *
 * <p><b>Not API.</b> This package is an implementation detail of txn-rocksdb; its classes may
 * change or disappear in any release without notice. Use {@code dev.txnrocksdb.streams}.
 */
package dev.txnrocksdb.streams.internals.nativeapi;
