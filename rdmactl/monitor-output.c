/* SPDX-License-Identifier: MIT */
/* rdmactl monitor's lines: each event built once as a field tree, then
 * written as a timestamp and the change in words, or as one JSON object
 * with the same facts. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

#include "basic/time-util.h"
#include "basic/util.h"
#include "field-tree.h"
#include "format.h"
#include "monitor-output.h"
#include "verb-util.h"
#include "client/inventory-decode.h"

/* An event: the timestamp starts the text line; time, usec and the event's
 * name are the JSON object's first members. */
static Field *line_new(uint64_t usec, const char *event) {
        Field *line = field_tree_new_object();
        char ts[TIMESTAMP_MAX];

        format_timestamp(usec, ts);
        field_affix(field_string_copy(line, "time", ts), NULL, " ");
        field_flags(field_uint(line, "usec", usec), FIELD_JSON_ONLY);
        field_flags(field_string(line, "event", event), FIELD_JSON_ONLY);
        return line;
}

/* Writes the line and hands it on at once: readers of a pipe must not wait for a buffer to fill. */
static void line_emit(Monitor *m, Field *line) {
        if (field_tree_check(line) < 0) {
                fprintf(stderr, "rdmactl: out of memory, an event is not shown.\n");
                field_tree_free(line);
                return;
        }
        if (m->options->json)
                field_tree_json(line, &m->json); /* and the newline after the document */
        else {
                field_tree_line(line, stdout, m->options->color);
                fputc('\n', stdout);
        }
        field_tree_free(line);
        if (flush_output(m->options->json, EXIT_OK) != EXIT_OK)
                (void) sd_event_exit(m->event, EXIT_FAILURE_GENERIC);
}

static const char *device_name(const Monitor *m, const char *path) {
        return inventory_device_name(inventory_follow_inventory(m->follow), path) ?: "";
}

/* "mlx4_0 port 1" and what follows it. */
static void add_port(Field *line, const char *device, uint32_t number, const char *after) {
        field_string(line, "device", device);
        field_affix(field_uint(line, "port", number), " port ", after);
}

/* Whether the patterns name the port: by its device, DEVICE/PORT, or one of its netdevs (before and after a change). */
static bool port_named(const Monitor *m, const RdmaPort *p, const char *netdev, const char *other_netdev) {
        const char *device = device_name(m, p->device);

        if (!*strempty(netdev))
                netdev = inventory_netdev_name(inventory_follow_inventory(m->follow), p->netdev);
        return port_filter_names_port(&m->filter, device, p->number, netdev) ||
               (other_netdev && *other_netdev && port_filter_names_port(&m->filter, device, p->number, other_netdev));
}

void announce_removal(Monitor *m, const RemovedDevice *r) {
        Field *line;

        if (!port_filter_names_device(&m->filter, r->name))
                return;
        line = line_new(r->usec, "device-removed");

        field_affix(field_string(line, "device", r->name), NULL, ": removed");
        line_emit(m, line);
}

/* "mlx5_3: added, RoCE, 1 port, unresponsive (ports/1/state: no answer for 5.0 s)" */
void announce_device_added(Monitor *m, const RdmaDevice *d) {
        FieldFlags unhealthy_only = device_health_ok(d) ? FIELD_JSON_ONLY : 0;
        const char *health = *d->health ? d->health : NULL;
        char count[32];
        Field *line, *ports;

        if (!port_filter_names_device(&m->filter, d->name))
                return;
        line = line_new(now_usec(CLOCK_REALTIME), "device-added");

        field_affix(field_string(line, "device", d->name), NULL, ": added, ");
        field_empty(field_string(line, "transport", d->transport), "unknown transport");
        ports = field_flags(field_array(line, "ports"), FIELD_JSON_ONLY);
        for (size_t i = 0; i < d->n_port_numbers; i++)
                field_uint(ports, NULL, d->port_numbers[i]);
        snprintf(count, sizeof(count), "%zu port%s", d->n_port_numbers, d->n_port_numbers == 1 ? "" : "s");
        field_flags(field_affix(field_string_copy(line, "ports", count), ", ", NULL), FIELD_TEXT_ONLY);
        field_flags(field_color(field_affix(field_string(line, "health", health), ", ", NULL), health_color(health)),
                    unhealthy_only);
        field_flags(field_affix(field_string(line, "health_reason", health ? d->health_reason : NULL), " (", ")"),
                    unhealthy_only);
        line_emit(m, line);
}

/* "hfi1_0: renamed to opa0" */
void announce_rename(Monitor *m, const RemovedDevice *from, const RdmaDevice *to) {
        Field *line;

        if (!port_filter_names_device(&m->filter, from->name) && !port_filter_names_device(&m->filter, to->name))
                return;
        line = line_new(now_usec(CLOCK_REALTIME), "device-renamed");

        field_affix(field_string(line, "old_name", from->name), NULL, ": renamed to ");
        field_string(line, "device", to->name);
        line_emit(m, line);
}

/* "rxe5 port 1: added, ACTIVE (LinkUp)" */
void announce_port_added(Monitor *m, const RdmaPort *p) {
        Field *line;

        if (!port_named(m, p, NULL, NULL))
                return;
        line = line_new(now_usec(CLOCK_REALTIME), "port-added");

        add_port(line, device_name(m, p->device), p->number, ": added, ");
        field_color(field_string(line, "state", p->state_name), state_color(p->state_name));
        field_flags(field_uint(line, "state_num", p->state_num), FIELD_JSON_ONLY);
        field_color(field_affix(field_string(line, "phys_state", p->phys_state_name), " (", ")"),
                    phys_state_color(p->phys_state_name));
        field_flags(field_uint(line, "phys_state_num", p->phys_state_num), FIELD_JSON_ONLY);
        line_emit(m, line);
}

/* The string properties told besides the state, before PORT_SHOWN_PROPERTIES'
 * numbers, in the order they are printed; keys as in `list --json`. */
typedef struct LinkString {
        const char *key;   /* JSON */
        const char *label; /* text */
        size_t offset;     /* in RdmaPort; LINK_NETDEV: the side's netdev name */
} LinkString;

#define LINK_NETDEV SIZE_MAX

static const LinkString link_strings[] = {
        { "rate", "rate", offsetof(RdmaPort, rate) },
        { "link_layer", "link layer", offsetof(RdmaPort, link_layer) },
        { "netdev", "netdev", LINK_NETDEV },
};

static const char *link_string(const PortSide *side, const LinkString *prop) {
        if (prop->offset == LINK_NETDEV)
                return side->netdev;
        return *(char *const *) ((const uint8_t *) side->port + prop->offset);
}

/* A string as `list --json` has it (a netdev of none null), "-" in text for none. */
static Field *add_link_string(Field *line, const char *key, const LinkString *prop, const PortSide *side) {
        if (prop->offset == LINK_NETDEV && !*side->netdev)
                return field_empty(field_null(line, key), "-");
        return field_empty(field_string(line, key, link_string(side, prop)), "-");
}

/* "mlx4_0 port 1: rate 40 Gb/sec (4X QDR) -> 10 Gb/sec (1X QDR)": the line
 * up to the old value; the caller adds the values. */
static Field *port_property_line(Monitor *m, const RdmaPort *p, const char *key, const char *label) {
        Field *line = line_new(now_usec(CLOCK_REALTIME), "port-changed");

        add_port(line, device_name(m, p->device), p->number, ": ");
        field_flags(field_string(line, "property", key), FIELD_JSON_ONLY);
        field_flags(field_affix(field_string(line, "label", label), NULL, " "), FIELD_TEXT_ONLY);
        return line;
}

/* A rate in Gb/s as a number (list's rate_gbps), null when unknown. */
static Field *add_gbps(Field *line, const char *key, double gbps) {
        return field_flags(gbps > 0 ? field_double(line, key, gbps) : field_null(line, key), FIELD_JSON_ONLY);
}

static void announce_port_string(Monitor *m, const LinkString *prop, const PortSide *old, const PortSide *new) {
        Field *line = port_property_line(m, new->port, prop->key, prop->label);

        field_affix(add_link_string(line, "old", prop, old), NULL, " -> ");
        add_link_string(line, "new", prop, new);
        if (streq(prop->key, "rate")) { /* the numbers beside the text, as list --json has them */
                add_gbps(line, "old_gbps", old->port->rate_speed);
                add_gbps(line, "new_gbps", new->port->rate_speed);
        }
        line_emit(m, line);
}

static void announce_port_shown(Monitor *m, PortShown i, const RdmaPort *old, const RdmaPort *p) {
        Field *line = port_property_line(m, p, port_shown_properties[i].key, port_shown_properties[i].label);

        field_affix(field_uint(line, "old", port_shown_value(old, i)), NULL, " -> ");
        field_uint(line, "new", port_shown_value(p, i));
        line_emit(m, line);
}

/* "DOWN -> ACTIVE (LinkUp)" for a new state, "DOWN (Disabled -> Polling)" for a new physical state alone. */
static void announce_port_state(Monitor *m, const RdmaPort *p, const char *old_state, const char *old_phys) {
        Field *line = line_new(p->state_changed_usec ?: now_usec(CLOCK_REALTIME), "port-state");
        bool new_state = !streq(old_state, p->state_name);

        add_port(line, device_name(m, p->device), p->number, ": ");
        field_flags(field_color(field_affix(field_string(line, "old_state", old_state), NULL, " -> "),
                                state_color(old_state)),
                    new_state ? 0 : FIELD_JSON_ONLY);
        field_color(field_string(line, "state", p->state_name), state_color(p->state_name));
        field_flags(field_uint(line, "state_num", p->state_num), FIELD_JSON_ONLY);
        field_flags(field_color(field_affix(field_string(line, "old_phys_state", old_phys), " (", " -> "),
                                phys_state_color(old_phys)),
                    new_state ? FIELD_JSON_ONLY : 0);
        field_color(field_affix(field_string(line, "phys_state", p->phys_state_name), new_state ? " (" : NULL, ")"),
                    phys_state_color(p->phys_state_name));
        field_flags(field_uint(line, "phys_state_num", p->phys_state_num), FIELD_JSON_ONLY);
        line_emit(m, line);
}

/* One line for a state or physical state change, then one per other property that changed. */
void announce_port_changes(Monitor *m, const PortSide *old, const PortSide *new) {
        const RdmaPort *was = old->port, *p = new->port;

        if (!port_named(m, p, new->netdev, old->netdev))
                return;
        if (!streq(was->state_name, p->state_name) || !streq(was->phys_state_name, p->phys_state_name))
                announce_port_state(m, p, was->state_name, was->phys_state_name);
        for (const LinkString *prop = link_strings; prop < link_strings + ELEMENTSOF(link_strings); prop++)
                if (!streq(link_string(old, prop), link_string(new, prop)))
                        announce_port_string(m, prop, old, new);
        for (PortShown i = 0; i < _PORT_SHOWN_MAX; i++)
                if ((port_shown_properties[i].flags & PORT_SHOWN_MONITOR) &&
                    port_shown_value(was, i) != port_shown_value(p, i))
                        announce_port_shown(m, i, was, p);
}

/* "mlx5_0: SR-IOV 1 -> 3 VFs" */
void announce_num_vfs(Monitor *m, const RdmaSriov *s, uint32_t old) {
        Field *line;

        if (!port_filter_names_device(&m->filter, device_name(m, s->device)))
                return;
        line = line_new(now_usec(CLOCK_REALTIME), "num-vfs");

        field_affix(field_string(line, "device", device_name(m, s->device)), NULL, ": SR-IOV ");
        field_affix(field_uint(line, "old_num_vfs", old), NULL, " -> ");
        field_affix(field_uint(line, "num_vfs", s->num_vfs), NULL, " VFs");
        line_emit(m, line);
}

/* "mlx5_3: health ok -> unresponsive (ports/1/state: no answer for 5.0 s)", "mlx5_3: health unresponsive -> ok" */
void announce_health(Monitor *m, const RdmaDevice *d, const char *old_health, const char *old_reason) {
        const char *was = old_health && *old_health ? old_health : "ok", *is = *d->health ? d->health : "ok";
        Field *line;

        if (!port_filter_names_device(&m->filter, d->name))
                return;
        line = line_new(now_usec(CLOCK_REALTIME), "device-health");

        field_affix(field_string(line, "device", d->name), NULL, ": health ");
        field_color(field_affix(field_string(line, "old_health", was), NULL, " -> "), health_color(was));
        field_color(field_string(line, "health", is), health_color(is));
        field_flags(field_string(line, "old_health_reason", strempty(old_reason)), FIELD_JSON_ONLY);
        field_affix(field_string(line, "health_reason", d->health_reason), " (", ")");
        line_emit(m, line);
}

void announce_daemon_left(Monitor *m) {
        Field *line = line_new(now_usec(CLOCK_REALTIME), "daemon-left");

        field_flags(field_string(line, "message", "rdmad left the system bus; waiting for it to return."),
                    FIELD_TEXT_ONLY);
        line_emit(m, line);
}

/* "rdmad restarted: 6 devices, 7 ports." */
void announce_daemon_restarted(Monitor *m) {
        const Inventory *inv = inventory_follow_inventory(m->follow);
        Field *line = line_new(now_usec(CLOCK_REALTIME), "daemon-restarted");

        field_affix(field_uint(line, "devices", inv->n_devices),
                    "rdmad restarted: ", inv->n_devices == 1 ? " device" : " devices");
        field_affix(field_uint(line, "ports", inv->n_ports), ", ", inv->n_ports == 1 ? " port." : " ports.");
        line_emit(m, line);
}
