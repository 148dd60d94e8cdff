/* SPDX-License-Identifier: MIT */
#pragma once

/* What rdmactl knows about the daemon's objects: filled from one
 * GetManagedObjects reply, and kept current by `monitor` from
 * InterfacesAdded / InterfacesRemoved / PropertiesChanged bodies, which
 * carry the same a{sa{sv}} / a{sv} shapes. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

#include "api/rdmad-api.h"

typedef struct RdmaGid {
        uint32_t index;
        char *gid;
        char *type;   /* "IB/RoCE v1", "RoCE v2", "" */
        char *netdev; /* "ens1f0np0", "" */
} RdmaGid;

/* The Port properties a client shows as they are, a row each: RdmaPort's
 * field, its decoding (inventory-decode.c), its value on `rdmactl status`'s
 * line under the port ("LID 5, SM LID 1, ...") and in its JSON, and
 * `rdmactl monitor`'s line for a change are all made from it.
 * X(bus name, type, field, JSON key, label, text, flags): type UINT32 or
 * UINT64; text DEC or HEX32 (8 hex digits); flags PORT_SHOWN_MONITOR (a
 * change is told), PORT_SHOWN_IB_ONLY (no text on Ethernet: LIDs). */
#define PORT_SHOWN_PROPERTIES(X)                                                                                       \
        X(RDMAD_PORT_PROPERTY_LID, UINT32, lid, "lid", "LID", DEC, PORT_SHOWN_MONITOR | PORT_SHOWN_IB_ONLY)            \
        X(RDMAD_PORT_PROPERTY_SM_LID, UINT32, sm_lid, "sm_lid", "SM LID", DEC,                                         \
          PORT_SHOWN_MONITOR | PORT_SHOWN_IB_ONLY)                                                                     \
        X(RDMAD_PORT_PROPERTY_LID_MASK_COUNT, UINT32, lid_mask_count, "lmc", "LMC", DEC,                               \
          PORT_SHOWN_MONITOR | PORT_SHOWN_IB_ONLY)                                                                     \
        X(RDMAD_PORT_PROPERTY_SM_SL, UINT32, sm_sl, "sm_sl", "SM SL", DEC, PORT_SHOWN_MONITOR | PORT_SHOWN_IB_ONLY)    \
        X(RDMAD_PORT_PROPERTY_CAP_MASK, UINT32, cap_mask, "cap_mask", "capabilities", HEX32, PORT_SHOWN_IB_ONLY)

typedef enum PortShownFlags {
        PORT_SHOWN_MONITOR = 1 << 0,
        PORT_SHOWN_IB_ONLY = 1 << 1,
} PortShownFlags;

#define PORT_SHOWN_CTYPE_UINT32                                     uint32_t
#define PORT_SHOWN_CTYPE_UINT64                                     uint64_t
#define PORT_SHOWN_FIELD(bus, type, field, key, label, text, flags) PORT_SHOWN_CTYPE_##type field;
#define PORT_SHOWN_ENUM(bus, type, field, key, label, text, flags)  PORT_SHOWN_##field,

typedef enum PortShown { PORT_SHOWN_PROPERTIES(PORT_SHOWN_ENUM) _PORT_SHOWN_MAX } PortShown;

/* A row as data, for the code that walks them (key and label as in the list). */
typedef struct PortShownProperty {
        const char *key, *label;
        size_t offset, size; /* in RdmaPort */
        PortShownFlags flags;
} PortShownProperty;

extern const PortShownProperty port_shown_properties[_PORT_SHOWN_MAX];

/* One entry of Port.LinkHistory. */
typedef struct RdmaLinkChange {
        uint64_t usec; /* CLOCK_REALTIME */
        char *old_state, *new_state;
} RdmaLinkChange;

typedef struct RdmaPort {
        char *path;
        char *device; /* object path */
        uint32_t number;
        char *state_name, *phys_state_name;
        uint32_t state_num, phys_state_num;
        char *rate, *link_layer;
        char *transport;                        /* this port's: a VPI card's ports differ */
        char *link_width, *link_speed;          /* "4X", "EDR" */
        char *rate_info;                        /* "4X EDR" */
        double rate_speed;                      /* Gb/s, 0 when unknown */
        PORT_SHOWN_PROPERTIES(PORT_SHOWN_FIELD) /* lid, sm_lid, lid_mask_count, sm_sl, cap_mask, ... */
        char *netdev;                           /* object path, "/" for none */
        RdmaGid *gids;
        size_t n_gids;
        uint64_t state_changed_usec;
        uint64_t state_changes;
        char *link_events;            /* "verbs", "rtnetlink", "poll" */
        char *port_guid;              /* "9803:9b03:009f:cfd6", "" when unknown or from an older rdmad */
        RdmaLinkChange *link_history; /* oldest first, as rdmad sends it */
        size_t n_link_history;
} RdmaPort;

typedef struct RdmaNetDev {
        char *path;
        char *name;
        char *device, *port; /* object paths */
        uint32_t dev_port, mtu;
        char *oper_state, *address;
} RdmaNetDev;

typedef struct RdmaSriov {
        char *path;
        char *device;      /* object path */
        char *device_path; /* sysfs path of the PCI function */
        uint32_t num_vfs, total_vfs;
} RdmaSriov;

typedef struct RdmaDevice {
        char *path;
        char *name;
        char *sysfs_path, *device_path, *driver, *node_type, *transport;
        char *pci_address;
        int32_t numa_node;        /* -1: none */
        char *physical_function;  /* object path, "/" for none */
        char **virtual_functions; /* object paths */
        char *node_guid, *sys_image_guid, *firmware_version, *hca_type, *hw_rev, *board_id, *node_description;
        char *health;        /* "ok", "errors", "unresponsive"; "" from an rdmad that does not say */
        char *health_reason; /* "" when ok: "ports/1/state: no answer for 5.0 s" */
        bool sriov_capable;
        char *sriov; /* object path, "/" for none */
        uint32_t *port_numbers;
        size_t n_port_numbers;
} RdmaDevice;

/* The port's transport, the one rule of every client: its own
 * Port.Transport (a VPI card's ports differ); from an rdmad older than
 * that, what rdmad would say (transport_from(): an RNIC's is iWARP, else
 * by the port's link layer: InfiniBand, RoCE, otherwise "unknown"), never
 * the device's, which is "mixed" for such a card. d: the port's device,
 * NULL when unknown. */
const char *port_transport(const RdmaPort *p, const RdmaDevice *d);

/* Whether a device's files answer as they should: Health "ok", or none
 * at all (an rdmad older than Health). */
bool device_health_ok(const RdmaDevice *d);
/* Its reads hang: its objects carry the last values read, not the present. */
bool device_unresponsive(const RdmaDevice *d);

/* Arrays of pointers, so that an entry keeps its address when others come
 * and go; in the order inventory_sort() gives. The index finds them by path
 * and name and links each device to its ports and netdevs; an Inventory
 * made by hand (tests) has none, and is searched in order. */
typedef struct Inventory {
        RdmaDevice **devices;
        size_t n_devices;
        RdmaPort **ports;
        size_t n_ports;
        RdmaNetDev **netdevs;
        size_t n_netdevs;
        RdmaSriov **sriovs;
        size_t n_sriovs;
        struct InventoryIndex *index;
} Inventory;

Inventory *inventory_new(void);
Inventory *inventory_free(Inventory *inv);
static inline void inventory_freep(Inventory **inv) {
        inventory_free(*inv);
}

/* Calls GetManagedObjects and loads the reply; the bus error in *error. */
int inventory_load(Inventory *inv, sd_bus *bus, sd_bus_error *error);

/* Loads a GetManagedObjects reply (a{oa{sa{sv}}}) without sorting: for a
 * caller that made the call itself (rdmad-exporter, asynchronously). */
int inventory_read_managed_objects(Inventory *inv, sd_bus_message *reply);

/* Reads one object's a{sa{sv}} (from GetManagedObjects or InterfacesAdded)
 * into the inventory, replacing what it held for that path. */
int inventory_add_object(Inventory *inv, const char *path, sd_bus_message *m);

/* Drops the objects of these interfaces at path (InterfacesRemoved). */
void inventory_remove_object(Inventory *inv, const char *path, char **interfaces);

/* Deep copies of the objects src holds at path (one per interface) into dst. */
int inventory_copy_objects_at(Inventory *dst, const Inventory *src, const char *path);

/* A PropertiesChanged signal into the object it is about; 0 and nothing
 * changed for an object or interface the inventory does not hold. */
int inventory_apply_properties_changed(Inventory *inv, sd_bus_message *m);

/* Devices by name, ports by device name and number, netdevs by name. */
void inventory_sort(Inventory *inv);

RdmaDevice *inventory_find_device(const Inventory *inv, const char *path);
RdmaDevice *inventory_find_device_by_name(const Inventory *inv, const char *name);
RdmaPort *inventory_find_port(const Inventory *inv, const char *path);
RdmaNetDev *inventory_find_netdev(const Inventory *inv, const char *path);
RdmaNetDev *inventory_find_netdev_by_name(const Inventory *inv, const char *name);
RdmaPort *inventory_find_port_by_number(const Inventory *inv, const char *device_path, uint32_t number);
RdmaSriov *inventory_find_sriov(const Inventory *inv, const char *path);

/* The links of the device at device_path: its ports by number, its netdevs
 * by name (n 0 for none, and in an Inventory made by hand). */
RdmaPort *const *inventory_device_ports(const Inventory *inv, const char *device_path, size_t *ret_n);
RdmaNetDev *const *inventory_device_netdevs(const Inventory *inv, const char *device_path, size_t *ret_n);

/* The name of the device or netdev behind an object path; NULL for "/" or unknown. */
const char *inventory_device_name(const Inventory *inv, const char *path);
const char *inventory_netdev_name(const Inventory *inv, const char *path);

/* For text on a terminal: every control character in every string becomes
 * '?', so that a device attribute cannot move the cursor or set colours. */
void inventory_make_printable(Inventory *inv);
/* The same for the objects at path alone: what a signal just added or changed. */
void inventory_make_printable_at(Inventory *inv, const char *path);
