/* SPDX-License-Identifier: MIT */
#pragma once

/* Output helpers of rdmactl: colours, timestamps, sizes and rates (what is
 * shown is a field tree, field-tree.h). Pure: everything goes to a FILE the
 * caller gives. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define ANSI_RED       "\x1b[0;31m"
#define ANSI_GREEN     "\x1b[0;32m"
#define ANSI_YELLOW    "\x1b[0;33m"
#define ANSI_GREY      "\x1b[0;38;5;245m"
#define ANSI_BOLD      "\x1b[0;1;39m"
#define ANSI_UNDERLINE "\x1b[0;4m"
#define ANSI_NORMAL    "\x1b[0m"

/* Colour when stdout is a terminal, NO_COLOR is unset or empty, and TERM is set and not "dumb". */
bool colors_wanted(int fd);

/* The colour of a port state name ("ACTIVE" green, "DOWN" red, ...), NULL for none. */
const char *state_color(const char *state_name);

/* The colour of a device's Health: "ok" green, "errors" yellow, "unresponsive" red; NULL for none. */
const char *health_color(const char *health);

/* text to stdout, in `color` (an ANSI_* sequence, or NULL) when colour is on. */
void print_colored(bool color_on, const char *text, const char *color);
const char *phys_state_color(const char *phys_state_name);

/* "2026-11-30T04:01:02.123456+01:00": CLOCK_REALTIME microseconds in local time. */
#define TIMESTAMP_MAX 64
char *format_timestamp(uint64_t realtime_usec, char buf[static TIMESTAMP_MAX]);

/* How long before now then was (CLOCK_REALTIME µs), as people say it:
 * "12 s ago", "3 min ago" (under 2 hours), "5 h ago" (under 2 days),
 * "4 days ago"; "never" for then 0, "just now" for a time ahead of now (a
 * clock stepped back). */
#define AGO_MAX 32
char *format_ago(uint64_t now, uint64_t then, char buf[static AGO_MAX]);

/* The IPv4 address of a RoCE GID that maps one ("::ffff:a.b.c.d", printed by
 * the kernel as "0000:0000:0000:0000:0000:ffff:c0a8:010a"): "192.168.1.10"
 * in buf; NULL for any other GID or text. */
#define GID_IPV4_MAX 16
char *gid_to_ipv4(const char *gid, char buf[static GID_IPV4_MAX]);

/* "113.3 GiB", "512 B": IEC units, one decimal above a KiB. */
#define BYTES_STRING_MAX 32
char *format_bytes(uint64_t bytes, char buf[static BYTES_STRING_MAX]);

/* A per-second rate as text: "1.5 MiB/s" for bytes, "1234.5/s" for the rest. */
#define RATE_STRING_MAX 40
char *format_rate(double per_sec, bool bytes, char buf[static RATE_STRING_MAX]);

/* What rdmactl knows about a counter file name. */
typedef enum CounterKind {
        COUNTER_OTHER,
        COUNTER_DATA,    /* octets (rdmad gives port_rcv_data and port_xmit_data ×4) */
        COUNTER_PACKETS, /* packets both ways */
        COUNTER_ERROR,   /* non-zero means something is wrong: highlighted, listed by `status` */
} CounterKind;

CounterKind counter_kind(const char *name);

/* The counters `rdmactl counters` shows without --all: the i-th name in the
 * order shown (NULL past the last), and the label for a name among them
 * (NULL for one that is not). */
const char *counter_summary_name(size_t i);
const char *counter_summary_label(const char *name);

/* What a counter went up by from prev to cur; a counter that went down was
 * reset (a driver reload, a hot-plug) and counts from 0. */
uint64_t counter_delta(uint64_t prev, uint64_t cur);

/* delta per second over interval_usec; 0 for an empty interval. */
double counter_rate(uint64_t delta, uint64_t interval_usec);
