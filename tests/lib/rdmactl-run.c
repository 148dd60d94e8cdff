/* SPDX-License-Identifier: MIT */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <glib.h>

#include "rdmactl-run.h"

const char *rdmactl_binary(void) {
        const char *p = getenv("RDMACTL_BINARY");

        if (!p)
                fail_msg("RDMACTL_BINARY is not set");
        return p;
}

const char *rdmactl_wrapped(const char *binary) {
        static char command[1024];
        const char *wrapper = getenv("RDMACTL_TEST_WRAPPER");

        snprintf(command, sizeof(command), "%s%s%s", wrapper ?: "", wrapper ? " " : "", binary);
        return command;
}

const char *rdmactl_command(void) {
        return rdmactl_wrapped(rdmactl_binary());
}

char *rdmactl_run(Harness *h, int *ret_status, const char *fmt, ...) {
        char *args = NULL, *command = NULL, *out;
        va_list ap;

        va_start(ap, fmt);
        assert_true(vasprintf(&args, fmt, ap) >= 0);
        va_end(ap);
        assert_true(asprintf(&command, RDMACTL_ENV "%s %s", rdmactl_command(), args) >= 0);
        out = harness_run_command(h, command, ret_status);
        free(command);
        free(args);
        return out;
}

char *rdmactl_run_ok(Harness *h, const char *args) {
        int status;
        char *out = rdmactl_run(h, &status, "%s", args);

        if (status != 0)
                fail_msg("rdmactl %s: exit %d, output:\n%s", args, status, out);
        return out;
}

void rdmactl_assert_run(Harness *h, const char *args, int expected_status, const char *expected_output) {
        int status;
        char *out = rdmactl_run(h, &status, "%s", args);

        if (status != expected_status || (expected_output && !strstr(out, expected_output)))
                fail_msg("rdmactl %s: exit %d (expected %d), output:\n%s\n(expected to contain: %s)", args, status,
                         expected_status, out, expected_output ?: "anything");
        free(out);
}

void rdmactl_assert_golden(const char *actual, const char *name) {
        char path[512];
        char *expected = NULL;

        snprintf(path, sizeof(path), "%s/%s", GOLDEN_DIR, name);
        if (getenv("RDMACTL_UPDATE_GOLDEN")) {
                assert_true(g_file_set_contents(path, actual, -1, NULL));
                fprintf(stderr, "updated %s\n", path);
                return;
        }
        if (!g_file_get_contents(path, &expected, NULL, NULL))
                fail_msg("cannot read %s", path);
        if (strcmp(expected, actual) != 0)
                fail_msg("output differs from %s:\n--- expected\n%s--- actual\n%s---", path, expected, actual);
        g_free(expected);
}

pid_t rdmactl_spawn(const char *args, int stdout_fd, int stderr_fd) {
        char *command = NULL;
        pid_t parent = getpid(), pid;

        /* Through the shell, for the wrapper; exec keeps the pid rdmactl's (or the wrapper's). */
        assert_true(asprintf(&command, "exec %s %s", rdmactl_command(), args) >= 0);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                prctl(PR_SET_PDEATHSIG, SIGKILL);
                if (getppid() != parent)
                        _exit(127);
                unsetenv("LD_PRELOAD");
                setenv("LC_ALL", "C.UTF-8", 1);
                setenv("TZ", "UTC", 1);
                if (dup2(stdout_fd, STDOUT_FILENO) < 0 || dup2(stderr_fd, STDERR_FILENO) < 0)
                        _exit(127);
                execl("/bin/sh", "sh", "-c", command, (char *) NULL);
                _exit(127);
        }
        free(command);
        return pid;
}

RdmactlChild *rdmactl_child_start(const char *args) {
        RdmactlChild *c = calloc(1, sizeof(RdmactlChild));
        int out[2], err[2];

        assert_non_null(c);
        assert_int_equal(pipe2(out, O_CLOEXEC), 0);
        assert_int_equal(pipe2(err, O_CLOEXEC), 0);
        c->pid = rdmactl_spawn(args, out[1], err[1]);
        close(out[1]);
        close(err[1]);
        c->out_fd = out[0];
        c->err_fd = err[0];
        c->out = g_string_new(NULL);
        c->err = g_string_new(NULL);
        return c;
}

bool rdmactl_child_wait_for(RdmactlChild *c, const char *needle, bool in_stderr, int timeout_ms) {
        uint64_t deadline = now_usec() + (uint64_t) timeout_ms * 1000;

        for (;;) {
                struct pollfd p[2] = { { .fd = c->out_fd, .events = POLLIN }, { .fd = c->err_fd, .events = POLLIN } };
                uint64_t now = now_usec();
                char buf[4096];

                if (strstr((in_stderr ? c->err : c->out)->str, needle))
                        return true;
                if (now >= deadline || (c->out_fd < 0 && c->err_fd < 0))
                        return false;
                if (poll(p, 2, (int) ((deadline - now) / 1000) + 1) <= 0)
                        continue;
                for (size_t i = 0; i < 2; i++) {
                        int *fd = i == 0 ? &c->out_fd : &c->err_fd;
                        ssize_t n;

                        if (*fd < 0 || !(p[i].revents & (POLLIN | POLLHUP)))
                                continue;
                        n = read(*fd, buf, sizeof(buf));
                        if (n > 0)
                                g_string_append_len(i == 0 ? c->out : c->err, buf, n);
                        else {
                                close(*fd);
                                *fd = -1;
                        }
                }
        }
}

int rdmactl_child_wait_exit(RdmactlChild *c, int timeout_ms) {
        uint64_t deadline = now_usec() + (uint64_t) timeout_ms * 1000;
        int status;

        for (;;) {
                if (waitpid(c->pid, &status, WNOHANG) == c->pid) {
                        c->pid = 0;
                        (void) rdmactl_child_wait_for(c, "\x01never", false, 1000); /* the rest of its output */
                        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
                }
                if (now_usec() > deadline)
                        return -1;
                usleep(10000);
        }
}

void rdmactl_child_free(RdmactlChild *c) {
        if (c->pid > 0) {
                kill(c->pid, SIGKILL);
                waitpid(c->pid, NULL, 0);
        }
        if (c->out_fd >= 0)
                close(c->out_fd);
        if (c->err_fd >= 0)
                close(c->err_fd);
        g_string_free(c->out, TRUE);
        g_string_free(c->err, TRUE);
        free(c);
}
