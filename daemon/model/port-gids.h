/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "forward.h"
#include "model.h"

/* A port's GID table (port-gids.c). */

/* The port's GUID, the interface ID of GID index 0 as sysfs prints a GUID
 * ("9803:9b03:009f:cfd6"), in buf; "" without a GID 0 or with an all-zero
 * interface ID. */
#define PORT_GUID_MAX 20
const char *port_guid(const Port *p, char buf[static PORT_GUID_MAX]);

/* GIDs: read into a set of their own, which the apply takes. */
typedef struct GidSet {
        Gid *gids;
        size_t n_gids;
        char *gid_ndev;
} GidSet;
void gid_set_clear(GidSet *s);
int port_read_gids(const char *device_path, uint32_t number, bool infiniband, GidSet *ret);
int port_apply_gids(Port *p, GidSet *s, PropertyMask *ret_changed);

/* For port.c: the table at a port's load, and its entries' end. */
int port_load_gids(int port_fd, Port *p);
void gids_free(Gid *gids, size_t n);
