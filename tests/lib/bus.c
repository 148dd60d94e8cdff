/* SPDX-License-Identifier: MIT */
#include "bus.h"

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

static void write_text(const char *path, const char *text) {
        FILE *f = fopen(path, "we");
        assert_non_null(f);
        fputs(text, f);
        assert_int_equal(fclose(f), 0);
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
                /* A bare name is one of tests/lib/policies/. */
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

void start_bus(Harness *h) {
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
                n = harness_read_within(pipefd[0], line, sizeof(line) - 1, 0, "dbus-daemon to print its address");
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

uid_t harness_name_owner_uid(Harness *h, const char *name) {
        sd_bus_message *reply = NULL;
        uint32_t uid;

        assert_true(sd_bus_call_method(h->bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                       "GetConnectionUnixUser", NULL, &reply, "s", name) >= 0);
        assert_true(sd_bus_message_read(reply, "u", &uid) > 0);
        sd_bus_message_unref(reply);
        return (uid_t) uid;
}
