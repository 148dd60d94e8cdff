/* SPDX-License-Identifier: MIT */
#include "log-limit.h"

#include <assert.h>

static bool interval_over(const LogLimit *l, uint64_t now_usec) {
        return now_usec == UINT64_MAX || now_usec - l->begin_usec >= l->interval_usec;
}

bool log_limit_pass(LogLimit *l, uint64_t now_usec, uint64_t *ret_suppressed) {
        assert(l);
        assert(ret_suppressed);

        *ret_suppressed = 0;
        /* A clock that went back (it cannot on CLOCK_MONOTONIC) begins a new interval too. */
        if (l->running && (now_usec < l->begin_usec || interval_over(l, now_usec))) {
                *ret_suppressed = l->n_suppressed;
                l->running = false;
        }
        if (!l->running) {
                *l = (LogLimit){
                        .interval_usec = l->interval_usec, .burst = l->burst, .running = true, .begin_usec = now_usec
                };
        }
        if (l->n_logged < l->burst) {
                l->n_logged++;
                return true;
        }
        l->n_suppressed++;
        return false;
}

uint64_t log_limit_flush(LogLimit *l, uint64_t now_usec) {
        uint64_t n;

        assert(l);
        if (!l->running || !interval_over(l, now_usec))
                return 0;
        n = l->n_suppressed;
        *l = LOG_LIMIT_INIT(l->interval_usec, l->burst);
        return n;
}
