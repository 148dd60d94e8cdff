/* SPDX-License-Identifier: MIT */
#include "harness.h"

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

/* Generous: the benchmark starts 2048 devices, sometimes under callgrind or on a loaded machine. */
#define DAEMON_READY_TIMEOUT_MS 120000

uint64_t now_usec(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000;
}

static uint64_t now_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000 + (uint64_t) ts.tv_nsec / 1000000;
}

static void write_text(const char *path, const char *text) {
        FILE *f = fopen(path, "we");
        assert_non_null(f);
        fputs(text, f);
        assert_int_equal(fclose(f), 0);
}

/* Who the daemon runs as. As root, the tests run it as the service does:
 * as the system user of systemd/rdmad-sysusers.conf, without privileges, able
 * to write only the testbed's sriov_numvfs files (what 90-rdmad.rules grants
 * on a real host). Not nobody: the tests call as nobody to be refused, and
 * sd-bus would count a caller with the daemon's own uid as privileged.
 * Without root the daemon runs as the tests do. */
#define DAEMON_USER "rdmad"
static bool daemon_user_known, daemon_unprivileged;
static uid_t daemon_uid;
static gid_t daemon_gid;

/* Once per test process: the user as sysusers.d creates it at installation,
 * but in copies of passwd and group bind-mounted in a mount namespace of the
 * test's own (dbus-daemon and polkitd, its children, resolve the name there);
 * the host's files stay as they are. A host with rdmad installed keeps its user. */
static void setup_daemon_user(void) {
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
static int become(uid_t uid, gid_t gid) {
        if (setgroups(0, NULL) < 0 || setresgid(gid, gid, gid) < 0 || setresuid(uid, uid, uid) < 0)
                return -errno;
        return 0;
}

/* Child in its own process group, killed if the test process dies. The
 * test runs under umockdev's preload; children get it only through
 * umockdev-wrapper (the daemon), never twice. as_daemon_user: with the
 * daemon's identity (in /, where that user may be). */
static pid_t spawn_full(char *const argv[], int stdout_fd, int stderr_fd, bool as_daemon_user) {
        pid_t parent = getpid();
        pid_t pid = fork();

        assert_true(pid >= 0);
        if (pid == 0) {
                setpgid(0, 0);
                if (as_daemon_user && daemon_unprivileged && (chdir("/") < 0 || become(daemon_uid, daemon_gid) < 0)) {
                        fprintf(stderr, "Cannot become " DAEMON_USER ": %m\n");
                        _exit(127);
                }
                /* After the change of identity, which clears it. */
                prctl(PR_SET_PDEATHSIG, SIGKILL);
                if (getppid() != parent)
                        _exit(127);
                unsetenv("LD_PRELOAD");
                if (stdout_fd >= 0) {
                        dup2(stdout_fd, STDOUT_FILENO);
                        close(stdout_fd);
                }
                if (stderr_fd >= 0) {
                        dup2(stderr_fd, STDERR_FILENO);
                        close(stderr_fd);
                }
                execvp(argv[0], argv);
                fprintf(stderr, "Cannot execute %s: %m\n", argv[0]);
                _exit(127);
        }
        setpgid(pid, pid);
        return pid;
}

static pid_t spawn(char *const argv[], int stdout_fd) {
        return spawn_full(argv, stdout_fd, -1, false);
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

static void share_lsan_suppressions(Harness *h) {
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

static void restore_lsan_options(void) {
        if (!saved_lsan_options)
                return;
        setenv("LSAN_OPTIONS", saved_lsan_options, 1);
        free(saved_lsan_options);
        saved_lsan_options = NULL;
}

/* SIGTERM, then SIGKILL to the whole group after timeout_ms. */
static int stop_process(pid_t pid, int timeout_ms) {
        uint64_t deadline;
        int status = 0;

        if (pid <= 0)
                return 0;
        kill(pid, SIGTERM);
        deadline = now_ms() + (uint64_t) timeout_ms;
        for (;;) {
                pid_t r = waitpid(pid, &status, WNOHANG);
                if (r == pid)
                        break;
                if (r < 0)
                        return -1;
                if (now_ms() > deadline) {
                        fprintf(stderr, "harness: pid %d ignored SIGTERM, killing its group\n", (int) pid);
                        kill(-pid, SIGKILL);
                        waitpid(pid, &status, 0);
                        return status ?: -1;
                }
                usleep(5000);
        }
        kill(-pid, SIGKILL); /* anything it left behind in its group */
        return status;
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

const char *harness_bus_policy;

/* Which bus: RDMAD_TEST_BUS=dbus-daemon (the default) or dbus-broker. */
const char *harness_bus_name(void) {
        const char *e = getenv("RDMAD_TEST_BUS");

        if (!e || !*e || strcmp(e, "dbus-daemon") == 0)
                return "dbus-daemon";
        if (strcmp(e, "dbus-broker") == 0)
                return "dbus-broker";
        fail_msg("RDMAD_TEST_BUS=%s: neither dbus-daemon nor dbus-broker", e);
        return NULL;
}

bool harness_bus_is_broker(void) {
        return strcmp(harness_bus_name(), "dbus-broker") == 0;
}

/* The shape of Debian's /usr/share/dbus-1/system.conf (dbus 1.14): deny by
 * default, holes punched by the files in system.d, which is where the
 * project's org.rdmad1.conf is installed, as on a host. Left out: what only
 * a daemon started at boot does (<user>, <fork/>, <pidfile>, <syslog/>, the
 * activation helper and service directories: rdmad is started by the
 * harness, not activated) and the listen address, which is ours. Both buses
 * read this same file; dbus-broker ignores <listen> and takes its socket
 * from the launcher. */
static const char system_conf[] =
        "<!DOCTYPE busconfig PUBLIC \"-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN\"\n"
        " \"http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd\">\n"
        "<busconfig>\n"
        "  <type>system</type>\n"
        "  <auth>EXTERNAL</auth>\n"
        "  <listen>unix:path=%s</listen>\n"
        "  <policy context=\"default\">\n"
        "    <allow user=\"*\"/>\n"
        "    <deny own=\"*\"/>\n"
        "    <deny send_type=\"method_call\"/>\n"
        "    <allow send_type=\"signal\"/>\n"
        "    <allow send_requested_reply=\"true\" send_type=\"method_return\"/>\n"
        "    <allow send_requested_reply=\"true\" send_type=\"error\"/>\n"
        "    <allow receive_type=\"method_call\"/>\n"
        "    <allow receive_type=\"method_return\"/>\n"
        "    <allow receive_type=\"error\"/>\n"
        "    <allow receive_type=\"signal\"/>\n"
        "    <allow send_destination=\"org.freedesktop.DBus\" send_interface=\"org.freedesktop.DBus\"/>\n"
        "    <allow send_destination=\"org.freedesktop.DBus\" "
        "send_interface=\"org.freedesktop.DBus.Introspectable\"/>\n"
        "    <allow send_destination=\"org.freedesktop.DBus\" send_interface=\"org.freedesktop.DBus.Properties\"/>\n"
        "    <deny send_destination=\"org.freedesktop.DBus\" send_interface=\"org.freedesktop.DBus\"\n"
        "          send_member=\"UpdateActivationEnvironment\"/>\n"
        "    <deny send_destination=\"org.freedesktop.DBus\" send_interface=\"org.freedesktop.DBus.Debug.Stats\"/>\n"
        "    <deny send_destination=\"org.freedesktop.DBus\" send_interface=\"org.freedesktop.systemd1.Activator\"/>\n"
        "  </policy>\n"
        "  <policy user=\"root\">\n"
        "    <allow send_destination=\"org.freedesktop.DBus\" send_interface=\"org.freedesktop.DBus.Monitoring\"/>\n"
        "  </policy>\n"
        "  <policy user=\"root\">\n"
        "    <allow send_destination=\"org.freedesktop.DBus\" send_interface=\"org.freedesktop.DBus.Debug.Stats\"/>\n"
        "  </policy>\n"
        "  <includedir>system.d</includedir>\n"
        "</busconfig>\n";

static void copy_file(const char *from, const char *to) {
        char cmd[1024];

        snprintf(cmd, sizeof(cmd), "cp '%s' '%s' && chmod 0644 '%s'", from, to, to);
        if (system(cmd) != 0)
                fail_msg("harness: cannot copy %s to %s", from, to);
}

/* <tmpdir>/bus/system.conf and system.d/: the project's policy as installed,
 * polkitd's as its package installs it, and the test's own, if any. */
static void write_bus_config(Harness *h) {
        char dir[80], path[256], config[8192];

        snprintf(dir, sizeof(dir), "%s/bus", h->tmpdir);
        assert_int_equal(mkdir(dir, 0755), 0);
        snprintf(path, sizeof(path), "%s/system.d", dir);
        assert_int_equal(mkdir(path, 0755), 0);
        snprintf(h->bus_socket, sizeof(h->bus_socket), "%s/system_bus_socket", dir);
        snprintf(config, sizeof(config), system_conf, h->bus_socket);
        snprintf(path, sizeof(path), "%s/system.conf", dir);
        write_text(path, config);

        snprintf(path, sizeof(path), "%s/system.d/" RDMAD_BUS_NAME ".conf", dir);
        copy_file(RDMAD_BUS_POLICY, path);
        if (access(POLKIT_BUS_POLICY, R_OK) == 0) {
                snprintf(path, sizeof(path), "%s/system.d/org.freedesktop.PolicyKit1.conf", dir);
                copy_file(POLKIT_BUS_POLICY, path);
        }
        if (harness_bus_policy && strcmp(harness_bus_policy, RDMAD_BUS_POLICY) != 0) {
                /* A bare name is one of tests/integration/policies/. */
                const char *base = strrchr(harness_bus_policy, '/');
                char from[512];

                if (base)
                        snprintf(from, sizeof(from), "%s", harness_bus_policy);
                else
                        snprintf(from, sizeof(from), "%s/%s", TEST_POLICY_DIR, harness_bus_policy);
                snprintf(path, sizeof(path), "%s/system.d/test-%s", dir, base ? base + 1 : harness_bus_policy);
                copy_file(from, path);
        }
        if (!daemon_unprivileged) {
                /* Not root: the daemon runs as the test's own user, which the
                 * installed policy does not let own the name. Named so. */
                struct passwd *pw = getpwuid(geteuid());

                assert_non_null(pw);
                snprintf(config, sizeof(config),
                         "<!DOCTYPE busconfig PUBLIC \"-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN\"\n"
                         " \"http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd\">\n"
                         "<!-- harness, not root: rdmad runs as the test's user %s -->\n"
                         "<busconfig><policy user=\"%s\"><allow own=\"" RDMAD_BUS_NAME "\"/>"
                         "<allow send_destination=\"" RDMAD_BUS_NAME "\"/></policy></busconfig>\n",
                         pw->pw_name, pw->pw_name);
                snprintf(path, sizeof(path), "%s/system.d/test-daemon-as-test-user.conf", dir);
                write_text(path, config);
        }
}

/* dbus-broker-launch logs only to the journal and will not start without
 * its socket. Where there is none (no journald: a container, CI), a stand-in
 * in the test's private mount namespace, as test-log does it, whose
 * datagrams a child of the test appends to <tmpdir>/bus/journal.log. */
static bool journal_mounted; /* the stand-in's tmpfs, once per test process */

static void ensure_journal(Harness *h) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX, .sun_path = "/run/systemd/journal/socket" };
        char log_path[192];
        pid_t parent = getpid(), pid;
        int fd, probe;

        probe = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        assert_true(probe >= 0);
        if (connect(probe, (struct sockaddr *) &sa, sizeof(sa)) == 0) {
                close(probe);
                return; /* journald's, or a test's stand-in */
        }
        close(probe);
        if (!daemon_unprivileged)
                fail_msg("harness: dbus-broker needs a journal socket (/run/systemd/journal/socket): "
                         "none here, and only root can put a stand-in in a private mount namespace");
        if (journal_mounted)
                (void) unlink(sa.sun_path); /* the stand-in of an earlier test of this process */
        else if (access("/run/systemd/journal", F_OK) == 0)
                assert_int_equal(mount("tmpfs", "/run/systemd/journal", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755"), 0);
        else {
                const char *run = access("/run/systemd", F_OK) == 0 ? "/run/systemd" : "/run";

                assert_int_equal(mount("tmpfs", run, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755"), 0);
                (void) mkdir("/run/systemd", 0755);
                assert_int_equal(mkdir("/run/systemd/journal", 0755), 0);
        }
        journal_mounted = true;
        fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        assert_true(fd >= 0);
        assert_int_equal(bind(fd, (struct sockaddr *) &sa, sizeof(sa)), 0);
        assert_int_equal(chmod(sa.sun_path, 0666), 0);
        snprintf(log_path, sizeof(log_path), "%s/bus/journal.log", h->tmpdir);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                char buf[65536];
                int out;

                prctl(PR_SET_PDEATHSIG, SIGKILL);
                if (getppid() != parent)
                        _exit(0);
                out = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
                for (;;) {
                        ssize_t n = recv(fd, buf, sizeof(buf), 0);

                        if (n > 0 && out >= 0)
                                (void) !write(out, buf, (size_t) n), (void) !write(out, "\n", 1);
                }
        }
        close(fd);
        h->journal_pid = pid;
}

/* The process that routes the messages: dbus-broker, the launcher's child. */
static pid_t find_child(pid_t parent, const char *comm) {
        DIR *d = opendir("/proc");
        struct dirent *e;
        pid_t found = 0;

        assert_non_null(d);
        while (!found && (e = readdir(d))) {
                char path[300], buf[512], *p;
                int fd;
                ssize_t n;

                if (e->d_name[0] < '0' || e->d_name[0] > '9')
                        continue;
                snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
                fd = open(path, O_RDONLY | O_CLOEXEC);
                if (fd < 0)
                        continue;
                n = read(fd, buf, sizeof(buf) - 1);
                close(fd);
                if (n <= 0)
                        continue;
                buf[n] = '\0';
                p = strrchr(buf, ')');
                if (!p || strncmp(buf + strcspn(buf, "(") + 1, comm, strlen(comm)) != 0)
                        continue;
                if (atoi(p + 4) == (int) parent)
                        found = (pid_t) atoi(e->d_name);
        }
        closedir(d);
        return found;
}

/* dbus-broker outside systemd: dbus-broker-launch takes its listening
 * socket as systemd passes it (LISTEN_FDS=1, LISTEN_PID, fd 3), logs to
 * the journal, and connects to the bus it starts as DBUS_SYSTEM_BUS_ADDRESS. */
static void start_broker(Harness *h, const char *config_path) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        pid_t parent = getpid(), pid;
        uint64_t deadline;
        int fd;

        ensure_journal(h);
        assert_true(strlen(h->bus_socket) < sizeof(sa.sun_path));
        memcpy(sa.sun_path, h->bus_socket, strlen(h->bus_socket) + 1);
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        assert_true(fd >= 0);
        assert_int_equal(bind(fd, (struct sockaddr *) &sa, sizeof(sa)), 0);
        assert_int_equal(chmod(sa.sun_path, 0666), 0);
        assert_int_equal(listen(fd, 4096), 0);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                char listen_pid[32], listen_address[160];

                setpgid(0, 0);
                prctl(PR_SET_PDEATHSIG, SIGKILL);
                if (getppid() != parent)
                        _exit(127);
                unsetenv("LD_PRELOAD");
                if (dup2(fd, 3) < 0)
                        _exit(127);
                snprintf(listen_pid, sizeof(listen_pid), "%d", (int) getpid());
                snprintf(listen_address, sizeof(listen_address), "unix:path=%s", h->bus_socket);
                setenv("LISTEN_PID", listen_pid, 1);
                setenv("LISTEN_FDS", "1", 1);
                unsetenv("LISTEN_FDNAMES");
                /* The launcher is a client of the bus it starts (it watches
                 * names there): sd_bus_open_system() must find this one. */
                setenv("DBUS_SYSTEM_BUS_ADDRESS", listen_address, 1);
                execlp("dbus-broker-launch", "dbus-broker-launch", "--scope", "system", "--config-file", config_path,
                       (char *) NULL);
                fprintf(stderr, "Cannot execute dbus-broker-launch (Debian package dbus-broker): %m\n");
                _exit(127);
        }
        setpgid(pid, pid);
        close(fd);
        h->bus_pid = pid;
        /* Ready once it has started its broker, which then accepts. */
        for (deadline = now_ms() + 20000; !(h->bus_router_pid = find_child(pid, "dbus-broker"));) {
                int status;

                if (waitpid(pid, &status, WNOHANG) == pid) {
                        h->bus_pid = 0;
                        fail_msg("dbus-broker-launch exited (wait status 0x%x); its log: %s/bus/journal.log", status,
                                 h->tmpdir);
                }
                if (now_ms() > deadline)
                        fail_msg("dbus-broker-launch started no dbus-broker within 20 s");
                usleep(5000);
        }
        if (asprintf(&h->address, "unix:path=%s", h->bus_socket) < 0)
                fail_msg("out of memory");
}

static void start_bus(Harness *h) {
        char path[192], line[512];
        char *argv[] = { "dbus-daemon", "--nofork", "--nopidfile", "--print-address", "--config-file", path, NULL };
        int pipefd[2];
        ssize_t n;

        write_bus_config(h);
        snprintf(path, sizeof(path), "%s/bus/system.conf", h->tmpdir);
        if (harness_bus_is_broker()) {
                start_broker(h, path);
        } else {
                assert_int_equal(pipe2(pipefd, O_CLOEXEC), 0);
                h->bus_pid = spawn(argv, pipefd[1]);
                close(pipefd[1]);

                /* dbus-daemon prints its address once it listens. */
                n = read(pipefd[0], line, sizeof(line) - 1);
                close(pipefd[0]);
                if (n <= 0)
                        fail_msg("dbus-daemon did not start");
                line[n] = '\0';
                line[strcspn(line, "\n")] = '\0';
                h->address = strdup(line);
                h->bus_router_pid = h->bus_pid;
        }
        setenv("DBUS_SYSTEM_BUS_ADDRESS", h->address, 1);
}

static void open_notify_socket(Harness *h) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };

        snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/notify", h->tmpdir);
        h->notify_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        assert_true(h->notify_fd >= 0);
        assert_int_equal(bind(h->notify_fd, (struct sockaddr *) &sa, sizeof(sa)), 0);
        /* sd_notify() needs write access to the socket. */
        if (daemon_unprivileged)
                assert_int_equal(chown(sa.sun_path, daemon_uid, daemon_gid), 0);
        snprintf(h->notify_path, sizeof(h->notify_path), "%s", sa.sun_path);
}

/* The benchmark's biggest hosts take longer to load on a busy machine. */
static int ready_timeout_ms(void) {
        const char *e = getenv("RDMAD_TEST_READY_TIMEOUT_MS");
        return e && atoi(e) > 0 ? atoi(e) : DAEMON_READY_TIMEOUT_MS;
}

static void wait_ready(Harness *h) {
        uint64_t deadline = now_ms() + ready_timeout_ms();

        for (;;) {
                struct pollfd p = { .fd = h->notify_fd, .events = POLLIN };
                char buf[4096];
                int status;

                if (waitpid(h->daemon_pid, &status, WNOHANG) == h->daemon_pid) {
                        h->daemon_pid = 0;
                        fail_msg("rdmad exited before READY=1 (wait status %d)", status);
                }
                if (now_ms() > deadline)
                        fail_msg("rdmad did not send READY=1 within %d ms", ready_timeout_ms());
                if (poll(&p, 1, 50) <= 0)
                        continue;
                ssize_t n = recv(h->notify_fd, buf, sizeof(buf) - 1, 0);
                if (n <= 0)
                        continue;
                buf[n] = '\0';
                if (strstr(buf, "READY=1"))
                        return;
        }
}

static int on_signal(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        Harness *h = userdata;
        Signal *s;

        s = reallocarray(h->signals, h->n_signals + 1, sizeof(Signal));
        assert_non_null(s);
        h->signals = s;
        s = &h->signals[h->n_signals++];
        s->path = strdup(sd_bus_message_get_path(m) ?: "");
        s->interface = strdup(sd_bus_message_get_interface(m) ?: "");
        s->member = strdup(sd_bus_message_get_member(m) ?: "");
        s->body = format_message_body(m);
        s->usec = now_usec();
        return 0;
}

const char *harness_daemon_preload;
void (*harness_prepare)(Harness *h);
bool harness_capture_daemon_log;
bool harness_daemon_log_is_journal;

/* Everything left to read from f, as a string (caller frees); f NULL gives "". */
static char *read_all(FILE *f) {
        char buf[4096], *text = NULL;
        size_t size = 0, k;
        FILE *out = open_memstream(&text, &size);

        assert_non_null(out);
        while (f && (k = fread(buf, 1, sizeof(buf), f)) > 0)
                fwrite(buf, 1, k, out);
        assert_int_equal(fclose(out), 0);
        return text;
}

char *harness_daemon_log(Harness *h) {
        char path[128], *text;
        FILE *f;

        snprintf(path, sizeof(path), "%s/rdmad.log", h->tmpdir);
        f = fopen(path, "re");
        text = read_all(f);
        if (f)
                fclose(f);
        return text;
}

static void start_daemon(Harness *h, const char *const *args) {
        const char *binary = getenv("RDMAD_BINARY");
        const char *wrapper = getenv("RDMAD_TEST_WRAPPER"); /* e.g. "valgrind --error-exitcode=99" */
        char *argv[64], *wrapper_copy = NULL, *daemon, *preload_copy = NULL, *copies[16];
        size_t n = 0, n_copies = 0;
        int log_fd = -1;

        assert_non_null(binary);
        /* Everything the daemon opens by name must be where its user may go:
         * not inside a checkout under a home directory of mode 0700. */
        daemon = harness_copy_for_all_users(h, binary);
        setenv("NOTIFY_SOCKET", h->notify_path, 1);
        if (harness_capture_daemon_log) {
                /* stderr appended to <tmpdir>/rdmad.log, opened before the change of identity. */
                char log_path[128];

                snprintf(log_path, sizeof(log_path), "%s/rdmad.log", h->tmpdir);
                log_fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
                assert_true(log_fd >= 0);
                if (harness_daemon_log_is_journal) {
                        /* What systemd does for StandardError=journal: the stream's device and inode. */
                        char stream[64];
                        struct stat st;

                        assert_int_equal(fstat(log_fd, &st), 0);
                        snprintf(stream, sizeof(stream), "%llu:%llu", (unsigned long long) st.st_dev,
                                 (unsigned long long) st.st_ino);
                        setenv("JOURNAL_STREAM", stream, 1);
                }
        }
        if (harness_daemon_preload) {
                /* Before umockdev's library: its wrappers call libc directly, so
                 * only a library in front of them sees the daemon's calls. */
                static char preload[600];

                preload_copy = harness_copy_for_all_users(h, harness_daemon_preload);
                snprintf(preload, sizeof(preload), "LD_PRELOAD=%s:libumockdev-preload.so.0", preload_copy);
                argv[n++] = "env";
                argv[n++] = preload;
        } else
                argv[n++] = "umockdev-wrapper";
        if (wrapper && *wrapper) {
                wrapper_copy = strdup(wrapper);
                for (char *save = NULL, *t = strtok_r(wrapper_copy, " ", &save); t && n < 32;
                     t = strtok_r(NULL, " ", &save)) {
                        if (strncmp(t, "--suppressions=", strlen("--suppressions=")) == 0 && n_copies < 16) {
                                char *file = harness_copy_for_all_users(h, t + strlen("--suppressions="));

                                assert_true(asprintf(&copies[n_copies], "--suppressions=%s", file) > 0);
                                free(file);
                                t = copies[n_copies++];
                        }
                        argv[n++] = t;
                }
        }
        argv[n++] = daemon;
        for (size_t i = 0; args && args[i] && n < 62; i++)
                argv[n++] = (char *) args[i];
        argv[n] = NULL;

        h->spawn_usec = now_usec();
        h->daemon_pid = spawn_full(argv, -1, log_fd, true);
        if (log_fd >= 0)
                close(log_fd);
        free(wrapper_copy);
        free(daemon);
        free(preload_copy);
        for (size_t i = 0; i < n_copies; i++)
                free(copies[i]);
        unsetenv("NOTIFY_SOCKET");
        unsetenv("JOURNAL_STREAM");
        wait_ready(h);
        h->ready_usec = now_usec();
}

void harness_restart_daemon(Harness *h, const char *const *args) {
        int status = stop_process(h->daemon_pid, 30000);

        if (status != 0)
                fail_msg("rdmad did not exit cleanly: wait status 0x%x", status);
        start_daemon(h, args);
}

/* A test that failed between harness_pause() and harness_resume() left
 * the daemon stopped: SIGTERM would wait for a SIGCONT that never comes. */
static void daemon_continue(Harness *h) {
        if (h->daemon_paused && h->daemon_pid > 0)
                (void) kill(h->daemon_pid, SIGCONT);
        h->daemon_paused = false;
}

void harness_stop_daemon(Harness *h) {
        int status;

        assert_true(h->daemon_pid > 0);
        daemon_continue(h);
        status = stop_process(h->daemon_pid, 30000);
        if (status != 0)
                fail_msg("rdmad did not exit cleanly: wait status 0x%x", status);
        h->daemon_pid = 0;
}

void harness_start_daemon(Harness *h, const char *const *args) {
        assert_int_equal(h->daemon_pid, 0);
        start_daemon(h, args);
}

pid_t harness_spawn(char *const argv[]) {
        return spawn(argv, -1);
}

int harness_stop_process(pid_t pid, int timeout_ms) {
        return stop_process(pid, timeout_ms);
}

Harness *harness_start(const char *const *fixtures, const char *const *args) {
        Harness *h = calloc(1, sizeof(Harness));
        int r;

        assert_non_null(h);
        h->notify_fd = -1;
        setup_daemon_user();
        /* What the tests create, the daemon's user must read, whatever the caller's umask. */
        if (daemon_unprivileged)
                umask(022);

        strcpy(h->tmpdir, "/tmp/rdmad-test-XXXXXX");
        assert_non_null(mkdtemp(h->tmpdir));
        /* Other users (the unprivileged callers of the polkit tests) must reach the bus socket. */
        assert_int_equal(chmod(h->tmpdir, 0755), 0);

        h->testbed = umockdev_testbed_new();
        if (daemon_unprivileged) {
                /* The daemon reads it, and umockdev's preload creates its
                 * uevent sockets there; sticky: nothing of the test's can go. */
                char *root = umockdev_testbed_get_root_dir(h->testbed);

                assert_int_equal(chown(root, 0, daemon_gid), 0);
                assert_int_equal(chmod(root, 01770), 0);
                g_free(root);
        }
        for (size_t i = 0; fixtures && fixtures[i]; i++) {
                GError *error = NULL;
                char path[512];

                if (fixtures[i][0] == '/') /* a generated host (the benchmark) */
                        snprintf(path, sizeof(path), "%s", fixtures[i]);
                else
                        snprintf(path, sizeof(path), "%s/%s.umockdev", FIXTURE_DIR, fixtures[i]);
                if (!umockdev_testbed_add_from_file(h->testbed, path, &error))
                        fail_msg("Cannot load %s: %s", path, error->message);
        }

        if (harness_prepare)
                harness_prepare(h);
        harness_grant_sriov(h);
        share_lsan_suppressions(h);

        start_bus(h);
        open_notify_socket(h);
        setenv("SYSTEMD_DEVICE_VERIFY_SYSFS", "0", 1);

        start_daemon(h, args);

        r = sd_bus_open_system(&h->bus);
        assert_int_equal(r, 0);
        r = sd_bus_match_signal(h->bus, NULL, RDMAD_BUS_NAME, NULL, NULL, NULL, on_signal, h);
        assert_true(r >= 0);
        /* The match is in place once the bus has answered a call. */
        r = sd_bus_call_method(h->bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId",
                               NULL, NULL, "");
        assert_true(r >= 0);
        return h;
}

/* The third field of /proc/PID/stat: 'T' once a SIGSTOP has taken effect. */
static char process_state(pid_t pid) {
        char path[64], buf[512], *p;
        ssize_t n;
        int fd;

        snprintf(path, sizeof(path), "/proc/%d/stat", (int) pid);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return '?';
        n = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        if (n <= 0)
                return '?';
        buf[n] = '\0';
        p = strrchr(buf, ')'); /* after the command name, which may hold anything */
        return p && p[1] == ' ' ? p[2] : '?';
}

/* Returns once the daemon is stopped, not merely signalled: a read it was
 * in the middle of has finished. */
static void stop_daemon_now(Harness *h) {
        assert_int_equal(kill(h->daemon_pid, SIGSTOP), 0);
        for (uint64_t deadline = now_usec() + 10 * 1000000ULL; process_state(h->daemon_pid) != 'T';) {
                if (now_usec() > deadline)
                        fail_msg("rdmad (pid %d) did not stop within 10 s of SIGSTOP", (int) h->daemon_pid);
                usleep(100);
        }
}

/* The system call a stopped task waits in (/proc/.../syscall starts with
 * its number), or -1 when it was running or cannot be told. */
static long task_syscall(pid_t pid, const char *tid) {
        char path[320], buf[64] = "";
        FILE *f;
        long nr;

        snprintf(path, sizeof(path), "/proc/%d/task/%s/syscall", (int) pid, tid);
        f = fopen(path, "re");
        if (!f)
                return -1;
        if (!fgets(buf, sizeof(buf), f))
                buf[0] = '\0';
        fclose(f);
        return sscanf(buf, "%ld", &nr) == 1 ? nr : -1;
}

static bool is_epoll_wait(long nr) {
        return nr == SYS_epoll_wait || nr == SYS_epoll_pwait
#ifdef SYS_epoll_pwait2
               || nr == SYS_epoll_pwait2
#endif
                ;
}

/* Stopped between two loop iterations and with no read under way: the main
 * thread waits in epoll, every reader thread for work (a futex). A stop
 * that lands inside a read (a thread that read state and is about to read
 * phys_state) would let two writes made meanwhile be seen a read apart. */
static bool daemon_at_rest(Harness *h) {
        bool rest = true;
        struct dirent *de;
        char path[64];
        DIR *d;

        snprintf(path, sizeof(path), "/proc/%d/task", (int) h->daemon_pid);
        d = opendir(path);
        if (!d)
                return true; /* cannot tell: as before */
        while (rest && (de = readdir(d))) {
                long nr;

                if (de->d_name[0] == '.')
                        continue;
                nr = task_syscall(h->daemon_pid, de->d_name);
                /* A timed futex wait that a stop interrupted goes on as restart_syscall. */
                rest = atoi(de->d_name) == h->daemon_pid ? is_epoll_wait(nr)
                                                         : nr == SYS_futex || nr == SYS_restart_syscall;
        }
        closedir(d);
        return rest;
}

void harness_pause(Harness *h) {
        assert_false(h->daemon_paused);
        for (unsigned tries = 0;; tries++) {
                stop_daemon_now(h);
                /* Under valgrind the threads' calls are its own: at most 200 tries. */
                if (tries >= 200 || daemon_at_rest(h))
                        break;
                assert_int_equal(kill(h->daemon_pid, SIGCONT), 0);
                usleep(2000);
        }
        h->daemon_paused = true;
}

void harness_resume(Harness *h) {
        assert_true(h->daemon_paused);
        assert_int_equal(kill(h->daemon_pid, SIGCONT), 0);
        h->daemon_paused = false;
}

/* In place, as the kernel changes a sysfs file (umockdev's set_attribute
 * replaces the file, which a descriptor kept open would not see). The
 * kernel's change is one step; truncating and writing are two, and a read
 * between them would see an empty file, a change the kernel never makes:
 * the daemon is paused around them unless the caller paused it already. */
void harness_write(Harness *h, const char *devpath, const char *name, const char *value) {
        char *root = umockdev_testbed_get_root_dir(h->testbed), path[1024];
        bool pause = h->daemon_pid > 0 && !h->daemon_paused;
        int fd;

        snprintf(path, sizeof(path), "%s%s/%s", root, devpath, name);
        g_free(root);
        if (pause)
                harness_pause(h);
        fd = open(path, O_WRONLY | O_TRUNC | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0)
                fail_msg("Cannot write %s: %m", path);
        assert_int_equal(write(fd, value, strlen(value)), (ssize_t) strlen(value));
        assert_int_equal(close(fd), 0);
        if (pause)
                harness_resume(h);
}

char *harness_call_errorv(Harness *h, const char *path, const char *interface, const char *member, const char *types,
                          va_list ap) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *m = NULL;
        char *name = NULL;
        int r;

        assert_true(sd_bus_message_new_method_call(h->bus, &m, RDMAD_BUS_NAME, path, interface, member) >= 0);
        assert_true(sd_bus_message_appendv(m, types, ap) >= 0);
        r = sd_bus_call(h->bus, m, 0, &error, NULL);
        sd_bus_message_unref(m);
        if (r < 0) {
                assert_non_null(error.name);
                name = strdup(error.name);
        }
        sd_bus_error_free(&error);
        return name;
}

char *harness_call_error(Harness *h, const char *path, const char *interface, const char *member, const char *types,
                         ...) {
        va_list ap;
        char *name;

        va_start(ap, types);
        name = harness_call_errorv(h, path, interface, member, types, ap);
        va_end(ap);
        return name;
}

char *harness_read(Harness *h, const char *devpath, const char *name) {
        char *root = umockdev_testbed_get_root_dir(h->testbed), path[1024], *text;
        FILE *f;

        snprintf(path, sizeof(path), "%s%s/%s", root, devpath, name);
        g_free(root);
        f = fopen(path, "re");
        if (!f)
                fail_msg("Cannot read %s: %m", path);
        text = read_all(f);
        fclose(f);
        return text;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
        return remove(path);
}

void harness_remove(Harness *h, const char *path) {
        char *root = umockdev_testbed_get_root_dir(h->testbed), full[1024];

        snprintf(full, sizeof(full), "%s%s", root, path);
        g_free(root);
        if (nftw(full, remove_entry, 16, FTW_DEPTH | FTW_PHYS) < 0)
                fail_msg("Cannot remove %s: %m", full);
}

void harness_add_device(Harness *h, const char *record) {
        GError *error = NULL;

        if (!umockdev_testbed_add_from_string(h->testbed, record, &error))
                fail_msg("Cannot add %s: %s", record, error->message);
        harness_grant_sriov(h);
}

typedef struct SignalQuery {
        const char *path;
        const char *member;
        size_t count;
} SignalQuery;

static bool signals_reached(Harness *h, const void *data) {
        const SignalQuery *q = data;
        return harness_count_signals(h, q->path, q->member) >= q->count;
}

void harness_wait_signals(Harness *h, const char *path, const char *member, size_t count) {
        SignalQuery q = { path, member, count };

        if (!harness_wait(h, signals_reached, &q, 20000))
                fail_msg("expected %zu %s on %s, got %zu", count, member, path ?: "any path",
                         harness_count_signals(h, path, member));
}

/* A rename as the kernel makes it: the device directory and its link in
 * /sys/class/<class> renamed, `property` (the name udev reports) set, and
 * only "move" sent with DEVPATH_OLD, all while the daemon is paused. */
static void rename_in_class(Harness *h, const char *syspath, const char *class, const char *property,
                            const char *new_name) {
        char *root = umockdev_testbed_get_root_dir(h->testbed);
        const char *old_name = strrchr(syspath, '/') + 1;
        char from[512], to[512], new_syspath[512], link_target[512], old_devpath[512];
        ssize_t n;

        snprintf(new_syspath, sizeof(new_syspath), "%.*s%s", (int) (old_name - syspath), syspath, new_name);
        snprintf(old_devpath, sizeof(old_devpath), "%s", syspath + strlen("/sys"));

        harness_pause(h);
        snprintf(from, sizeof(from), "%s%s", root, syspath);
        snprintf(to, sizeof(to), "%s%s", root, new_syspath);
        assert_int_equal(rename(from, to), 0);
        snprintf(from, sizeof(from), "%s/sys/class/%s/%s", root, class, old_name);
        n = readlink(from, link_target, sizeof(link_target) - 1);
        assert_true(n > (ssize_t) strlen(old_name));
        snprintf(link_target + n - strlen(old_name), sizeof(link_target) - (size_t) n + strlen(old_name), "%s",
                 new_name);
        assert_int_equal(unlink(from), 0);
        snprintf(to, sizeof(to), "%s/sys/class/%s/%s", root, class, new_name);
        assert_int_equal(symlink(link_target, to), 0);
        g_free(root);
        umockdev_testbed_set_property(h->testbed, new_syspath, property, new_name);
        umockdev_testbed_set_property(h->testbed, new_syspath, "DEVPATH_OLD", old_devpath);
        umockdev_testbed_uevent(h->testbed, new_syspath, "move");
        harness_resume(h);
}

void harness_rename_device(Harness *h, const char *syspath, const char *new_name) {
        rename_in_class(h, syspath, "infiniband", "NAME", new_name);
}

void harness_rename_netdev(Harness *h, const char *syspath, const char *new_name) {
        rename_in_class(h, syspath, "net", "INTERFACE", new_name);
}

void harness_add_rxe5(Harness *h) {
        harness_add_device(h, "P: /devices/virtual/infiniband/rxe5\n"
                              "E: SUBSYSTEM=infiniband\n"
                              "E: NAME=rxe5\n"
                              "A: node_type=1: CA\\n\n"
                              "A: ports/1/state=4: ACTIVE\\n\n"
                              "A: ports/1/phys_state=5: LinkUp\\n\n"
                              "A: ports/1/link_layer=Ethernet\\n\n");
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

uid_t harness_name_owner_uid(Harness *h, const char *name) {
        sd_bus_message *reply = NULL;
        uint32_t uid;

        assert_true(sd_bus_call_method(h->bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                       "GetConnectionUnixUser", NULL, &reply, "s", name) >= 0);
        assert_true(sd_bus_message_read(reply, "u", &uid) > 0);
        sd_bus_message_unref(reply);
        return (uid_t) uid;
}

char *harness_request_name_as(Harness *h, uid_t uid, gid_t gid, const char *name) {
        return harness_call_as(h, uid, gid, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                               "RequestName", "su", name, 0);
}

char *harness_python_check(Harness *h, const char *text, const char *script) {
        char path[128], *command = NULL, *out;
        int status;

        snprintf(path, sizeof(path), "%s/python-check.json", h->tmpdir);
        assert_true(g_file_set_contents(path, text, -1, NULL));
        assert_true(asprintf(&command, "python3 -c '%s' %s", script, path) >= 0);
        out = harness_run_command(h, command, &status);
        free(command);
        if (status != 0)
                fail_msg("the JSON check failed:\n%s\non:\n%s", out, text);
        out[strcspn(out, "\n")] = '\0';
        return out;
}

int harness_on_reply(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        AsyncReply *a = userdata;
        const sd_bus_error *e = sd_bus_message_get_error(m);

        assert_false(a->done); /* a method call gets exactly one reply */
        a->done = true;
        if (e)
                a->error_name = strdup(e->name);
        else
                a->value = format_next_value(m);
        return 0;
}

bool harness_reply_done(Harness *h, const void *data) {
        return ((const AsyncReply *) data)->done;
}

void async_reply_clear(AsyncReply *a) {
        free(a->error_name);
        free(a->value);
        *a = (AsyncReply){};
}

uint64_t harness_daemon_rss_kib(Harness *h) {
        char path[64], line[256];
        uint64_t kib = 0;
        FILE *f;

        snprintf(path, sizeof(path), "/proc/%d/status", (int) h->daemon_pid);
        f = fopen(path, "re");
        assert_non_null(f);
        while (fgets(line, sizeof(line), f))
                if (sscanf(line, "VmRSS: %" SCNu64 " kB", &kib) == 1)
                        break;
        fclose(f);
        return kib;
}

static bool name_has_owner(Harness *h, const char *name) {
        sd_bus_message *reply = NULL;
        int has = 0;

        if (sd_bus_call_method(h->bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                               "NameHasOwner", NULL, &reply, "s", name) >= 0)
                (void) sd_bus_message_read(reply, "b", &has);
        sd_bus_message_unref(reply);
        return has;
}

bool harness_start_polkit(Harness *h) {
        char actions[128], policy[256], script[640];
        char *argv[] = { "unshare", "--mount", "--propagation", "private", "sh", "-c", script, NULL };
        uint64_t deadline;

        if (geteuid() != 0) {
                fprintf(stderr, "harness: not root: polkitd cannot be started in a mount namespace\n");
                return false;
        }
        if (access(POLKITD, X_OK) < 0) {
                fprintf(stderr, "harness: %s not found (Debian package polkitd)\n", POLKITD);
                return false;
        }

        snprintf(actions, sizeof(actions), "%s/polkit-actions", h->tmpdir);
        assert_int_equal(mkdir(actions, 0755), 0);
        snprintf(policy, sizeof(policy), "cp '%s' '%s/'", POLICY_FILE, actions);
        assert_int_equal(system(policy), 0);
        /* polkitd switches to its user polkitd itself, the only one the
         * installed bus policy lets own org.freedesktop.PolicyKit1. */
        snprintf(script, sizeof(script), "mount --bind '%s' /usr/share/polkit-1/actions && exec %s --no-debug", actions,
                 POLKITD);
        h->polkit_pid = spawn(argv, -1);

        deadline = now_ms() + 20000;
        while (!name_has_owner(h, "org.freedesktop.PolicyKit1")) {
                int status;

                if (waitpid(h->polkit_pid, &status, WNOHANG) == h->polkit_pid) {
                        h->polkit_pid = 0;
                        fail_msg("polkitd exited (wait status 0x%x)", status);
                }
                if (now_ms() > deadline)
                        fail_msg("polkitd did not appear on the bus");
                usleep(20000);
        }
        return true;
}

void harness_stop_polkit(Harness *h) {
        if (h->polkit_pid > 0)
                stop_process(h->polkit_pid, 5000);
        h->polkit_pid = 0;
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

unsigned harness_count_notify(Harness *h, const char *needle, int ms) {
        uint64_t deadline = now_ms() + (uint64_t) ms;
        unsigned count = 0;

        for (;;) {
                struct pollfd p = { .fd = h->notify_fd, .events = POLLIN };
                uint64_t now = now_ms();
                char buf[4096];
                ssize_t n;

                if (now >= deadline)
                        return count;
                if (poll(&p, 1, (int) (deadline - now)) <= 0)
                        continue;
                n = recv(h->notify_fd, buf, sizeof(buf) - 1, 0);
                if (n <= 0)
                        continue;
                buf[n] = '\0';
                if (strstr(buf, needle))
                        count++;
        }
}

void harness_clear_signals(Harness *h) {
        for (size_t i = 0; i < h->n_signals; i++) {
                free(h->signals[i].path);
                free(h->signals[i].interface);
                free(h->signals[i].member);
                free(h->signals[i].body);
        }
        free(h->signals);
        h->signals = NULL;
        h->n_signals = 0;
}

int harness_stop(Harness *h) {
        int status;
        char cmd[128];

        if (!h)
                return 0;
        h->bus = sd_bus_flush_close_unref(h->bus);
        daemon_continue(h);
        status = stop_process(h->daemon_pid, 30000);
        harness_stop_polkit(h);
        stop_process(h->bus_pid, 5000);
        if (h->journal_pid > 0) {
                kill(h->journal_pid, SIGKILL);
                waitpid(h->journal_pid, NULL, 0);
        }
        if (h->notify_fd >= 0)
                close(h->notify_fd);
        harness_clear_signals(h);
        if (h->testbed)
                g_object_unref(h->testbed);
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", h->tmpdir);
        if (system(cmd) != 0)
                fprintf(stderr, "harness: cannot remove %s\n", h->tmpdir);
        unsetenv("DBUS_SYSTEM_BUS_ADDRESS");
        restore_lsan_options();
        free(h->address);
        free(h);
        return status;
}

bool harness_wait(Harness *h, bool (*pred)(Harness *h, const void *data), const void *data, int timeout_ms) {
        uint64_t deadline = now_ms() + (uint64_t) timeout_ms;

        for (;;) {
                int r;

                while ((r = sd_bus_process(h->bus, NULL)) > 0)
                        ;
                assert_true(r >= 0);
                if (pred(h, data))
                        return true;
                if (now_ms() >= deadline)
                        return false;
                (void) sd_bus_wait(h->bus, 10000);
        }
}

static bool never(Harness *h, const void *data) {
        return false;
}

void harness_settle(Harness *h, int ms) {
        (void) harness_wait(h, never, NULL, ms);
}

size_t harness_count_signals(Harness *h, const char *path, const char *member) {
        size_t n = 0;

        for (size_t i = 0; i < h->n_signals; i++)
                if ((!path || strcmp(h->signals[i].path, path) == 0) &&
                    (!member || strcmp(h->signals[i].member, member) == 0))
                        n++;
        return n;
}

const Signal *harness_find_signal(Harness *h, const char *path, const char *member) {
        for (size_t i = 0; i < h->n_signals; i++)
                if ((!path || strcmp(h->signals[i].path, path) == 0) &&
                    (!member || strcmp(h->signals[i].member, member) == 0))
                        return &h->signals[i];
        return NULL;
}

char *harness_run_command(Harness *h, const char *command, int *ret_status) {
        char *cmd = NULL, *out = NULL;
        FILE *p;
        int status;

        assert_true(asprintf(&cmd, "env -u LD_PRELOAD DBUS_SYSTEM_BUS_ADDRESS='%s' %s 2>&1", h->address, command) > 0);
        p = popen(cmd, "re");
        assert_non_null(p);
        out = read_all(p);
        status = pclose(p);
        free(cmd);
        *ret_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
        return out;
}

static int format_one(sd_bus_message *m, FILE *f, bool quote);

static int format_container(sd_bus_message *m, FILE *f, char type, const char *contents) {
        const char *open = type == 'a' ? "[" : type == 'r' ? "(" : type == 'e' ? "" : "";
        const char *close = type == 'a' ? "]" : type == 'r' ? ")" : "";
        bool first = true;
        int r;

        r = sd_bus_message_enter_container(m, type, contents);
        if (r <= 0)
                return r;
        fputs(open, f);
        while ((r = sd_bus_message_at_end(m, false)) == 0) {
                if (!first)
                        fputs(type == 'e' ? ": " : ", ", f);
                first = false;
                r = format_one(m, f, true);
                if (r < 0)
                        return r;
        }
        if (r < 0)
                return r;
        fputs(close, f);
        return sd_bus_message_exit_container(m);
}

static int format_one(sd_bus_message *m, FILE *f, bool quote) {
        const char *contents;
        char type;
        int r;

        r = sd_bus_message_peek_type(m, &type, &contents);
        if (r <= 0)
                return r;

        switch (type) {
        case 'a':
        case 'r':
        case 'e':
        case 'v':
                if (type == 'a' && contents[0] == '{') {
                        /* A dictionary: {k: v, ...} */
                        bool first = true;
                        r = sd_bus_message_enter_container(m, 'a', contents);
                        if (r < 0)
                                return r;
                        fputc('{', f);
                        while ((r = sd_bus_message_at_end(m, false)) == 0) {
                                if (!first)
                                        fputs(", ", f);
                                first = false;
                                char entry[256];
                                size_t len = strlen(contents);

                                /* "{ss}" → "ss": the dict entry's own signature. */
                                assert_true(len >= 2 && len - 2 < sizeof(entry));
                                memcpy(entry, contents + 1, len - 2);
                                entry[len - 2] = '\0';
                                r = format_container(m, f, 'e', entry);
                                if (r < 0)
                                        return r;
                        }
                        fputc('}', f);
                        return sd_bus_message_exit_container(m);
                }
                if (type == 'v') {
                        r = sd_bus_message_enter_container(m, 'v', contents);
                        if (r < 0)
                                return r;
                        r = format_one(m, f, quote);
                        if (r < 0)
                                return r;
                        return sd_bus_message_exit_container(m);
                }
                return format_container(m, f, type, contents);
        default: {
                union {
                        uint8_t y;
                        int b;
                        int16_t n;
                        uint16_t q;
                        int32_t i;
                        uint32_t u;
                        int64_t x;
                        uint64_t t;
                        double d;
                        const char *s;
                        int h;
                } v;

                r = sd_bus_message_read_basic(m, type, &v);
                if (r < 0)
                        return r;
                switch (type) {
                case 'y':
                        fprintf(f, "%u", v.y);
                        break;
                case 'b':
                        fputs(v.b ? "true" : "false", f);
                        break;
                case 'n':
                        fprintf(f, "%d", v.n);
                        break;
                case 'q':
                        fprintf(f, "%u", v.q);
                        break;
                case 'i':
                        fprintf(f, "%d", v.i);
                        break;
                case 'u':
                        fprintf(f, "%u", v.u);
                        break;
                case 'x':
                        fprintf(f, "%lld", (long long) v.x);
                        break;
                case 't':
                        fprintf(f, "%llu", (unsigned long long) v.t);
                        break;
                case 'd':
                        fprintf(f, "%g", v.d);
                        break;
                case 'h':
                        fprintf(f, "fd");
                        break;
                default:
                        fprintf(f, quote ? "\"%s\"" : "%s", v.s);
                        break;
                }
                return 1;
        }
        }
}

char *format_message_body(sd_bus_message *m) {
        char *out = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&out, &size);
        bool first = true;
        int r;

        assert_non_null(f);
        assert_true(sd_bus_message_rewind(m, true) >= 0);
        while ((r = sd_bus_message_at_end(m, true)) == 0) {
                if (!first)
                        fputc(' ', f);
                first = false;
                r = format_one(m, f, true);
                if (r < 0)
                        break;
        }
        fclose(f);
        return out;
}

char *format_next_value(sd_bus_message *m) {
        char *out = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&out, &size);

        assert_non_null(f);
        assert_true(format_one(m, f, false) >= 0);
        fclose(f);
        return out;
}

static void objects_add(Objects *o, const char *path, const char *interface, const char *name, char *value) {
        ObjectEntry *e = reallocarray(o->entries, o->n + 1, sizeof(ObjectEntry));
        assert_non_null(e);
        o->entries = e;
        o->entries[o->n++] = (ObjectEntry){
                .path = strdup(path),
                .interface = strdup(interface),
                .name = name ? strdup(name) : NULL,
                .value = value,
        };
}

Objects *objects_from_reply(sd_bus_message *reply) {
        Objects *o = calloc(1, sizeof(Objects));
        const char *path, *interface, *name;

        assert_non_null(o);
        assert_true(sd_bus_message_rewind(reply, true) >= 0);
        assert_true(sd_bus_message_enter_container(reply, 'a', "{oa{sa{sv}}}") > 0);
        while (sd_bus_message_enter_container(reply, 'e', "oa{sa{sv}}") > 0) {
                assert_true(sd_bus_message_read(reply, "o", &path) > 0);
                assert_true(sd_bus_message_enter_container(reply, 'a', "{sa{sv}}") > 0);
                while (sd_bus_message_enter_container(reply, 'e', "sa{sv}") > 0) {
                        assert_true(sd_bus_message_read(reply, "s", &interface) > 0);
                        objects_add(o, path, interface, NULL, NULL);
                        assert_true(sd_bus_message_enter_container(reply, 'a', "{sv}") > 0);
                        while (sd_bus_message_enter_container(reply, 'e', "sv") > 0) {
                                assert_true(sd_bus_message_read(reply, "s", &name) > 0);
                                objects_add(o, path, interface, name, format_next_value(reply));
                                assert_true(sd_bus_message_exit_container(reply) > 0);
                        }
                        assert_true(sd_bus_message_exit_container(reply) > 0);
                        assert_true(sd_bus_message_exit_container(reply) > 0);
                }
                assert_true(sd_bus_message_exit_container(reply) > 0);
                assert_true(sd_bus_message_exit_container(reply) > 0);
        }
        assert_true(sd_bus_message_exit_container(reply) > 0);
        return o;
}

Objects *get_managed_objects(Harness *h) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        Objects *o;
        int r;

        r = sd_bus_call_method(h->bus, RDMAD_BUS_NAME, RDMAD_ROOT_PATH, "org.freedesktop.DBus.ObjectManager",
                               "GetManagedObjects", &error, &reply, "");
        if (r < 0)
                fail_msg("GetManagedObjects: %s", error.message);
        o = objects_from_reply(reply);
        sd_bus_message_unref(reply);
        return o;
}

void objects_free(Objects *o) {
        for (size_t i = 0; i < o->n; i++) {
                free(o->entries[i].path);
                free(o->entries[i].interface);
                free(o->entries[i].name);
                free(o->entries[i].value);
        }
        free(o->entries);
        free(o);
}

const char *objects_get(const Objects *o, const char *path, const char *interface, const char *name) {
        for (size_t i = 0; i < o->n; i++)
                if (o->entries[i].name && strcmp(o->entries[i].path, path) == 0 &&
                    strcmp(o->entries[i].interface, interface) == 0 && strcmp(o->entries[i].name, name) == 0)
                        return o->entries[i].value;
        return NULL;
}

static int line_compare(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

char *objects_interfaces(const Objects *o) {
        char **lines = calloc(o->n + 1, sizeof(char *));
        char *out = NULL;
        size_t n = 0, size = 0;
        FILE *f;

        for (size_t i = 0; i < o->n; i++)
                if (!o->entries[i].name)
                        assert_true(asprintf(&lines[n++], "%s %s", o->entries[i].path, o->entries[i].interface) > 0);
        qsort(lines, n, sizeof(char *), line_compare);
        f = open_memstream(&out, &size);
        for (size_t i = 0; i < n; i++) {
                fprintf(f, "%s\n", lines[i]);
                free(lines[i]);
        }
        fclose(f);
        free(lines);
        return out;
}

int harness_teardown_clean(void **state) {
        int status = harness_stop(*state);

        harness_bus_policy = NULL;
        if (status != 0)
                fail_msg("rdmad did not exit cleanly on SIGTERM: wait status 0x%x", status);
        return 0;
}

typedef struct PropertyWant {
        const char *path, *interface, *name, *value;
} PropertyWant;

static bool property_is(Harness *h, const void *data) {
        const PropertyWant *w = data;
        char *v = harness_get_property(h, w->path, w->interface, w->name, NULL);
        bool ok = v && strcmp(v, w->value) == 0;

        free(v);
        return ok;
}

void harness_wait_property(Harness *h, const char *path, const char *interface, const char *name, const char *value,
                           int timeout_ms) {
        PropertyWant w = { path, interface, name, value };

        if (!harness_wait(h, property_is, &w, timeout_ms)) {
                char *v = harness_get_property(h, path, interface, name, NULL);

                fail_msg("%s %s.%s: %s after %d ms, not %s", path, interface, name, v ?: "(error)", timeout_ms, value);
        }
}

char *harness_get_property(Harness *h, const char *path, const char *interface, const char *name,
                           char **ret_error_name) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        char *s;

        if (sd_bus_call_method(h->bus, RDMAD_BUS_NAME, path, "org.freedesktop.DBus.Properties", "Get", &error, &reply,
                               "ss", interface, name) < 0) {
                if (ret_error_name)
                        *ret_error_name = strdup(error.name);
                sd_bus_error_free(&error);
                return NULL;
        }
        s = format_next_value(reply);
        sd_bus_message_unref(reply);
        return s;
}

void harness_assert_property(Harness *h, const char *path, const char *interface, const char *name,
                             const char *expected) {
        char *v = harness_get_property(h, path, interface, name, NULL);

        if (!v)
                fail_msg("Get %s %s.%s failed", path, interface, name);
        assert_string_equal(v, expected);
        free(v);
}

bool harness_daemon_wrapped(void) {
        const char *w = getenv("RDMAD_TEST_WRAPPER");

        return w && *w;
}

uint64_t harness_settled_rss_kib(Harness *h) {
        harness_settle(h, 5500);
        assert_true(sd_bus_call_method(h->bus, RDMAD_BUS_NAME, RDMAD_ROOT_PATH, "org.freedesktop.DBus.Peer", "Ping",
                                       NULL, NULL, "") >= 0);
        harness_settle(h, 200);
        return harness_daemon_rss_kib(h);
}

char *harness_fifo_numvfs(Harness *h, const char *devpath) {
        char *root = umockdev_testbed_get_root_dir(h->testbed), *fifo = NULL;

        assert_true(asprintf(&fifo, "%s%s/sriov_numvfs", root, devpath) > 0);
        g_free(root);
        assert_int_equal(unlink(fifo), 0);
        assert_int_equal(mkfifo(fifo, 0644), 0);
        harness_grant_sriov(h); /* the daemon's user may write it, as the real file */
        return fifo;
}

void harness_fifo_serve_read(const char *fifo, const char *value) {
        int fd = open(fifo, O_WRONLY | O_CLOEXEC);

        assert_true(fd >= 0);
        assert_int_equal(write(fd, value, strlen(value)), (ssize_t) strlen(value));
        close(fd);
}

/* The read end stays open throughout: closing it between two of the
 * worker's writes would make the second fail with EPIPE. */
void harness_fifo_expect_writes(const char *fifo, const char *expected) {
        size_t want = strlen(expected), got = 0;
        char buf[64];
        int fd;

        assert_true(want < sizeof(buf));
        fd = open(fifo, O_RDONLY | O_CLOEXEC);
        assert_true(fd >= 0);
        while (got < want) {
                ssize_t n = read(fd, buf + got, want - got);

                assert_true(n >= 0);
                if (n == 0)
                        usleep(1000); /* between two opens of the writer */
                got += (size_t) n;
        }
        close(fd);
        buf[got] = '\0';
        assert_string_equal(buf, expected);
}

static size_t align_to(size_t offset, size_t a) {
        return (offset + a - 1) / a * a;
}

static size_t type_alignment(char t) {
        switch (t) {
        case 'y':
        case 'g':
        case 'v':
                return 1;
        case 'n':
        case 'q':
                return 2;
        case 'x':
        case 't':
        case 'd':
        case '(':
        case 'r':
        case '{':
        case 'e':
                return 8;
        default:
                return 4; /* b i u h s o a */
        }
}

/* The marshalled size of the rest of the current container of m, starting
 * at offset: what the D-Bus wire format takes for it (sd-bus gives no size). */
static size_t walk_wire_size(sd_bus_message *m, size_t offset) {
        const char *contents;
        char type;

        while (sd_bus_message_peek_type(m, &type, &contents) > 0) {
                if (type == 'a' || type == 'r' || type == 'e' || type == 'v') {
                        if (type == 'a') {
                                offset = align_to(offset, 4) + 4;
                                offset = align_to(offset, type_alignment(contents[0]));
                        } else if (type == 'v')
                                offset += 1 + strlen(contents) + 1;
                        else
                                offset = align_to(offset, 8);
                        assert_true(sd_bus_message_enter_container(m, type, contents) > 0);
                        offset = walk_wire_size(m, offset);
                        assert_true(sd_bus_message_exit_container(m) > 0);
                        continue;
                }
                if (type == 's' || type == 'o' || type == 'g') {
                        const char *v;
                        assert_true(sd_bus_message_read_basic(m, type, &v) > 0);
                        offset = type == 'g' ? offset + 1 + strlen(v) + 1 : align_to(offset, 4) + 4 + strlen(v) + 1;
                        continue;
                }
                uint64_t scratch;
                assert_true(sd_bus_message_read_basic(m, type, &scratch) > 0);
                offset = align_to(offset, type_alignment(type)) + (type == 'y'                 ? 1
                                                                   : type_alignment(type) == 2 ? 2
                                                                                               : type_alignment(type));
        }
        return offset;
}

size_t message_body_size(sd_bus_message *m) {
        assert_true(sd_bus_message_rewind(m, true) >= 0);
        return walk_wire_size(m, 0);
}
