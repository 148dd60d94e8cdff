/* SPDX-License-Identifier: MIT */
#include "users.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <ftw.h>
#include <sched.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <pwd.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include <cmocka.h>

#include "harness.h"
#include "harness-private.h"

/* Who the daemon runs as. As root, the tests run it as the service does:
 * as the system user of systemd/rdmad-sysusers.conf, without privileges, able
 * to write only the testbed's sriov_numvfs files (what 90-rdmad.rules grants
 * on a real host). Not nobody: the tests call as nobody to be refused, and
 * sd-bus would count a caller with the daemon's own uid as privileged.
 * Without root the daemon runs as the tests do. */
static bool daemon_user_known;
bool daemon_unprivileged;
uid_t daemon_uid;
gid_t daemon_gid;

/* Once per test process: the user as sysusers.d creates it at installation,
 * but in copies of passwd and group bind-mounted in a mount namespace of the
 * test's own (dbus-daemon and polkitd, its children, resolve the name there);
 * the host's files stay as they are. A host with rdmad installed keeps its user. */
void setup_daemon_user(void) {
        struct passwd *pw;

        if (daemon_user_known)
                return;
        daemon_user_known = true;
        if (geteuid() != 0)
                return;
        /* The source and type mount(2) ignores here are named: valgrind reads them. */
        if (unshare(CLONE_NEWNS) < 0 || mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) < 0)
                fail_msg("harness: no private mount namespace: %m");
        if (!getpwnam(DAEMON_USER)) {
                char dir[] = "/tmp/rdmad-users-XXXXXX", cmd[1024], from[128];

                assert_non_null(mkdtemp(dir));
                snprintf(cmd, sizeof(cmd),
                         "mkdir '%s/etc' && cp /etc/passwd /etc/group '%s/etc/' && "
                         "systemd-sysusers --root='%s' '%s' >/dev/null",
                         dir, dir, dir, SYSUSERS_FILE);
                if (system(cmd) != 0)
                        fail_msg("harness: systemd-sysusers could not create the user " DAEMON_USER);
                for (size_t i = 0; i < 2; i++) {
                        const char *file = i == 0 ? "passwd" : "group";
                        char to[64];

                        snprintf(from, sizeof(from), "%s/etc/%s", dir, file);
                        snprintf(to, sizeof(to), "/etc/%s", file);
                        if (mount(from, to, "none", MS_BIND, NULL) < 0)
                                fail_msg("harness: cannot bind-mount %s over %s: %m", from, to);
                }
                snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
                (void) !system(cmd);
        }
        pw = getpwnam(DAEMON_USER);
        if (!pw)
                fail_msg("harness: no user " DAEMON_USER " after systemd-sysusers");
        daemon_uid = pw->pw_uid;
        daemon_gid = pw->pw_gid;
        daemon_unprivileged = true;
}

/* In a child: becomes uid/gid, supplementary groups dropped. */
int become(uid_t uid, gid_t gid) {
        if (setgroups(0, NULL) < 0 || setresgid(gid, gid, gid) < 0 || setresuid(uid, uid, uid) < 0)
                return -errno;
        return 0;
}

char *harness_copy_for_all_users(Harness *h, const char *path) {
        const char *name = strrchr(path, '/');
        char *copy = NULL, buf[65536];
        int in, out;
        ssize_t n;

        if (!daemon_unprivileged)
                return strdup(path);
        assert_true(asprintf(&copy, "%s/%s", h->tmpdir, name ? name + 1 : path) > 0);
        if (access(copy, F_OK) == 0) /* copied before (a restart of the daemon) */
                return copy;
        in = open(path, O_RDONLY | O_CLOEXEC);
        if (in < 0)
                fail_msg("Cannot read %s: %m", path);
        out = open(copy, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
        if (out < 0)
                fail_msg("Cannot create %s: %m", copy);
        while ((n = read(in, buf, sizeof(buf))) > 0)
                assert_int_equal(write(out, buf, (size_t) n), n);
        assert_int_equal(n, 0);
        close(in);
        assert_int_equal(close(out), 0);
        return copy;
}

static int grant_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
        char pf[1024];
        struct stat ib;

        if (flag != FTW_F || strcmp(path + ftw->base, "sriov_numvfs") != 0)
                return 0;
        /* Only a PCI function that carries an RDMA device, as the rule says. */
        snprintf(pf, sizeof(pf), "%.*sinfiniband", ftw->base, path);
        if (stat(pf, &ib) < 0 || !S_ISDIR(ib.st_mode))
                return 0;
        if (chown(path, (uid_t) -1, daemon_gid) < 0 || chmod(path, (st->st_mode & 07777) | S_IWGRP) < 0)
                fail_msg("Cannot give %s to " DAEMON_USER ": %m", path);
        return 0;
}

void harness_grant_sriov(Harness *h) {
        char *root, dir[512];

        if (!daemon_unprivileged)
                return;
        root = umockdev_testbed_get_root_dir(h->testbed);
        snprintf(dir, sizeof(dir), "%s/sys/devices", root);
        g_free(root);
        if (access(dir, F_OK) == 0 && nftw(dir, grant_entry, 16, FTW_PHYS) < 0)
                fail_msg("Cannot walk %s: %m", dir);
}

void harness_give_to_daemon(const char *path) {
        if (daemon_unprivileged && chown(path, daemon_uid, daemon_gid) < 0)
                fail_msg("Cannot give %s to " DAEMON_USER ": %m", path);
}

/* Changing another user's limits takes CAP_SYS_RESOURCE, which root in a
 * container may lack; a child with the daemon's own identity needs none. */
void harness_daemon_prlimit(Harness *h, int resource, const struct rlimit *new_limit, struct rlimit *old_limit) {
        struct {
                int error;
                struct rlimit old;
        } result = {};
        int pipefd[2], status;
        pid_t pid;

        if (!daemon_unprivileged) {
                if (prlimit(h->daemon_pid, resource, new_limit, old_limit) < 0)
                        fail_msg("prlimit: %m");
                return;
        }
        assert_int_equal(pipe2(pipefd, O_CLOEXEC), 0);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                close(pipefd[0]);
                if (become(daemon_uid, daemon_gid) < 0 || prlimit(h->daemon_pid, resource, new_limit, &result.old) < 0)
                        result.error = errno;
                (void) !write(pipefd[1], &result, sizeof(result));
                _exit(0);
        }
        close(pipefd[1]);
        assert_int_equal(read(pipefd[0], &result, sizeof(result)), (ssize_t) sizeof(result));
        close(pipefd[0]);
        assert_int_equal(waitpid(pid, &status, 0), pid);
        if (result.error != 0)
                fail_msg("prlimit as " DAEMON_USER ": %s", strerror(result.error));
        if (old_limit)
                *old_limit = result.old;
}

/* Sanitizers read their suppressions file when the process ends: the
 * daemon, or rdmactl run as nobody, must reach the one LSAN_OPTIONS names.
 * The test's own sanitizer read the variable at its start. */
static char *saved_lsan_options;

void share_lsan_suppressions(Harness *h) {
        const char *options = getenv("LSAN_OPTIONS"), *start, *end;
        char *file, *copy, *rewritten;

        if (!daemon_unprivileged || !options || !(start = strstr(options, "suppressions=")))
                return;
        start += strlen("suppressions=");
        end = start + strcspn(start, ":");
        file = strndup(start, (size_t) (end - start));
        copy = harness_copy_for_all_users(h, file);
        assert_true(asprintf(&rewritten, "%.*s%s%s", (int) (start - options), options, copy, end) > 0);
        saved_lsan_options = strdup(options);
        setenv("LSAN_OPTIONS", rewritten, 1);
        free(file);
        free(copy);
        free(rewritten);
}

void restore_lsan_options(void) {
        if (!saved_lsan_options)
                return;
        setenv("LSAN_OPTIONS", saved_lsan_options, 1);
        free(saved_lsan_options);
        saved_lsan_options = NULL;
}

bool harness_private_network(void) {
        FILE *f;

        if (unshare(CLONE_NEWNET) < 0) {
                fprintf(stderr, "harness: no private network namespace (%m): needs root\n");
                return false;
        }
        /* umockdev delivers uevents over unix datagram sockets; the default
         * queue of 10 would drop most of a storm. */
        f = fopen("/proc/sys/net/unix/max_dgram_qlen", "we");
        if (!f || fputs("4096\n", f) < 0 || fclose(f) != 0) {
                fprintf(stderr, "harness: cannot raise net.unix.max_dgram_qlen: %m\n");
                return false;
        }
        /* Loopback up, as on any host. */
        if (system("ip link set lo up") != 0)
                fprintf(stderr, "harness: cannot bring up lo\n");
        return true;
}

sd_bus *harness_open_bus_as(uid_t uid) {
        sd_bus *bus = NULL;

        assert_int_equal(setresuid(-1, uid, -1), 0);
        assert_true(sd_bus_open_system(&bus) >= 0);
        assert_true(sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                       "GetId", NULL, NULL, "") >= 0);
        assert_int_equal(setresuid(-1, 0, -1), 0);
        return bus;
}

char *harness_request_name_as(Harness *h, uid_t uid, gid_t gid, const char *name) {
        return harness_call_as(h, uid, gid, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                               "RequestName", "su", name, 0);
}

char *harness_call_as(Harness *h, uid_t uid, gid_t gid, const char *destination, const char *path,
                      const char *interface, const char *member, const char *types, ...) {
        int pipefd[2];
        char buf[512];
        ssize_t n;
        pid_t pid;
        va_list ap;
        int status;

        assert_int_equal(pipe2(pipefd, O_CLOEXEC), 0);
        va_start(ap, types);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                sd_bus_error error = SD_BUS_ERROR_NULL;
                sd_bus_message *m = NULL;
                sd_bus *bus = NULL;
                const char *result = "";

                close(pipefd[0]);
                if (become(uid, gid) < 0)
                        result = "setresuid failed";
                else if (sd_bus_open_system(&bus) < 0)
                        result = "cannot connect";
                else if (sd_bus_message_new_method_call(bus, &m, destination, path, interface, member) < 0 ||
                         sd_bus_message_appendv(m, types, ap) < 0)
                        result = "cannot build the call";
                else if (sd_bus_call(bus, m, 10 * 1000000, &error, NULL) < 0)
                        result = error.name ?: "no error name";
                (void) !write(pipefd[1], result, strlen(result));
                _exit(0);
        }
        va_end(ap);
        close(pipefd[1]);
        n = read(pipefd[0], buf, sizeof(buf) - 1);
        close(pipefd[0]);
        assert_int_equal(waitpid(pid, &status, 0), pid);
        buf[n > 0 ? n : 0] = '\0';
        return buf[0] ? strdup(buf) : NULL;
}

void user_caller_start(UserCaller *c, uid_t uid, UserCallerBody body, const void *data) {
        struct passwd *pw = getpwuid(uid);
        gid_t gid = pw ? pw->pw_gid : uid;
        int report[2], control[2];

        assert_int_equal(pipe2(report, O_CLOEXEC), 0);
        assert_int_equal(pipe2(control, O_CLOEXEC), 0);
        c->pid = fork();
        assert_true(c->pid >= 0);
        if (c->pid == 0) {
                sd_bus *bus = NULL;
                FILE *f;

                close(report[0]);
                close(control[1]);
                f = fdopen(report[1], "w");
                if (!f || setgroups(0, NULL) < 0 || setresgid(gid, gid, gid) < 0 || setresuid(uid, uid, uid) < 0 ||
                    sd_bus_open_system(&bus) < 0)
                        _exit(2);
                setvbuf(f, NULL, _IOLBF, 0);
                body(bus, f, control[0], data);
                fclose(f);
                sd_bus_flush_close_unref(bus);
                _exit(0);
        }
        close(report[1]);
        close(control[0]);
        c->report = report[0];
        c->control = control[1];
}

char *user_caller_read_line(UserCaller *c) {
        char buf[1024];
        size_t len = 0;

        while (len < sizeof(buf) - 1) {
                ssize_t k = harness_read_within(c->report, buf + len, 1, 0, "a line from the other user's caller");

                assert_true(k >= 0);
                if (k == 0 || buf[len] == '\n')
                        break;
                len++;
        }
        buf[len] = '\0';
        return strdup(buf);
}

void user_caller_finish(UserCaller *c) {
        int status;

        close(c->control);
        status = harness_waitpid_within(c->pid, 0, "the other user's caller, let go");
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 0);
        close(c->report);
}

void user_caller_kill(UserCaller *c) {
        int status;

        kill(c->pid, SIGKILL);
        assert_int_equal(waitpid(c->pid, &status, 0), c->pid);
        close(c->control);
        close(c->report);
}

void user_caller_wait_for_parent(int control) {
        char c;

        while (read(control, &c, 1) > 0)
                ;
}
