/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Counters of a port or a device, read from sysfs at call time: every
 * regular file of ports/<n>/counters/, ports/<n>/counters_ext/ (kernels
 * before 4.5) and ports/<n>/hw_counters/, or of the device-wide
 * <dev>/hw_counters/. Keys are the file names. Nothing here touches the
 * model: the reader thread uses these functions on paths only. */

typedef enum CounterSource {
        COUNTER_SOURCE_COUNTERS,     /* IBTA PortCounters through the PMA */
        COUNTER_SOURCE_COUNTERS_EXT, /* PortCountersExtended on old kernels */
        COUNTER_SOURCE_HW_COUNTERS,  /* driver-specific rdma_hw_stats */
        _COUNTER_SOURCE_MAX,
} CounterSource;

typedef struct Counter {
        char *name;
        uint64_t value;
} Counter;

/* Name → value, sorted by name once counter_list_finish() ran. */
typedef struct CounterList {
        Counter *items;
        size_t n;
        size_t allocated;
} CounterList;

void counter_list_clear(CounterList *l);
int counter_list_add(CounterList *l, const char *name, uint64_t value);
/* Sorts by name; of two entries with one name the one added first stays
 * (counters/ wins over hw_counters/). */
void counter_list_finish(CounterList *l);

/* A counter file's text as the kernel prints it ("12345\n"): decimal digits
 * only, trailing whitespace allowed. -EINVAL for anything else ("N/A (no
 * PMA)", "-1", "0x10", ""), -ERANGE above 2^64-1. */
int counter_parse_number(const char *text, uint64_t *ret);

/* The published value of file `name` of `source` holding `text`:
 * port_rcv_data, port_xmit_data and their _64 forms count 4-octet words
 * and are published in octets (×4, -ERANGE if that overflows);
 * hw_counters/lifespan is a setting (ms), not a counter (-ENOENT). Other
 * errors as counter_parse_number(). */
int counter_value(CounterSource source, const char *name, const char *text, uint64_t *ret);

/* Adds every counter of parent_fd/<source directory> to l. Files that cannot be
 * read or hold no number are left out; a missing directory adds nothing.
 * 1 if the directory exists, 0 if not, -errno only for a lack of memory or
 * descriptors (errno_is_resource()). */
int counters_read_source_at(int parent_fd, CounterSource source, CounterList *l);

/* All sources of a port directory (.../ports/<n>), or the device-wide
 * hw_counters of a device directory (port_dir == false). *ret_present: any
 * of the directories exists. */
int counters_read_path(const char *path, bool port_dir, CounterList *ret, bool *ret_present);
