/* SPDX-License-Identifier: MIT */
/* Port.WaitForState: calls that wait for a port to reach a state. Each is
 * answered exactly once: when the state is reached, on its timeout, or when
 * the port or its device goes away. */
#include <inttypes.h>
#include <strings.h>

#include "bus-util.h"
#include "log.h"
#include "manager.h"
#include "util.h"

/* Each pending call holds a message and a timer: bound them. */
#define WAITERS_MAX 4096

struct PortWaiter {
        PortWaiter *next;
        Manager *manager;
        sd_bus_message *call;
        char *device;
        uint32_t port;
        const char *state; /* static: from the parser's table */
        uint64_t timeout_ms;
        sd_event_source *timer;
};

static void waiter_free(PortWaiter *w) {
        Manager *m = w->manager;

        for (PortWaiter **i = &m->waiters; *i; i = &(*i)->next)
                if (*i == w) {
                        *i = w->next;
                        break;
                }
        m->n_waiters--;
        sd_event_source_disable_unref(w->timer);
        sd_bus_message_unref(w->call);
        free(w->device);
        free(w);
}

static int on_waiter_timeout(sd_event_source *s, uint64_t usec, void *userdata) {
        PortWaiter *w = userdata;
        Device *d = manager_find_device(w->manager, w->device);
        const Port *p = d ? device_find_port(d, w->port) : NULL;
        int r;

        r = sd_bus_reply_method_errorf(w->call, RDMAD_ERROR_TIMEOUT,
                                       "Port %u of %s did not reach %s within %" PRIu64 " ms; it is %s.", w->port,
                                       w->device, w->state, w->timeout_ms, p ? p->state_name : "gone");
        if (r < 0)
                log_debug_errno(r, "Cannot answer a WaitForState call: %m");
        waiter_free(w);
        return 0;
}

int manager_add_waiter(Manager *m, sd_bus_message *call, const Port *p, const char *state, uint64_t timeout_usec) {
        PortWaiter *w;
        int r;

        if (m->n_waiters >= WAITERS_MAX)
                return -EBUSY;

        w = calloc(1, sizeof(PortWaiter));
        if (!w)
                return -ENOMEM;
        w->manager = m;
        w->call = sd_bus_message_ref(call);
        w->device = strdup(p->device->name);
        w->port = p->number;
        w->state = state;
        w->timeout_ms = timeout_usec / 1000;
        w->next = m->waiters;
        m->waiters = w;
        m->n_waiters++;
        if (!w->device) {
                waiter_free(w);
                return -ENOMEM;
        }

        r = sd_event_add_time_relative(m->event, &w->timer, CLOCK_MONOTONIC, timeout_usec, 1000, on_waiter_timeout,
                                       w);
        if (r < 0) {
                waiter_free(w);
                return r;
        }
        return 0;
}

void manager_check_waiters(Manager *m) {
        PortWaiter *w = m->waiters, *next;

        for (; w; w = next) {
                Device *d = manager_find_device(m, w->device);
                const Port *p = d ? device_find_port(d, w->port) : NULL;
                int r = 0;

                next = w->next;
                if (!p)
                        r = sd_bus_reply_method_errorf(w->call, RDMAD_ERROR_NO_SUCH_DEVICE,
                                                       "Port %u of %s is gone.", w->port, w->device);
                else if (strcasecmp(p->state_name, w->state) == 0)
                        r = sd_bus_reply_method_return(w->call, "s", p->state_name);
                else
                        continue;
                if (r < 0)
                        log_debug_errno(r, "Cannot answer a WaitForState call: %m");
                waiter_free(w);
        }
}

void manager_fail_waiters(Manager *m, const char *device_name) {
        PortWaiter *w = m->waiters, *next;

        for (; w; w = next) {
                int r;

                next = w->next;
                if (!streq(w->device, device_name))
                        continue;
                r = sd_bus_reply_method_errorf(w->call, RDMAD_ERROR_NO_SUCH_DEVICE,
                                               "Device %s was removed while waiting for port %u.", w->device,
                                               w->port);
                if (r < 0)
                        log_debug_errno(r, "Cannot answer a WaitForState call: %m");
                waiter_free(w);
        }
}

void manager_free_waiters(Manager *m) {
        while (m->waiters)
                waiter_free(m->waiters);
}
