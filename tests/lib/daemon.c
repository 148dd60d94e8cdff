/* SPDX-License-Identifier: MIT */
#include "daemon.h"

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

/* Generous: the benchmark starts 2048 devices, sometimes under callgrind or on a loaded machine. */
#define DAEMON_READY_TIMEOUT_MS 120000

/* The benchmark's biggest hosts take longer to load on a busy machine. */
static int ready_timeout_ms(void) {
        const char *e = getenv("RDMAD_TEST_READY_TIMEOUT_MS");
        return e && atoi(e) > 0 ? atoi(e) : DAEMON_READY_TIMEOUT_MS;
}

static void wait_ready(Harness *h) {
        uint64_t deadline = now_ms() + ready_timeout_ms();

        for (;;) {
                char buf[256];
                int status;

                if (waitpid(h->daemon_pid, &status, WNOHANG) == h->daemon_pid) {
                        h->daemon_pid = 0;
                        fail_msg("rdmad exited before READY=1 (wait status %d)", status);
                }
                if (now_ms() > deadline)
                        fail_msg("rdmad did not send READY=1 within %d ms", ready_timeout_ms());
                if (harness_notify_next(h, 50, buf, sizeof(buf), NULL) && strstr(buf, "READY=1"))
                        return;
        }
}

const char *harness_daemon_preload;
void (*harness_prepare)(Harness *h);
bool harness_capture_daemon_log;
bool harness_daemon_log_is_journal;

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

bool harness_daemon_slowed(void) {
#ifdef SANITIZED_BUILD
        return true;
#else
        return harness_daemon_wrapped();
#endif
}

bool harness_latency_judged(void) {
        return !harness_daemon_slowed() && !getenv("RDMAD_TEST_BESIDE");
}

unsigned harness_load_width(unsigned n) {
        return harness_daemon_wrapped() ? (n + 3) / 4 : n;
}

uint64_t harness_time_bound(uint64_t usec) {
        if (harness_daemon_wrapped())
                return 10 * usec;
#ifdef SANITIZED_BUILD
        return 4 * usec;
#else
        return usec;
#endif
}

Harness *harness_start_logged(const char *const *fixtures, const char *const *args) {
        Harness *h;

        harness_capture_daemon_log = true;
        h = harness_start(fixtures, args);
        harness_capture_daemon_log = false;
        return h;
}

bool harness_log_has(Harness *h, const char *needle) {
        char *log = harness_daemon_log(h);
        bool found = log && strstr(log, needle);

        free(log);
        return found;
}

/* The end of the log, its last 3 lines, or "(empty)". */
static void print_log_tail(FILE *seen, const char *log) {
        const char *p = log ? log + strlen(log) : NULL;
        unsigned lines = 0;

        if (!p || p == log) {
                fprintf(seen, "(empty log)");
                return;
        }
        while (p > log && lines <= 3)
                if (*--p == '\n' && p[1] != '\0')
                        lines++;
        fprintf(seen, "the log ends:\n%s", p == log ? p : p + 1);
}

static bool log_has(Harness *h, const void *needle, FILE *seen) {
        char *log = harness_daemon_log(h);
        bool found = log && strstr(log, needle);

        print_log_tail(seen, log);
        free(log);
        return found;
}

void harness_wait_log(Harness *h, const char *needle) {
        harness_wait_for(h, log_has, needle, 30000, "the daemon to log \"%s\"", needle);
}

typedef struct LogTimes {
        const char *needle;
        unsigned n;
} LogTimes;

static bool log_has_times(Harness *h, const void *data, FILE *seen) {
        const LogTimes *t = data;
        char *log = harness_daemon_log(h), *p = log;
        unsigned n = 0;

        while (p && (p = strstr(p, t->needle))) {
                n++;
                p++;
        }
        fprintf(seen, "%u times; ", n);
        print_log_tail(seen, log);
        free(log);
        return n >= t->n;
}

void harness_wait_log_times(Harness *h, const char *needle, unsigned n) {
        LogTimes t = { needle, n };

        harness_wait_for(h, log_has_times, &t, 30000, "the daemon to log \"%s\" %u times", needle, n);
}

long harness_log_count(Harness *h, const char *prefix) {
        char *log = harness_daemon_log(h), *p, *last = NULL;
        long n = -1;

        for (p = log; p && (p = strstr(p, prefix)); p++)
                last = p;
        if (last)
                n = strtol(last + strlen(prefix), NULL, 10);
        free(log);
        return n;
}

typedef struct CountIs {
        const char *prefix;
        long n;
} CountIs;

static bool count_is(Harness *h, const void *data, FILE *seen) {
        const CountIs *c = data;
        long n = harness_log_count(h, c->prefix);

        fprintf(seen, "%ld (-1: never logged)", n);
        return n == c->n;
}

void harness_wait_log_count(Harness *h, const char *prefix, long n) {
        CountIs c = { prefix, n };

        harness_wait_for(h, count_is, &c, 30000, "the daemon's log to say \"%s%ld\"", prefix, n);
}

void start_daemon(Harness *h, const char *const *args) {
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
void daemon_continue(Harness *h) {
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

bool harness_daemon_wrapped(void) {
        const char *w = getenv("RDMAD_TEST_WRAPPER");

        return w && *w;
}

uint64_t harness_settled_rss_kib(Harness *h) {
        /* Not a wait for anything: the daemon trims at most every 5 s, after an iteration that did something. */
        harness_observe(h, 5500, "the daemon's trim interval to pass");
        /* The iteration that answers this Ping trims; the second Ping's answer comes after it has. */
        for (unsigned i = 0; i < 2; i++)
                assert_true(sd_bus_call_method(h->bus, RDMAD_BUS_NAME, RDMAD_ROOT_PATH, "org.freedesktop.DBus.Peer",
                                               "Ping", NULL, NULL, "") >= 0);
        return harness_daemon_rss_kib(h);
}
