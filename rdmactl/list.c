/* SPDX-License-Identifier: MIT */
/* rdmactl list [PATTERN...] [--state=STATE]: one line per port, as a table
 * or as a JSON array, of the ports the patterns name (filter.h) in that
 * state; and the hidden --list=KIND, names one a line for the shell
 * completion. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "basic/util.h"
#include "filter.h"
#include "field-tree.h"
#include "format.h"
#include "rdmactl.h"
#include "verb-util.h"
#include "verbs.h"

int verb_list_names(sd_bus *bus, const Options *o, char **args, size_t n_args) {
        _cleanup_(inventory_freep) Inventory *inv = NULL;
        int status = load_inventory(bus, o, &inv);

        if (status != EXIT_OK)
                return status;
        switch (o->list) {
        case NAMES_DEVICES:
        case NAMES_SRIOV_DEVICES:
                for (size_t i = 0; i < inv->n_devices; i++)
                        if (o->list == NAMES_DEVICES || inventory_find_sriov(inv, inv->devices[i]->sriov))
                                printf("%s\n", inv->devices[i]->name);
                break;
        case NAMES_NETDEVS:
                for (size_t i = 0; i < inv->n_netdevs; i++)
                        printf("%s\n", inv->netdevs[i]->name);
                break;
        case NAMES_PORTS:
                for (size_t i = 0; i < inv->n_ports; i++)
                        printf("%s/%" PRIu32 "\n", port_device_name(inv, inv->ports[i]), inv->ports[i]->number);
                break;
        }
        return finish_output(EXIT_OK);
}

/* Whether any device is not "ok": only then has the table a HEALTH column,
 * so that a healthy host's table stays as it always was. */
static bool any_unhealthy(const Inventory *inv) {
        for (size_t i = 0; i < inv->n_devices; i++)
                if (!device_health_ok(inv->devices[i]))
                        return true;
        return false;
}

/* Under the table with --legend: why a device is not "ok", and what its ports show meanwhile. */
static void print_health_notes(const Inventory *inv, bool color) {
        for (size_t i = 0; i < inv->n_devices; i++) {
                const RdmaDevice *d = inv->devices[i];

                if (device_health_ok(d))
                        continue;
                printf("%s: ", d->name);
                print_colored(color, d->health, health_color(d->health));
                if (*d->health_reason)
                        printf(" (%s)", d->health_reason);
                if (device_unresponsive(d))
                        fputs("; its ports show their last known state", stdout);
                fputs(".\n", stdout);
        }
}

/* The columns of `list`: the text's headers and the JSON's keys. A state
 * by name ("state": "ACTIVE", as `rdma -j` does) and, in JSON, by number. */
enum { COLUMN_HEALTH = 11 };
static const TableColumn list_columns[] = {
        { "DEVICE", "device" },
        { "PORT", "port" },
        { "STATE", "state" },
        { NULL, "state_num", FIELD_JSON_ONLY },
        { "PHYS STATE", "phys_state" },
        { NULL, "phys_state_num", FIELD_JSON_ONLY },
        { "RATE", "rate" },
        { NULL, "rate_gbps", FIELD_JSON_ONLY }, /* RateSpeed as a number; null when unknown */
        { "LINK LAYER", "link_layer" },
        { "NETDEV", "netdev" },
        { "TRANSPORT", "transport" },
        /* The device's: null from an rdmad without Health. */
        [COLUMN_HEALTH] = { "HEALTH", "health" },
        { NULL, "health_reason", FIELD_JSON_ONLY },
};

static int add_port_row(Table *t, const Inventory *inv, const RdmaPort *p) {
        const RdmaDevice *d = inventory_find_device(inv, p->device);
        /* The last known state of a device that does not answer: grey, not green. */
        bool stale = device_unresponsive(d);
        const char *health = port_health(inv, p);
        int r;

        if ((r = table_add(t, port_device_name(inv, p), NULL)) < 0 || (r = table_add_uint(t, p->number, NULL)) < 0 ||
            (r = table_add(t, p->state_name, stale ? ANSI_GREY : state_color(p->state_name))) < 0 ||
            (r = table_add_uint(t, p->state_num, NULL)) < 0 ||
            (r = table_add(t, p->phys_state_name, stale ? ANSI_GREY : phys_state_color(p->phys_state_name))) < 0 ||
            (r = table_add_uint(t, p->phys_state_num, NULL)) < 0 || (r = table_add(t, p->rate, NULL)) < 0 ||
            (r = p->rate_speed > 0 ? table_add_double(t, p->rate_speed, NULL) : table_add(t, NULL, NULL)) < 0 ||
            (r = table_add(t, p->link_layer, NULL)) < 0 ||
            (r = table_add(t, inventory_netdev_name(inv, p->netdev), NULL)) < 0 ||
            (r = table_add(t, port_transport(p, d), NULL)) < 0 ||
            (r = table_add(t, health, health_color(health))) < 0 ||
            (r = table_add(t, health ? d->health_reason : NULL, NULL)) < 0)
                return r;
        return 0;
}

int verb_list(sd_bus *bus, const Options *o, char **args, size_t n_args) {
        _cleanup_(inventory_freep) Inventory *inv = NULL;
        _cleanup_(table_freep) Table *t = NULL;
        _cleanup_(port_filter_done) PortFilter filter = { .state = o->wait_state };
        const char *bad = NULL;
        int status, r;

        r = port_filter_parse(&filter, args, n_args, &bad);
        if (r == -ENOMEM)
                return report_oom();
        if (r < 0)
                return usage_error("'%s' is a port number: name its device first, as in 'mlx5_0 %s'.", bad, bad);
        status = load_inventory(bus, o, &inv);
        if (status != EXIT_OK)
                return status;
        /* A typo must not look like a host without such ports. */
        bad = port_filter_unmatched(&filter, inv);
        if (bad) {
                fprintf(stderr, "rdmactl: no device, port or network interface matches '%s'.\n", bad);
                return EXIT_NO_SUCH_DEVICE;
        }
        t = table_new_columns(ELEMENTSOF(list_columns), list_columns);
        if (!t)
                return report_oom();
        for (size_t i = 0; i < inv->n_ports; i++)
                if (port_filter_keeps(&filter, inv, inv->ports[i]) && add_port_row(t, inv, inv->ports[i]) < 0)
                        return report_oom(); /* table_add() fails for memory only */

        if (o->json)
                return print_table_json(t, o, EXIT_OK);
        if (!any_unhealthy(inv))
                table_hide_column(t, COLUMN_HEALTH);
        if (table_rows(t) > 0 || o->legend)
                table_print(t, stdout, o->legend, o->color);
        if (o->legend) {
                fputc('\n', stdout);
                print_health_notes(inv, o->color);
                printf("%zu port%s listed.\n", table_rows(t), table_rows(t) == 1 ? "" : "s");
        }
        return finish_output(EXIT_OK);
}
