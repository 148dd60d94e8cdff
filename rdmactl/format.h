/* SPDX-License-Identifier: MIT */
#pragma once

/* Output helpers of rdmactl: colours, aligned tables, timestamps (JSON is
 * json-writer.h's). Pure: everything goes to a FILE the caller gives. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "json-writer.h"

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

#define TABLE_COLUMNS_MAX 16

/* A table of cells, printed as text with columns padded to their widest
 * cell, or as JSON: an array of one object per row, a member per column
 * that has a key. A cell is written once for both (as systemd's
 * format-table does). */
typedef enum TableColumnFlags {
        TABLE_COLUMN_JSON_ONLY = 1 << 0, /* not in the text */
        TABLE_COLUMN_HIDDEN = 1 << 1,    /* not in the text, for now (table_hide_column) */
} TableColumnFlags;

typedef struct TableColumn {
        const char *header; /* text */
        const char *key;    /* JSON member; NULL: not in the JSON */
        TableColumnFlags flags;
} TableColumn;

typedef struct TableCell {
        char *text;        /* NULL: null in JSON; "-" in text, as "" */
        const char *color; /* ANSI sequence or NULL */
        bool is_number;    /* a JSON number, and text its digits */
        uint64_t number;
        bool is_real; /* a JSON number with a fraction: real */
        double real;
} TableCell;

typedef struct Table {
        size_t n_columns;
        TableColumn columns[TABLE_COLUMNS_MAX];
        TableCell *cells; /* row-major; the first row is the header */
        size_t n_cells, allocated;
} Table;

/* A text-only table (no JSON keys). */
Table *table_new(size_t n_columns, const char *const *headers);
Table *table_new_columns(size_t n_columns, const TableColumn *columns);
Table *table_free(Table *t);
static inline void table_freep(Table **t) {
        table_free(*t);
}
/* Adds the next cell (rows fill left to right); NULL or "" shows as "-". */
int table_add(Table *t, const char *text, const char *color);
int table_add_uint(Table *t, uint64_t value, const char *color);
int table_add_double(Table *t, double value, const char *color);
void table_hide_column(Table *t, size_t column);
size_t table_rows(const Table *t); /* without the header */
/* No trailing blanks on any line; colours only if use_color. */
void table_print(const Table *t, FILE *f, bool header, bool use_color);

/* The rows as one JSON array of objects. */
void table_json(const Table *t, JsonWriter *w);

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
