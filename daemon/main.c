/* SPDX-License-Identifier: MIT */
#include <getopt.h>
#include <libudev.h>
#include <stdio.h>

#include "enumerate.h"
#include "log.h"
#include "util.h"

static void udev_unrefp(struct udev **u) {
        udev_unref(*u);
}

static void dump_attrs(const char *indent, const char *what, const AttrList *l) {
        for (size_t i = 0; i < l->n; i++)
                printf("%s%s %s=%s\n", indent, what, l->items[i].name, l->items[i].value);
}

/* A readable listing of the model, for checking what rdmad sees on a host. */
static void dump_device(const Device *d) {
        printf("device %s\n  SysfsPath=%s\n  DevicePath=%s\n  Driver=%s\n  NodeType=%s\n  Transport=%s\n"
               "  NodeGuid=%s\n  SysImageGuid=%s\n  FirmwareVersion=%s\n  HcaType=%s\n  HwRev=%s\n  BoardId=%s\n"
               "  NodeDescription=%s\n  SriovCapable=%s NumVfs=%u TotalVfs=%u\n",
               d->name, d->sysfs_path, d->device_path, d->driver, d->node_type, d->transport, d->node_guid,
               d->sys_image_guid, d->fw_ver, d->hca_type, d->hw_rev, d->board_id, d->node_desc,
               d->sriov_capable ? "yes" : "no", d->num_vfs, d->total_vfs);
        dump_attrs("  ", "attr", &d->attributes);
        dump_attrs("  ", "power", &d->power_attributes);
        for (size_t i = 0; i < d->n_ports; i++) {
                const Port *p = &d->ports[i];
                printf("  port %u\n    State=%s (%u, %s)\n    PhysState=%s (%u, %s)\n"
                       "    Rate=%s (%g %s, %s)\n    LinkLayer=%s\n    Lid=%u SmLid=%u LidMaskCount=%u SmSl=%u "
                       "CapMask=0x%08x\n    NetDev=%s\n",
                       p->number, p->state, p->state_num, p->state_name, p->phys_state, p->phys_state_num,
                       p->phys_state_name, p->rate, p->rate_speed, p->rate_unit, p->rate_info, p->link_layer,
                       p->lid, p->sm_lid, p->lid_mask_count, p->sm_sl, p->cap_mask, p->netdev);
                for (size_t j = 0; j < p->n_gids; j++)
                        printf("    gid %u %s %s\n", p->gids[j].index, p->gids[j].gid, p->gids[j].type);
        }
        for (size_t i = 0; i < d->n_netdevs; i++) {
                const NetDev *n = &d->netdevs[i];
                printf("  netdev %s DevPort=%u Port=%u OperState=%s Address=%s Mtu=%u\n", n->name, n->dev_port,
                       n->port, n->operstate, n->address, n->mtu);
        }
}

int main(int argc, char *argv[]) {
        _cleanup_(udev_unrefp) struct udev *udev = NULL;
        Device **devices = NULL;
        size_t n = 0;
        bool dump = false;
        int r, c;

        static const struct option options[] = {
                { "dump", no_argument, NULL, 'd' },
                { "log-level", required_argument, NULL, 'l' },
                {},
        };

        while ((c = getopt_long(argc, argv, "", options, NULL)) >= 0)
                switch (c) {
                case 'd':
                        dump = true;
                        break;
                case 'l':
                        r = log_level_from_string(optarg);
                        if (r < 0)
                                return log_error("Invalid log level: %s", optarg), 1;
                        log_set_max_level(r);
                        break;
                default:
                        return 1;
                }

        udev = udev_new();
        if (!udev)
                return log_oom(), 1;

        r = enumerate_devices(udev, &devices, &n);
        if (r < 0)
                return 1;
        if (dump)
                for (size_t i = 0; i < n; i++)
                        dump_device(devices[i]);
        device_array_free(devices, n);
        return 0;
}
