package dev.txnrocksdb.streams.internals.nativeapi;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.UserPrincipal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The real process behind {@link LoaderHost}: system properties, the environment,
 * {@code /proc/self/maps}, the jar's resources and the JVM's own loading of libraries.
 */
final class SystemHost implements LoaderHost {
    /** The facade's logger: log settings that quiet or raise the loader's warnings name that class. */
    private static final Logger LOG =
            LoggerFactory.getLogger("dev.txnrocksdb.streams.internals.nativeapi.NativeLibrary");

    @Override
    public String osName() {
        return System.getProperty("os.name", "");
    }

    @Override
    public String osArch() {
        return System.getProperty("os.arch", "");
    }

    @Override
    public boolean musl() {
        return NativePlatform.runningOnMusl();
    }

    @Override
    public String overrideSource() {
        if (notBlank(System.getProperty(LoaderHost.DIR_PROPERTY))) {
            return "system property " + LoaderHost.DIR_PROPERTY;
        }
        return notBlank(System.getenv(LoaderHost.DIR_ENV)) ? "environment variable " + LoaderHost.DIR_ENV : null;
    }

    @Override
    public Path overrideDir() {
        String property = System.getProperty(LoaderHost.DIR_PROPERTY);
        if (notBlank(property)) {
            return Paths.get(property);
        }
        String env = System.getenv(LoaderHost.DIR_ENV);
        return notBlank(env) ? Paths.get(env) : null;
    }

    @Override
    public Path defaultExtractDir() {
        String user = System.getProperty("user.name", "user");
        return Paths.get(System.getProperty("java.io.tmpdir"), "txn-rocksdb-" + user);
    }

    @Override
    public String jarVersion() {
        return LibraryVersion.jarVersionFromResource();
    }

    @Override
    public InputStream resource(String path) {
        return SystemHost.class.getResourceAsStream(path);
    }

    @Override
    public void loadFromLibraryPath() {
        System.loadLibrary(NativePlatform.LIBRARY_NAME);
    }

    @Override
    public void loadFile(Path file) {
        System.load(file.toAbsolutePath().toString());
    }

    @Override
    public String nativeVersion() {
        return LibraryVersion.loadedVersion();
    }

    @Override
    public UserPrincipal currentUser() {
        String name = System.getProperty("user.name", "");
        try {
            return FileSystems.getDefault().getUserPrincipalLookupService().lookupPrincipalByName(name);
        } catch (IOException | UnsupportedOperationException e) {
            return null; // e.g. a container's uid with no passwd entry (user.name '?')
        }
    }

    @Override
    public Path createPrivateDirectory() throws IOException {
        // createTempDirectory makes it rwx------ on POSIX systems; on Windows it inherits the
        // user's own temp directory's ACL.
        Path dir = Files.createTempDirectory(Paths.get(System.getProperty("java.io.tmpdir")), "txn-rocksdb-");
        dir.toFile().deleteOnExit();
        return dir;
    }

    @Override
    public void warn(String message) {
        LOG.warn(message);
    }

    private static boolean notBlank(String s) {
        return s != null && !s.isBlank();
    }
}
