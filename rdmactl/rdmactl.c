/* SPDX-License-Identifier: MIT */
/* rdmactl: the operator's view of the RDMA devices rdmad publishes on the
 * system bus (org.rdmad1), and the two things an operator does with them:
 * wait for a link, change the number of SR-IOV VFs. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bus-errors.h"
#include "format.h"
#include "inventory.h"
#include "rdmactl.h"
#include "target.h"
#include "util.h"
#include "verbs.h"

#define PKTTYAGENT "/usr/bin/pkttyagent"

/* SetNumVfs: a password prompt and a driver creating VFs both take time. */
#define SET_NUM_VFS_CALL_USEC (300ULL * 1000000ULL)
/* WaitForState: rdmad holds a call at most this long (org.rdmad1(5)); longer
 * waits are done in rounds. */
#define WAIT_ROUND_MAX_MS (24ULL * 60 * 60 * 1000)
/* WaitForState: the call outlives the daemon's own timeout by this much. */
#define WAIT_CALL_MARGIN_USEC (10ULL * 1000000ULL)

static void help(void) {
        printf("rdmactl [OPTIONS...] COMMAND ...\n"
               "\n"
               "Show and control the RDMA devices that rdmad publishes on the system bus.\n"
               "\n"
               "Commands:\n"
               "  list                      One line per port (the default command)\n"
               "  status [NAME...]          Everything known about devices, their ports and netdevs\n"
               "  monitor                   Print device, port and SR-IOV changes until interrupted,\n"
               "                            across restarts of rdmad\n"
               "  wait PORT STATE           Wait until a port is in STATE (ACTIVE, DOWN, INIT, ARMED, ...,\n"
               "                            or the kernel's number: 4 is ACTIVE)\n"
               "  set-vfs DEVICE COUNT      Set the number of SR-IOV virtual functions\n"
               "\n"
               "A PORT is 'DEVICE PORT' (mlx5_0 1), 'DEVICE/PORT' (mlx5_0/1) or a netdev (ib0);\n"
               "a NAME is a DEVICE or a PORT.\n"
               "\n"
               "Options:\n"
               "  -h --help                 Show this help\n"
               "     --version              Show the version\n"
               "     --json=pretty|short|off\n"
               "                            JSON output (list, status, monitor); --json is short\n"
               "     --no-legend            No header and footer (list)\n"
               "     --no-color             No colours, even on a terminal\n"
               "     --no-pager             Accepted; rdmactl never pages\n"
               "     --timeout=SPAN         wait: give up after SPAN (30s, 500ms, 2min; a bare number\n"
               "                            is seconds; default: never; 0: check only)\n"
               "     --no-ask-password      set-vfs: never ask for a password\n"
               "     --exit-on-disconnect   monitor: exit (status 3) when rdmad leaves the bus\n"
               "                            instead of waiting for it to return\n"
               "\n"
               "Exit status:\n"
               "  0 success, 1 failure, 2 invalid arguments, 3 rdmad not running or no system bus,\n"
               "  4 no such device or port, 5 timeout, 6 permission denied\n"
               "\n"
               "See rdmactl(1).\n");
}

/* Stdout errors (a full disk, a closed pipe) are failures too. */
static int finish_output(int status) {
        if (fflush(stdout) != 0 || ferror(stdout)) {
                fprintf(stderr, "rdmactl: cannot write the output: %m\n");
                return status == EXIT_OK ? EXIT_FAILURE_GENERIC : status;
        }
        return status;
}

static bool utf8_locale(void) {
        const char *codeset = nl_langinfo(CODESET);
        return codeset && (streq(codeset, "UTF-8") || streq(codeset, "utf8"));
}

static int load(sd_bus *bus, const Options *o, Inventory **ret) {
        _cleanup_(inventory_freep) Inventory *inv = inventory_new();
        sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;

        if (!inv)
                return report_bus_error("GetManagedObjects", -ENOMEM, NULL);
        r = inventory_load(inv, bus, &error);
        if (r < 0) {
                int status = report_bus_error("GetManagedObjects", r, &error);
                sd_bus_error_free(&error);
                return status;
        }
        if (!o->json)
                inventory_make_printable(inv);
        *ret = TAKE_PTR(inv);
        return EXIT_OK;
}

static const char *port_device_name(const Inventory *inv, const RdmaPort *p) {
        return inventory_device_name(inv, p->device) ?: "";
}

/* --list=KIND: names one a line, for the shell completion. */
static int verb_list_names(sd_bus *bus, const Options *o, char **args, size_t n_args) {
        _cleanup_(inventory_freep) Inventory *inv = NULL;
        int status = load(bus, o, &inv);

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

/* The port's own transport (a VPI card's ports differ); a daemon from
 * before Port.Transport gives only the device's. */
static const char *port_transport(const Inventory *inv, const RdmaPort *p) {
        const RdmaDevice *d = inventory_find_device(inv, p->device);

        if (*p->transport)
                return p->transport;
        return d ? d->transport : "";
}

/* JSON carries a state by name ("state": "ACTIVE", as `rdma -j` does) and by number. */
static void json_port_states(FILE *f, bool *first, const RdmaPort *p) {
        json_field_string(f, first, "state", p->state_name);
        json_field_uint(f, first, "state_num", p->state_num);
        json_field_string(f, first, "phys_state", p->phys_state_name);
        json_field_uint(f, first, "phys_state_num", p->phys_state_num);
}

static void list_json(FILE *f, const Inventory *inv) {
        fputc('[', f);
        for (size_t i = 0; i < inv->n_ports; i++) {
                const RdmaPort *p = inv->ports[i];
                bool first = true;

                fputs(i == 0 ? "{" : ",{", f);
                json_field_string(f, &first, "device", port_device_name(inv, p));
                json_field_uint(f, &first, "port", p->number);
                json_port_states(f, &first, p);
                json_field_string(f, &first, "rate", p->rate);
                json_field_string(f, &first, "link_layer", p->link_layer);
                json_field_string(f, &first, "netdev", inventory_netdev_name(inv, p->netdev));
                json_field_string(f, &first, "transport", port_transport(inv, p));
                fputc('}', f);
        }
        fputc(']', f);
}

/* Writes a JSON document with `write` and prints it as --json= asks. */
static int print_json(const Options *o, void (*write)(FILE *f, const void *userdata), const void *userdata) {
        JsonDoc doc;

        if (json_doc_begin(&doc) < 0)
                return report_bus_error("JSON output", -ENOMEM, NULL);
        write(doc.f, userdata);
        if (json_doc_end(&doc, stdout, o->json == JSON_PRETTY) < 0)
                return report_bus_error("JSON output", -ENOMEM, NULL);
        return EXIT_OK;
}

static void write_list_json(FILE *f, const void *userdata) {
        list_json(f, userdata);
}

static int verb_list(sd_bus *bus, const Options *o, char **args, size_t n_args) {
        static const char *const headers[] = { "DEVICE",     "PORT",   "STATE",    "PHYS STATE",
                                                "RATE",       "LINK LAYER", "NETDEV", "TRANSPORT" };
        _cleanup_(inventory_freep) Inventory *inv = NULL;
        _cleanup_(table_freep) Table *t = NULL;
        int status = load(bus, o, &inv);

        if (status != EXIT_OK)
                return status;
        if (o->json) {
                status = print_json(o, write_list_json, inv);
                return finish_output(status);
        }

        t = table_new(ELEMENTSOF(headers), headers);
        if (!t)
                return report_bus_error("list", -ENOMEM, NULL);
        for (size_t i = 0; i < inv->n_ports; i++) {
                const RdmaPort *p = inv->ports[i];
                char number[16];
                int r;

                snprintf(number, sizeof(number), "%" PRIu32, p->number);
                if ((r = table_add(t, port_device_name(inv, p), NULL)) < 0 || (r = table_add(t, number, NULL)) < 0 ||
                    (r = table_add(t, p->state_name, state_color(p->state_name))) < 0 ||
                    (r = table_add(t, p->phys_state_name, phys_state_color(p->phys_state_name))) < 0 ||
                    (r = table_add(t, p->rate, NULL)) < 0 || (r = table_add(t, p->link_layer, NULL)) < 0 ||
                    (r = table_add(t, inventory_netdev_name(inv, p->netdev), NULL)) < 0 ||
                    (r = table_add(t, port_transport(inv, p), NULL)) < 0)
                        return report_bus_error("list", r, NULL);
        }
        if (table_rows(t) > 0 || o->legend)
                table_print(t, stdout, o->legend, o->color);
        if (o->legend)
                printf("\n%zu port%s listed.\n", table_rows(t), table_rows(t) == 1 ? "" : "s");
        return finish_output(EXIT_OK);
}

/* ---- status ---- */

#define LABEL_WIDTH 19

static void field(const char *label, const char *value) {
        if (value && *value)
                printf("%*s: %s\n", LABEL_WIDTH, label, value);
}

static void continuation(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void continuation(const char *fmt, ...) {
        va_list ap;

        printf("%*s", LABEL_WIDTH + 2, "");
        va_start(ap, fmt);
        vprintf(fmt, ap);
        va_end(ap);
        putchar('\n');
}

static uint32_t netdev_port_number(const Inventory *inv, const RdmaNetDev *n) {
        const RdmaPort *p = inventory_find_port(inv, n->port);
        return p ? p->number : 0;
}

/* Whether a port (of t's device) is one that t shows: all of them, or the one named. */
static bool target_shows_port(const Target *t, uint32_t number) {
        return t->port == 0 || t->port == number;
}

static void status_text(const Inventory *inv, const Target *t, const Options *o) {
        const RdmaDevice *d = t->device;
        size_t n_ports = 0, n_active = 0;
        const RdmaSriov *s = inventory_find_sriov(inv, d->sriov);
        bool first;

        for (size_t i = 0; i < inv->n_ports; i++)
                if (streq(inv->ports[i]->device, d->path) && target_shows_port(t, inv->ports[i]->number)) {
                        n_ports++;
                        n_active += streq(inv->ports[i]->state_name, "ACTIVE");
                }
        /* The bullet tells at a glance: all ports up, some, none. */
        print_colored(o->color, utf8_locale() ? "●" : "*",
                      n_ports == 0          ? NULL
                      : n_active == n_ports ? ANSI_GREEN
                      : n_active > 0        ? ANSI_YELLOW
                                            : ANSI_RED);
        printf(" %s\n", d->name);

        field("Transport", d->transport);
        field("Node type", d->node_type);
        field("Driver", d->driver);
        field("PCI address", d->pci_address);
        if (d->numa_node >= 0)
                printf("%*s: %" PRIi32 "\n", LABEL_WIDTH, "NUMA node", d->numa_node);
        field("Physical function", inventory_device_name(inv, d->physical_function));
        for (size_t i = 0; d->virtual_functions && d->virtual_functions[i]; i++) {
                const char *vf = inventory_device_name(inv, d->virtual_functions[i]);
                if (i == 0)
                        printf("%*s: ", LABEL_WIDTH, "Virtual functions");
                printf("%s%s", i > 0 ? ", " : "", vf ?: d->virtual_functions[i]);
                if (!d->virtual_functions[i + 1])
                        putchar('\n');
        }
        field("Sysfs path", d->sysfs_path);
        field("Node GUID", d->node_guid);
        field("System image GUID", d->sys_image_guid);
        field("Firmware", d->firmware_version);
        field("HCA type", d->hca_type);
        field("HW revision", d->hw_rev);
        field("Board ID", d->board_id);
        field("Node description", d->node_description);
        if (s)
                printf("%*s: %" PRIu32 " of %" PRIu32 " VFs\n", LABEL_WIDTH, "SR-IOV", s->num_vfs, s->total_vfs);

        first = true;
        for (size_t i = 0; i < inv->n_netdevs; i++) {
                const RdmaNetDev *n = inv->netdevs[i];
                uint32_t port = netdev_port_number(inv, n);
                char where[32] = "";

                if (!streq(n->device, d->path) || (t->port > 0 && port != t->port))
                        continue;
                if (port > 0)
                        snprintf(where, sizeof(where), " (port %" PRIu32 ")", port);
                if (first)
                        printf("%*s: ", LABEL_WIDTH, "NetDevs");
                else
                        printf("%*s", LABEL_WIDTH + 2, "");
                first = false;
                printf("%s%s: %s, MTU %" PRIu32 "%s%s\n", n->name, where, *n->oper_state ? n->oper_state : "-",
                       n->mtu, *n->address ? ", " : "", n->address);
        }

        for (size_t i = 0; i < inv->n_ports; i++) {
                const RdmaPort *p = inv->ports[i];
                const char *netdev = inventory_netdev_name(inv, p->netdev);
                char label[32];

                if (!streq(p->device, d->path) || !target_shows_port(t, p->number))
                        continue;
                snprintf(label, sizeof(label), "Port %" PRIu32, p->number);
                printf("%*s: ", LABEL_WIDTH, label);
                print_colored(o->color, *p->state_name ? p->state_name : "-", state_color(p->state_name));
                fputs(" (", stdout);
                print_colored(o->color, *p->phys_state_name ? p->phys_state_name : "-",
                              phys_state_color(p->phys_state_name));
                printf(")%s%s%s%s", *p->rate ? ", " : "", p->rate, *p->link_layer ? ", " : "", p->link_layer);
                /* RoCE and iWARP say what runs over Ethernet. */
                if (*p->transport && !streq(p->transport, p->link_layer))
                        printf(" (%s)", p->transport);
                printf("%s%s\n", netdev ? ", netdev " : "", netdev ?: "");
                /* LIDs mean nothing on Ethernet (RoCE, iWARP). */
                if (!streq(p->link_layer, "Ethernet"))
                        continuation("LID %" PRIu32 ", SM LID %" PRIu32 ", LMC %" PRIu32 ", SM SL %" PRIu32
                                     ", capabilities 0x%08" PRIx32,
                                     p->lid, p->sm_lid, p->lid_mask_count, p->sm_sl, p->cap_mask);
                if (p->state_changed_usec > 0) {
                        char ts[TIMESTAMP_MAX];
                        continuation("state changed %s", format_timestamp(p->state_changed_usec, ts));
                }
                for (size_t g = 0; g < p->n_gids; g++) {
                        const RdmaGid *gid = &p->gids[g];
                        char ipv4[GID_IPV4_MAX];
                        bool typed = *gid->type, with_netdev = *gid->netdev;

                        /* As show_gids: the IPv4 address of a RoCE GID beside it, then type and netdev. */
                        continuation("GID %" PRIu32 ": %s%s%s%s%s%s%s%s", gid->index, gid->gid,
                                     gid_to_ipv4(gid->gid, ipv4) ? " " : "", gid_to_ipv4(gid->gid, ipv4) ?: "",
                                     typed || with_netdev ? " (" : "", gid->type, typed && with_netdev ? ", " : "",
                                     gid->netdev, typed || with_netdev ? ")" : "");
                }
        }
}

static void status_json(FILE *f, const Inventory *inv, const Target *t) {
        const RdmaDevice *d = t->device;
        const RdmaSriov *s = inventory_find_sriov(inv, d->sriov);
        bool first = true, first_item = true;

        fputs("{", f);
        json_field_string(f, &first, "device", d->name);
        json_field_string(f, &first, "transport", d->transport);
        json_field_string(f, &first, "node_type", d->node_type);
        json_field_string(f, &first, "driver", d->driver);
        json_field_string(f, &first, "device_path", d->device_path);
        json_field_string(f, &first, "pci_address", d->pci_address);
        json_write_key(f, &first, "numa_node");
        if (d->numa_node >= 0)
                fprintf(f, "%" PRIi32, d->numa_node);
        else
                fputs("null", f);
        json_field_string(f, &first, "physical_function", inventory_device_name(inv, d->physical_function));
        json_write_key(f, &first, "virtual_functions");
        fputs("[", f);
        for (size_t i = 0; d->virtual_functions && d->virtual_functions[i]; i++) {
                const char *vf = inventory_device_name(inv, d->virtual_functions[i]);
                if (i > 0)
                        fputs(",", f);
                json_write_string(f, vf ?: d->virtual_functions[i]);
        }
        fputs("]", f);
        json_field_string(f, &first, "sysfs_path", d->sysfs_path);
        json_field_string(f, &first, "node_guid", d->node_guid);
        json_field_string(f, &first, "sys_image_guid", d->sys_image_guid);
        json_field_string(f, &first, "firmware_version", d->firmware_version);
        json_field_string(f, &first, "hca_type", d->hca_type);
        json_field_string(f, &first, "hw_rev", d->hw_rev);
        json_field_string(f, &first, "board_id", d->board_id);
        json_field_string(f, &first, "node_description", d->node_description);
        json_write_key(f, &first, "sriov");
        if (s) {
                bool first_sriov = true;

                fputs("{", f);
                json_field_uint(f, &first_sriov, "num_vfs", s->num_vfs);
                json_field_uint(f, &first_sriov, "total_vfs", s->total_vfs);
                json_field_string(f, &first_sriov, "device_path", s->device_path);
                fputs("}", f);
        } else
                fputs("null", f);

        json_write_key(f, &first, "netdevs");
        fputs("[", f);
        for (size_t i = 0; i < inv->n_netdevs; i++) {
                const RdmaNetDev *n = inv->netdevs[i];
                uint32_t port = netdev_port_number(inv, n);
                bool first_netdev = true;

                if (!streq(n->device, d->path) || (t->port > 0 && port != t->port))
                        continue;
                fputs(first_item ? "{" : ",{", f);
                first_item = false;
                json_field_string(f, &first_netdev, "name", n->name);
                json_write_key(f, &first_netdev, "port");
                if (port > 0)
                        fprintf(f, "%" PRIu32, port);
                else
                        fputs("null", f);
                json_field_uint(f, &first_netdev, "dev_port", n->dev_port);
                json_field_string(f, &first_netdev, "oper_state", n->oper_state);
                json_field_uint(f, &first_netdev, "mtu", n->mtu);
                json_field_string(f, &first_netdev, "address", n->address);
                fputs("}", f);
        }
        fputs("]", f);

        json_write_key(f, &first, "ports");
        fputs("[", f);
        first_item = true;
        for (size_t i = 0; i < inv->n_ports; i++) {
                const RdmaPort *p = inv->ports[i];
                bool first_port = true;

                if (!streq(p->device, d->path) || !target_shows_port(t, p->number))
                        continue;
                fputs(first_item ? "{" : ",{", f);
                first_item = false;
                json_field_uint(f, &first_port, "port", p->number);
                json_port_states(f, &first_port, p);
                json_field_string(f, &first_port, "rate", p->rate);
                json_field_string(f, &first_port, "link_width", p->link_width);
                json_field_string(f, &first_port, "link_speed", p->link_speed);
                json_field_string(f, &first_port, "link_layer", p->link_layer);
                json_field_string(f, &first_port, "transport", port_transport(inv, p));
                json_field_string(f, &first_port, "netdev", inventory_netdev_name(inv, p->netdev));
                json_field_uint(f, &first_port, "lid", p->lid);
                json_field_uint(f, &first_port, "sm_lid", p->sm_lid);
                json_field_uint(f, &first_port, "lmc", p->lid_mask_count);
                json_field_uint(f, &first_port, "sm_sl", p->sm_sl);
                json_field_uint(f, &first_port, "cap_mask", p->cap_mask);
                json_field_uint(f, &first_port, "state_changed_usec", p->state_changed_usec);
                json_write_key(f, &first_port, "gids");
                fputs("[", f);
                for (size_t g = 0; g < p->n_gids; g++) {
                        char ipv4[GID_IPV4_MAX];
                        bool first_gid = true;

                        fputs(g == 0 ? "{" : ",{", f);
                        json_field_uint(f, &first_gid, "index", p->gids[g].index);
                        json_field_string(f, &first_gid, "gid", p->gids[g].gid);
                        /* InfiniBand GIDs have no type: null, not "". */
                        json_field_string(f, &first_gid, "type", *p->gids[g].type ? p->gids[g].type : NULL);
                        json_field_string(f, &first_gid, "netdev", *p->gids[g].netdev ? p->gids[g].netdev : NULL);
                        json_field_string(f, &first_gid, "ipv4", gid_to_ipv4(p->gids[g].gid, ipv4));
                        fputs("}", f);
                }
                fputs("]}", f);
        }
        fputs("]}", f);
}

typedef struct StatusJson {
        const Inventory *inv;
        const Target *targets;
        size_t n_targets;
} StatusJson;

static void write_status_json(FILE *f, const void *userdata) {
        const StatusJson *sj = userdata;

        fputc('[', f);
        for (size_t i = 0; i < sj->n_targets; i++) {
                if (i > 0)
                        fputc(',', f);
                status_json(f, sj->inv, &sj->targets[i]);
        }
        fputc(']', f);
}

/* "mlx4_0", "mlx4_0 1", "mlx4_0/1", "ib0": a device, or one port of it. */
static int verb_status(sd_bus *bus, const Options *o, char **args, size_t n_args) {
        _cleanup_(inventory_freep) Inventory *inv = NULL;
        _cleanup_free_ Target *targets = NULL;
        size_t n_targets = 0;
        int status, worst = EXIT_OK;

        status = load(bus, o, &inv);
        if (status != EXIT_OK)
                return status;

        targets = calloc(n_args > 0 ? n_args : inv->n_devices + 1, sizeof(Target));
        if (!targets)
                return report_bus_error("status", -ENOMEM, NULL);
        if (n_args == 0)
                for (size_t i = 0; i < inv->n_devices; i++)
                        targets[n_targets++] = (Target) { .device = inv->devices[i] };
        for (size_t i = 0; i < n_args;) {
                size_t consumed = 1;

                status = target_parse(bus, inv, args + i, n_args - i, TARGET_PORT_NUMBER, &targets[n_targets],
                                      &consumed);
                i += consumed;
                if (status == EXIT_OK) {
                        n_targets++;
                        continue;
                }
                /* Like systemctl status: the others are still shown. */
                if (worst == EXIT_OK)
                        worst = status;
                if (status == EXIT_NOT_RUNNING)
                        return status;
        }

        if (o->json) {
                StatusJson sj = { inv, targets, n_targets };

                status = print_json(o, write_status_json, &sj);
                return finish_output(status != EXIT_OK ? status : worst);
        }
        if (n_args == 0 && n_targets == 0) /* silence would look like a hang or a failure */
                printf("No RDMA devices.\n");
        for (size_t i = 0; i < n_targets; i++) {
                if (i > 0)
                        putchar('\n');
                status_text(inv, &targets[i], o);
        }
        return finish_output(worst);
}

/* ---- wait ---- */

static int port_path(const char *device_path, uint32_t number, char **ret) {
        return asprintf(ret, "%s/port/%" PRIu32, device_path, number) < 0 ? -ENOMEM : 0;
}

/* The port's state now, for a message; "" when it cannot be read. */
static char *port_state_now(sd_bus *bus, const char *path) {
        char *state = NULL;

        if (sd_bus_get_property_string(bus, RDMAD_BUS_NAME, path, RDMAD_PORT_INTERFACE, "StateName", NULL, &state) < 0)
                return NULL;
        make_printable(state);
        return state;
}

/* rdmad's Timeout error says the span in its own milliseconds; this says it
 * as it was typed, in the units of --timeout. */
static int report_wait_timeout(sd_bus *bus, const Options *o, const char *path, const char *device, uint32_t port,
                               const char *state) {
        _cleanup_free_ char *now = port_state_now(bus, path);
        char span[TIMESPAN_STRING_MAX];

        if (o->timeout_usec == 0)
                fprintf(stderr, "rdmactl: Port %" PRIu32 " of %s is %s, not %s.\n", port, device, now ?: "?", state);
        else
                fprintf(stderr, "rdmactl: Port %" PRIu32 " of %s did not reach %s within %s%s%s.\n", port, device,
                        state, format_timespan(o->timeout_usec, span), now ? "; it is " : "", now ?: "");
        return EXIT_TIMEOUT;
}

/* wait DEVICE PORT STATE, wait DEVICE/PORT STATE, wait NETDEV STATE */
static int verb_wait(sd_bus *bus, const Options *o, char **args, size_t n_args) {
        _cleanup_(inventory_freep) Inventory *inv = NULL;
        _cleanup_free_ char *path = NULL;
        uint64_t remaining = o->timeout_set ? o->timeout_usec : UINT64_MAX;
        const char *state, *state_arg = args[n_args - 1];
        size_t consumed;
        Target t;
        int status, r;

        r = parse_port_state_arg(state_arg, &state);
        if (r == -ERANGE)
                return usage_error("port state %s is out of range; the states are 0 (NOP) to %d (ACTIVE_DEFER).",
                                   state_arg, PORT_STATE_MAX);
        if (r < 0)
                return usage_error("'%s' is not a port state (ACTIVE, DOWN, INIT, ARMED, ACTIVE_DEFER, NOP, "
                                   "or their numbers 0-5).",
                                   state_arg);

        status = load(bus, o, &inv);
        if (status != EXIT_OK)
                return status;
        if (n_args == 3 && !(args[1][0] >= '0' && args[1][0] <= '9'))
                return usage_error("'%s' is not a port number.", args[1]);
        status = target_parse(bus, inv, args, n_args - 1, TARGET_PORT_NUMBER, &t, &consumed);
        if (status != EXIT_OK)
                return status;
        if (consumed != n_args - 1) /* "ib0 1": a netdev already names its port */
                return usage_error("'%s' names a port already; 'wait' takes it and a STATE.", args[0]);
        if (t.port == 0)
                return usage_error("'wait' needs a port: DEVICE PORT, DEVICE/PORT or the network interface of "
                                   "a port, then the STATE.");
        if (port_path(t.device->path, t.port, &path) < 0)
                return report_bus_error("WaitForState", -ENOMEM, NULL);

        for (;;) {
                _cleanup_(sd_bus_message_unrefp) sd_bus_message *call = NULL, *reply = NULL;
                sd_bus_error error = SD_BUS_ERROR_NULL;
                /* The daemon holds a call for a day at most: longer waits are done in rounds. */
                uint64_t ms = remaining == UINT64_MAX ? WAIT_ROUND_MAX_MS : (remaining + 999) / 1000;
                bool last_round = ms <= WAIT_ROUND_MAX_MS;

                if (!last_round)
                        ms = WAIT_ROUND_MAX_MS;
                r = sd_bus_message_new_method_call(bus, &call, RDMAD_BUS_NAME, path, RDMAD_PORT_INTERFACE,
                                                   "WaitForState");
                if (r >= 0)
                        r = sd_bus_message_append(call, "su", state, (uint32_t) ms);
                if (r < 0)
                        return report_bus_error("WaitForState", r, NULL);
                r = sd_bus_call(bus, call, ms * 1000 + WAIT_CALL_MARGIN_USEC, &error, &reply);
                if (r >= 0)
                        return EXIT_OK;

                if (classify_bus_error(r, &error) == BUS_FAILURE_TIMEOUT && remaining == UINT64_MAX) {
                        sd_bus_error_free(&error);
                        continue; /* no --timeout: forever */
                }
                if (classify_bus_error(r, &error) == BUS_FAILURE_TIMEOUT && !last_round) {
                        remaining -= ms * 1000;
                        sd_bus_error_free(&error);
                        continue;
                }
                if (sd_bus_error_has_name(&error, RDMAD_ERROR_TIMEOUT)) {
                        sd_bus_error_free(&error);
                        return report_wait_timeout(bus, o, path, t.device->name, t.port, state);
                }
                if (sd_bus_error_has_name(&error, SD_BUS_ERROR_UNKNOWN_OBJECT)) {
                        fprintf(stderr, "rdmactl: %s has no port %" PRIu32 ".\n", t.device->name, t.port);
                        sd_bus_error_free(&error);
                        return EXIT_NO_SUCH_DEVICE;
                }
                status = report_bus_error("WaitForState", r, &error);
                sd_bus_error_free(&error);
                return status;
        }
}

/* ---- set-vfs ---- */

/* When a person at a terminal may be asked for a password, run polkit's
 * text agent for the duration of the call, as systemctl does. */
static pid_t start_polkit_agent(const Options *o) {
        int pipefd[2];
        char notify[16], buf[1];
        pid_t pid;

        if (!o->ask_password || geteuid() == 0 || !isatty(STDIN_FILENO) || access(PKTTYAGENT, X_OK) < 0)
                return 0;
        if (pipe2(pipefd, O_CLOEXEC) < 0)
                return 0;
        pid = fork();
        if (pid < 0) {
                close(pipefd[0]);
                close(pipefd[1]);
                return 0;
        }
        if (pid == 0) {
                /* The agent reports on this descriptor (by closing it) once it is registered. */
                if (fcntl(pipefd[1], F_SETFD, 0) < 0)
                        _exit(EXIT_FAILURE);
                snprintf(notify, sizeof(notify), "%d", pipefd[1]);
                execl(PKTTYAGENT, PKTTYAGENT, "--notify-fd", notify, "--fallback", (char *) NULL);
                _exit(EXIT_FAILURE);
        }
        close(pipefd[1]);
        while (read(pipefd[0], buf, sizeof(buf)) < 0 && errno == EINTR)
                ;
        close(pipefd[0]);
        return pid;
}

static void stop_polkit_agent(pid_t pid) {
        if (pid <= 0)
                return;
        kill(pid, SIGTERM);
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
                ;
}

static int get_sriov_counts(sd_bus *bus, const char *path, uint32_t *ret_num, uint32_t *ret_total) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        int r, status;

        r = sd_bus_get_property_trivial(bus, RDMAD_BUS_NAME, path, RDMAD_SRIOV_INTERFACE, "NumVfs", &error, 'u',
                                        ret_num);
        if (r >= 0 && ret_total)
                r = sd_bus_get_property_trivial(bus, RDMAD_BUS_NAME, path, RDMAD_SRIOV_INTERFACE, "TotalVfs", &error,
                                                'u', ret_total);
        if (r >= 0)
                return EXIT_OK;
        status = report_bus_error("reading NumVfs", r, &error);
        sd_bus_error_free(&error);
        return status;
}

/* "2 -> 4 VFs": the kernel takes no new count while VFs exist, so rdmad
 * removed the existing ones first; the caller should know they went. */
static void print_vfs_change(const char *device, uint32_t before, uint32_t after, uint32_t total) {
        if (before > 0 && after > 0 && before != after)
                printf("%s: SR-IOV %" PRIu32 " -> %" PRIu32 " VFs (the %" PRIu32 " existing VF%s removed first).\n",
                       device, before, after, before, before == 1 ? " was" : "s were");
        else
                printf("%s: SR-IOV %" PRIu32 " -> %" PRIu32 " VFs (of %" PRIu32 ").\n", device, before, after,
                       total);
}

/* set-vfs DEVICE COUNT; a netdev names its device. */
static int verb_set_vfs(sd_bus *bus, const Options *o, char **args, size_t n_args) {
        _cleanup_(inventory_freep) Inventory *inv = NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *call = NULL;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        const RdmaSriov *sriov;
        uint32_t count, before, after, total;
        Target t;
        pid_t agent;
        int status, r;

        status = load(bus, o, &inv);
        if (status != EXIT_OK)
                return status;
        status = target_parse(bus, inv, args, 1, 0, &t, NULL);
        if (status != EXIT_OK)
                return status;
        sriov = inventory_find_sriov(inv, t.device->sriov);
        if (!sriov) {
                fprintf(stderr, "rdmactl: %s has no SR-IOV controls (its PCI function is not an SR-IOV PF).\n",
                        t.device->name);
                return EXIT_FAILURE_GENERIC;
        }
        r = parse_number_arg(args[1], UINT32_MAX, &count);
        if (r == -ERANGE)
                return usage_error("%s VFs are out of range; %s supports at most %" PRIu32 ".", args[1],
                                   t.device->name, sriov->total_vfs);
        if (r < 0)
                return usage_error("'%s' is not a number of VFs.", args[1]);
        status = get_sriov_counts(bus, sriov->path, &before, NULL);
        if (status != EXIT_OK)
                return status;

        r = sd_bus_message_new_method_call(bus, &call, RDMAD_BUS_NAME, sriov->path, RDMAD_SRIOV_INTERFACE,
                                           "SetNumVfs");
        if (r >= 0)
                r = sd_bus_message_append(call, "u", count);
        /* polkit may then ask the caller's agent for a password instead of refusing outright. */
        if (r >= 0)
                r = sd_bus_message_set_allow_interactive_authorization(call, o->ask_password);
        if (r < 0)
                return report_bus_error("SetNumVfs", r, NULL);

        agent = start_polkit_agent(o);
        r = sd_bus_call(bus, call, SET_NUM_VFS_CALL_USEC, &error, NULL);
        stop_polkit_agent(agent);
        if (r < 0) {
                status = report_bus_error("SetNumVfs", r, &error);
                sd_bus_error_free(&error);
                return status;
        }

        status = get_sriov_counts(bus, sriov->path, &after, &total);
        if (status != EXIT_OK)
                return status;
        print_vfs_change(t.device->name, before, after, total);
        return finish_output(EXIT_OK);
}

/* ---- main ---- */

static int verb_help(sd_bus *bus, const Options *o, char **args, size_t n_args) {
        help();
        return finish_output(EXIT_OK);
}

static int verb_monitor_all(sd_bus *bus, const Options *o, char **args, size_t n_args) {
        return verb_monitor(bus, o);
}

static const Verb verbs[] = {
        { "list", 0, 0, VERB_DEFAULT | VERB_JSON, NULL, verb_list },
        { "status", 0, SIZE_MAX, VERB_JSON, "DEVICE...", verb_status },
        { "monitor", 0, 0, VERB_JSON | VERB_FOLLOWS, NULL, verb_monitor_all },
        { "wait", 2, 3, VERB_TIMEOUT, "PORT STATE", verb_wait },
        { "set-vfs", 2, 2, 0, "DEVICE COUNT", verb_set_vfs },
        { "help", 0, 0, VERB_NO_BUS, NULL, verb_help },
};

/* Hidden, for the shell completion: names one a line, not a command a person types. */
static const Verb list_names_verb = { "--list", 0, 0, 0, NULL, verb_list_names };

enum {
        ARG_VERSION = 0x100,
        ARG_JSON,
        ARG_NO_LEGEND,
        ARG_NO_COLOR,
        ARG_NO_PAGER,
        ARG_TIMEOUT,
        ARG_NO_ASK_PASSWORD,
        ARG_EXIT_ON_DISCONNECT,
        ARG_LIST_DEVICES,
        ARG_LIST,
};

static const struct option long_options[] = {
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, ARG_VERSION },
        { "json", optional_argument, NULL, ARG_JSON },
        { "no-legend", no_argument, NULL, ARG_NO_LEGEND },
        { "no-color", no_argument, NULL, ARG_NO_COLOR },
        { "no-colour", no_argument, NULL, ARG_NO_COLOR },
        { "no-pager", no_argument, NULL, ARG_NO_PAGER },
        { "timeout", required_argument, NULL, ARG_TIMEOUT },
        { "no-ask-password", no_argument, NULL, ARG_NO_ASK_PASSWORD },
        { "exit-on-disconnect", no_argument, NULL, ARG_EXIT_ON_DISCONNECT },
        /* Hidden: for the shell completion. */
        { "list-devices", no_argument, NULL, ARG_LIST_DEVICES },
        { "list", required_argument, NULL, ARG_LIST },
        {},
};

/* getopt's '?' and ':' in words: what was wrong with which option. */
static int option_error(int c, const char *arg) {
        const char *eq = strchr(arg, '=');
        size_t len = eq ? (size_t) (eq - arg) : strlen(arg);

        if (strncmp(arg, "--", 2) != 0) /* a short option */
                return usage_error(c == ':' ? "option '-%c' needs a value." : "unknown option '-%c'.", optopt);
        if (c == ':')
                return usage_error("option '%s' needs a value, as in '%s=VALUE'.", arg, arg);
        /* getopt also says '?' for a value given to an option that takes none. */
        if (eq)
                for (const struct option *opt = long_options; opt->name; opt++)
                        if (opt->has_arg == no_argument && strlen(opt->name) == len - 2 &&
                            strncmp(opt->name, arg + 2, len - 2) == 0)
                                return usage_error("option '%.*s' takes no value.", (int) len, arg);
        return usage_error("unknown option '%.*s'.", (int) len, arg);
}

int main(int argc, char *argv[]) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        Options o = { .legend = true, .ask_password = true };
        bool no_color = false, list_names = false;
        const Verb *verb = NULL;
        char **args;
        size_t n_args;
        int c, r, status;

        setlocale(LC_CTYPE, "");

        /* GNU getopt permutes: options may also follow the command ("wait mlx5_0 1 ACTIVE --timeout=5").
         * The leading ':' has it tell a missing value (':') from an unknown option ('?'). */
        opterr = 0;
        while ((c = getopt_long(argc, argv, ":h", long_options, NULL)) >= 0)
                switch (c) {
                case 'h':
                        help();
                        return finish_output(EXIT_OK);
                case ARG_VERSION:
                        printf("rdmactl %s\n", RDMAD_VERSION);
                        return finish_output(EXIT_OK);
                case ARG_JSON:
                        /* A bare --json is --json=short, one document a line. */
                        if (!optarg)
                                o.json = JSON_SHORT;
                        else if (parse_json_mode(optarg, &o.json) < 0)
                                return usage_error("--json: '%s' is not one of pretty, short, off.", optarg);
                        break;
                case ARG_NO_LEGEND:
                        o.legend = false;
                        break;
                case ARG_NO_COLOR:
                        no_color = true;
                        break;
                case ARG_NO_PAGER:
                        break; /* rdmactl never pages; accepted as systemd's tools accept it */
                case ARG_TIMEOUT: {
                        char max[TIMESPAN_STRING_MAX];

                        r = parse_timespan(optarg, &o.timeout_usec);
                        if (r == -ERANGE)
                                return usage_error("--timeout: '%s' is too long; the maximum is %s "
                                                   "('infinity' waits for ever).",
                                                   optarg, format_timespan(TIMESPAN_MAX_USEC, max));
                        if (r < 0)
                                return usage_error("--timeout: '%s' is not a time span (e.g. 30s, 500ms, 2min; "
                                                   "a bare number is seconds).",
                                                   optarg);
                        o.timeout_set = true;
                        break;
                }
                case ARG_NO_ASK_PASSWORD:
                        o.ask_password = false;
                        break;
                case ARG_EXIT_ON_DISCONNECT:
                        o.exit_on_disconnect = true;
                        break;
                case ARG_LIST_DEVICES:
                        list_names = true;
                        o.list = NAMES_DEVICES;
                        break;
                case ARG_LIST:
                        if (parse_name_kind(optarg, &o.list) < 0)
                                return usage_error("--list: '%s' is not one of devices, sriov-devices, netdevs, "
                                                   "ports.",
                                                   optarg);
                        list_names = true;
                        break;
                case ':':
                case '?':
                        return option_error(c, argv[optind - 1]);
                default:
                        return usage_error("cannot parse the options.");
                }
        o.color = !no_color && colors_wanted(STDOUT_FILENO);

        if (list_names) {
                verb = &list_names_verb;
                args = argv + optind;
                n_args = 0;
        } else {
                status = verb_select(verbs, ELEMENTSOF(verbs), argv + optind, (size_t) (argc - optind), &o, &verb,
                                     &args, &n_args);
                if (status != EXIT_OK)
                        return status;
        }

        if (!(verb->flags & VERB_NO_BUS)) {
                r = sd_bus_open_system(&bus);
                if (r < 0)
                        return report_bus_error("connecting", r, NULL);
        }
        return verb->run(bus, &o, args, n_args);
}
