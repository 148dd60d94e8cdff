/* SPDX-License-Identifier: MIT */
#include "api/bus-signal.h"

#include "basic/log.h"
#include "basic/time-util.h"
#include "basic/util.h"

/* A forger may send thousands a second: say that it happens, not each one. */
#define DROP_LOG_INTERVAL_USEC (10 * USEC_PER_SEC)
#define DROP_LOG_BURST         5

static void log_dropped(sd_bus_message *m, const char *expected) {
        static uint64_t interval_start;
        static unsigned n_logged;
        uint64_t now = now_usec(CLOCK_MONOTONIC);

        if (log_get_max_level() < LOG_DEBUG)
                return;
        if (now - interval_start >= DROP_LOG_INTERVAL_USEC) {
                interval_start = now;
                n_logged = 0;
        }
        if (n_logged++ >= DROP_LOG_BURST)
                return;
        log_debug("Ignoring %s.%s from %s%s%s: only a broadcast from %s is believed.",
                  strna(sd_bus_message_get_interface(m)), strna(sd_bus_message_get_member(m)),
                  strna(sd_bus_message_get_sender(m)), sd_bus_message_get_destination(m) ? " to " : "",
                  strempty(sd_bus_message_get_destination(m)), expected ?: "rdmad's owner (not known yet)");
}

bool bus_signal_is_from(sd_bus_message *m, const char *sender) {
        const char *from = sd_bus_message_get_sender(m);

        if (sender && from && streq(from, sender) && !sd_bus_message_get_destination(m) &&
            sd_bus_message_is_signal(m, NULL, NULL) > 0)
                return true;
        log_dropped(m, sender);
        return false;
}
