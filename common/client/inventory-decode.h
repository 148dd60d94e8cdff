/* SPDX-License-Identifier: MIT */
#pragma once

/* The wire side of the inventory (inventory-decode.c): per kind of object,
 * its property table, and objects read from an a{sv}, copied, freed. The
 * store (inventory.c) holds them and knows nothing of their fields. */

#include <systemd/sd-bus.h>

#include "client/inventory.h"

typedef enum InventoryKind {
        INVENTORY_DEVICE,
        INVENTORY_PORT,
        INVENTORY_NETDEV,
        INVENTORY_SRIOV,
        _INVENTORY_KIND_MAX,
} InventoryKind;

/* The kind of one of rdmad's interfaces; -EINVAL for another. */
int inventory_kind_from_interface(const char *interface);

/* A zeroed object of kind with its path (every object type starts with it); NULL when out of memory. */
void *object_new(InventoryKind kind, const char *path);
/* An a{sv} into the object: properties not in the table are skipped. */
int object_read_properties(InventoryKind kind, void *object, sd_bus_message *m);
/* Empty strings ("/" for object paths) for what the daemon did not send. */
int object_fill_missing(InventoryKind kind, void *object);
/* A deep copy; NULL when out of memory. */
void *object_copy(InventoryKind kind, const void *object);
void object_free(InventoryKind kind, void *object);
void object_make_printable(InventoryKind kind, void *object);

/* When the port's link last changed, as far as anyone knows: the later of
 * StateChangedUsec and the last LinkHistory entry (kept across restarts of
 * rdmad); 0 for never. */
uint64_t port_last_change_usec(const RdmaPort *p);

/* The value of a shown property of the port (inventory.h, PORT_SHOWN_PROPERTIES). */
uint64_t port_shown_value(const RdmaPort *p, PortShown i);

/* Every control character of s becomes '?' (inventory_make_printable()). */
void make_printable(char *s);
