/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "forward.h"
#include "model.h"
#include "reader-pool.h"

/* What the manager has read of a device on the reader pool: the jobs'
 * arguments and their run() halves. A job carries copies of what it needs
 * (paths, names, the state the model has) and never touches the model; its
 * results are applied on the loop (manager.c), the only way values enter
 * the model. */

typedef enum DeviceReadKind {
        DEVICE_READ_LOAD,    /* the whole device: device_load() */
        DEVICE_READ_PORTS,   /* some of its ports' files */
        DEVICE_READ_NETDEV,  /* one of its netdevs */
        DEVICE_READ_NUM_VFS, /* sriov_numvfs of its PCI function */
} DeviceReadKind;

/* What to read of a port (PortRead.what, and .done for what was read). */
enum {
        PORT_READ_STATE = 1 << 0,      /* the state through a kept descriptor; the link if it differs */
        PORT_READ_LINK = 1 << 1,       /* port_read_link() */
        PORT_READ_UNREPORTED = 1 << 2, /* port_read_unreported() */
        PORT_READ_GIDS = 1 << 3,       /* port_read_gids() */
};

typedef struct PortRead {
        uint32_t number;
        unsigned what, done;
        bool ethernet, infiniband;
        char *expected_state; /* PORT_READ_STATE: the model's state */
        FileValue link[PORT_LINK_FILES];
        FileValue unreported[PORT_UNREPORTED_FILES];
        GidSet gids;
} PortRead;

typedef struct DeviceRead {
        Manager *manager; /* the loop's: apply() only */
        DeviceReadKind kind;
        char *name;
        char *sysfs_path;
        int error; /* a lack of resources stopped the read; -errno of a LOAD */

        Device *device; /* LOAD */
        char *old_name; /* LOAD of a renamed device: the name it replaces */
        bool from_poll; /* PORTS: the poll's turn */
        PortRead *ports;
        size_t n_ports;
        char *netdev; /* NETDEV */
        FileValue netdev_values[NETDEV_FILES];
        char *pci_path; /* NUM_VFS */
        uint32_t num_vfs;
        unsigned rescan; /* LOAD of a rescan: its Manager.rescan_epoch; 0 for none */
} DeviceRead;

DeviceRead *device_read_new(Manager *m, DeviceReadKind kind, const Device *d, const char *name, const char *sysfs_path);
void device_read_free(void *arg);
/* Adds a port to read; NULL without memory. */
PortRead *device_read_add_port(DeviceRead *r, const Port *p, unsigned what);
void device_read_run(ReaderLane *lane, void *arg);
