/* SPDX-License-Identifier: MIT */
#pragma once

/* The real rdmad under umockdev-wrapper: started, stopped, restarted,
 * paused; its log, its memory, its sd_notify messages. */

#include <stdbool.h>
#include <stdint.h>

typedef struct Harness Harness;

/* Stops the daemon (it must exit with 0) and starts it again on the same
 * testbed and bus, waiting for READY=1 (the benchmark's start-up runs). */
void harness_restart_daemon(Harness *h, const char *const *args);

/* The two halves of a restart, for a test that changes the testbed while
 * no daemon runs: stop (SIGTERM; it must exit with 0), then start it again
 * on the same testbed and bus, waiting for READY=1. */
void harness_stop_daemon(Harness *h);
void harness_start_daemon(Harness *h, const char *const *args);

/* When set before harness_start() or harness_restart_daemon(): a library
 * preloaded into the daemon in front of umockdev's (the fault injector). */
extern const char *harness_daemon_preload;

/* When set: called by harness_start() once the fixtures are in the testbed,
 * before the daemon starts (to write what umockdev cannot describe). */
extern void (*harness_prepare)(Harness *h);

/* When set before harness_start(): the daemon's stderr goes to a file
 * instead of the test's, and harness_daemon_log() returns it so far. */
extern bool harness_capture_daemon_log;
/* With harness_capture_daemon_log: $JOURNAL_STREAM names that file, as
 * systemd names the journal's stream, so the daemon logs to the journal
 * socket (a test binds its own in a mount namespace). */
extern bool harness_daemon_log_is_journal;
char *harness_daemon_log(Harness *h);

/* harness_start() with the daemon's log captured. */
Harness *harness_start_logged(const char *const *fixtures, const char *const *args);

/* What the captured log says, as an operator reads it: whether it has
 * `needle`; waiting (up to 30 s, or fail) until it has it, or has it n
 * times; the number after the last `prefix` (-1 without one: the daemon
 * logs "WaitForState calls held: N" whenever that changes), and waiting
 * until that number is n. */
bool harness_log_has(Harness *h, const char *needle);
void harness_wait_log(Harness *h, const char *needle);
void harness_wait_log_times(Harness *h, const char *needle, unsigned n);
long harness_log_count(Harness *h, const char *prefix);
void harness_wait_log_count(Harness *h, const char *prefix, long n);

/* The daemon's resident memory, from /proc. */
uint64_t harness_daemon_rss_kib(Harness *h);

/* The same once the daemon has given back the heap freed by a burst (it
 * trims at most every 5 s): waits out that interval, pings twice (the
 * second answer comes after the trim), then reads. */
uint64_t harness_settled_rss_kib(Harness *h);
/* The daemon runs under $RDMAD_TEST_WRAPPER (valgrind): ~30 times slower,
 * its RSS mostly the wrapper's own; tests scale their loads and bounds. */
bool harness_daemon_wrapped(void);

/* rdmad runs under valgrind or is built with the sanitizers: many times
 * slower, its memory theirs to manage (they check it for leaks). */
bool harness_daemon_slowed(void);

/* Latency bounds hold: rdmad is not slowed, and no other pass shares the
 * machine by design ($RDMAD_TEST_BESIDE: make check-broker-valgrind runs
 * the dbus-broker pass beside valgrind's). */
bool harness_latency_judged(void);

/* A load scaled for where the daemon runs: a quarter of n under valgrind. */
unsigned harness_load_width(unsigned n);
/* A time bound scaled the same way: ten times longer under valgrind, four
 * times under the sanitizers, which slow every step of rdmad and of the
 * bus's clients. */
uint64_t harness_time_bound(uint64_t usec);

/* SIGSTOP / SIGCONT the daemon: changes made in between reach it together. */
void harness_pause(Harness *h);
void harness_resume(Harness *h);
