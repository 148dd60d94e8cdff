/* SPDX-License-Identifier: MIT */
#include "process.h"

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

uint64_t now_usec(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000;
}

uint64_t now_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000 + (uint64_t) ts.tv_nsec / 1000000;
}

/* Child in its own process group, killed if the test process dies. The
 * test runs under umockdev's preload; children get it only through
 * umockdev-wrapper (the daemon), never twice. as_daemon_user: with the
 * daemon's identity (in /, where that user may be). */
pid_t spawn_full(char *const argv[], int stdout_fd, int stderr_fd, bool as_daemon_user) {
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

pid_t spawn(char *const argv[], int stdout_fd) {
        return spawn_full(argv, stdout_fd, -1, false);
}

/* SIGTERM, then SIGKILL to the whole group after timeout_ms. */
int stop_process(pid_t pid, int timeout_ms) {
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

/* Everything left to read from f, as a string (caller frees); f NULL gives "". */
char *read_all(FILE *f) {
        char buf[4096], *text = NULL;
        size_t size = 0, k;
        FILE *out = open_memstream(&text, &size);

        assert_non_null(out);
        while (f && (k = fread(buf, 1, sizeof(buf), f)) > 0)
                fwrite(buf, 1, k, out);
        assert_int_equal(fclose(out), 0);
        return text;
}

pid_t harness_spawn(char *const argv[]) {
        return spawn(argv, -1);
}

pid_t harness_spawn_logged(char *const argv[], const char *log_path) {
        int fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        pid_t pid;

        if (fd < 0)
                fail_msg("Cannot open %s: %m", log_path);
        pid = spawn_full(argv, -1, fd, false);
        close(fd);
        return pid;
}

int harness_stop_process(pid_t pid, int timeout_ms) {
        return stop_process(pid, timeout_ms);
}

static uint64_t bound_ms(int timeout_ms) {
        return harness_time_bound((uint64_t) (timeout_ms > 0 ? timeout_ms : HARNESS_WAIT_MS) * 1000) / 1000;
}

ssize_t harness_read_within(int fd, void *buf, size_t size, int timeout_ms, const char *what) {
        uint64_t start = now_ms(), deadline = start + bound_ms(timeout_ms);

        for (;;) {
                struct pollfd p = { .fd = fd, .events = POLLIN };
                uint64_t now = now_ms();
                int r;

                if (now >= deadline)
                        fail_msg("waited %.1f s for %s; last seen: nothing to read on fd %d", (now - start) / 1e3, what,
                                 fd);
                r = poll(&p, 1, (int) (deadline - now));
                if (r < 0 && errno != EINTR)
                        fail_msg("poll for %s: %m", what);
                if (r > 0)
                        return read(fd, buf, size);
        }
}

int harness_waitpid_within(pid_t pid, int timeout_ms, const char *what) {
        uint64_t start = now_ms(), deadline = start + bound_ms(timeout_ms);
        int status;

        for (;;) {
                pid_t r = waitpid(pid, &status, WNOHANG);

                if (r == pid)
                        return status;
                if (r < 0)
                        fail_msg("waitpid %d (%s): %m", (int) pid, what);
                if (now_ms() >= deadline) {
                        char path[64], state[256] = "(gone)";
                        FILE *f;

                        snprintf(path, sizeof(path), "/proc/%d/stat", (int) pid);
                        if ((f = fopen(path, "re"))) {
                                if (!fgets(state, sizeof(state), f))
                                        state[0] = '\0';
                                fclose(f);
                        }
                        state[strcspn(state, "\n")] = '\0';
                        fail_msg("waited %.1f s for %s (pid %d) to exit; last seen: %s", (now_ms() - start) / 1e3, what,
                                 (int) pid, state);
                }
                usleep(5000); /* the polling interval of this bounded wait */
        }
}
