/* SPDX-License-Identifier: MIT */
/* The store's lookups: sorted arrays of pointers, searched by bisection.
 * Objects come and go one at a time (a signal each), and a host has
 * hundreds to a few thousand of them: an insertion's memmove of pointers
 * costs less than a hash map's code (hashing, growing, tombstones), and
 * a sorted array also gives a device's ports in order for free. */
#include "client/inventory-index.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "basic/util.h"

typedef struct SortedArray {
        void **items;
        size_t n, allocated;
} SortedArray;

/* <0, 0, >0 as key sorts before, with, after item. */
typedef int (*KeyCompare)(const void *key, const void *item);

/* What a device path leads to: the objects there, and the device's links. */
typedef struct PathNode {
        char *path;
        void *objects[_INVENTORY_KIND_MAX];
        SortedArray ports;   /* RdmaPort *, by number */
        SortedArray netdevs; /* RdmaNetDev *, by name */
} PathNode;

struct InventoryIndex {
        SortedArray nodes;        /* PathNode *, by path */
        SortedArray device_names; /* RdmaDevice *, by name */
        SortedArray netdev_names; /* RdmaNetDev *, by name */
};

/* The first position whose item does not sort before key; *found whether it is key's. */
static size_t lower_bound(const SortedArray *a, const void *key, KeyCompare compare, bool *found) {
        size_t low = 0, high = a->n;

        while (low < high) {
                size_t mid = low + (high - low) / 2;

                if (compare(key, a->items[mid]) > 0)
                        low = mid + 1;
                else
                        high = mid;
        }
        *found = low < a->n && compare(key, a->items[low]) == 0;
        return low;
}

static void *sorted_find(const SortedArray *a, const void *key, KeyCompare compare) {
        bool found;
        size_t i = lower_bound(a, key, compare, &found);

        return found ? a->items[i] : NULL;
}

static int sorted_insert(SortedArray *a, const void *key, KeyCompare compare, void *item) {
        bool found;
        size_t i = lower_bound(a, key, compare, &found);
        int r = ARRAY_RESERVE(a->items, a->allocated, a->n + 1);

        if (r < 0)
                return r;
        memmove(a->items + i + 1, a->items + i, (a->n - i) * sizeof(void *));
        a->items[i] = item;
        a->n++;
        return 0;
}

/* Removes item itself, which sorts with key (names may repeat). */
static void sorted_remove(SortedArray *a, const void *key, KeyCompare compare, const void *item) {
        bool found;

        for (size_t i = lower_bound(a, key, compare, &found); i < a->n && compare(key, a->items[i]) == 0; i++)
                if (a->items[i] == item) {
                        memmove(a->items + i, a->items + i + 1, (a->n - i - 1) * sizeof(void *));
                        a->n--;
                        return;
                }
}

static int compare_node_path(const void *key, const void *item) {
        return strcmp(key, ((const PathNode *) item)->path);
}

static int compare_device_name(const void *key, const void *item) {
        return strcmp(strempty(key), strempty(((const RdmaDevice *) item)->name));
}

static int compare_netdev_name(const void *key, const void *item) {
        return strcmp(strempty(key), strempty(((const RdmaNetDev *) item)->name));
}

static int compare_port_number(const void *key, const void *item) {
        uint32_t a = *(const uint32_t *) key, b = ((const RdmaPort *) item)->number;
        return a < b ? -1 : a > b;
}

InventoryIndex *inventory_index_new(void) {
        return calloc(1, sizeof(InventoryIndex));
}

static void node_free(PathNode *node) {
        free(node->path);
        free(node->ports.items);
        free(node->netdevs.items);
        free(node);
}

InventoryIndex *inventory_index_free(InventoryIndex *x) {
        if (!x)
                return NULL;
        for (size_t i = 0; i < x->nodes.n; i++)
                node_free(x->nodes.items[i]);
        free(x->nodes.items);
        free(x->device_names.items);
        free(x->netdev_names.items);
        free(x);
        return NULL;
}

static PathNode *node_find(const InventoryIndex *x, const char *path) {
        return path ? sorted_find(&x->nodes, path, compare_node_path) : NULL;
}

static PathNode *node_get(InventoryIndex *x, const char *path) {
        PathNode *node = node_find(x, path);

        if (node || !path)
                return node;
        node = calloc(1, sizeof(PathNode));
        if (!node)
                return NULL;
        node->path = strdup(path);
        if (!node->path || sorted_insert(&x->nodes, path, compare_node_path, node) < 0) {
                node_free(node);
                return NULL;
        }
        return node;
}

/* A node nothing is at and nothing links to goes. */
static void node_prune(InventoryIndex *x, PathNode *node) {
        if (!node || node->ports.n > 0 || node->netdevs.n > 0)
                return;
        for (InventoryKind k = 0; k < _INVENTORY_KIND_MAX; k++)
                if (node->objects[k])
                        return;
        sorted_remove(&x->nodes, node->path, compare_node_path, node);
        node_free(node);
}

void inventory_index_remove(InventoryIndex *x, InventoryKind kind, void *object) {
        PathNode *node, *parent;

        if (!x)
                return;
        node = node_find(x, *(char **) object);

        if (node && node->objects[kind] == object)
                node->objects[kind] = NULL;
        node_prune(x, node);

        switch (kind) {
        case INVENTORY_DEVICE:
                sorted_remove(&x->device_names, ((RdmaDevice *) object)->name, compare_device_name, object);
                break;
        case INVENTORY_PORT: {
                const RdmaPort *p = object;

                parent = node_find(x, p->device);
                if (parent) {
                        sorted_remove(&parent->ports, &p->number, compare_port_number, object);
                        node_prune(x, parent);
                }
                break;
        }
        case INVENTORY_NETDEV: {
                const RdmaNetDev *n = object;

                sorted_remove(&x->netdev_names, n->name, compare_netdev_name, object);
                parent = node_find(x, n->device);
                if (parent) {
                        sorted_remove(&parent->netdevs, n->name, compare_netdev_name, object);
                        node_prune(x, parent);
                }
                break;
        }
        default:
                break;
        }
}

static int index_add(InventoryIndex *x, InventoryKind kind, void *object) {
        PathNode *node = node_get(x, *(char **) object), *parent;

        if (!node)
                return -ENOMEM;
        node->objects[kind] = object;

        switch (kind) {
        case INVENTORY_DEVICE:
                return sorted_insert(&x->device_names, ((RdmaDevice *) object)->name, compare_device_name, object);
        case INVENTORY_PORT: {
                const RdmaPort *p = object;

                /* The device may come later: its node holds the links meanwhile. */
                parent = node_get(x, p->device);
                if (!parent)
                        return p->device ? -ENOMEM : 0;
                return sorted_insert(&parent->ports, &p->number, compare_port_number, object);
        }
        case INVENTORY_NETDEV: {
                const RdmaNetDev *n = object;
                int r = sorted_insert(&x->netdev_names, n->name, compare_netdev_name, object);

                if (r < 0)
                        return r;
                parent = node_get(x, n->device);
                if (!parent)
                        return n->device ? -ENOMEM : 0;
                return sorted_insert(&parent->netdevs, n->name, compare_netdev_name, object);
        }
        default:
                return 0;
        }
}

int inventory_index_add(InventoryIndex *x, InventoryKind kind, void *object) {
        int r = x ? index_add(x, kind, object) : 0;

        if (r < 0)
                inventory_index_remove(x, kind, object); /* what was added of it */
        return r;
}

void *inventory_index_find(const InventoryIndex *x, InventoryKind kind, const char *path) {
        PathNode *node = node_find(x, path);
        return node ? node->objects[kind] : NULL;
}

void *inventory_index_find_by_name(const InventoryIndex *x, InventoryKind kind, const char *name) {
        if (!name)
                return NULL;
        if (kind == INVENTORY_DEVICE)
                return sorted_find(&x->device_names, name, compare_device_name);
        if (kind == INVENTORY_NETDEV)
                return sorted_find(&x->netdev_names, name, compare_netdev_name);
        return NULL;
}

RdmaPort *const *inventory_index_ports(const InventoryIndex *x, const char *device_path, size_t *ret_n) {
        PathNode *node = node_find(x, device_path);

        *ret_n = node ? node->ports.n : 0;
        return node ? (RdmaPort *const *) node->ports.items : NULL;
}

RdmaNetDev *const *inventory_index_netdevs(const InventoryIndex *x, const char *device_path, size_t *ret_n) {
        PathNode *node = node_find(x, device_path);

        *ret_n = node ? node->netdevs.n : 0;
        return node ? (RdmaNetDev *const *) node->netdevs.items : NULL;
}
