/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdint.h>

/* The reference of a scraper: every attribute rdmad publishes, read once
 * from /sys, timed (µs); n, the host's devices (0: an empty host). */
uint64_t timed_scan_usec(unsigned n);
