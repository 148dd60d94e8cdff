/* SPDX-License-Identifier: MIT */
#include "rescan-calls.h"

#include "api/rdmad-api.h"
#include "basic/log.h"
#include "basic/util.h"

void rescan_calls_answer(RescanCalls *c) {
        for (size_t i = 0; i < c->n; i++) {
                (void) sd_bus_reply_method_return(c->calls[i], NULL);
                sd_bus_message_unref(c->calls[i]);
        }
        c->n = 0;
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

        if (c->n >= RESCAN_CALLS_MAX)
                return sd_bus_error_set(error, RDMAD_ERROR_BUSY, "Too many Rescan calls are waiting; try again.");
        if (ARRAY_RESERVE(c->calls, c->allocated, c->n + 1) < 0)
                return -ENOMEM;
        if (!c->timer) {
                r = sd_event_add_time_relative(event, &c->timer, CLOCK_MONOTONIC, timeout_usec, 0, on_rescan_timeout,
                                               c);
                if (r < 0)
                        return r;
                (void) sd_event_source_set_description(c->timer, "rescan-timeout");
        }
        c->calls[c->n++] = sd_bus_message_ref(call);
        return 0;
}

void rescan_calls_release(RescanCalls *c, sd_bus_message *call) {
        for (size_t i = 0; i < c->n; i++)
                if (c->calls[i] == call) {
                        sd_bus_message_unref(call);
                        c->calls[i] = c->calls[--c->n];
                        break;
                }
        if (c->n == 0)
                c->timer = sd_event_source_disable_unref(c->timer);
}

void rescan_calls_drop_sender(RescanCalls *c, const char *sender) {
        size_t k = 0;

        for (size_t i = 0; i < c->n; i++)
                if (streq_ptr(sd_bus_message_get_sender(c->calls[i]), sender))
                        sd_bus_message_unref(c->calls[i]);
                else
                        c->calls[k++] = c->calls[i];
        c->n = k;
        if (k == 0)
                c->timer = sd_event_source_disable_unref(c->timer);
}

void rescan_calls_clear(RescanCalls *c) {
        for (size_t i = 0; i < c->n; i++)
                sd_bus_message_unref(c->calls[i]);
        c->calls = mfree(c->calls);
        c->n = c->allocated = 0;
        c->timer = sd_event_source_disable_unref(c->timer);
}
