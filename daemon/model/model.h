/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "forward.h"
#include "read-job.h"
#include "sysfs.h"

/* The in-memory model of one RDMA device as sysfs shows it. Every string is
 * valid UTF-8 and never NULL ("" where sysfs had nothing readable). */

typedef struct Gid {
        uint32_t index;
        char *gid;
        char *type; /* gid_attrs/types/<i>, "" on InfiniBand */
        char *ndev; /* gid_attrs/ndevs/<i>, "" on InfiniBand or when unreadable */
} Gid;

/* What the link poll keeps of a port or a device (link-poll.c); the model
 * only carries it across re-reads of the device. */
typedef struct PollMark {
        bool busy;     /* a device's: a turn of it is queued or being read */
        uint8_t boost; /* ticks left to read the port every tick, after a link event */
        bool settle;   /* its state changed: the next tick re-reads it in full */
        unsigned owed; /* PORT_READ_* its turn wanted while its device was busy */
} PollMark;

struct Port {
        Device *device;
        uint32_t number;

        char *state; /* raw "4: ACTIVE" */
        uint32_t state_num;
        char *state_name;
        char *phys_state;
        uint32_t phys_state_num;
        char *phys_state_name;

        char *rate; /* raw, "" when unreadable */
        double rate_speed;
        char *rate_unit;
        char *rate_info;
        char *link_width; /* "4X", from rate_info */
        char *link_speed; /* "EDR", "" on kernels that print none */

        char *link_layer;
        char *transport; /* InfiniBand, RoCE, iWARP, unknown: from link layer and node type */
        uint32_t lid, sm_lid, lid_mask_count, sm_sl, cap_mask;
        /* What tells us of a link change: "verbs", "rtnetlink" or "poll"
         * (port_link_events()); a static string, never NULL once loaded. */
        const char *link_events;

        char *netdev;   /* ifname of the associated netdev, "" for none */
        char *gid_ndev; /* first name in gid_attrs/ndevs, "" for none */

        Gid *gids;
        size_t n_gids;

        AttrList attributes;

        uint64_t state_changed_usec;
        uint64_t state_changes; /* State changes observed since the daemon started */
        bool state_unparsed;    /* a full read's state did not parse: port_keep_state() */
        /* The last State changes (LinkHistory), NULL for none: kept with the
         * port across re-reads of its device (port.h). */
        struct LinkHistory *history;
        PollMark poll;
};

struct NetDev {
        Device *device;
        char *name;
        uint32_t dev_port;
        uint32_t port; /* port number this netdev serves, 0 for none */
        char *operstate;
        char *address;
        uint32_t mtu;
        AttrList attributes;
};

struct Device {
        Manager *manager; /* set while the device is in the manager's table */
        char *name;
        char *sysfs_path;
        char *device_path; /* parent PCI function, "" for virtual devices */
        char *driver;
        char *node_type;
        uint32_t node_type_num;
        char *transport;           /* the ports', "mixed" if they differ */
        char *pci_address;         /* the parent PCI function's "0000:3b:00.0", "" if not PCI */
        int32_t numa_node;         /* the parent's numa_node, -1 when absent */
        char *physfn_path;         /* a VF's PF (its parent's physfn link), as device_path; "" else */
        Device *physical_function; /* that PF's device while it is in the table (manager.c) */
        char *node_guid;
        char *sys_image_guid;
        char *fw_ver;
        char *hca_type;
        char *hw_rev;
        char *board_id;
        char *node_desc;

        Port *ports; /* sorted by number */
        size_t n_ports;

        NetDev **netdevs; /* sorted by name; each keeps its address while it exists */
        size_t n_netdevs;

        bool sriov_capable;
        uint32_t num_vfs;
        uint32_t total_vfs;

        AttrList attributes;
        AttrList power_attributes;

        bool verbs_covered; /* a verbs context delivers its async events (verbs-events.c) */

        /* Whether its files answer (rdmad(8), SICK ADAPTERS). */
        DeviceHealth health;
        char *health_reason; /* "" when ok */
        /* The device's lane of the reader pool (NULL without one), and
         * whether the poll's last turn of it is still being read. */
        struct ReaderLane *lane;
        bool placeholder; /* published before its first read returned (start-up) */
        PollMark poll;
};
