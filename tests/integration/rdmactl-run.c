/* SPDX-License-Identifier: MIT */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
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
