/* SPDX-License-Identifier: MIT */
/* rdmactl gids [NAME...]: the GID tables as show_gids prints them, one
 * line per non-zero entry (DEV, PORT, INDEX, GID, IPv4, VER, NETDEV), or
 * the same rows as a JSON array. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/util.h"
#include "field-tree.h"
#include "format.h"
#include "rdmactl.h"
#include "target.h"
#include "verb-util.h"

static const TableColumn gids_columns[] = {
        { "DEV", "device" }, { "PORT", "port" }, { "INDEX", "index" },   { "GID", "gid" },
        { "IPv4", "ipv4" },  { "VER", "ver" },   { "NETDEV", "netdev" }, { NULL, "type", FIELD_JSON_ONLY },
};

/* show_gids's VER: v1 or v2 for RoCE, nothing on InfiniBand. */
static const char *gid_version(const char *type) {
        if (streq(type, "RoCE v2"))
                return "v2";
        if (streq(type, "IB/RoCE v1"))
                return "v1";
        return *type ? type : NULL;
}

static int add_port_rows(Table *t, const Inventory *inv, const RdmaPort *p) {
        for (size_t i = 0; i < p->n_gids; i++) {
                const RdmaGid *g = &p->gids[i];
                char ipv4[GID_IPV4_MAX];
                int r;

                if ((r = table_add(t, port_device_name(inv, p), NULL)) < 0 ||
                    (r = table_add_uint(t, p->number, NULL)) < 0 || (r = table_add_uint(t, g->index, NULL)) < 0 ||
                    (r = table_add(t, g->gid, NULL)) < 0 || (r = table_add(t, gid_to_ipv4(g->gid, ipv4), NULL)) < 0 ||
                    (r = table_add(t, gid_version(g->type), NULL)) < 0 ||
                    (r = table_add(t, *g->netdev ? g->netdev : NULL, NULL)) < 0 ||
                    (r = table_add(t, *g->type ? g->type : NULL, NULL)) < 0)
                        return r;
        }
        return 0;
}

/* "mlx5_0", "mlx5_0 1", "mlx5_0/1", a netdev; none: every port of the host. */
int verb_gids(sd_bus *bus, const Options *o, char **args, size_t n_args) {
        _cleanup_(inventory_freep) Inventory *inv = NULL;
        _cleanup_(table_freep) Table *t = NULL;
        _cleanup_free_ Target *targets = NULL;
        size_t n_targets = 0;
        int status, worst = EXIT_OK;

        status = load_inventory(bus, o, &inv);
        if (status != EXIT_OK)
                return status;
        t = table_new_columns(ELEMENTSOF(gids_columns), gids_columns);
        if (!t)
                return report_oom();
        status = targets_parse(bus, inv, args, n_args, &targets, &n_targets, &worst);
        if (status != EXIT_OK)
                return status;
        for (size_t k = 0; k < n_targets; k++) {
                size_t n;
                RdmaPort *const *ports = inventory_device_ports(inv, targets[k].device->path, &n);

                for (size_t i = 0; i < n; i++)
                        if ((targets[k].port == 0 || targets[k].port == ports[i]->number) &&
                            add_port_rows(t, inv, ports[i]) < 0)
                                return report_oom(); /* table_add() fails for memory only */
        }

        if (o->json)
                return print_table_json(t, o, worst);
        if (table_rows(t) > 0 || o->legend)
                table_print(t, stdout, o->legend, o->color);
        if (o->legend)
                printf("\n%zu GID%s listed.\n", table_rows(t), table_rows(t) == 1 ? "" : "s");
        return finish_output(worst);
}
