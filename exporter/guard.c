/* SPDX-License-Identifier: MIT */
#include "guard.h"

#include <string.h>

#include "basic/util.h"

/* The entry, among those counted (and of `address` if given), that has
 * waited longest without being served; -1 for none. */
static ssize_t oldest_unserved(const GuardEntry *entries, size_t n, const char *address) {
        ssize_t best = -1;

        for (size_t i = 0; i < n; i++) {
                const GuardEntry *e = &entries[i];

                if (e->closing || e->state == GUARD_SERVING || (address && !streq(e->address, address)))
                        continue;
                if (best < 0 || e->since_usec < entries[best].since_usec)
                        best = (ssize_t) i;
        }
        return best;
}

ssize_t guard_pick_victim(const GuardEntry *entries, size_t n, const char *address, size_t per_address_max,
                          size_t total_max) {
        size_t total = 0, same = 0;
        ssize_t victim;

        for (size_t i = 0; i < n; i++) {
                if (entries[i].closing)
                        continue;
                total++;
                same += streq(entries[i].address, address);
        }
        /* An address at its own limit makes room among its own connections only. */
        if (same >= per_address_max) {
                victim = oldest_unserved(entries, n, address);
                return victim >= 0 ? victim : -2;
        }
        if (total >= total_max) {
                victim = oldest_unserved(entries, n, NULL);
                return victim >= 0 ? victim : -2;
        }
        return -1;
}

bool guard_expired(const GuardEntry *e, uint64_t now_usec) {
        return !e->closing && e->state != GUARD_SERVING && now_usec >= e->deadline_usec;
}

void guard_set_state(GuardEntry *e, GuardState state, uint64_t now_usec) {
        uint64_t deadline = now_usec + (state == GUARD_IDLE ? GUARD_IDLE_TIMEOUT_USEC : GUARD_REQUEST_TIMEOUT_USEC);

        /* A request begun on a fresh connection keeps the deadline from accept. */
        if (state == GUARD_WAITING && e->state == GUARD_WAITING && e->deadline_usec > 0 && e->deadline_usec < deadline)
                deadline = e->deadline_usec;
        else
                e->since_usec = now_usec;
        e->state = state;
        e->deadline_usec = deadline;
}
