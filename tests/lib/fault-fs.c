/* SPDX-License-Identifier: MIT */
#define FUSE_USE_VERSION 31
#include "fault-fs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <fuse.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#define RULES_MAX 16

typedef struct Rule {
        char pattern[256];
        FaultMode mode;
        unsigned delay_ms;
} Rule;

/* The server is a process of its own, a program of its own
 * (fault-fs-server, exec'd right after the fork): the test runs under
 * umockdev's preload, whose wrappers hold one lock across the system call,
 * so a server thread in the test's process would wait for the test's own
 * call into the mount; and a child that is only forked from the test,
 * whose threads (umockdev's, GLib's) may hold a lock at that moment,
 * inherits it held: under ASan (clang 14's allocator takes no lock across
 * fork) the server's first malloc then waited for good, and every access
 * to the mount with it (test-exporter hung in fstatat, in D state). What the
 * two share lives in shared memory, a memfd the server maps. */
struct FaultFs {
        char dir[4096];
        pid_t pid; /* the server */
        dev_t dev; /* the mount's: its minor is the FUSE connection's number */

        /* In shared memory, process-shared: */
        pthread_mutex_t mutex;
        pthread_cond_t changed;
        Rule rules[RULES_MAX];
        unsigned n_rules;
        unsigned generation; /* bumped by a release: a blocked read lets go */
        unsigned blocked, blocked_total;
        int mounted; /* 1 once mounted, -1 if it failed */

        /* The server's alone: */
        int base_fd; /* O_PATH of the directory under the mount */
        struct fuse *fuse;
};

bool fault_fs_available(void) {
        if (access("/dev/fuse", R_OK | W_OK) < 0) {
                fprintf(stderr, "No usable /dev/fuse (%s): the fault file system cannot be mounted.\n",
                        strerror(errno));
                return false;
        }
        if (system("command -v fusermount3 >/dev/null") != 0) {
                fprintf(stderr, "No fusermount3 (Debian package fuse3): the fault file system cannot be unmounted.\n");
                return false;
        }
        return true;
}

static FaultFs *fs_of_context(void) {
        return fuse_get_context()->private_data;
}

/* "/ports/1/state" → "ports/1/state"; "/" → "." */
static const char *rel(const char *path) {
        while (*path == '/')
                path++;
        return *path ? path : ".";
}

static FaultMode rule_for(FaultFs *f, const char *path, unsigned *ret_delay) {
        const char *base = strrchr(path, '/');

        base = base ? base + 1 : path;
        if (strcmp(base, "uevent") == 0)
                return FAULT_NONE;
        for (unsigned i = f->n_rules; i > 0; i--)
                if (fnmatch(f->rules[i - 1].pattern, path, 0) == 0) {
                        *ret_delay = f->rules[i - 1].delay_ms;
                        return f->rules[i - 1].mode;
                }
        return FAULT_NONE;
}

static int fs_getattr(const char *path, struct stat *st, struct fuse_file_info *fi) {
        FaultFs *f = fs_of_context();

        if (fstatat(f->base_fd, rel(path), st, AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH) < 0)
                return -errno;
        return 0;
}

static int fs_readlink(const char *path, char *buf, size_t size) {
        FaultFs *f = fs_of_context();
        ssize_t n = readlinkat(f->base_fd, rel(path), buf, size - 1);

        if (n < 0)
                return -errno;
        buf[n] = '\0';
        return 0;
}

static int fs_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t offset, struct fuse_file_info *fi,
                      enum fuse_readdir_flags flags) {
        FaultFs *f = fs_of_context();
        struct dirent *de;
        DIR *d;
        int fd;

        fd = openat(f->base_fd, rel(path), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        d = fdopendir(fd);
        if (!d) {
                close(fd);
                return -errno;
        }
        while ((de = readdir(d))) {
                struct stat st = { .st_ino = de->d_ino, .st_mode = (mode_t) DTTOIF(de->d_type) };

                if (fill(buf, de->d_name, &st, 0, 0))
                        break;
        }
        closedir(d);
        return 0;
}

static int fs_open(const char *path, struct fuse_file_info *fi) {
        FaultFs *f = fs_of_context();
        int fd = openat(f->base_fd, rel(path), (fi->flags & ~(O_NOFOLLOW | O_NONBLOCK)) | O_CLOEXEC);

        if (fd < 0)
                return -errno;
        fi->fh = (uint64_t) fd;
        fi->direct_io = 1; /* every read reaches us, as every sysfs read reaches the driver */
        fi->keep_cache = 0;
        return 0;
}

static int fs_release(const char *path, struct fuse_file_info *fi) {
        close((int) fi->fh);
        return 0;
}

static int fs_read(const char *path, char *buf, size_t size, off_t offset, struct fuse_file_info *fi) {
        FaultFs *f = fs_of_context();
        unsigned delay = 0;
        FaultMode mode;
        ssize_t n;

        pthread_mutex_lock(&f->mutex);
        mode = rule_for(f, rel(path), &delay);
        if (mode == FAULT_BLOCK) {
                unsigned generation = f->generation;

                f->blocked++;
                f->blocked_total++;
                pthread_cond_broadcast(&f->changed);
                /* Deaf to interrupts: the kernel's FUSE_INTERRUPT is not
                 * answered, as a firmware command does not answer a signal. */
                while (generation == f->generation && rule_for(f, rel(path), &delay) == FAULT_BLOCK)
                        pthread_cond_wait(&f->changed, &f->mutex);
                f->blocked--;
                pthread_cond_broadcast(&f->changed);
                mode = rule_for(f, rel(path), &delay);
                if (mode == FAULT_BLOCK)
                        mode = FAULT_NONE; /* released */
        }
        pthread_mutex_unlock(&f->mutex);

        if (mode == FAULT_EIO)
                return -EIO;
        if (mode == FAULT_DELAY && delay > 0) {
                struct timespec ts = { .tv_sec = delay / 1000, .tv_nsec = (long) (delay % 1000) * 1000000L };
                nanosleep(&ts, NULL);
        }
        n = pread((int) fi->fh, buf, size, offset);
        return n < 0 ? -errno : (int) n;
}

static int fs_write(const char *path, const char *buf, size_t size, off_t offset, struct fuse_file_info *fi) {
        ssize_t n = pwrite((int) fi->fh, buf, size, offset);
        return n < 0 ? -errno : (int) n;
}

static int fs_truncate(const char *path, off_t size, struct fuse_file_info *fi) {
        FaultFs *f = fs_of_context();
        int fd, r = 0;

        if (fi)
                return ftruncate((int) fi->fh, size) < 0 ? -errno : 0;
        fd = openat(f->base_fd, rel(path), O_WRONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        if (ftruncate(fd, size) < 0)
                r = -errno;
        close(fd);
        return r;
}

static void *fs_init(struct fuse_conn_info *conn, struct fuse_config *cfg) {
        /* Synchronous direct I/O: io_submit() waits as read() does. */
        conn->want &= ~FUSE_CAP_ASYNC_DIO;
        cfg->direct_io = 1;
        cfg->entry_timeout = 0;
        cfg->attr_timeout = 0;
        cfg->negative_timeout = 0;
        cfg->use_ino = 1;
        return fuse_get_context()->private_data;
}

static const struct fuse_operations fs_ops = {
        .init = fs_init,
        .getattr = fs_getattr,
        .readlink = fs_readlink,
        .readdir = fs_readdir,
        .open = fs_open,
        .release = fs_release,
        .read = fs_read,
        .write = fs_write,
        .truncate = fs_truncate,
};

/* The server process: mounts, serves until told to stop or unmounted. */
static _Noreturn void fs_serve(FaultFs *f) {
        char *argv[] = { "fault-fs", "-o", "allow_other,default_permissions,fsname=fault-fs,subtype=fault", NULL };
        struct fuse_args args = FUSE_ARGS_INIT(3, argv);
        int ok;

        f->fuse = f->base_fd >= 0 ? fuse_new(&args, &fs_ops, sizeof(fs_ops), f) : NULL;
        ok = f->fuse && fuse_mount(f->fuse, f->dir) == 0 && fuse_set_signal_handlers(fuse_get_session(f->fuse)) == 0;
        pthread_mutex_lock(&f->mutex);
        f->mounted = ok ? 1 : -1;
        pthread_cond_broadcast(&f->changed);
        pthread_mutex_unlock(&f->mutex);
        if (!ok) {
                fprintf(stderr, "fault-fs: cannot mount over %s\n", f->dir);
                _exit(1);
        }
        (void) fuse_loop_mt(f->fuse, 0);
        _exit(0);
}

int fault_fs_server_main(int argc, char *argv[]) {
        FaultFs *f;
        int memfd;

        if (argc != 2 || (memfd = atoi(argv[1])) < 0) {
                fprintf(stderr, "usage: fault-fs-server MEMFD (started by the tests' fault_fs_mount())\n");
                return 2;
        }
        f = mmap(NULL, sizeof(FaultFs), PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
        if (f == MAP_FAILED) {
                fprintf(stderr, "fault-fs-server: cannot map the shared state: %m\n");
                return 1;
        }
        close(memfd);
        fs_serve(f);
}

FaultFs *fault_fs_mount(const char *dir) {
        char memfd_arg[16], **env;
        size_t n_env = 0;
        int memfd;
        pthread_mutexattr_t ma;
        pthread_condattr_t ca;
        struct stat st;
        FaultFs *f;
        pid_t pid;

        memfd = memfd_create("fault-fs", MFD_CLOEXEC);
        assert_true(memfd >= 0);
        assert_int_equal(ftruncate(memfd, sizeof(FaultFs)), 0);
        f = mmap(NULL, sizeof(FaultFs), PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
        assert_true(f != MAP_FAILED);
        memset(f, 0, sizeof(*f));
        snprintf(f->dir, sizeof(f->dir), "%s", dir);
        pthread_mutexattr_init(&ma);
        pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
        pthread_mutex_init(&f->mutex, &ma);
        pthread_mutexattr_destroy(&ma);
        pthread_condattr_init(&ca);
        pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
        pthread_cond_init(&f->changed, &ca);
        pthread_condattr_destroy(&ca);

        /* Before the fork: the server and the test each have it, at the same number. */
        f->base_fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
        assert_true(f->base_fd >= 0);
        /* Everything the child needs, made before the fork: after it, only
         * what is async-signal-safe, then exec. Not under umockdev's
         * preload: the server reads the testbed through base_fd. */
        snprintf(memfd_arg, sizeof(memfd_arg), "%d", memfd);
        for (char **e = environ; *e; e++)
                n_env++;
        env = calloc(n_env + 1, sizeof(char *));
        assert_non_null(env);
        n_env = 0;
        for (char **e = environ; *e; e++)
                if (strncmp(*e, "LD_PRELOAD=", 11) != 0)
                        env[n_env++] = *e;
        fflush(NULL);
        /* Not into f: the child would write its 0 there too. */
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                char *argv[] = { (char *) FAULT_FS_SERVER, memfd_arg, NULL };

                /* The test gone, the server goes: the kernel then fails the blocked reads. */
                (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
                if (fcntl(memfd, F_SETFD, 0) < 0 || fcntl(f->base_fd, F_SETFD, 0) < 0)
                        _exit(126);
                execve(FAULT_FS_SERVER, argv, env);
                _exit(127);
        }
        free(env);
        close(memfd);
        f->pid = pid;

        /* At most 20 s: a server that never mounts fails the test, not its meson timeout. */
        {
                struct timespec ts;

                clock_gettime(CLOCK_REALTIME, &ts);
                ts.tv_sec += 20;
                pthread_mutex_lock(&f->mutex);
                while (f->mounted == 0 && pthread_cond_timedwait(&f->changed, &f->mutex, &ts) != ETIMEDOUT)
                        ;
                pthread_mutex_unlock(&f->mutex);
                if (f->mounted == 0)
                        fail_msg("waited 20 s for the fault file system over %s to mount; last seen: not mounted, its "
                                 "server (pid %d) %s",
                                 dir, (int) pid, waitpid(pid, NULL, WNOHANG) == pid ? "exited" : "running");
        }
        if (f->mounted < 0) {
                (void) waitpid(f->pid, NULL, 0);
                close(f->base_fd);
                munmap(f, sizeof(FaultFs));
                return NULL;
        }
        if (stat(dir, &st) == 0)
                f->dev = st.st_dev;
        return f;
}

void fault_fs_set(FaultFs *f, const char *pattern, FaultMode mode, unsigned delay_ms) {
        pthread_mutex_lock(&f->mutex);
        for (unsigned i = 0; i < f->n_rules; i++)
                if (strcmp(f->rules[i].pattern, pattern) == 0) {
                        memmove(&f->rules[i], &f->rules[i + 1], (f->n_rules - i - 1) * sizeof(Rule));
                        f->n_rules--;
                        break;
                }
        assert_true(f->n_rules < RULES_MAX);
        snprintf(f->rules[f->n_rules].pattern, sizeof(f->rules[0].pattern), "%s", pattern);
        f->rules[f->n_rules].mode = mode;
        f->rules[f->n_rules].delay_ms = delay_ms;
        f->n_rules++;
        pthread_cond_broadcast(&f->changed);
        pthread_mutex_unlock(&f->mutex);
}

unsigned fault_fs_blocked(FaultFs *f) {
        unsigned n;

        pthread_mutex_lock(&f->mutex);
        n = f->blocked;
        pthread_mutex_unlock(&f->mutex);
        return n;
}

unsigned fault_fs_blocked_total(FaultFs *f) {
        unsigned n;

        pthread_mutex_lock(&f->mutex);
        n = f->blocked_total;
        pthread_mutex_unlock(&f->mutex);
        return n;
}

bool fault_fs_wait_blocked(FaultFs *f, unsigned n, int timeout_ms) {
        struct timespec ts;
        bool ok = true;

        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_sec += timeout_ms / 1000;
        ts.tv_nsec += (long) (timeout_ms % 1000) * 1000000L;
        if (ts.tv_nsec >= 1000000000L) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000L;
        }
        pthread_mutex_lock(&f->mutex);
        while (f->blocked < n && ok)
                ok = pthread_cond_timedwait(&f->changed, &f->mutex, &ts) == 0 || f->blocked >= n;
        ok = f->blocked >= n;
        pthread_mutex_unlock(&f->mutex);
        return ok;
}

void fault_fs_release(FaultFs *f) {
        pthread_mutex_lock(&f->mutex);
        f->n_rules = 0;
        f->generation++;
        pthread_cond_broadcast(&f->changed);
        pthread_mutex_unlock(&f->mutex);
}

void fault_fs_write(FaultFs *f, const char *rel_path, const char *value) {
        int fd = openat(f->base_fd, rel_path, O_WRONLY | O_TRUNC | O_CLOEXEC);
        size_t len = strlen(value);

        assert_true(fd >= 0);
        assert_int_equal(write(fd, value, len), (ssize_t) len);
        close(fd);
}

static bool mounted(const char *dir) {
        char line[8192];
        bool found = false;
        FILE *m = fopen("/proc/self/mounts", "re");

        while (m && fgets(line, sizeof(line), m)) {
                char source[256], target[4096], type[64];

                if (sscanf(line, "%255s %4095s %63s", source, target, type) == 3 && strcmp(target, dir) == 0 &&
                    strstr(type, "fuse"))
                        found = true;
        }
        if (m)
                fclose(m);
        return found;
}

static void abort_connection(FaultFs *f) {
        char path[256];

        /* Outside umockdev's preload, which would take /sys for the testbed's. */
        if (system("env -u LD_PRELOAD sh -c 'mountpoint -q /sys/fs/fuse/connections || "
                   "mount -t fusectl fusectl /sys/fs/fuse/connections'") != 0)
                fprintf(stderr, "fault-fs: cannot mount fusectl\n");
        snprintf(path, sizeof(path), "env -u LD_PRELOAD sh -c 'echo 1 > /sys/fs/fuse/connections/%u/abort'",
                 minor(f->dev));
        if (system(path) != 0)
                fprintf(stderr, "fault-fs: cannot abort the connection of %s\n", f->dir);
}

void fault_fs_unmount(FaultFs *f) {
        char *argv[] = { "fusermount3", "-u", "-z", f ? f->dir : NULL, NULL };
        int status = -1;
        uint64_t waited = 0;
        pid_t pid;

        if (!f)
                return;
        fault_fs_release(f);
        /* Lazy: whoever has a file open keeps it until closed. */
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                /* Without umockdev's preload, whose getcwd() hides the testbed's prefix. */
                unsetenv("LD_PRELOAD");
                execvp(argv[0], argv);
                _exit(127);
        }
        (void) waitpid(pid, &status, 0);
        /* The server stops on SIGTERM; a connection someone still holds is
         * aborted, so that no reader stays blocked on a server that is gone. */
        assert_true(f->pid > 0);
        kill(f->pid, SIGTERM);
        while (waitpid(f->pid, NULL, WNOHANG) == 0) {
                if (waited == 2000) {
                        abort_connection(f);
                        kill(f->pid, SIGKILL);
                }
                usleep(10000);
                waited += 10;
        }
        if (mounted(f->dir))
                fail_msg("fault-fs: %s is still mounted after fusermount3 -u -z (status %d)", f->dir, status);
        close(f->base_fd);
        munmap(f, sizeof(FaultFs));
}
