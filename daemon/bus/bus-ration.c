/* SPDX-License-Identifier: MIT */
#include "bus-ration.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "api/rdmad-api.h"
#include "arg-quote.h"
#include "basic/log.h"
#include "basic/util.h"

/* Is `m` a call this filter rations? 2: a GetAll, whose name is checked here. */
static int rationed(const BusRation *r, sd_bus_message *m) {
        const char *path = sd_bus_message_get_path(m);
        size_t n = strlen(r->root);

        if (!path || strncmp(path, r->root, n) != 0 || (path[n] != '\0' && path[n] != '/'))
                return 0;
        if (sd_bus_message_is_method_call(m, DBUS_PROPERTIES_INTERFACE, "Get"))
                return 1;
        if (sd_bus_message_is_method_call(m, DBUS_PROPERTIES_INTERFACE, "GetAll"))
                return 2;
        return sd_bus_message_is_method_call(m, DBUS_INTROSPECTABLE_INTERFACE, "Introspect") ||
               sd_bus_message_is_method_call(m, RDMAD_PORT_INTERFACE, RDMAD_METHOD_GET_COUNTERS) ||
               sd_bus_message_is_method_call(m, RDMAD_DEVICE_INTERFACE, RDMAD_METHOD_GET_COUNTERS) ||
               sd_bus_message_is_method_call(m, RDMAD_MANAGER_INTERFACE, RDMAD_METHOD_GET_ALL_COUNTERS) ||
               sd_bus_message_is_method_call(m, RDMAD_MANAGER_INTERFACE, RDMAD_METHOD_RESOLVE_ADDRESS);
}

static void kick(BusRation *r) {
        (void) sd_event_source_set_enabled(r->dispatch_event, SD_EVENT_ONESHOT);
}

static void on_expired(void *call, const char *sender, uint64_t arrived_usec, void *userdata) {
        BusRation *r = userdata;

        (void) sd_bus_reply_method_errorf(call, RDMAD_ERROR_BUSY,
                                          "%s waited %g s for its turn: this user's calls are many, or their replies "
                                          "large (%u bytes per second per user). Try again later.",
                                          strempty(sd_bus_message_get_member(call)),
                                          (double) r->scheduler.limits.wait_max_usec / USEC_PER_SEC,
                                          RATION_BYTES_PER_SEC);
}

static void wake_at(BusRation *r, uint64_t usec) {
        uint64_t expire = now_usec(CLOCK_MONOTONIC) + USEC_PER_SEC;

        if (call_scheduler_n_callers(&r->scheduler) == 0)
                return;
        (void) sd_event_source_set_time(r->wake_event, usec > 0 && usec < expire ? usec : expire);
        (void) sd_event_source_set_enabled(r->wake_event, SD_EVENT_ONESHOT);
}

static int on_dispatch(sd_event_source *s, void *userdata) {
        BusRation *r = userdata;
        uint64_t n_read = 0, n_write = 0, wake = 0;
        sd_bus_message *call;
        int k;

        (void) call_scheduler_expire(&r->scheduler, on_expired, r);
        if (call_scheduler_n_callers(&r->scheduler) == 0)
                return 0;

        /* Whatever else came first (root's calls among it), and what leaves first. */
        (void) sd_bus_get_n_queued_read(r->bus, &n_read);
        (void) sd_bus_get_n_queued_write(r->bus, &n_write);
        if (n_read > 0 || n_write >= RATION_WRITE_QUEUE_MAX) {
                (void) sd_event_source_set_enabled(r->post_event, SD_EVENT_ON);
                return 0;
        }
        (void) sd_event_source_set_enabled(r->post_event, SD_EVENT_OFF);

        call = call_scheduler_next(&r->scheduler, &wake);
        if (!call) {
                wake_at(r, wake);
                return 0;
        }
        if (held_calls_add(&r->admitted, call) < 0) {
                (void) sd_bus_reply_method_errno(call, -ENOMEM, NULL);
                call_scheduler_done(&r->scheduler, false);
                kick(r);
                return 0;
        }
        k = sd_bus_enqueue_for_read(r->bus, call);
        if (k < 0) {
                (void) held_calls_remove(&r->admitted, call);
                (void) sd_bus_reply_method_errnof(call, k, "Cannot dispatch the call: %m");
        } else {
                uid_t uid;

                if (caller_peek_uid(r->registry, call_scheduler_current_sender(&r->scheduler), &uid) >= 0)
                        call_scheduler_charge(&r->scheduler, uid, r->cost(call, r->userdata));
        }
        call_scheduler_done(&r->scheduler, false);
        kick(r);
        return 0;
}

static int on_post(sd_event_source *s, void *userdata) {
        kick(userdata);
        return 0;
}

static int on_wake(sd_event_source *s, uint64_t usec, void *userdata) {
        kick(userdata);
        return 0;
}

static int refuse(sd_bus_message *m, int error) {
        if (error == -EBUSY)
                return sd_bus_reply_method_errorf(m, RDMAD_ERROR_BUSY,
                                                  "This connection has %u calls waiting for their turn already.",
                                                  RATION_CALLS_PER_CONNECTION_MAX);
        if (error == -EDQUOT)
                return sd_bus_reply_method_errorf(m, RDMAD_ERROR_BUSY,
                                                  "This user has %u calls waiting for their turn already.",
                                                  RATION_CALLS_PER_USER_MAX);
        return sd_bus_reply_method_errorf(m, RDMAD_ERROR_BUSY,
                                          "Too many connections have calls waiting; try again later.");
}

static void refused_arm(BusRation *r) {
        if (r->n_refused == 0) {
                (void) sd_event_source_set_enabled(r->refuse_event, SD_EVENT_OFF);
                return;
        }
        (void) sd_event_source_set_time(r->refuse_event, r->refused[r->refused_head].usec + RATION_REFUSE_DELAY_USEC);
        (void) sd_event_source_set_enabled(r->refuse_event, SD_EVENT_ONESHOT);
}

static RefusedCall refused_pop(BusRation *r) {
        RefusedCall c = r->refused[r->refused_head];

        r->refused_head = (r->refused_head + 1) % RATION_REFUSED_MAX;
        r->n_refused--;
        return c;
}

static int on_refuse_time(sd_event_source *s, uint64_t usec, void *userdata) {
        BusRation *r = userdata;
        uint64_t now = now_usec(CLOCK_MONOTONIC);

        while (r->n_refused > 0 && r->refused[r->refused_head].usec + RATION_REFUSE_DELAY_USEC <= now) {
                RefusedCall c = refused_pop(r);

                (void) refuse(c.message, c.error);
                sd_bus_message_unref(c.message);
        }
        refused_arm(r);
        return 0;
}

/* Answers `m` Busy in RATION_REFUSE_DELAY_USEC, or now when too many wait. */
static int refuse_later(BusRation *r, sd_bus_message *m, int error) {
        size_t i;

        if (r->n_refused >= RATION_REFUSED_MAX || !r->refused) {
                (void) refuse(m, error);
                return 1;
        }
        i = (r->refused_head + r->n_refused++) % RATION_REFUSED_MAX;
        r->refused[i] =
                (RefusedCall){ .message = sd_bus_message_ref(m), .error = error, .usec = now_usec(CLOCK_MONOTONIC) };
        if (r->n_refused == 1)
                refused_arm(r);
        return 1;
}

/* Every refused call: answered now (reason set), or dropped unanswered;
 * those of `sender` only, when given. */
static void refused_flush(BusRation *r, const char *sender, const char *reason) {
        size_t n = r->n_refused, kept = 0;

        for (size_t k = 0; k < n; k++) {
                RefusedCall c = refused_pop(r);

                if (sender && !streq_ptr(sd_bus_message_get_sender(c.message), sender)) {
                        /* Put back at the tail: the order of the others is kept. */
                        r->refused[(r->refused_head + r->n_refused + kept++) % RATION_REFUSED_MAX] = c;
                        continue;
                }
                if (reason)
                        (void) sd_bus_reply_method_errorf(c.message, RDMAD_ERROR_FAILED, "%s", reason);
                sd_bus_message_unref(c.message);
        }
        r->n_refused += kept;
        refused_arm(r);
}

static int on_message(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        BusRation *r = userdata;
        int k = rationed(r, m);
        const char *sender;
        uid_t uid;

        if (!k)
                return 0;
        if (held_calls_remove(&r->admitted, m))
                return 0; /* its turn came */
        /* sd-bus answers GetAll's unknown interface at the object itself,
         * echoing it; Get's and Set's unknown names reach on_unknown() (bus-objects.c). */
        if (k == 2 && bus_refuse_long_names(m))
                return 1;
        sender = sd_bus_message_get_sender(m);
        if (!sender)
                return 0; /* a direct connection: nobody else shares it */
        if (!sd_bus_message_get_expect_reply(m))
                return 1; /* nobody waits for it: no work */

        k = caller_resolve_uid(r->registry, m, &uid, &error);
        if (k < 0)
                return sd_bus_reply_method_error(m, &error);
        if (k == 0)
                return 1; /* comes through here again once the caller is known */
        if (uid == 0)
                return 0; /* root first: served at once */

        k = call_scheduler_enqueue(&r->scheduler, m, sender, uid);
        if (k == -EBUSY || k == -EDQUOT || k == -EUSERS)
                return refuse_later(r, m, k);
        if (k < 0)
                return sd_bus_reply_method_errnof(m, k, "Cannot queue the call: %m");
        sd_bus_message_ref(m);
        kick(r);
        return 1;
}

int bus_ration_start(BusRation *r, sd_bus *bus, sd_event *event, const char *root, CallerRegistry *registry,
                     RationCost cost, void *userdata) {
        const CallSchedulerLimits limits = {
                .calls_max = RATION_CALLS_PER_CONNECTION_MAX,
                .callers_max = RATION_CALLERS_MAX,
                .wait_max_usec = RATION_WAIT_MAX_USEC,
                .share_percent = 100,
                .uid_calls_max = RATION_CALLS_PER_USER_MAX,
                .uid_bytes_per_sec = RATION_BYTES_PER_SEC,
                .uid_bytes_burst = RATION_BYTES_BURST,
        };
        int k;

        assert(r);
        assert(bus);
        assert(event);
        assert(root);
        assert(registry);
        assert(cost);

        *r = (BusRation){ .bus = bus, .registry = registry, .root = root, .cost = cost, .userdata = userdata };
        call_scheduler_init(&r->scheduler, &limits, NULL, NULL, bus_call_unref);

        k = sd_event_add_defer(event, &r->dispatch_event, on_dispatch, r);
        if (k < 0)
                return log_error_errno(k, "Failed to add the rationing source: %m");
        (void) sd_event_source_set_priority(r->dispatch_event, SD_EVENT_PRIORITY_IDLE);
        (void) sd_event_source_set_enabled(r->dispatch_event, SD_EVENT_OFF);
        (void) sd_event_source_set_description(r->dispatch_event, "ration-dispatch");

        k = sd_event_add_post(event, &r->post_event, on_post, r);
        if (k < 0)
                return log_error_errno(k, "Failed to add the rationing post source: %m");
        (void) sd_event_source_set_enabled(r->post_event, SD_EVENT_OFF);

        k = sd_event_add_time(event, &r->wake_event, CLOCK_MONOTONIC, 0, 0, on_wake, r);
        if (k < 0)
                return log_error_errno(k, "Failed to add the rationing timer: %m");
        (void) sd_event_source_set_enabled(r->wake_event, SD_EVENT_OFF);

        r->refused = calloc(RATION_REFUSED_MAX, sizeof(RefusedCall));
        if (!r->refused)
                return log_oom();
        k = sd_event_add_time(event, &r->refuse_event, CLOCK_MONOTONIC, 0, 0, on_refuse_time, r);
        if (k < 0)
                return log_error_errno(k, "Failed to add the refusal timer: %m");
        (void) sd_event_source_set_enabled(r->refuse_event, SD_EVENT_OFF);

        k = sd_bus_add_filter(bus, &r->filter, on_message, r);
        if (k < 0)
                return log_error_errno(k, "Failed to add the rationing filter: %m");
        return 0;
}

void bus_ration_drop_sender(BusRation *r, const char *sender) {
        assert(r);
        assert(sender);
        (void) call_scheduler_drop_sender(&r->scheduler, sender, NULL, NULL, NULL);
        refused_flush(r, sender, NULL);
}

static void answer_stopping(void *call, const char *sender, uint64_t arrived_usec, void *userdata) {
        (void) sd_bus_reply_method_errorf(call, RDMAD_ERROR_FAILED, "%s", (const char *) userdata);
}

void bus_ration_fail_all(BusRation *r, const char *reason) {
        assert(r);
        assert(reason);
        (void) call_scheduler_drop_all(&r->scheduler, answer_stopping, (void *) reason);
        refused_flush(r, NULL, reason);
}

void bus_ration_clear(BusRation *r) {
        assert(r);

        call_scheduler_clear(&r->scheduler);
        if (r->refused)
                refused_flush(r, NULL, NULL);
        r->refused = mfree(r->refused);
        r->refuse_event = sd_event_source_disable_unref(r->refuse_event);
        held_calls_clear(&r->admitted);
        r->filter = sd_bus_slot_unref(r->filter);
        r->dispatch_event = sd_event_source_disable_unref(r->dispatch_event);
        r->post_event = sd_event_source_disable_unref(r->post_event);
        r->wake_event = sd_event_source_disable_unref(r->wake_event);
}
