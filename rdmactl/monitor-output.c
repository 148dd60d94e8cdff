/* SPDX-License-Identifier: MIT */
/* rdmactl monitor's lines: a timestamp and the change in words, or one
 * JSON object with the same facts. */
#include <inttypes.h>
#include <stdio.h>

#include "basic/time-util.h"
#include "basic/util.h"
#include "format.h"
#include "monitor.h"

/* Starts a line: the timestamp in text, the common members in JSON. */
static void line_begin(Monitor *m, uint64_t usec, const char *event) {
        char ts[TIMESTAMP_MAX];

        format_timestamp(usec, ts);
        if (m->options->json) {
                json_writer_begin_object(&m->json);
                json_writer_field_string(&m->json, "time", ts);
                json_writer_field_uint(&m->json, "usec", usec);
                json_writer_field_string(&m->json, "event", event);
        } else
                printf("%s ", ts);
}

/* Ends a line and hands it on at once: readers of a pipe must not wait for a buffer to fill. */
static int line_end(Monitor *m) {
        if (m->options->json)
                json_writer_end_object(&m->json); /* and the newline after the document */
        else
                fputc('\n', stdout);
        if (fflush(stdout) != 0) {
                fprintf(stderr, "rdmactl: cannot write the output: %m\n");
                return sd_event_exit(m->event, EXIT_FAILURE_GENERIC);
        }
        return 0;
}

void announce_removal(Monitor *m, const RemovedDevice *r) {

        line_begin(m, r->usec, "device-removed");
        if (m->options->json)
                json_writer_field_string(&m->json, "device", r->name);
        else
                printf("%s: removed", r->name);
        line_end(m);
}

void announce_device_added(Monitor *m, const RdmaDevice *d) {
        uint64_t usec = now_usec(CLOCK_REALTIME);

        line_begin(m, usec, "device-added");
        if (m->options->json) {
                json_writer_field_string(&m->json, "device", d->name);
                json_writer_field_string(&m->json, "transport", d->transport);
                json_writer_key(&m->json, "ports");
                json_writer_begin_array(&m->json);
                for (size_t i = 0; i < d->n_port_numbers; i++)
                        json_writer_uint(&m->json, d->port_numbers[i]);
                json_writer_end_array(&m->json);
                json_writer_field_string(&m->json, "health", *d->health ? d->health : NULL);
                json_writer_field_string(&m->json, "health_reason", *d->health ? d->health_reason : NULL);
        } else {
                printf("%s: added, %s, %zu port%s", d->name, *d->transport ? d->transport : "unknown transport",
                       d->n_port_numbers, d->n_port_numbers == 1 ? "" : "s");
                /* "mlx5_3: added, RoCE, 1 port, unresponsive (ports/1/state: no answer for 5.0 s)" */
                if (!device_health_ok(d)) {
                        fputs(", ", stdout);
                        print_colored(m->options->color, d->health, health_color(d->health));
                        if (*d->health_reason)
                                printf(" (%s)", d->health_reason);
                }
        }
        line_end(m);
}

void announce_rename(Monitor *m, const RemovedDevice *from, const RdmaDevice *to) {

        line_begin(m, now_usec(CLOCK_REALTIME), "device-renamed");
        if (m->options->json) {
                json_writer_field_string(&m->json, "device", to->name);
                json_writer_field_string(&m->json, "old_name", from->name);
        } else
                printf("%s: renamed to %s", from->name, to->name);
        line_end(m);
}

void announce_port_added(Monitor *m, const RdmaPort *p) {
        const char *device = inventory_device_name(inventory_follow_inventory(m->follow), p->device) ?: "";

        line_begin(m, now_usec(CLOCK_REALTIME), "port-added");
        if (m->options->json) {
                json_writer_field_string(&m->json, "device", device);
                json_writer_field_uint(&m->json, "port", p->number);
                json_writer_field_string(&m->json, "state", p->state_name);
                json_writer_field_uint(&m->json, "state_num", p->state_num);
                json_writer_field_string(&m->json, "phys_state", p->phys_state_name);
                json_writer_field_uint(&m->json, "phys_state_num", p->phys_state_num);
        } else {
                printf("%s port %" PRIu32 ": added, ", device, p->number);
                print_colored(m->options->color, p->state_name, state_color(p->state_name));
                fputs(" (", stdout);
                print_colored(m->options->color, p->phys_state_name, phys_state_color(p->phys_state_name));
                fputc(')', stdout);
        }
        line_end(m);
}

/* The properties told besides the state, in the order they are printed;
 * keys as in `list --json`. */
typedef struct LinkProperty {
        const char *key;   /* JSON */
        const char *label; /* text */
        bool is_string;
        size_t offset; /* in PortLink */
} LinkProperty;

static const LinkProperty link_properties[] = {
        { "rate", "rate", true, offsetof(PortLink, rate) },
        { "link_layer", "link layer", true, offsetof(PortLink, link_layer) },
        { "netdev", "netdev", true, offsetof(PortLink, netdev) },
        { "lid", "LID", false, offsetof(PortLink, lid) },
        { "sm_lid", "SM LID", false, offsetof(PortLink, sm_lid) },
        { "lmc", "LMC", false, offsetof(PortLink, lmc) },
        { "sm_sl", "SM SL", false, offsetof(PortLink, sm_sl) },
};

static const char *link_string(const PortLink *l, const LinkProperty *prop) {
        return *(char *const *) ((const uint8_t *) l + prop->offset);
}

static uint32_t link_number(const PortLink *l, const LinkProperty *prop) {
        return *(const uint32_t *) ((const uint8_t *) l + prop->offset);
}

static void json_link_value(JsonWriter *w, const char *key, const LinkProperty *prop, const PortLink *l) {
        if (!prop->is_string)
                json_writer_field_uint(w, key, link_number(l, prop));
        else if (streq(prop->key, "netdev") && !*l->netdev)
                json_writer_field_null(w, key); /* none: null, as in `list --json` */
        else
                json_writer_field_string(w, key, link_string(l, prop));
}

/* "mlx4_0 port 1: rate 40 Gb/sec (4X QDR) -> 10 Gb/sec (1X QDR)" */
static void announce_port_property(Monitor *m, const RdmaPort *p, const LinkProperty *prop, const PortLink *old,
                                   const PortLink *new) {
        const char *device = inventory_device_name(inventory_follow_inventory(m->follow), p->device) ?: "";

        line_begin(m, now_usec(CLOCK_REALTIME), "port-changed");
        if (m->options->json) {
                json_writer_field_string(&m->json, "device", device);
                json_writer_field_uint(&m->json, "port", p->number);
                json_writer_field_string(&m->json, "property", prop->key);
                json_link_value(&m->json, "old", prop, old);
                json_link_value(&m->json, "new", prop, new);
        } else if (prop->is_string) {
                const char *from = link_string(old, prop), *to = link_string(new, prop);

                printf("%s port %" PRIu32 ": %s %s -> %s", device, p->number, prop->label, *from ? from : "-",
                       *to ? to : "-");
        } else
                printf("%s port %" PRIu32 ": %s %" PRIu32 " -> %" PRIu32, device, p->number, prop->label,
                       link_number(old, prop), link_number(new, prop));
        line_end(m);
}

static void announce_port_state(Monitor *m, const RdmaPort *p, const char *old_state, const char *old_phys) {
        const char *device = inventory_device_name(inventory_follow_inventory(m->follow), p->device) ?: "";
        uint64_t usec = p->state_changed_usec ?: now_usec(CLOCK_REALTIME);

        line_begin(m, usec, "port-state");
        if (m->options->json) {
                json_writer_field_string(&m->json, "device", device);
                json_writer_field_uint(&m->json, "port", p->number);
                json_writer_field_string(&m->json, "old_state", old_state);
                json_writer_field_string(&m->json, "state", p->state_name);
                json_writer_field_uint(&m->json, "state_num", p->state_num);
                json_writer_field_string(&m->json, "old_phys_state", old_phys);
                json_writer_field_string(&m->json, "phys_state", p->phys_state_name);
                json_writer_field_uint(&m->json, "phys_state_num", p->phys_state_num);
                json_writer_field_string(&m->json, "rate", p->rate);
                line_end(m);
                return;
        }

        printf("%s port %" PRIu32 ": ", device, p->number);
        if (!streq(old_state, p->state_name)) {
                /* "DOWN -> ACTIVE (LinkUp)" */
                print_colored(m->options->color, old_state, state_color(old_state));
                fputs(" -> ", stdout);
                print_colored(m->options->color, p->state_name, state_color(p->state_name));
                fputs(" (", stdout);
                print_colored(m->options->color, p->phys_state_name, phys_state_color(p->phys_state_name));
        } else {
                /* "DOWN (Disabled -> Polling)" */
                print_colored(m->options->color, p->state_name, state_color(p->state_name));
                fputs(" (", stdout);
                print_colored(m->options->color, old_phys, phys_state_color(old_phys));
                fputs(" -> ", stdout);
                print_colored(m->options->color, p->phys_state_name, phys_state_color(p->phys_state_name));
        }
        fputc(')', stdout);
        line_end(m);
}

/* One line for a state or physical state change, then one per other property that changed. */
void announce_port_changes(Monitor *m, const RdmaPort *p, const PortLink *old, const PortLink *new) {
        if (!streq(old->state, new->state) || !streq(old->phys_state, new->phys_state))
                announce_port_state(m, p, old->state, old->phys_state);
        for (const LinkProperty *prop = link_properties; prop < link_properties + ELEMENTSOF(link_properties); prop++)
                if (prop->is_string ? !streq(link_string(old, prop), link_string(new, prop))
                                    : link_number(old, prop) != link_number(new, prop))
                        announce_port_property(m, p, prop, old, new);
}

void announce_num_vfs(Monitor *m, const RdmaSriov *s, uint32_t old) {
        const char *device = inventory_device_name(inventory_follow_inventory(m->follow), s->device) ?: "";

        line_begin(m, now_usec(CLOCK_REALTIME), "num-vfs");
        if (m->options->json) {
                json_writer_field_string(&m->json, "device", device);
                json_writer_field_uint(&m->json, "old_num_vfs", old);
                json_writer_field_uint(&m->json, "num_vfs", s->num_vfs);
        } else
                printf("%s: SR-IOV %" PRIu32 " -> %" PRIu32 " VFs", device, old, s->num_vfs);
        line_end(m);
}

/* "mlx5_3: health ok -> unresponsive (ports/1/state: no answer for 5.0 s)", "mlx5_3: health unresponsive -> ok" */
void announce_health(Monitor *m, const RdmaDevice *d, const char *old_health, const char *old_reason) {
        const char *was = old_health && *old_health ? old_health : "ok", *is = *d->health ? d->health : "ok";

        line_begin(m, now_usec(CLOCK_REALTIME), "device-health");
        if (m->options->json) {
                json_writer_field_string(&m->json, "device", d->name);
                json_writer_field_string(&m->json, "old_health", was);
                json_writer_field_string(&m->json, "health", is);
                json_writer_field_string(&m->json, "old_health_reason", strempty(old_reason));
                json_writer_field_string(&m->json, "health_reason", d->health_reason);
        } else {
                printf("%s: health ", d->name);
                print_colored(m->options->color, was, health_color(was));
                fputs(" -> ", stdout);
                print_colored(m->options->color, is, health_color(is));
                if (*d->health_reason)
                        printf(" (%s)", d->health_reason);
        }
        line_end(m);
}

void announce_daemon_left(Monitor *m) {

        line_begin(m, now_usec(CLOCK_REALTIME), "daemon-left");
        if (!m->options->json)
                fputs("rdmad left the system bus; waiting for it to return.", stdout);
        line_end(m);
}

void announce_daemon_restarted(Monitor *m) {

        line_begin(m, now_usec(CLOCK_REALTIME), "daemon-restarted");
        if (m->options->json) {
                json_writer_field_uint(&m->json, "devices", inventory_follow_inventory(m->follow)->n_devices);
                json_writer_field_uint(&m->json, "ports", inventory_follow_inventory(m->follow)->n_ports);
        } else
                printf("rdmad restarted: %zu device%s, %zu port%s.", inventory_follow_inventory(m->follow)->n_devices,
                       inventory_follow_inventory(m->follow)->n_devices == 1 ? "" : "s",
                       inventory_follow_inventory(m->follow)->n_ports,
                       inventory_follow_inventory(m->follow)->n_ports == 1 ? "" : "s");
        line_end(m);
}
