/* SPDX-License-Identifier: MIT */
#pragma once

/* A bound on how many lines one kind of message may log: at most `burst`
 * per interval, the rest counted and reported as one line ("suppressed N
 * similar messages") when the interval is over. Pure: the caller passes the
 * time (CLOCK_MONOTONIC µs) and does the logging. An interval begins with
 * the first message after the last one ended, so a quiet limit costs
 * nothing and a flood gets `burst` lines and one count per interval. */

#include <stdbool.h>
#include <stdint.h>

typedef struct LogLimit {
        uint64_t interval_usec;
        unsigned burst;
        bool running;        /* an interval is under way */
        uint64_t begin_usec; /* when it began */
        unsigned n_logged;   /* lines logged in it */
        uint64_t n_suppressed;
} LogLimit;

#define LOG_LIMIT_INIT(interval, b) ((LogLimit){ .interval_usec = (interval), .burst = (b) })

/* Whether a message at now may be logged; it is counted either way.
 * *ret_suppressed: the count of an interval that ended before now and was
 * not reported yet, to be logged before this message (0: none). */
bool log_limit_pass(LogLimit *l, uint64_t now_usec, uint64_t *ret_suppressed);

/* The suppressed count of an interval that is over by now, once (0: none,
 * or the interval runs on); the limit then waits for the next message. For
 * a timer, so that the count is reported when the flood stops too.
 * UINT64_MAX as now ends the interval whatever its age (at exit). */
uint64_t log_limit_flush(LogLimit *l, uint64_t now_usec);
