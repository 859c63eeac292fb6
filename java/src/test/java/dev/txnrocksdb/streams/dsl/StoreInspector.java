package dev.txnrocksdb.streams.dsl;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.apache.kafka.streams.state.ReadOnlySessionStore;
import org.apache.kafka.streams.state.ReadOnlyWindowStore;
import org.apache.kafka.streams.state.SessionStore;
import org.apache.kafka.streams.state.ValueAndTimestamp;
import org.apache.kafka.streams.state.ValueTimestampHeaders;
import org.apache.kafka.streams.state.WindowStore;

/** Reads a store's full contents generically, and finds out which classes a store stack is made of. */
final class StoreInspector {
    static final String OUR_PACKAGE = "dev.txnrocksdb.";

    private StoreInspector() {}

    /**
     * All entries of a key-value, window or session store, rendered in iteration order; null for
     * other stores (for example the suppression buffer, which is not pluggable).
     */
    static List<String> dump(StateStore store) {
        KeyValueIterator<?, ?> iterator = iterator(store);
        if (iterator == null) {
            return null;
        }
        List<String> out = new ArrayList<>();
        try (KeyValueIterator<?, ?> it = iterator) {
            while (it.hasNext()) {
                KeyValue<?, ?> kv = it.next();
                out.add(render(kv.key) + " -> " + render(kv.value));
            }
        }
        return out;
    }

    /**
     * The results of a fixed set of read queries on a key-value, window or session store whose
     * keys are strings (the named DSL stores and the join buffers): query text → rendered
     * entries (or the exception thrown). Empty for other stores. Time ranges are placed relative
     * to {@code streamTime}, the largest input timestamp. The same queries run on the store's
     * {@code readOnly(READ_COMMITTED)} and {@code readOnly(READ_UNCOMMITTED)} views.
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    static Map<String, List<String>> queries(StateStore store, List<String> allEntries, long streamTime) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        if (allEntries == null || allEntries.isEmpty() || !stringKeys(store)) {
            return out;
        }
        List<String> keys = new ArrayList<>(DslInputs.KEYS);
        keys.add("zz");
        long[][] ranges = {
            {0, Long.MAX_VALUE},
            {streamTime - 60_000, streamTime - 20_000},
            {streamTime - 15_000, streamTime},
            {streamTime + 1, Long.MAX_VALUE}
        };
        String[][] keyRanges = {{"a", "ab"}, {"aa", "aa"}, {null, "aa"}, {"ab", null}, {null, null}, {"b", "a"}};
        if (store instanceof SessionStore) {
            SessionStore<String, Object> s = (SessionStore<String, Object>) store;
            for (String k : keys) {
                out.put("fetch(" + k + ")", iterate(() -> s.fetch(k)));
                out.put("backwardFetch(" + k + ")", iterate(() -> s.backwardFetch(k)));
                for (long[] r : ranges) {
                    out.put(
                            "findSessions(" + k + ", " + r[0] + ", " + r[1] + ")",
                            iterate(() -> s.findSessions(k, r[0], r[1])));
                    out.put(
                            "backwardFindSessions(" + k + ", " + r[0] + ", " + r[1] + ")",
                            iterate(() -> s.backwardFindSessions(k, r[0], r[1])));
                }
            }
            for (String[] kr : keyRanges) {
                out.put("fetch(" + kr[0] + ", " + kr[1] + ")", iterate(() -> s.fetch(kr[0], kr[1])));
                out.put("backwardFetch(" + kr[0] + ", " + kr[1] + ")", iterate(() -> s.backwardFetch(kr[0], kr[1])));
                for (long[] r : ranges) {
                    out.put(
                            "findSessions(" + kr[0] + ", " + kr[1] + ", " + r[0] + ", " + r[1] + ")",
                            iterate(() -> s.findSessions(kr[0], kr[1], r[0], r[1])));
                    out.put(
                            "backwardFindSessions(" + kr[0] + ", " + kr[1] + ", " + r[0] + ", " + r[1] + ")",
                            iterate(() -> s.backwardFindSessions(kr[0], kr[1], r[0], r[1])));
                }
            }
            for (long[] r : ranges) {
                out.put("findSessions(" + r[0] + ", " + r[1] + ")", iterate(() -> s.findSessions(r[0], r[1])));
            }
            List<String> exact = new ArrayList<>();
            try (KeyValueIterator<Windowed<String>, Object> it = s.fetch(null, null)) {
                it.forEachRemaining(kv -> exact.add(render(kv.key) + " -> "
                        + attempt(() -> s.fetchSession(
                                kv.key.key(),
                                kv.key.window().start(),
                                kv.key.window().end()))));
            }
            out.put("fetchSession(each entry)", exact);
            for (IsolationLevel iso : IsolationLevel.values()) {
                out.put(
                        "readOnly(" + iso + ").fetch(null, null)",
                        iterate(() -> s.readOnly(iso).fetch(null, null)));
                out.put(
                        "readOnly(" + iso + ").findSessions(a, 0, MAX)",
                        iterate(() -> s.readOnly(iso).findSessions("a", 0, Long.MAX_VALUE)));
            }
        } else if (store instanceof WindowStore) {
            WindowStore<String, Object> w = (WindowStore<String, Object>) store;
            out.put("backwardAll()", iterate(w::backwardAll));
            for (long[] r : ranges) {
                out.put("fetchAll(" + r[0] + ", " + r[1] + ")", iterate(() -> w.fetchAll(r[0], r[1])));
                out.put("backwardFetchAll(" + r[0] + ", " + r[1] + ")", iterate(() -> w.backwardFetchAll(r[0], r[1])));
                for (String k : keys) {
                    out.put("fetch(" + k + ", " + r[0] + ", " + r[1] + ")", iterate(() -> w.fetch(k, r[0], r[1])));
                    out.put(
                            "backwardFetch(" + k + ", " + r[0] + ", " + r[1] + ")",
                            iterate(() -> w.backwardFetch(k, r[0], r[1])));
                }
                for (String[] kr : keyRanges) {
                    out.put(
                            "fetch(" + kr[0] + ", " + kr[1] + ", " + r[0] + ", " + r[1] + ")",
                            iterate(() -> w.fetch(kr[0], kr[1], r[0], r[1])));
                    out.put(
                            "backwardFetch(" + kr[0] + ", " + kr[1] + ", " + r[0] + ", " + r[1] + ")",
                            iterate(() -> w.backwardFetch(kr[0], kr[1], r[0], r[1])));
                }
            }
            List<String> points = new ArrayList<>();
            try (KeyValueIterator<Windowed<String>, Object> it = w.all()) {
                it.forEachRemaining(kv -> points.add(render(kv.key) + " -> "
                        + attempt(() -> w.fetch(kv.key.key(), kv.key.window().start()))));
            }
            out.put("fetch(key, start) for each entry", points);
            for (IsolationLevel iso : IsolationLevel.values()) {
                out.put(
                        "readOnly(" + iso + ").all()",
                        iterate(() -> w.readOnly(iso).all()));
                out.put(
                        "readOnly(" + iso + ").backwardFetch(a, ab, 0, MAX)",
                        iterate(() -> w.readOnly(iso)
                                .backwardFetch(
                                        "a",
                                        "ab",
                                        java.time.Instant.EPOCH,
                                        java.time.Instant.ofEpochMilli(Long.MAX_VALUE))));
            }
        } else if (store instanceof ReadOnlyKeyValueStore) {
            ReadOnlyKeyValueStore<String, Object> kvs = (ReadOnlyKeyValueStore<String, Object>) store;
            out.put("reverseAll()", iterate(kvs::reverseAll));
            for (String[] kr : keyRanges) {
                out.put("range(" + kr[0] + ", " + kr[1] + ")", iterate(() -> kvs.range(kr[0], kr[1])));
                out.put("reverseRange(" + kr[0] + ", " + kr[1] + ")", iterate(() -> kvs.reverseRange(kr[0], kr[1])));
            }
            out.put("prefixScan(a)", iterate(() -> kvs.prefixScan("a", new StringSerializer())));
            List<String> gets = new ArrayList<>();
            for (String k : keys) {
                gets.add(k + " -> " + attempt(() -> kvs.get(k)));
            }
            out.put("get(each key)", gets);
            for (IsolationLevel iso : IsolationLevel.values()) {
                out.put(
                        "readOnly(" + iso + ").all()",
                        iterate(() -> kvs.readOnly(iso).all()));
                out.put(
                        "readOnly(" + iso + ").range(a, b)",
                        iterate(() -> kvs.readOnly(iso).range("a", "b")));
            }
        }
        return out;
    }

    private static boolean stringKeys(StateStore store) {
        List<Object> keys = new ArrayList<>();
        try (KeyValueIterator<?, ?> it = iterator(store)) {
            while (it != null && it.hasNext()) {
                Object key = it.next().key;
                keys.add(key instanceof Windowed<?> w ? w.key() : key);
            }
        } catch (RuntimeException e) {
            return false;
        }
        return !keys.isEmpty() && keys.stream().allMatch(k -> k instanceof String);
    }

    private static List<String> iterate(java.util.function.Supplier<? extends KeyValueIterator<?, ?>> query) {
        List<String> out = new ArrayList<>();
        try (KeyValueIterator<?, ?> it = query.get()) {
            while (it.hasNext()) {
                KeyValue<?, ?> kv = it.next();
                out.add(render(kv.key) + " -> " + render(kv.value));
            }
        } catch (RuntimeException e) {
            out.add("THREW " + e.getClass().getName() + ": " + e.getMessage());
        }
        return out;
    }

    private static String attempt(java.util.function.Supplier<?> query) {
        try {
            return render(query.get());
        } catch (RuntimeException e) {
            return "THREW " + e.getClass().getName() + ": " + e.getMessage();
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static KeyValueIterator<?, ?> iterator(StateStore store) {
        if (store instanceof ReadOnlySessionStore) {
            return ((ReadOnlySessionStore) store).fetch(null, null);
        } else if (store instanceof ReadOnlyWindowStore) {
            return ((ReadOnlyWindowStore) store).all();
        } else if (store instanceof ReadOnlyKeyValueStore) {
            return ((ReadOnlyKeyValueStore) store).all();
        }
        return null;
    }

    static String render(Object o) {
        if (o == null) {
            return "null";
        } else if (o instanceof byte[] bytes) {
            return Arrays.toString(bytes);
        } else if (o instanceof Bytes bytes) {
            return Arrays.toString(bytes.get());
        } else if (o instanceof Windowed<?> windowed) {
            return render(windowed.key()) + "@[" + windowed.window().start() + ","
                    + windowed.window().end() + ")";
        } else if (o instanceof ValueAndTimestamp<?> vt) {
            return render(vt.value()) + " @" + vt.timestamp();
        } else if (o instanceof ValueTimestampHeaders<?> vth) {
            return render(vth.value()) + " @" + vth.timestamp() + " " + render(vth.headers());
        } else if (o instanceof Headers headers) {
            StringBuilder sb = new StringBuilder("[");
            for (Header header : headers) {
                sb.append(sb.length() == 1 ? "" : ", ")
                        .append(header.key())
                        .append('=')
                        .append(header.value() == null ? "null" : new String(header.value(), StandardCharsets.UTF_8));
            }
            return sb.append(']').toString();
        }
        return String.valueOf(o);
    }

    /**
     * The classes of every store object reachable from {@code store} through fields (wrappers,
     * adapters, segments), outermost first, without duplicates.
     */
    static List<String> classesInside(StateStore store) {
        List<String> out = new ArrayList<>();
        walk(store, out, new IdentityHashMap<>(), 0);
        return out;
    }

    static boolean containsOurs(List<String> classes) {
        return classes.stream().anyMatch(c -> c.startsWith(OUR_PACKAGE));
    }

    private static void walk(Object object, List<String> out, Map<Object, Boolean> seen, int depth) {
        if (object == null || depth > 12 || seen.put(object, Boolean.TRUE) != null) {
            return;
        }
        String name = object.getClass().getName();
        if (!out.contains(name)) {
            out.add(name);
        }
        for (Class<?> c = object.getClass(); c != null && c != Object.class; c = c.getSuperclass()) {
            for (Field field : c.getDeclaredFields()) {
                if (Modifier.isStatic(field.getModifiers()) || field.getType().isPrimitive()) {
                    continue;
                }
                if (!StateStore.class.isAssignableFrom(field.getType())
                        && !field.getType().isInterface()
                        && field.getType() != Object.class) {
                    continue;
                }
                try {
                    field.setAccessible(true);
                    Object value = field.get(object);
                    if (value instanceof StateStore) {
                        walk(value, out, seen, depth + 1);
                    }
                } catch (ReflectiveOperationException | RuntimeException e) {
                    // inaccessible field: ignore
                }
            }
        }
    }
}
