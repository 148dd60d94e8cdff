/* SPDX-License-Identifier: MIT */
#include "rescan-calls.h"

#include "api/rdmad-api.h"
#include "basic/log.h"
#include "basic/util.h"

void rescan_calls_answer(RescanCalls *c) {
        for (size_t i = 0; i < c->held.n; i++)
                (void) sd_bus_reply_method_return(c->held.calls[i], NULL);
        held_calls_clear(&c->held);
        c->timer = sd_event_source_disable_unref(c->timer);
}

/* A read of the rescan hangs: answered anyway; the device says it is unresponsive. */
static int on_rescan_timeout(sd_event_source *source, uint64_t usec, void *userdata) {
        RescanCalls *c = userdata;

        log_info("Rescan: some reads have not answered in time; answering.");
        rescan_calls_answer(c);
        return 0;
}

int rescan_calls_hold(RescanCalls *c, sd_event *event, sd_bus_message *call, uint64_t timeout_usec,
                      sd_bus_error *error) {
        int r;

        if (c->held.n >= RESCAN_CALLS_MAX)
                return sd_bus_error_set(error, RDMAD_ERROR_BUSY, "Too many Rescan calls are waiting; try again.");
        if (!c->timer) {
                r = sd_event_add_time_relative(event, &c->timer, CLOCK_MONOTONIC, timeout_usec, 0, on_rescan_timeout,
                                               c);
                if (r < 0)
                        return r;
                (void) sd_event_source_set_description(c->timer, "rescan-timeout");
        }
        r = held_calls_add(&c->held, call);
        if (r < 0 && c->held.n == 0)
                c->timer = sd_event_source_disable_unref(c->timer);
        return r;
}

void rescan_calls_release(RescanCalls *c, sd_bus_message *call) {
        (void) held_calls_remove(&c->held, call);
        if (c->held.n == 0)
                c->timer = sd_event_source_disable_unref(c->timer);
}

void rescan_calls_drop_sender(RescanCalls *c, const char *sender) {
        size_t k = 0;

        for (size_t i = 0; i < c->held.n; i++)
                if (streq_ptr(sd_bus_message_get_sender(c->held.calls[i]), sender))
                        sd_bus_message_unref(c->held.calls[i]);
                else
                        c->held.calls[k++] = c->held.calls[i];
        c->held.n = k;
        if (k == 0)
                c->timer = sd_event_source_disable_unref(c->timer);
}

void rescan_calls_clear(RescanCalls *c) {
        held_calls_clear(&c->held);
        c->timer = sd_event_source_disable_unref(c->timer);
}
