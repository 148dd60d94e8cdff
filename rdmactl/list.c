/* SPDX-License-Identifier: MIT */
/* rdmactl list: one line per port, as a table or as a JSON array; and the
 * hidden --list=KIND, names one a line for the shell completion. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "basic/util.h"
#include "format.h"
#include "json-writer.h"
#include "rdmactl.h"
#include "verb-util.h"

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

static int list_json(const Inventory *inv, const Options *o) {
        JsonWriter w;

        json_writer_init(&w, stdout, o->json == JSON_PRETTY);
        json_writer_begin_array(&w);
        for (size_t i = 0; i < inv->n_ports; i++) {
                const RdmaPort *p = inv->ports[i];
                const RdmaDevice *d = inventory_find_device(inv, p->device);
                const char *health = port_health(inv, p);

                json_writer_begin_object(&w);
                json_writer_field_string(&w, "device", port_device_name(inv, p));
                json_writer_field_uint(&w, "port", p->number);
                /* A state by name ("state": "ACTIVE", as `rdma -j` does) and by number. */
                json_writer_field_string(&w, "state", p->state_name);
                json_writer_field_uint(&w, "state_num", p->state_num);
                json_writer_field_string(&w, "phys_state", p->phys_state_name);
                json_writer_field_uint(&w, "phys_state_num", p->phys_state_num);
                json_writer_field_string(&w, "rate", p->rate);
                json_writer_field_string(&w, "link_layer", p->link_layer);
                json_writer_field_string(&w, "netdev", inventory_netdev_name(inv, p->netdev));
                json_writer_field_string(&w, "transport", port_transport(inv, p));
                /* The device's: null from an rdmad without Health. */
                json_writer_field_string(&w, "health", health);
                json_writer_field_string(&w, "health_reason", health ? d->health_reason : NULL);
                json_writer_end_object(&w);
        }
        json_writer_end_array(&w);
        if (json_writer_finish(&w) < 0)
                return report_bus_error("JSON output", -EINVAL, NULL);
        return EXIT_OK;
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

int verb_list(sd_bus *bus, const Options *o, char **args, size_t n_args) {
        static const char *const headers[] = { "DEVICE",     "PORT",   "STATE",     "PHYS STATE", "RATE",
                                               "LINK LAYER", "NETDEV", "TRANSPORT", "HEALTH" };
        _cleanup_(inventory_freep) Inventory *inv = NULL;
        _cleanup_(table_freep) Table *t = NULL;
        bool with_health;
        int status = load_inventory(bus, o, &inv);

        if (status != EXIT_OK)
                return status;
        if (o->json)
                return finish_output(list_json(inv, o));

        with_health = any_unhealthy(inv);
        t = table_new(ELEMENTSOF(headers) - !with_health, headers);
        if (!t)
                return report_oom();
        for (size_t i = 0; i < inv->n_ports; i++) {
                const RdmaPort *p = inv->ports[i];
                const RdmaDevice *d = inventory_find_device(inv, p->device);
                /* The last known state of a device that does not answer: grey, not green. */
                bool stale = device_unresponsive(d);
                const char *health = port_health(inv, p);
                char number[16];
                int r;

                snprintf(number, sizeof(number), "%" PRIu32, p->number);
                if ((r = table_add(t, port_device_name(inv, p), NULL)) < 0 || (r = table_add(t, number, NULL)) < 0 ||
                    (r = table_add(t, p->state_name, stale ? ANSI_GREY : state_color(p->state_name))) < 0 ||
                    (r = table_add(t, p->phys_state_name, stale ? ANSI_GREY : phys_state_color(p->phys_state_name))) <
                            0 ||
                    (r = table_add(t, p->rate, NULL)) < 0 || (r = table_add(t, p->link_layer, NULL)) < 0 ||
                    (r = table_add(t, inventory_netdev_name(inv, p->netdev), NULL)) < 0 ||
                    (r = table_add(t, port_transport(inv, p), NULL)) < 0 ||
                    (with_health && (r = table_add(t, health, health_color(health))) < 0))
                        return report_oom(); /* table_add() fails for memory only */
        }
        if (table_rows(t) > 0 || o->legend)
                table_print(t, stdout, o->legend, o->color);
        if (o->legend) {
                fputc('\n', stdout);
                print_health_notes(inv, o->color);
                printf("%zu port%s listed.\n", table_rows(t), table_rows(t) == 1 ? "" : "s");
        }
        return finish_output(EXIT_OK);
}
