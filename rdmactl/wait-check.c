/* SPDX-License-Identifier: MIT */
#include "wait-check.h"

#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "basic/util.h"

/* The kernel's phys_state numbers (IBTA): 4 PortConfigurationTraining,
 * 5 LinkUp, 6 LinkErrorRecovery; 1 Sleep, 2 Polling, 3 Disabled have no
 * partner on the wire. */
#define PHYS_STATE_SLEEP          1
#define PHYS_STATE_DISABLED       3
#define PHYS_STATE_TRAINING       4
#define PHYS_STATE_LINK_UP        5
#define PHYS_STATE_ERROR_RECOVERY 6

static bool is_number(const char *s) {
        return *s && strspn(s, "0123456789") == strlen(s);
}

int wait_names_from_args(char *const *args, size_t n_args, char ***ret_names, size_t *ret_n_names,
                         const char **ret_bad) {
        _cleanup_strv_free_ char **names = NULL;
        size_t n = 0, allocated = 0;
        int r;

        for (size_t i = 0; i < n_args; i++) {
                _cleanup_free_ char *device = NULL;
                uint32_t port;
                char *name;

                if (is_number(args[i])) {
                        /* "DEVICE PORT": the number belongs to the device before it. */
                        if (n == 0 || strchr(names[n - 1], '/') || parse_number_arg(args[i], UINT32_MAX, &port) < 0 ||
                            port == 0) {
                                *ret_bad = args[i];
                                return -EINVAL;
                        }
                        if (asprintf(&name, "%s/%" PRIu32, names[n - 1], port) < 0)
                                return -ENOMEM;
                        free(names[n - 1]);
                        names[n - 1] = name;
                        continue;
                }
                r = parse_device_slash_port(args[i], &device, &port);
                if (r == -ENOMEM)
                        return r;
                if (r == -EINVAL || r == -ERANGE || (r >= 0 && (!*device || port == 0))) {
                        *ret_bad = args[i];
                        return -EINVAL;
                }
                r = strv_push_take(&names, &n, &allocated, strdup(args[i]));
                if (r < 0)
                        return r;
        }
        *ret_names = TAKE_PTR(names);
        *ret_n_names = n;
        return 0;
}

bool port_has_physical_link(const RdmaPort *p) {
        return p->phys_state_num == PHYS_STATE_LINK_UP || p->phys_state_num == PHYS_STATE_TRAINING ||
               p->phys_state_num == PHYS_STATE_ERROR_RECOVERY;
}

static bool matches(const WaitSpec *s, const char *name) {
        if (!name)
                return false;
        for (size_t i = 0; i < s->n_ignore; i++)
                if (fnmatch(s->ignore[i], name, 0) == 0)
                        return true;
        return false;
}

static bool port_ignored(const WaitSpec *s, const Inventory *inv, const RdmaPort *p, const char *port_name) {
        return matches(s, inventory_device_name(inv, p->device)) || matches(s, port_name) ||
               matches(s, inventory_netdev_name(inv, p->netdev));
}

static int pending_line(WaitCheck *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int pending_line(WaitCheck *c, const char *fmt, ...) {
        char *line = NULL;
        va_list ap;
        int r;

        va_start(ap, fmt);
        r = vasprintf(&line, fmt, ap);
        va_end(ap);
        if (r < 0)
                return -ENOMEM;
        return strv_push_take(&c->pending, &c->n_pending, &c->allocated_pending, line);
}

/* " (ports/1/state: no answer for 5.0 s)", or nothing for no reason. */
static void format_reason(char *buf, size_t size, const char *reason) {
        snprintf(buf, size, "%s%s%s", *strempty(reason) ? " (" : "", strempty(reason), *strempty(reason) ? ")" : "");
}

/* One port against the state: true when it is there; a line when not. The
 * state of a device that does not answer is its last known one, not its
 * state now: such a port is not there yet, whatever it last said. */
typedef struct Tally {
        size_t ok, total; /* ports in the state, ports waited for */
        bool incomplete;  /* something named is not there (yet) */
} Tally;

/* A port waited for, counted in t. */
static int check_port(const WaitSpec *s, const Inventory *inv, const RdmaPort *p, const char *as, WaitCheck *c,
                      Tally *t) {
        const RdmaDevice *d = inventory_find_device(inv, p->device);
        char name[512], link[256], reason[512] = "";

        t->total++;
        if (!device_unresponsive(d) && streq(p->state_name, s->state)) {
                t->ok++;
                return 0;
        }
        snprintf(name, sizeof(name), "%s/%" PRIu32 "%s%s%s", d ? d->name : "", p->number, as ? " (" : "", strempty(as),
                 as ? ")" : "");
        /* "INIT (LinkUp)"; what could not be read is "unknown". */
        snprintf(link, sizeof(link), "%s%s%s%s", *p->state_name ? p->state_name : "unknown",
                 *p->phys_state_name ? " (" : "", p->phys_state_name, *p->phys_state_name ? ")" : "");
        if (!device_health_ok(d))
                format_reason(reason, sizeof(reason), d->health_reason);
        /* "mlx5_3/1: unresponsive (ports/1/state: no answer for 5.0 s), last known ACTIVE (LinkUp), waiting for ACTIVE"
         */
        if (device_unresponsive(d))
                return pending_line(c, "%s: unresponsive%s, last known %s, waiting for %s", name, reason, link,
                                    s->state);
        /* "mlx5_3/1: unknown (LinkUp), errors (ports/1/state: Input/output error), waiting for ACTIVE" */
        if (!device_health_ok(d))
                return pending_line(c, "%s: %s, %s%s, waiting for %s", name, link, d->health, reason, s->state);
        return pending_line(c, "%s: %s, waiting for %s", name, link, s->state);
}

/* Waited for without being named: a port with a link on the wire, or one
 * of a device that does not answer, unless it was last known to have no
 * cable (what it says now cannot be known). */
static bool port_waited_for(const Inventory *inv, const RdmaPort *p) {
        if (port_has_physical_link(p))
                return true;
        return device_unresponsive(inventory_find_device(inv, p->device)) &&
               !(p->phys_state_num >= PHYS_STATE_SLEEP && p->phys_state_num <= PHYS_STATE_DISABLED);
}

static int check_device(const WaitSpec *s, const Inventory *inv, const RdmaDevice *d, WaitCheck *c, Tally *t) {
        size_t found = 0;
        int r;

        for (size_t i = 0; i < inv->n_ports; i++) {
                const RdmaPort *p = inv->ports[i];
                char port_name[512];

                if (!streq(p->device, d->path))
                        continue;
                found++;
                snprintf(port_name, sizeof(port_name), "%s/%" PRIu32, d->name, p->number);
                if (port_ignored(s, inv, p, port_name))
                        continue;
                r = check_port(s, inv, p, NULL, c, t);
                if (r < 0)
                        return r;
        }
        if (found == 0) {
                t->incomplete = true;
                return pending_line(c, "%s: no ports yet, waiting for %s", d->name, s->state);
        }
        return 0;
}

static int check_name(const WaitSpec *s, const Inventory *inv, const char *name, WaitCheck *c, Tally *t) {
        _cleanup_free_ char *device_name = NULL;
        const RdmaDevice *d;
        const RdmaNetDev *n;
        const RdmaPort *p;
        uint32_t number;
        int r;

        r = parse_device_slash_port(name, &device_name, &number);
        if (r == -ENOMEM)
                return r;
        if (r >= 0) {
                d = inventory_find_device_by_name(inv, device_name);
                p = d ? inventory_find_port_by_number(inv, d->path, number) : NULL;
                if (!p) {
                        t->incomplete = true;
                        return pending_line(c, "%s: not present%s, waiting for %s", name,
                                            d ? " (the device has no such port yet)" : "", s->state);
                }
                return check_port(s, inv, p, NULL, c, t);
        }

        /* A device wins over a netdev of the same name, as everywhere in rdmactl. */
        d = inventory_find_device_by_name(inv, name);
        if (d)
                return check_device(s, inv, d, c, t);

        n = inventory_find_netdev_by_name(inv, name);
        p = n ? inventory_find_port(inv, n->port) : NULL;
        if (!p) {
                t->incomplete = true;
                return pending_line(c, "%s: %s, waiting for %s", name,
                                    n ? "a network interface of no port" : "not present", s->state);
        }
        return check_port(s, inv, p, name, c, t);
}

/* No names: every port with a link, and at least one. */
static int check_linked(const WaitSpec *s, const Inventory *inv, WaitCheck *c, Tally *t) {
        int r;

        for (size_t i = 0; i < inv->n_ports; i++) {
                const RdmaPort *p = inv->ports[i];
                char port_name[512];

                snprintf(port_name, sizeof(port_name), "%s/%" PRIu32, strempty(inventory_device_name(inv, p->device)),
                         p->number);
                if (!port_waited_for(inv, p) || port_ignored(s, inv, p, port_name))
                        continue;
                r = check_port(s, inv, p, NULL, c, t);
                if (r < 0)
                        return r;
        }
        if (t->total == 0) {
                t->incomplete = true;
                return pending_line(c, "no port with a physical link yet, waiting for %s", s->state);
        }
        return 0;
}

int wait_check(const WaitSpec *s, const Inventory *inv, WaitCheck *ret) {
        Tally t = {};
        int r = 0;

        *ret = (WaitCheck){};
        if (s->n_names == 0)
                r = check_linked(s, inv, ret, &t);
        for (size_t i = 0; r >= 0 && i < s->n_names; i++)
                r = check_name(s, inv, s->names[i], ret, &t);
        if (r < 0)
                return r;
        ret->done = s->any ? t.ok > 0 : !t.incomplete && t.total > 0 && t.ok == t.total;
        return 0;
}

void wait_check_done(WaitCheck *c) {
        strv_free(c->pending);
        *c = (WaitCheck){};
}
