package dev.txnrocksdb.streams;

import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.HeadersBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.SessionBytesStoreSupplier;
import org.apache.kafka.streams.state.SessionStore;
import org.apache.kafka.streams.state.WindowBytesStoreSupplier;
import org.apache.kafka.streams.state.WindowStore;

/**
 * txn-rocksdb suppliers for {@code DslStoreFormat.HEADERS}. txn-rocksdb has no store in Kafka's
 * headers format ({@code [varint size][headers][8-byte timestamp][value]}), so these supply the
 * timestamped stores (plain session stores), marked {@link HeadersBytesStoreSupplier}: the DSL's
 * materializers then pick Kafka's {@code ...WithHeaders} builders, which see a store that is not a
 * {@code HeadersBytesStore} and put Kafka's own adapter in front of it:
 * {@code TimestampedToHeadersStoreAdapter} (key-value), {@code TimestampedToHeadersWindowStoreAdapter}
 * (window) and {@code SessionToHeadersStoreAdapter} (session). The adapters store values without
 * headers and read them back with empty headers, so record headers are not kept in state; the
 * store types and everything else behave as with Kafka's headers stores.
 */
final class HeadersFormatSuppliers {
    private HeadersFormatSuppliers() {}

    static KeyValueBytesStoreSupplier keyValue(KeyValueBytesStoreSupplier timestamped) {
        return new KeyValue(timestamped);
    }

    static WindowBytesStoreSupplier window(WindowBytesStoreSupplier timestamped) {
        return new Window(timestamped);
    }

    static SessionBytesStoreSupplier session(SessionBytesStoreSupplier plain) {
        return new Session(plain);
    }

    private static final class KeyValue implements KeyValueBytesStoreSupplier, HeadersBytesStoreSupplier {
        private final KeyValueBytesStoreSupplier delegate;

        KeyValue(KeyValueBytesStoreSupplier delegate) {
            this.delegate = delegate;
        }

        @Override
        public String name() {
            return delegate.name();
        }

        @Override
        public KeyValueStore<Bytes, byte[]> get() {
            return delegate.get();
        }

        @Override
        public String metricsScope() {
            return delegate.metricsScope();
        }

        @Override
        public String toString() {
            return "HeadersFormat(" + delegate + ")";
        }
    }

    private static final class Window implements WindowBytesStoreSupplier, HeadersBytesStoreSupplier {
        private final WindowBytesStoreSupplier delegate;

        Window(WindowBytesStoreSupplier delegate) {
            this.delegate = delegate;
        }

        @Override
        public String name() {
            return delegate.name();
        }

        @Override
        public WindowStore<Bytes, byte[]> get() {
            return delegate.get();
        }

        @Override
        public String metricsScope() {
            return delegate.metricsScope();
        }

        @Override
        public long segmentIntervalMs() {
            return delegate.segmentIntervalMs();
        }

        @Override
        public long windowSize() {
            return delegate.windowSize();
        }

        @Override
        public boolean retainDuplicates() {
            return delegate.retainDuplicates();
        }

        @Override
        public long retentionPeriod() {
            return delegate.retentionPeriod();
        }

        @Override
        public String toString() {
            return "HeadersFormat(" + delegate + ")";
        }
    }

    private static final class Session implements SessionBytesStoreSupplier, HeadersBytesStoreSupplier {
        private final SessionBytesStoreSupplier delegate;

        Session(SessionBytesStoreSupplier delegate) {
            this.delegate = delegate;
        }

        @Override
        public String name() {
            return delegate.name();
        }

        @Override
        public SessionStore<Bytes, byte[]> get() {
            return delegate.get();
        }

        @Override
        public String metricsScope() {
            return delegate.metricsScope();
        }

        @Override
        public long segmentIntervalMs() {
            return delegate.segmentIntervalMs();
        }

        @Override
        public long retentionPeriod() {
            return delegate.retentionPeriod();
        }

        @Override
        public String toString() {
            return "HeadersFormat(" + delegate + ")";
        }
    }
}
