/* SPDX-License-Identifier: MIT */
#pragma once

/* Who may hold a connection to the exporter: the decisions, pure. A
 * connection that has not sent a complete request within a few seconds
 * (slow loris) is closed; at the per-address or the overall limit, a new
 * connection takes the place of the one of that address (or of anyone)
 * that has waited longest without a request being served, so idle and
 * half-open connections cannot lock a scraper out. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define GUARD_PER_ADDRESS_MAX      16
#define GUARD_CONNECTIONS_MAX      64
#define GUARD_REQUEST_TIMEOUT_USEC (5ULL * 1000000ULL)   /* accept or request line → full request */
#define GUARD_IDLE_TIMEOUT_USEC    (120ULL * 1000000ULL) /* kept alive between scrapes */

typedef enum GuardState {
        GUARD_WAITING, /* no complete request yet */
        GUARD_SERVING, /* a request is being answered: never evicted */
        GUARD_IDLE,    /* kept alive after an answer */
} GuardState;

typedef struct GuardEntry {
        char address[64]; /* the peer's address without the port */
        GuardState state;
        uint64_t since_usec;    /* when it entered the state */
        uint64_t deadline_usec; /* closed then unless serving */
        bool closing;           /* asked to close: no longer counted */
} GuardEntry;

/* Which entry a new connection from `address` replaces: an index, -1 when
 * there is room, -2 when it must be refused (every entry in the way is
 * serving). */
ssize_t guard_pick_victim(const GuardEntry *entries, size_t n, const char *address, size_t per_address_max,
                          size_t total_max);

/* Whether an entry is past its deadline at `now`. */
bool guard_expired(const GuardEntry *e, uint64_t now_usec);

/* State changes: a deadline for each. */
void guard_set_state(GuardEntry *e, GuardState state, uint64_t now_usec);
