/* SPDX-License-Identifier: MIT */
#pragma once

/* The store's lookups (inventory-index.c): objects by path, devices and
 * netdevs by name, and each device's links to its ports (by number) and
 * netdevs (by name). Holds pointers only; the store owns the objects and
 * tells the index when one comes, goes or may have changed its keys. */

#include <stddef.h>
#include <stdint.h>

#include "client/inventory-decode.h"
#include "client/inventory.h"

typedef struct InventoryIndex InventoryIndex;

InventoryIndex *inventory_index_new(void);
InventoryIndex *inventory_index_free(InventoryIndex *x);

/* An object under its path, its name, and in its device's links. */
int inventory_index_add(InventoryIndex *x, InventoryKind kind, void *object);
/* Everywhere add put it; before its keys change (PropertiesChanged) or it is freed. */
void inventory_index_remove(InventoryIndex *x, InventoryKind kind, void *object);

void *inventory_index_find(const InventoryIndex *x, InventoryKind kind, const char *path);
/* A device or netdev by name. */
void *inventory_index_find_by_name(const InventoryIndex *x, InventoryKind kind, const char *name);

/* The device's ports by number, its netdevs by name; n 0 for none. */
RdmaPort *const *inventory_index_ports(const InventoryIndex *x, const char *device_path, size_t *ret_n);
RdmaNetDev *const *inventory_index_netdevs(const InventoryIndex *x, const char *device_path, size_t *ret_n);
