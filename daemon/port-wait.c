/* SPDX-License-Identifier: MIT */
#include "port-wait.h"

#include <inttypes.h>
#include <strings.h>

#include "bus-util.h"
#include "log.h"
#include "util.h"

struct PortWait {
        PortWait *next;
        PortWaitRegistry *registry;
        sd_bus_message *call;
        char *device;
        uint32_t port;
        const char *state; /* static: from the parser's table */
        uint64_t timeout_ms;
        sd_event_source *timer;
};

void port_wait_registry_init(PortWaitRegistry *registry, sd_event *event, PortWaitLookup lookup, void *userdata) {
        assert(registry);
        assert(event);
        assert(lookup);

        *registry = (PortWaitRegistry) { .event = event, .lookup = lookup, .userdata = userdata };
}

static void port_wait_free(PortWait *w) {
        PortWaitRegistry *registry = w->registry;

        for (PortWait **i = &registry->waits; *i; i = &(*i)->next)
                if (*i == w) {
                        *i = w->next;
                        break;
                }
        registry->n_waits--;
        sd_event_source_disable_unref(w->timer);
        sd_bus_message_unref(w->call);
        free(w->device);
        free(w);
}

/* The answer, then the wait is gone. */
static void port_wait_finish(PortWait *w, int r) {
        if (r < 0)
                log_debug_errno(r, "Cannot answer a WaitForState call: %m");
        port_wait_free(w);
}

static int on_timeout(sd_event_source *s, uint64_t usec, void *userdata) {
        PortWait *w = userdata;
        PortWaitRegistry *registry = w->registry;
        const char *now = registry->lookup(w->device, w->port, registry->userdata);

        port_wait_finish(w, sd_bus_reply_method_errorf(w->call, RDMAD_ERROR_TIMEOUT,
                                                       "Port %u of %s did not reach %s within %" PRIu64
                                                       " ms; it is %s.",
                                                       w->port, w->device, w->state, w->timeout_ms, now ?: "gone"));
        return 0;
}

int port_wait_add(PortWaitRegistry *registry, sd_bus_message *call, const char *device, uint32_t port,
                  const char *state, uint64_t timeout_usec) {
        PortWait *w;
        int r;

        assert(registry);
        assert(registry->event);
        assert(call);
        assert(device);
        assert(state);

        if (registry->n_waits >= PORT_WAITS_MAX)
                return -EBUSY;

        w = calloc(1, sizeof(PortWait));
        if (!w)
                return -ENOMEM;
        w->registry = registry;
        w->call = sd_bus_message_ref(call);
        w->device = strdup(device);
        w->port = port;
        w->state = state;
        w->timeout_ms = timeout_usec / 1000;
        w->next = registry->waits;
        registry->waits = w;
        registry->n_waits++;
        if (!w->device) {
                port_wait_free(w);
                return -ENOMEM;
        }

        r = sd_event_add_time_relative(registry->event, &w->timer, CLOCK_MONOTONIC, timeout_usec, 1000, on_timeout,
                                       w);
        if (r < 0) {
                port_wait_free(w);
                return r;
        }
        return 0;
}

void port_wait_check(PortWaitRegistry *registry) {
        PortWait *next;

        assert(registry);
        for (PortWait *w = registry->waits; w; w = next) {
                const char *now = registry->lookup(w->device, w->port, registry->userdata);

                next = w->next;
                if (!now)
                        port_wait_finish(w, sd_bus_reply_method_errorf(w->call, RDMAD_ERROR_NO_SUCH_DEVICE,
                                                                       "Port %u of %s is gone.", w->port, w->device));
                else if (strcasecmp(now, w->state) == 0)
                        port_wait_finish(w, sd_bus_reply_method_return(w->call, "s", now));
        }
}

void port_wait_fail_device(PortWaitRegistry *registry, const char *device) {
        PortWait *next;

        assert(registry);
        assert(device);
        for (PortWait *w = registry->waits; w; w = next) {
                next = w->next;
                if (streq(w->device, device))
                        port_wait_finish(w, sd_bus_reply_method_errorf(w->call, RDMAD_ERROR_NO_SUCH_DEVICE,
                                                                       "Device %s was removed while waiting for port %u.",
                                                                       w->device, w->port));
        }
}

void port_wait_registry_clear(PortWaitRegistry *registry) {
        assert(registry);
        while (registry->waits)
                port_wait_free(registry->waits);
}
