/* SPDX-License-Identifier: MIT */
#pragma once

#include "forward.h"
#include "model.h"

/* A netdev's whole life (netdev.c): found with its device, re-read on the
 * device's lane, applied on the loop, compared and reported. */

const NetDev *device_find_netdev(const Device *d, const char *name);

/* A netdev's re-read in two halves: the read on a reader thread into
 * NETDEV_FILES values, and their application on the loop. */
#define NETDEV_FILES 5
int netdev_read(const char *name, FileValue *values);
int netdev_apply(NetDev *n, const FileValue *values, PropertyMask *ret_changed);

/* Re-reads a netdev's files and reports what changed when the result is
 * applied. Nothing is read of an unresponsive device. */
int netdev_refresh(NetDev *n);
/* Reports a change of n's properties (a test's, or a source's). */
void netdev_report_changed(NetDev *n, PropertyMask mask);

/* A device read again (device_update()): fresh's netdevs become d's. One of
 * a name d had keeps its address and takes the new values; the ones that
 * went are reported removing and freed, the new ones reported added.
 * masks[i]: what changed of d->netdevs[i] afterwards. */
int device_take_netdevs(Device *d, Device *fresh, PropertyMask *masks);

/* A netdev's lifetime, and the loading of a device's netdevs (device.c). */
NetDev *netdev_free(NetDev *n);
int device_load_netdevs(int parent_fd, Device *d);
