/* SPDX-License-Identifier: MIT */
#pragma once

/* rdmactl against the test's rdmad: the integration tests of rdmactl run it
 * to its end or in the background, and compare its output with the golden
 * files of tests/golden/. Every run has the same environment: UTF-8 output,
 * UTC timestamps, and $RDMACTL_TEST_WRAPPER ("valgrind --error-exitcode=99
 * -q") in front of rdmactl when set. */

#include <stdbool.h>
#include <sys/types.h>

#include <glib.h>

#include "harness.h"

/* What a shell command line puts in front of rdmactl for that environment. */
#define RDMACTL_ENV "env LC_ALL=C.UTF-8 TZ=UTC "

/* $RDMACTL_BINARY (meson sets it); fails the test when it is not set. */
const char *rdmactl_binary(void);

/* binary behind $RDMACTL_TEST_WRAPPER, if set, for a shell command line;
 * rdmactl_command() is that of rdmactl_binary(). A static buffer. */
const char *rdmactl_wrapped(const char *binary);
const char *rdmactl_command(void);

/* Runs "rdmactl ARGS" to its end (stdout and stderr together, caller
 * frees); *ret_status is its exit status. */
char *rdmactl_run(Harness *h, int *ret_status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The same, failing the test unless it exits with 0. */
char *rdmactl_run_ok(Harness *h, const char *args);

/* Fails the test unless "rdmactl ARGS" exits with expected_status and its
 * output contains expected_output (anything if NULL). */
void rdmactl_assert_run(Harness *h, const char *args, int expected_status, const char *expected_output);

/* Fails the test unless `actual` is the golden file `name`, to the byte;
 * with RDMACTL_UPDATE_GOLDEN set, rewrites the file instead. */
void rdmactl_assert_golden(const char *actual, const char *name);

/* Starts "rdmactl ARGS" (ARGS as a shell would split them) in the
 * background, its stdout on stdout_fd and its stderr on stderr_fd; it is
 * killed if the test dies, and runs without umockdev's preload. Returns its
 * pid: the shell execs rdmactl (or the wrapper), so that is rdmactl's. */
pid_t rdmactl_spawn(const char *args, int stdout_fd, int stderr_fd);

/* rdmactl_spawn() with stdout and stderr on pipes, collected as it runs. */
typedef struct RdmactlChild {
        pid_t pid; /* 0 once it exited */
        int out_fd, err_fd;
        GString *out, *err;
} RdmactlChild;

RdmactlChild *rdmactl_child_start(const char *args);
/* Reads what the child wrote until needle is in stdout (stderr if
 * in_stderr), the child closes both, or timeout_ms passes. */
bool rdmactl_child_wait_for(RdmactlChild *c, const char *needle, bool in_stderr, int timeout_ms);
/* Waits for the child to exit by itself; its exit status, or -1 after timeout_ms. */
int rdmactl_child_wait_exit(RdmactlChild *c, int timeout_ms);
/* Kills it if it still runs. */
void rdmactl_child_free(RdmactlChild *c);
