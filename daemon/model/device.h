/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "forward.h"
#include "model.h"

/* A device's whole life (device.c): loaded from sysfs with its ports
 * (port.c) and netdevs (netdev.c), read again into the same objects. */

/* Reads everything about the device at syspath (its /sys/devices/... path as
 * udev names it). Missing or unreadable files become "" and 0; only a device
 * directory that cannot be opened at all, or OOM, is an error. */
int device_load(const char *syspath, const char *name, Device **ret);
/* Frees d and what it holds, and lets go of its reader lane. */
Device *device_free(Device *d);
static inline void device_freep(Device **d) {
        device_free(*d);
}

/* A published stand-in for a device whose first read has not returned:
 * its name and path. */
int device_new_placeholder(const char *syspath, const char *name, Device **ret);

/* fresh, a new read of the published device d whose identity is unchanged
 * (device_identity_changed()), moved into d: d, its ports and the netdevs
 * that stay keep their addresses, and what changed is reported. Takes
 * fresh. */
void device_update(Device *d, Device *fresh);

/* d reads on lane from now on (a reference, taken), or on none: the lane
 * names d its owner, so that its events reach d without a search. */
void device_set_lane(Device *d, struct ReaderLane *lane);

/* The ports' common transport, "mixed" if they differ; without ports, from
 * the node type ("iWARP" for an RNIC, else "unknown"). */
const char *device_transport(const Device *d);

const Port *device_find_port(const Device *d, uint32_t number);
/* The index in d->ports of port number, n_ports if there is none: for who
 * holds a mutable Device and needs a mutable Port, without a cast. */
size_t device_port_index(const Device *d, uint32_t number);
