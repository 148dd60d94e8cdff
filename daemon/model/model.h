/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "forward.h"
#include "sysfs.h"

/* The in-memory model of one RDMA device as sysfs shows it. Every string is
 * valid UTF-8 and never NULL ("" where sysfs had nothing readable). */

typedef struct Gid {
        uint32_t index;
        char *gid;
        char *type; /* gid_attrs/types/<i>, "" on InfiniBand */
        char *ndev; /* gid_attrs/ndevs/<i>, "" on InfiniBand or when unreadable */
} Gid;

/* One file as a reader thread found it: its contents (trimmed) or -errno. */
typedef struct FileValue {
        int result;
        bool skipped;
        char *value;
        size_t len;
} FileValue;
void file_values_clear(FileValue *v, size_t n);

typedef enum DeviceHealth {
        DEVICE_HEALTH_OK,
        DEVICE_HEALTH_ERRORS,
        DEVICE_HEALTH_UNRESPONSIVE,
        _DEVICE_HEALTH_MAX,
} DeviceHealth;
const char *device_health_to_string(DeviceHealth h);

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
         * port across re-reads of its device (port-history.h). */
        struct LinkHistory *history;
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
        char *transport;   /* the ports', "mixed" if they differ */
        char *pci_address; /* the parent PCI function's "0000:3b:00.0", "" if not PCI */
        int32_t numa_node; /* the parent's numa_node, -1 when absent */
        char *physfn_path; /* a VF's PF (its parent's physfn link), as device_path; "" else */
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
};

/* Reads everything about the device at syspath (its /sys/devices/... path as
 * udev names it). Missing or unreadable files become "" and 0; only a device
 * directory that cannot be opened at all, or OOM, is an error. */
int device_load(const char *syspath, const char *name, Device **ret);
Device *device_free(Device *d);
static inline void device_freep(Device **d) {
        device_free(*d);
}

/* The ports' common transport, "mixed" if they differ; without ports, from
 * the node type ("iWARP" for an RNIC, else "unknown"). */
const char *device_transport(const Device *d);

const Port *device_find_port(const Device *d, uint32_t number);
/* The index in d->ports of port number, n_ports if there is none: for who
 * holds a mutable Device and needs a mutable Port, without a cast. */
size_t device_port_index(const Device *d, uint32_t number);

/* Which mechanism reports the port's link changes: "rtnetlink" for an
 * Ethernet link layer (RoCE, iWARP), "verbs" on a device whose verbs
 * context is open, "poll" otherwise. */
const char *port_link_events(const Port *p);
const NetDev *device_find_netdev(const Device *d, const char *name);

/* The port's GUID, the interface ID of GID index 0 as sysfs prints a GUID
 * ("9803:9b03:009f:cfd6"), in buf; "" without a GID 0 or with an all-zero
 * interface ID. */
#define PORT_GUID_MAX 20
const char *port_guid(const Port *p, char buf[static PORT_GUID_MAX]);

/* A port's and a netdev's re-reads in two halves, for the reader pool: the reads on a
 * reader thread into values (no model touched), and their application on
 * the loop. PORT_LINK_FILES values for the link, PORT_UNREPORTED_FILES for
 * the unreported files, NETDEV_FILES for a netdev. */
#define PORT_LINK_FILES       7
#define PORT_UNREPORTED_FILES 2
#define NETDEV_FILES          5
int port_read_link(const char *device_path, uint32_t number, bool ethernet, FileValue *values);
/* A state value as the kernel prints it ("4: ACTIVE"); "" or garbage is not. */
bool port_state_parses(const char *value);
/* After a full read whose state did not parse: old's state, kept. */
int port_keep_state(Port *p, const Port *old);
int port_apply_link(Port *p, const FileValue *values, PropertyMask *ret_changed);
int port_read_unreported(const char *device_path, uint32_t number, FileValue *values);
int port_apply_unreported(Port *p, const FileValue *values, PropertyMask *ret_changed);
/* GIDs: read into a set of their own, which the apply takes. */
typedef struct GidSet {
        Gid *gids;
        size_t n_gids;
        char *gid_ndev;
} GidSet;
void gid_set_clear(GidSet *s);
int port_read_gids(const char *device_path, uint32_t number, bool infiniband, GidSet *ret);
int port_apply_gids(Port *p, GidSet *s, PropertyMask *ret_changed);
int netdev_read(const char *name, FileValue *values);
int netdev_apply(NetDev *n, const FileValue *values, PropertyMask *ret_changed);
/* A published stand-in for a device whose first read has not returned:
 * its name and path. */
int device_new_placeholder(const char *syspath, const char *name, Device **ret);
