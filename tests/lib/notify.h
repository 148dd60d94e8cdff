/* SPDX-License-Identifier: MIT */
#pragma once

/* The daemon's sd_notify socket, read as systemd reads its own: at once and
 * always, by a thread of the harness. A datagram socket holds only
 * net.unix.max_dgram_qlen messages (10 by default); left unread, it would
 * make the daemon's next sd_notify() block, and with it the event loop
 * (sd-event sends WATCHDOG=1 from sd_event_wait()): a stall of the test's
 * making, not the daemon's. Each message is kept with the time it came
 * until a test takes it. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct Harness Harness;
typedef struct NotifyReader NotifyReader;

/* The oldest message not taken yet: its text in buf (cut to size) and, if
 * ret_usec, when it came (CLOCK_MONOTONIC). Waits up to timeout_ms for one
 * (0: not at all); false if none came. */
bool harness_notify_next(Harness *h, int timeout_ms, char *buf, size_t size, uint64_t *ret_usec);

/* Forgets every message not taken yet (READY=1 and the pings so far). */
void harness_notify_forget(Harness *h);

/* Counts the messages containing `needle` that come within `ms` milliseconds. */
unsigned harness_count_notify(Harness *h, const char *needle, int ms);
