/* SPDX-License-Identifier: MIT */
#include "port-wait.h"

#include <inttypes.h>
#include <strings.h>

#include "basic/list.h"
#include "basic/log.h"
#include "basic/time-util.h"
#include "basic/util.h"
#include "bus-util.h"
#include "model.h"

struct PortWait {
        LIST_FIELDS(PortWait, waits);
        PortWaitRegistry *registry;
        sd_bus_message *call; /* its sender's wait */
        uid_t uid;
        const Port *port;  /* until its device goes: port_wait_fail_device() */
        const char *state; /* static: from the parser's table */
        uint64_t timeout_ms;
        sd_event_source *timer;
};

void port_wait_registry_init(PortWaitRegistry *registry, sd_event *event) {
        assert(registry);
        assert(event);

        *registry = (PortWaitRegistry){ .event = event };
}

static void port_wait_free(PortWait *w) {
        PortWaitRegistry *registry = w->registry;

        LIST_REMOVE(waits, registry->waits, w);
        registry->n_waits--;
        if (w->uid != 0)
                registry->n_unprivileged--;
        sd_event_source_disable_unref(w->timer);
        sd_bus_message_unref(w->call);
        free(w);
}

static void port_wait_finish(PortWait *w, int r) {
        if (r < 0)
                log_debug_errno(r, "Failed to answer a WaitForState call: %m");
        port_wait_free(w);
}

static int on_timeout(sd_event_source *s, uint64_t usec, void *userdata) {
        PortWait *w = userdata;

        port_wait_finish(w, sd_bus_reply_method_errorf(
                                    w->call, RDMAD_ERROR_TIMEOUT,
                                    "Port %u of %s did not reach %s within %" PRIu64 " ms; it is %s.", w->port->number,
                                    w->port->device->name, w->state, w->timeout_ms, w->port->state_name));
        return 0;
}

static unsigned port_waits_of_user(PortWaitRegistry *registry, uid_t uid) {
        unsigned n = 0;

        LIST_FOREACH(waits, w, registry->waits)
                n += w->uid == uid;
        return n;
}

int port_wait_add(PortWaitRegistry *registry, sd_bus_message *call, uid_t uid, const Port *port, const char *state,
                  uint32_t timeout_ms, sd_bus_error *error) {
        PortWait *w;
        int r;

        assert(registry);
        assert(registry->event);
        assert(call);
        assert(port);
        assert(state);

        if (sd_bus_message_get_expect_reply(call) == 0) {
                sd_bus_error_setf(error, RDMAD_ERROR_INVALID_ARGUMENT,
                                  "WaitForState without a reply expected: there is nothing to wait for.");
                return -EINVAL;
        }
        if (uid == 0 && registry->n_waits - registry->n_unprivileged >= PORT_WAITS_ROOT_MAX) {
                sd_bus_error_setf(error, RDMAD_ERROR_BUSY, "Too many pending WaitForState calls of root (at most %u).",
                                  PORT_WAITS_ROOT_MAX);
                return -EBUSY;
        }
        if (uid != 0 && port_waits_of_user(registry, uid) >= PORT_WAITS_PER_USER_MAX) {
                sd_bus_error_setf(error, RDMAD_ERROR_BUSY,
                                  "Too many pending WaitForState calls of uid %u (at most %u per user).",
                                  (unsigned) uid, PORT_WAITS_PER_USER_MAX);
                return -EBUSY;
        }
        if (uid != 0 && registry->n_unprivileged >= PORT_WAITS_UNPRIVILEGED_MAX) {
                sd_bus_error_setf(error, RDMAD_ERROR_BUSY,
                                  "Too many pending WaitForState calls of unprivileged users (at most %u in all).",
                                  PORT_WAITS_UNPRIVILEGED_MAX);
                return -EBUSY;
        }
        if (timeout_ms > PORT_WAIT_TIMEOUT_MAX_MS)
                timeout_ms = PORT_WAIT_TIMEOUT_MAX_MS;

        w = calloc(1, sizeof(PortWait));
        if (!w)
                return sd_bus_error_set_errno(error, ENOMEM);
        w->registry = registry;
        w->call = sd_bus_message_ref(call);
        w->uid = uid;
        w->port = port;
        w->state = state;
        w->timeout_ms = timeout_ms;
        LIST_PREPEND(waits, registry->waits, w);
        registry->n_waits++;
        if (uid != 0)
                registry->n_unprivileged++;

        r = sd_event_add_time_relative(registry->event, &w->timer, CLOCK_MONOTONIC,
                                       (uint64_t) timeout_ms * USEC_PER_MSEC, USEC_PER_MSEC, on_timeout, w);
        if (r < 0) {
                port_wait_free(w);
                return sd_bus_error_set_errnof(error, r, "Cannot arm the WaitForState timer: %m");
        }
        log_debug("WaitForState calls held: %u (%u of unprivileged users).", registry->n_waits,
                  registry->n_unprivileged);
        return 0;
}

void port_wait_check(PortWaitRegistry *registry) {
        assert(registry);
        LIST_FOREACH_SAFE(waits, w, next, registry->waits) {
                const char *now = w->port->state_name;

                if (strcasecmp(now, w->state) == 0)
                        port_wait_finish(w, sd_bus_reply_method_return(w->call, "s", now));
        }
}

void port_wait_fail_device(PortWaitRegistry *registry, const Device *d) {
        assert(registry);
        assert(d);
        LIST_FOREACH_SAFE(waits, w, next, registry->waits)
                if (w->port->device == d)
                        port_wait_finish(w,
                                         sd_bus_reply_method_errorf(w->call, RDMAD_ERROR_NO_SUCH_DEVICE,
                                                                    "Device %s was removed while waiting for port %u.",
                                                                    d->name, w->port->number));
}

void port_wait_drop_sender(PortWaitRegistry *registry, const char *sender) {
        unsigned n = 0;

        assert(registry);
        assert(sender);
        LIST_FOREACH_SAFE(waits, w, next, registry->waits)
                if (streq_ptr(sd_bus_message_get_sender(w->call), sender)) {
                        port_wait_free(w);
                        n++;
                }
        if (n > 0)
                log_debug("%s left the bus: %u WaitForState call%s dropped, %u held.", sender, n, n == 1 ? "" : "s",
                          registry->n_waits);
}

void port_wait_fail_all(PortWaitRegistry *registry, const char *reason) {
        assert(registry);
        assert(reason);
        while (registry->waits)
                port_wait_finish(registry->waits,
                                 sd_bus_reply_method_errorf(registry->waits->call, RDMAD_ERROR_FAILED, "%s", reason));
}

void port_wait_registry_clear(PortWaitRegistry *registry) {
        assert(registry);
        while (registry->waits)
                port_wait_free(registry->waits);
}
