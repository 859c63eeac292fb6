/*
 * An LD_PRELOAD shim that records what a power loss would leave of one directory tree: the
 * durable image. Power loss keeps a file's data as of its last fsync/fdatasync, and a directory's
 * entries as of the directory's last fsync; everything else may vanish, and here it does.
 *
 *   TXN_POWERLOSS_DIR      the watched directory (absolute, no symlinks); files outside pass through
 *   TXN_POWERLOSS_DURABLE  where the image is recorded:
 *       data/<file id>          a file's content at its last fsync/fdatasync
 *       dirs/dir%<relative path> a directory's entries at its last fsync, lines "<type> <file id> <name>"
 *                               (type f or d; '/' in the path is '%': the root's is "dir%")
 *
 * A file id is the inode number and birth time (statx), so a reused inode number is a new file.
 * The test that preloads this (tests/power_loss.rs) builds the image from these records after
 * kill -9: a file whose directory entry was never synced is gone, a file whose data was never
 * synced is empty. Only fsync and fdatasync make anything durable (sync_file_range does not).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void die(const char *what, const char *path) {
    fprintf(stderr, "power-loss shim: %s %s: %s\n", what, path, strerror(errno));
    abort();
}

/* The id of path under dirfd (of dirfd itself when path is ""). */
static int file_id(int dirfd, const char *path, char *out, size_t len, int *is_dir) {
    struct statx st;
    int flags = AT_SYMLINK_NOFOLLOW | (*path ? 0 : AT_EMPTY_PATH);
    if (statx(dirfd, path, flags, STATX_INO | STATX_BTIME | STATX_TYPE, &st) != 0) return -1;
    snprintf(out, len, "%llu-%lld.%u", (unsigned long long)st.stx_ino, (long long)st.stx_btime.tv_sec,
             st.stx_btime.tv_nsec);
    if (is_dir) *is_dir = S_ISDIR(st.stx_mode);
    return 0;
}

/* The watched path of fd relative to the watched directory ("" for the directory itself), or NULL. */
static const char *watched(int fd, char *path, size_t len) {
    const char *root = getenv("TXN_POWERLOSS_DIR");
    if (!root || !getenv("TXN_POWERLOSS_DURABLE")) return NULL;
    char link[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, len - 1);
    if (n < 0) return NULL;
    path[n] = 0;
    size_t root_len = strlen(root);
    if (strncmp(path, root, root_len) != 0 || (path[root_len] != 0 && path[root_len] != '/')) return NULL;
    return path[root_len] == '/' ? path + root_len + 1 : path + root_len;
}

static void write_atomically(const char *target, const char *tmp, int (*fill)(int, void *), void *arg) {
    int out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out < 0) die("creating", tmp);
    if (fill(out, arg) != 0) die("writing", tmp);
    if (close(out) != 0) die("closing", tmp);
    if (rename(tmp, target) != 0) die("renaming", tmp);
}

static int copy_fd(int out, void *arg) {
    int in = *(int *)arg;
    char buf[1 << 16];
    off_t at = 0;
    for (;;) {
        ssize_t n = pread(in, buf, sizeof buf, at);
        if (n < 0) return -1;
        if (n == 0) return 0;
        for (ssize_t done = 0; done < n;) {
            ssize_t w = write(out, buf + done, n - done);
            if (w < 0) return -1;
            done += w;
        }
        at += n;
    }
}

struct listing { const char *dir; };

static int list_dir(int out, void *arg) {
    const char *dir = ((struct listing *)arg)->dir;
    DIR *d = opendir(dir);
    if (!d) return -1;
    int dfd = dirfd(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char id[64];
        int is_dir = 0;
        if (file_id(dfd, e->d_name, id, sizeof id, &is_dir) != 0) continue; /* deleted meanwhile */
        dprintf(out, "%c %s %s\n", is_dir ? 'd' : 'f', id, e->d_name);
    }
    closedir(d);
    return 0;
}

static void record(int fd) {
    char path[PATH_MAX];
    const char *relative = watched(fd, path, sizeof path);
    if (!relative) return;
    const char *durable = getenv("TXN_POWERLOSS_DURABLE");
    struct stat st;
    if (fstat(fd, &st) != 0) return;
    char target[2 * PATH_MAX], tmp[2 * PATH_MAX];
    pthread_mutex_lock(&lock);
    if (S_ISDIR(st.st_mode)) {
        char name[PATH_MAX];
        snprintf(name, sizeof name, "dir%%%s", relative);
        for (char *c = name; *c; c++) if (*c == '/') *c = '%';
        snprintf(target, sizeof target, "%s/dirs/%s", durable, name);
        snprintf(tmp, sizeof tmp, "%s/dirs/.tmp-%d", durable, (int)gettid());
        struct listing arg = { path };
        write_atomically(target, tmp, list_dir, &arg);
    } else if (S_ISREG(st.st_mode)) {
        char id[64];
        if (file_id(fd, "", id, sizeof id, NULL) != 0) die("statx", path);
        snprintf(target, sizeof target, "%s/data/%s", durable, id);
        snprintf(tmp, sizeof tmp, "%s/data/.tmp-%d", durable, (int)gettid());
        char self[64];
        snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
        int in = open(self, O_RDONLY | O_CLOEXEC); /* the fd itself may be write-only */
        if (in < 0) die("reopening", path);
        write_atomically(target, tmp, copy_fd, &in);
        close(in);
    }
    pthread_mutex_unlock(&lock);
}

int fsync(int fd) {
    static int (*real)(int);
    if (!real) real = dlsym(RTLD_NEXT, "fsync");
    int rc = real(fd);
    if (rc == 0) record(fd);
    return rc;
}

int fdatasync(int fd) {
    static int (*real)(int);
    if (!real) real = dlsym(RTLD_NEXT, "fdatasync");
    int rc = real(fd);
    if (rc == 0) record(fd);
    return rc;
}
