/* SPDX-License-Identifier: MIT */
/* rdmactl status [NAME...]: without a name, a line per port (the text; the
 * JSON stays everything, for scripts); with names, everything known about
 * those devices, their ports and netdevs, and each port's last link
 * changes. Built once as a field tree (or a table), then printed as text or
 * as JSON. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "basic/time-util.h"
#include "basic/utf8.h"
#include "basic/util.h"
#include "field-tree.h"
#include "format.h"
#include "json-writer.h"
#include "rdmactl.h"
#include "target.h"
#include "verb-util.h"
#include "client/inventory-decode.h"

#define LABEL_WIDTH 19

static uint32_t netdev_port_number(const Inventory *inv, const RdmaNetDev *n) {
        const RdmaPort *p = inventory_find_port(inv, n->port);
        return p ? p->number : 0;
}

/* The ports t shows, by number: all of its device's (the store's links), or the one named. */
static RdmaPort *const *target_ports(const Inventory *inv, const Target *t, size_t *ret_n) {
        size_t n;
        RdmaPort *const *ports = inventory_device_ports(inv, t->device->path, &n);

        *ret_n = n;
        if (t->port == 0)
                return ports;
        for (size_t i = 0; i < n; i++)
                if (ports[i]->number == t->port) {
                        *ret_n = 1;
                        return ports + i;
                }
        *ret_n = 0;
        return NULL;
}

/* A labelled string line of the device's; key and label name the same field. */
static Field *device_string(Field *dev, const char *key, const char *label, const char *value) {
        return field_label(field_string(dev, key, value), label);
}

/* The bullet tells at a glance: all ports up, some, none; red for a
 * device that does not answer (its ports' states are old), never green for
 * one with errors. */
static const char *device_color(const Inventory *inv, const Target *t) {
        size_t n_ports, n_active = 0;
        RdmaPort *const *ports = target_ports(inv, t, &n_ports);

        if (device_unresponsive(t->device))
                return ANSI_RED;
        for (size_t i = 0; i < n_ports; i++)
                n_active += streq(ports[i]->state_name, "ACTIVE");
        if (n_ports > 0 && n_active == 0)
                return ANSI_RED;
        if (!device_health_ok(t->device) || n_active < n_ports)
                return ANSI_YELLOW;
        return n_ports == 0 ? NULL : ANSI_GREEN;
}

/* "Health: unresponsive (ports/1/state: no answer for 5.0 s), last known values shown",
 * a line only when not ok; in JSON always, null from an rdmad without Health. */
static void add_health(Field *dev, const RdmaDevice *d) {
        bool ok = device_health_ok(d);
        const char *health = *d->health ? d->health : NULL;
        Field *f;

        f = field_label(field_flags(field_object(dev, NULL), FIELD_TEXT_ONLY), "Health");
        field_color(field_string(f, NULL, ok ? NULL : health), health_color(health));
        field_affix(field_string(f, NULL, ok || !*d->health_reason ? NULL : d->health_reason), " (", ")");
        field_string(f, NULL, !ok && device_unresponsive(d) ? ", last known values shown" : NULL);
        field_flags(field_string(dev, "health", health), FIELD_JSON_ONLY);
        field_flags(field_string(dev, "health_reason", health ? d->health_reason : NULL), FIELD_JSON_ONLY);
}

static void add_sriov(Field *dev, const RdmaSriov *s) {
        Field *f;

        if (!s) {
                field_label(field_null(dev, "sriov"), "SR-IOV");
                return;
        }
        /* "1 of 8 VFs" */
        f = field_label(field_object(dev, "sriov"), "SR-IOV");
        field_uint(f, "num_vfs", s->num_vfs);
        field_affix(field_uint(f, "total_vfs", s->total_vfs), " of ", " VFs");
        field_flags(field_string(f, "device_path", s->device_path), FIELD_JSON_ONLY);
}

/* "ens1f0np0 (port 1): up, MTU 9000, 98:03:9b:aa:bb:c0", the first line labelled. */
static void add_netdevs(Field *dev, const Inventory *inv, const Target *t) {
        Field *list = field_array(dev, "netdevs");
        bool first = true;
        size_t n_netdevs;
        RdmaNetDev *const *netdevs = inventory_device_netdevs(inv, t->device->path, &n_netdevs);

        for (size_t i = 0; i < n_netdevs; i++) {
                const RdmaNetDev *n = netdevs[i];
                uint32_t port = netdev_port_number(inv, n);
                Field *f;

                if (t->port > 0 && port != t->port)
                        continue;
                f = field_label(field_object(list, NULL), first ? "NetDevs" : "");
                first = false;
                field_string(f, "name", n->name);
                if (port > 0)
                        field_affix(field_uint(f, "port", port), " (port ", ")");
                else
                        field_null(f, "port");
                field_flags(field_uint(f, "dev_port", n->dev_port), FIELD_JSON_ONLY);
                field_empty(field_affix(field_string(f, "oper_state", n->oper_state), ": ", NULL), "-");
                field_affix(field_uint(f, "mtu", n->mtu), ", MTU ", NULL);
                field_affix(field_string(f, "address", n->address), ", ", NULL);
        }
}

/* As show_gids: the IPv4 address of a RoCE GID beside it, then type and netdev. */
static void add_gid(Field *gids, const RdmaGid *gid) {
        Field *f = field_flags(field_object(gids, NULL), FIELD_TEXT_LINE);
        char ipv4[GID_IPV4_MAX];
        const char *v4 = gid_to_ipv4(gid->gid, ipv4);
        bool typed = *gid->type, with_netdev = *gid->netdev;

        field_affix(field_uint(f, "index", gid->index), "GID ", ": ");
        field_string(f, "gid", gid->gid);
        /* The text has the address beside the GID, the JSON last. */
        field_flags(field_affix(field_string_copy(f, "ipv4", v4), " ", NULL), FIELD_TEXT_ONLY);
        /* InfiniBand GIDs have no type: null, not "". */
        field_affix(field_string(f, "type", typed ? gid->type : NULL), " (", with_netdev ? NULL : ")");
        field_affix(field_string(f, "netdev", with_netdev ? gid->netdev : NULL), typed ? ", " : " (", ")");
        field_flags(field_string_copy(f, "ipv4", v4), FIELD_JSON_ONLY);
}

/* "Port 1: ACTIVE (LinkUp), 25 Gb/sec (1X EDR), Ethernet (RoCE), netdev ens1f0np0",
 * the LIDs, the last state change and the GIDs on the lines under it. */
/* "Errors: link_downed 1, port_rcv_errors 3" in red; in JSON every error
 * counter that is not zero (the counters rdmactl counters names as errors). */
static void add_port_errors(Field *f, const PortCounters *c) {
        Field *errors = field_flags(field_object(f, "errors"), FIELD_JSON_ONLY);
        char text[512] = "";
        size_t n = 0;

        for (size_t i = 0; c && i < c->n_counters; i++) {
                const CounterSample *s = &c->counters[i];

                if (counter_kind(s->name) != COUNTER_ERROR || s->value == 0)
                        continue;
                field_uint(errors, s->name, s->value);
                if (n < sizeof(text))
                        n += (size_t) snprintf(text + n, sizeof(text) - n, "%s%s %" PRIu64, n > 0 ? ", " : "", s->name,
                                               s->value);
        }
        field_color(field_flags(field_affix(field_string_copy(f, "errors", text), "errors: ", NULL),
                                FIELD_TEXT_LINE | FIELD_TEXT_ONLY),
                    ANSI_RED);
}

/* The line of the port's properties as they are (PORT_SHOWN_PROPERTIES):
 * "LID 5, SM LID 1, LMC 0, SM SL 0, capabilities 0x2651e848". */
#define TEXT_PREFIX_DEC   ""
#define TEXT_PREFIX_HEX32 "0x"
#define TEXT_FLAGS_DEC    0
#define TEXT_FLAGS_HEX32  FIELD_TEXT_HEX32
#define STATUS_SHOWN_ROW(bus, type, field, key, label, text, flags)                                                    \
        [PORT_SHOWN_##field] = { label " " TEXT_PREFIX_##text, ", " label " " TEXT_PREFIX_##text, TEXT_FLAGS_##text },

static const struct {
        const char *first, *next; /* before the value: first on the line, after another */
        FieldFlags flags;
} shown_text[_PORT_SHOWN_MAX] = { PORT_SHOWN_PROPERTIES(STATUS_SHOWN_ROW) };

static void add_port_shown(Field *f, const RdmaPort *p) {
        /* LIDs mean nothing on Ethernet (RoCE, iWARP). */
        bool ethernet = streq(p->link_layer, "Ethernet"), first = true;

        for (PortShown i = 0; i < _PORT_SHOWN_MAX; i++) {
                const PortShownProperty *prop = &port_shown_properties[i];
                Field *v = field_uint(f, prop->key, port_shown_value(p, i));

                if (ethernet && (prop->flags & PORT_SHOWN_IB_ONLY)) {
                        field_flags(v, FIELD_JSON_ONLY);
                        continue;
                }
                field_flags(field_affix(v, first ? shown_text[i].first : shown_text[i].next, NULL),
                            shown_text[i].flags | (first ? FIELD_TEXT_LINE : 0));
                first = false;
        }
}

/* "link 2026-03-01T10:00:00.000000+00:00 ACTIVE -> DOWN (3 min ago)", a
 * line per change, newest first; in JSON an array in the same order. */
static void add_link_history(Field *f, const RdmaPort *p, uint64_t now) {
        Field *history = field_array(f, "link_history");

        for (size_t i = p->n_link_history; i > 0; i--) {
                const RdmaLinkChange *c = &p->link_history[i - 1];
                Field *e = field_flags(field_object(history, NULL), FIELD_TEXT_LINE);
                char ago[AGO_MAX];

                field_flags(field_affix(field_uint(e, "usec", c->usec), "link ", " "), FIELD_TEXT_TIME);
                field_empty(field_string(e, "old_state", c->old_state), "-");
                field_color(field_empty(field_affix(field_string(e, "new_state", c->new_state), " -> ", NULL), "-"),
                            state_color(c->new_state));
                field_flags(field_affix(field_string_copy(e, NULL, format_ago(now, c->usec, ago)), " (", ")"),
                            FIELD_TEXT_ONLY);
        }
}

static void add_port(Field *ports, const Inventory *inv, const RdmaPort *p, const PortCounters *counters,
                     uint64_t now) {
        Field *f = field_labelf(field_object(ports, NULL), "Port %" PRIu32, p->number);
        Field *gids;

        field_flags(field_uint(f, "port", p->number), FIELD_JSON_ONLY);
        /* JSON carries a state by name ("state": "ACTIVE", as `rdma -j` does) and by number. */
        field_color(field_empty(field_string(f, "state", p->state_name), "-"), state_color(p->state_name));
        field_flags(field_uint(f, "state_num", p->state_num), FIELD_JSON_ONLY);
        field_color(field_empty(field_affix(field_string(f, "phys_state", p->phys_state_name), " (", ")"), "-"),
                    phys_state_color(p->phys_state_name));
        field_flags(field_uint(f, "phys_state_num", p->phys_state_num), FIELD_JSON_ONLY);
        field_affix(field_string(f, "rate", p->rate), ", ", NULL);
        /* RateSpeed, Gb/s as a number for scripts; null when unknown. */
        field_flags(p->rate_speed > 0 ? field_double(f, "rate_gbps", p->rate_speed) : field_null(f, "rate_gbps"),
                    FIELD_JSON_ONLY);
        field_flags(field_string(f, "link_width", p->link_width), FIELD_JSON_ONLY);
        field_flags(field_string(f, "link_speed", p->link_speed), FIELD_JSON_ONLY);
        field_affix(field_string(f, "link_layer", p->link_layer), ", ", NULL);
        /* RoCE and iWARP say what runs over Ethernet; the text names only the port's own. */
        field_flags(field_affix(field_string(f, "transport", port_transport(p, inventory_find_device(inv, p->device))),
                                " (", ")"),
                    !*p->transport || streq(p->transport, p->link_layer) ? FIELD_JSON_ONLY : 0);
        field_affix(field_string(f, "netdev", inventory_netdev_name(inv, p->netdev)), ", netdev ", NULL);
        /* "port GUID 0002:c903:00a1:b2c1", as ibstat's "Port GUID"; null when unknown. */
        field_flags(field_affix(field_string(f, "port_guid", *p->port_guid ? p->port_guid : NULL), "port GUID ", NULL),
                    FIELD_TEXT_LINE);
        add_port_shown(f, p);
        field_flags(field_affix(field_uint(f, "state_changed_usec", p->state_changed_usec), "state changed ", NULL),
                    FIELD_TEXT_LINE | FIELD_TEXT_TIME | (p->state_changed_usec > 0 ? 0 : FIELD_JSON_ONLY));
        /* The flaps rdmad saw since it started: also on the state changed line. */
        field_flags(field_affix(field_uint(f, "state_changes", p->state_changes), ", ",
                                p->state_changes == 1 ? " state change since rdmad started"
                                                      : " state changes since rdmad started"),
                    p->state_changed_usec > 0 ? 0 : FIELD_JSON_ONLY);
        gids = field_array(f, "gids");
        for (size_t g = 0; g < p->n_gids; g++)
                add_gid(gids, &p->gids[g]);
        add_port_errors(f, counters);
        add_link_history(f, p, now);
}

static void add_device(Field *root, const Inventory *inv, const Target *t, const CounterTable *counters, uint64_t now) {
        const RdmaDevice *d = t->device;
        Field *dev = field_color(field_label(field_object(root, NULL), d->name), device_color(inv, t));
        Field *vfs, *ports;
        size_t n_ports;
        RdmaPort *const *shown = target_ports(inv, t, &n_ports);

        field_flags(field_string(dev, "device", d->name), FIELD_JSON_ONLY); /* the heading in text */
        add_health(dev, d);
        device_string(dev, "transport", "Transport", d->transport);
        device_string(dev, "node_type", "Node type", d->node_type);
        device_string(dev, "driver", "Driver", d->driver);
        field_flags(field_string(dev, "device_path", d->device_path), FIELD_JSON_ONLY);
        device_string(dev, "pci_address", "PCI address", d->pci_address);
        if (d->numa_node >= 0)
                field_label(field_int(dev, "numa_node", d->numa_node), "NUMA node");
        else
                field_null(dev, "numa_node");
        device_string(dev, "physical_function", "Physical function", inventory_device_name(inv, d->physical_function));
        vfs = field_flags(field_label(field_array(dev, "virtual_functions"), "Virtual functions"), FIELD_TEXT_JOIN);
        for (size_t i = 0; d->virtual_functions && d->virtual_functions[i]; i++)
                field_string(vfs, NULL, inventory_device_name(inv, d->virtual_functions[i]) ?: d->virtual_functions[i]);
        device_string(dev, "sysfs_path", "Sysfs path", d->sysfs_path);
        device_string(dev, "node_guid", "Node GUID", d->node_guid);
        device_string(dev, "sys_image_guid", "System image GUID", d->sys_image_guid);
        device_string(dev, "firmware_version", "Firmware", d->firmware_version);
        device_string(dev, "hca_type", "HCA type", d->hca_type);
        device_string(dev, "hw_rev", "HW revision", d->hw_rev);
        device_string(dev, "board_id", "Board ID", d->board_id);
        device_string(dev, "node_description", "Node description", d->node_description);
        add_sriov(dev, inventory_find_sriov(inv, d->sriov));
        add_netdevs(dev, inv, t);

        ports = field_array(dev, "ports");
        for (size_t i = 0; i < n_ports; i++)
                add_port(ports, inv, shown[i], counter_table_find(counters, d->name, shown[i]->number), now);
}

/* The summary: a line per port, what an operator looks at first. */
static const char *const summary_headers[] = {
        "PORT", "STATE", "PHYS STATE", "RATE", "NETDEV", "FLAPS", "LAST CHANGE",
};

/* "mlx4_0/1  ACTIVE  LinkUp  40 Gb/sec (4X QDR)  ib0  2  3 min ago"; the
 * state grey for a device that does not answer (it is the last known). */
static int summary_add_port(Table *t, const Inventory *inv, const RdmaPort *p, uint64_t now) {
        const RdmaDevice *d = inventory_find_device(inv, p->device);
        bool stale = d && device_unresponsive(d);
        char name[256], ago[AGO_MAX];
        int r;

        snprintf(name, sizeof(name), "%s/%" PRIu32, port_device_name(inv, p), p->number);
        if ((r = table_add(t, name, NULL)) < 0 ||
            (r = table_add(t, p->state_name, stale ? ANSI_GREY : state_color(p->state_name))) < 0 ||
            (r = table_add(t, p->phys_state_name, stale ? ANSI_GREY : phys_state_color(p->phys_state_name))) < 0 ||
            (r = table_add(t, p->rate, NULL)) < 0 ||
            (r = table_add(t, inventory_netdev_name(inv, p->netdev), NULL)) < 0 ||
            (r = table_add_uint(t, p->state_changes, p->state_changes > 0 ? ANSI_YELLOW : NULL)) < 0 ||
            (r = table_add(t, format_ago(now, port_last_change_usec(p), ago), NULL)) < 0)
                return r;
        return 0;
}

static int status_summary(const Inventory *inv, const Options *o) {
        _cleanup_(table_freep) Table *t = table_new(ELEMENTSOF(summary_headers), summary_headers);
        uint64_t now = now_usec(CLOCK_REALTIME);

        if (!t)
                return report_oom();
        for (size_t i = 0; i < inv->n_ports; i++)
                if (summary_add_port(t, inv, inv->ports[i], now) < 0)
                        return report_oom(); /* table_add() fails for memory only */
        if (table_rows(t) == 0)              /* silence would look like a hang or a failure */
                printf("No RDMA devices.\n");
        else
                table_print(t, stdout, true, o->color);
        return finish_output(EXIT_OK);
}

/* "mlx4_0", "mlx4_0 1", "mlx4_0/1", "ib0": a device, or one port of it. */
int verb_status(sd_bus *bus, const Options *o, char **args, size_t n_args) {
        _cleanup_(inventory_freep) Inventory *inv = NULL;
        _cleanup_(field_tree_freep) Field *root = NULL;
        _cleanup_free_ Target *targets = NULL;
        _cleanup_free_ const RdmaPort **shown = NULL;
        _cleanup_(counter_table_clear) CounterTable counters = {};
        size_t n_targets = 0, n_shown = 0;
        int status, worst = EXIT_OK;

        status = load_inventory(bus, o, &inv);
        if (status != EXIT_OK)
                return status;
        if (n_args == 0 && !o->json)
                return status_summary(inv, o);
        status = targets_parse(bus, inv, args, n_args, &targets, &n_targets, &worst);
        if (status != EXIT_OK)
                return status;

        /* The error counters of the ports shown: the whole host in one
         * call. Without them (an rdmad without counters, or Busy) status
         * shows the rest. */
        shown = calloc(inv->n_ports + 1, sizeof(RdmaPort *));
        if (!shown)
                return report_oom();
        for (size_t i = 0; i < n_targets; i++) {
                size_t n;
                RdmaPort *const *ports = target_ports(inv, &targets[i], &n);

                for (size_t k = 0; k < n && n_shown < inv->n_ports; k++)
                        shown[n_shown++] = ports[k];
        }
        if (counters_fetch(bus, inv, shown, n_shown,
                           COUNTERS_FETCH_QUIET | (n_args == 0 ? COUNTERS_FETCH_EVERY_PORT : 0), &counters) != EXIT_OK)
                counter_table_clear(&counters);
        if (!o->json)
                for (size_t i = 0; i < counters.n_ports; i++)
                        make_printable(counters.ports[i].device);

        root = field_tree_new();
        if (!root)
                return report_oom();
        for (size_t i = 0; i < n_targets; i++)
                add_device(root, inv, &targets[i], &counters, now_usec(CLOCK_REALTIME));
        if (field_tree_check(root) < 0)
                return report_oom();

        if (o->json)
                return print_fields_json(root, o, worst);
        if (n_args == 0 && n_targets == 0) /* silence would look like a hang or a failure */
                printf("No RDMA devices.\n");
        field_tree_text(root, stdout, LABEL_WIDTH, utf8_locale() ? "●" : "*", o->color);
        return finish_output(worst);
}
