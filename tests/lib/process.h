/* SPDX-License-Identifier: MIT */
#pragma once

/* Child processes of the harness: each in its own process group, killed
 * if the test dies; the monotonic clock. */

#include <stdint.h>
#include <sys/types.h>

uint64_t now_usec(void);

/* A helper program (rdmad-exporter, node_exporter, prometheus) in its own
 * process group, without umockdev's preload, killed if the test dies;
 * harness_stop_process(): SIGTERM, then SIGKILL to its group after
 * timeout_ms; returns the wait status. */
pid_t harness_spawn(char *const argv[]);
/* The same, its standard error appended to the file at log_path (created
 * if need be): a test that reads what the program logged. */
pid_t harness_spawn_logged(char *const argv[], const char *log_path);
int harness_stop_process(pid_t pid, int timeout_ms);

/* Blocking steps with a deadline (timeout_ms as harness_wait_for()'s: 0 for
 * HARNESS_WAIT_MS, scaled by harness_time_bound()); past it they fail the
 * test with "waited N s for <what>; last seen: ...".
 * harness_read_within(): one read(2) once fd is readable; its result.
 * harness_waitpid_within(): the child's wait status. */
ssize_t harness_read_within(int fd, void *buf, size_t size, int timeout_ms, const char *what);
int harness_waitpid_within(pid_t pid, int timeout_ms, const char *what);
