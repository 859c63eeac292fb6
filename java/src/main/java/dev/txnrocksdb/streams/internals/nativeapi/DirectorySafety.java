package dev.txnrocksdb.streams.internals.nativeapi;

import java.io.IOException;
import java.nio.file.FileSystem;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.AclEntry;
import java.nio.file.attribute.AclEntryPermission;
import java.nio.file.attribute.AclEntryType;
import java.nio.file.attribute.AclFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.UserPrincipal;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Whether a directory in a shared place (the temp dir) is safe to load a library from: only its
 * owner, this JVM's user, can have put files there. Links are not followed. On POSIX systems the
 * owner and the mode are read; on Windows the owner and the ACL, where write access may be granted
 * only to the owner, {@code SYSTEM} and the administrators. The same rules snappy-java and Netty
 * came to for their loaders.
 */
final class DirectorySafety {
    /** What lets a principal add or replace a file in a directory (or take the directory over). */
    private static final Set<AclEntryPermission> WRITE = EnumSet.of(
            AclEntryPermission.WRITE_DATA,
            AclEntryPermission.APPEND_DATA,
            AclEntryPermission.DELETE_CHILD,
            AclEntryPermission.WRITE_ACL,
            AclEntryPermission.WRITE_OWNER,
            AclEntryPermission.DELETE);
    /** Windows principals that may write anywhere anyway. */
    private static final Set<String> TRUSTED =
            Set.of("nt authority\\system", "builtin\\administrators", "creator owner");

    private DirectorySafety() {}

    /**
     * Null if {@code dir} is a directory (not a link) owned by {@code me} that nobody else can
     * write to; otherwise why not, in words for a log line.
     */
    static String whyUnsafe(Path dir, UserPrincipal me) throws IOException {
        BasicFileAttributes basic;
        try {
            basic = Files.readAttributes(dir, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return "it does not exist";
        }
        if (basic.isSymbolicLink()) {
            return "it is a symbolic link (to " + Files.readSymbolicLink(dir) + "), which is not followed";
        }
        if (!basic.isDirectory()) {
            return "it is not a directory";
        }
        if (me == null) {
            return "the user this JVM runs as cannot be looked up (user.name '" + System.getProperty("user.name")
                    + "'), so the directory's owner cannot be checked";
        }
        Set<String> views = dir.getFileSystem().supportedFileAttributeViews();
        if (views.contains("posix")) {
            PosixFileAttributes posix = Files.readAttributes(dir, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            return whyUnsafe(posix.owner(), posix.permissions(), me);
        }
        if (views.contains("acl")) {
            AclFileAttributeView acl =
                    Files.getFileAttributeView(dir, AclFileAttributeView.class, LinkOption.NOFOLLOW_LINKS);
            return whyUnsafe(acl.getOwner(), acl.getAcl(), me);
        }
        return "its file system (" + describe(dir.getFileSystem())
                + ") shows neither POSIX permissions nor ACLs, so who can write " + "to it cannot be checked";
    }

    /** The POSIX rule: owned by {@code me}, not writable by its group or others. */
    static String whyUnsafe(UserPrincipal owner, Set<PosixFilePermission> permissions, UserPrincipal me) {
        if (!owner.equals(me)) {
            return "it is owned by " + owner.getName() + ", not by " + me.getName() + ", the user this JVM runs as";
        }
        List<String> writers = new ArrayList<>();
        if (permissions.contains(PosixFilePermission.GROUP_WRITE)) {
            writers.add("its group");
        }
        if (permissions.contains(PosixFilePermission.OTHERS_WRITE)) {
            writers.add("every user");
        }
        if (!writers.isEmpty()) {
            return "it is writable by " + String.join(" and ", writers) + " (mode "
                    + java.nio.file.attribute.PosixFilePermissions.toString(permissions) + ")";
        }
        return null;
    }

    /** The Windows rule: owned by {@code me}; no ALLOW entry grants write access to anyone but {@code me}, SYSTEM or the administrators. */
    static String whyUnsafe(UserPrincipal owner, List<AclEntry> acl, UserPrincipal me) {
        if (!owner.equals(me) && !owner.getName().equalsIgnoreCase(me.getName())) {
            return "it is owned by " + owner.getName() + ", not by " + me.getName() + ", the user this JVM runs as";
        }
        for (AclEntry entry : acl) {
            if (entry.type() != AclEntryType.ALLOW
                    || entry.permissions().stream().noneMatch(WRITE::contains)) {
                continue;
            }
            UserPrincipal who = entry.principal();
            if (who.equals(me)
                    || who.getName().equalsIgnoreCase(me.getName())
                    || who.equals(owner)
                    || TRUSTED.contains(who.getName().toLowerCase(Locale.ROOT))) {
                continue;
            }
            return "its ACL lets " + who.getName() + " write to it";
        }
        return null;
    }

    private static String describe(FileSystem fs) {
        return fs.provider().getScheme() + ", views " + fs.supportedFileAttributeViews();
    }
}
