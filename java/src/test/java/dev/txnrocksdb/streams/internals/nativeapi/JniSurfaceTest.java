package dev.txnrocksdb.streams.internals.nativeapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The JNI surface, checked at build time: the C declarations {@code javac -h} generates from the
 * Java natives of this package must equal the exported functions of the Rust boundary
 * ({@code rust/jni/src/*.rs}, every {@code pub extern "system" fn Java_...}), name for name and
 * type for type (JNI's C types, from the Rust parameter types). A renamed, mistyped or forgotten
 * native, or a parameter added on one side only, then fails the test command instead of a user's
 * first call ({@code UnsatisfiedLinkError}) or, worse, a call that reads its arguments wrong.
 *
 * <p>(Issue 21 suggests generating a C header from the Rust side with cbindgen; cbindgen does not
 * know JNI's types, so the Rust signatures are read here and mapped to them.)
 */
class JniSurfaceTest {
    private static final Path JAVA_SOURCES = Paths.get("src/main/java/dev/txnrocksdb/streams/internals/nativeapi");
    private static final Path RUST_SOURCES = Paths.get("../rust/jni/src");
    private static final Pattern HEADER = Pattern.compile("JNIEXPORT (\\w+) JNICALL (Java_\\w+)\\s*\\(([^)]*)\\);");
    private static final Pattern RUST = Pattern.compile(
            "pub extern \"system\" fn (Java_\\w+)(?:<'l>)?\\((.*?)\\)\\s*(?:->\\s*([\\w<>']+))?\\s*\\{",
            Pattern.DOTALL);
    private static final Map<String, String> RUST_TO_C = Map.ofEntries(
            Map.entry("EnvUnowned", "JNIEnv *"),
            Map.entry("JClass", "jclass"),
            Map.entry("JObject", "jobject"),
            Map.entry("JString", "jstring"),
            Map.entry("JByteArray", "jbyteArray"),
            Map.entry("JLongArray", "jlongArray"),
            Map.entry("JIntArray", "jintArray"),
            Map.entry("JObjectArray", "jobjectArray"),
            Map.entry("jbyteArray", "jbyteArray"),
            Map.entry("jboolean", "jboolean"),
            Map.entry("jbyte", "jbyte"),
            Map.entry("jint", "jint"),
            Map.entry("jlong", "jlong"),
            Map.entry("jdouble", "jdouble"));

    @TempDir
    Path out;

    /** {@code name -> "return(param, param, ...)"} from the headers {@code javac -h} writes. */
    private Map<String, String> javaNatives() throws IOException {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        List<String> args = new ArrayList<>(List.of(
                "-h",
                out.resolve("headers").toString(),
                "-d",
                out.resolve("classes").toString(),
                "-classpath",
                System.getProperty("java.class.path"),
                "-sourcepath",
                "src/main/java",
                "-proc:none",
                "-nowarn"));
        try (Stream<Path> files = Files.list(JAVA_SOURCES)) {
            files.filter(p -> p.toString().endsWith(".java"))
                    .map(Path::toString)
                    .sorted()
                    .forEach(args::add);
        }
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        int status = javac.run(null, errors, errors, args.toArray(new String[0]));
        assertEquals(0, status, "javac -h failed: " + errors.toString(StandardCharsets.UTF_8));
        Map<String, String> natives = new TreeMap<>();
        try (Stream<Path> headers = Files.list(out.resolve("headers"))) {
            for (Path header : headers.collect(Collectors.toList())) {
                Matcher m = HEADER.matcher(Files.readString(header));
                while (m.find()) {
                    String params =
                            Stream.of(m.group(3).split(",")).map(String::trim).collect(Collectors.joining(", "));
                    natives.put(m.group(2), m.group(1) + "(" + params + ")");
                }
            }
        }
        return natives;
    }

    /** The same shape from the Rust boundary's exported functions. */
    private static Map<String, String> rustExports() throws IOException {
        Map<String, String> exports = new TreeMap<>();
        try (Stream<Path> files = Files.list(RUST_SOURCES)) {
            for (Path file : files.filter(p -> p.toString().endsWith(".rs")).collect(Collectors.toList())) {
                Matcher m = RUST.matcher(Files.readString(file));
                while (m.find()) {
                    List<String> params = new ArrayList<>();
                    for (String param : m.group(2).split(",")) {
                        if (param.isBlank()) {
                            continue;
                        }
                        params.add(cType(param.substring(param.indexOf(':') + 1), m.group(1)));
                    }
                    String returned = m.group(3) == null ? "void" : cType(m.group(3), m.group(1));
                    String previous = exports.put(m.group(1), returned + "(" + String.join(", ", params) + ")");
                    assertEquals(null, previous, m.group(1) + " is exported twice");
                }
            }
        }
        return exports;
    }

    private static String cType(String rustType, String function) {
        String bare = rustType.trim().replaceAll("<.*>", "").trim();
        String c = RUST_TO_C.get(bare);
        assertTrue(c != null, function + ": no JNI type known for Rust type '" + rustType.trim() + "'");
        return c;
    }

    @Test
    void everyJavaNativeIsExportedByTheRustBoundaryWithTheSameTypes() throws IOException {
        Map<String, String> java = javaNatives();
        Map<String, String> rust = rustExports();
        assertTrue(java.size() > 30, "found the natives: " + java.keySet());
        List<String> differences = new ArrayList<>();
        for (Map.Entry<String, String> e : java.entrySet()) {
            String exported = rust.get(e.getKey());
            if (exported == null) {
                differences.add("no Rust export for " + e.getKey() + " " + e.getValue());
            } else if (!exported.equals(e.getValue())) {
                differences.add(e.getKey() + ": Java declares " + e.getValue() + ", Rust exports " + exported);
            }
        }
        for (String name : rust.keySet()) {
            if (!java.containsKey(name)) {
                differences.add("Rust exports " + name + ", which no Java class declares");
            }
        }
        assertEquals(List.of(), differences);
    }
}
