/* SPDX-License-Identifier: MIT */
/* The store of the daemon's objects as a client sees them: one array per
 * kind, filled from GetManagedObjects and InterfacesAdded, changed by
 * PropertiesChanged, emptied by InterfacesRemoved, with an index that finds
 * them (inventory-index.c); what each object holds and how it is read is
 * inventory-decode.c's. */
#include "client/inventory.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "api/bus-message.h"
#include "basic/parse.h"
#include "basic/util.h"
#include "client/inventory-decode.h"
#include "client/inventory-index.h"

/* Where each kind's objects are: an array of pointers in the Inventory. */
typedef struct KindArray {
        size_t array_offset, count_offset;
} KindArray;

static const KindArray kind_arrays[_INVENTORY_KIND_MAX] = {
        [INVENTORY_DEVICE] = { offsetof(Inventory, devices), offsetof(Inventory, n_devices) },
        [INVENTORY_PORT] = { offsetof(Inventory, ports), offsetof(Inventory, n_ports) },
        [INVENTORY_NETDEV] = { offsetof(Inventory, netdevs), offsetof(Inventory, n_netdevs) },
        [INVENTORY_SRIOV] = { offsetof(Inventory, sriovs), offsetof(Inventory, n_sriovs) },
};

static void ***kind_array(const Inventory *inv, InventoryKind k) {
        return (void ***) ((uint8_t *) inv + kind_arrays[k].array_offset);
}

static size_t *kind_count(const Inventory *inv, InventoryKind k) {
        return (size_t *) ((uint8_t *) inv + kind_arrays[k].count_offset);
}

/* The object of kind k at path, or NULL; one made by hand has no index. */
static void *find_object(const Inventory *inv, InventoryKind k, const char *path) {
        void **array = *kind_array(inv, k);

        if (inv->index)
                return inventory_index_find(inv->index, k, path);
        for (size_t i = 0; path && i < *kind_count(inv, k); i++)
                if (streq(*(char **) array[i], path))
                        return array[i];
        return NULL;
}

/* A device or netdev by name. */
static void *find_by_name(const Inventory *inv, InventoryKind k, const char *name) {
        void **array = *kind_array(inv, k);

        if (inv->index)
                return inventory_index_find_by_name(inv->index, k, name);
        for (size_t i = 0; i < *kind_count(inv, k); i++)
                /* RdmaDevice and RdmaNetDev have their name after their path. */
                if (streq_ptr(((char **) array[i])[1], name))
                        return array[i];
        return NULL;
}

int inventory_apply_properties_changed(Inventory *inv, sd_bus_message *m) {
        const char *path = sd_bus_message_get_path(m), *interface;
        void *object;
        int r, q, k;

        if (!path)
                return -EINVAL;
        r = sd_bus_message_read(m, "s", &interface);
        if (r < 0)
                return r;
        k = inventory_kind_from_interface(interface);
        if (k < 0 || !(object = find_object(inv, k, path)))
                return 0;
        /* A name, a port's number or device may change: indexed again. */
        inventory_index_remove(inv->index, k, object);
        r = object_read_properties(k, object, m);
        q = inventory_index_add(inv->index, k, object);
        return r < 0 ? r : q;
}

Inventory *inventory_new(void) {
        Inventory *inv = calloc(1, sizeof(Inventory));

        if (inv && !(inv->index = inventory_index_new()))
                inv = mfree(inv);
        return inv;
}

Inventory *inventory_free(Inventory *inv) {
        if (!inv)
                return NULL;
        for (InventoryKind k = 0; k < _INVENTORY_KIND_MAX; k++) {
                void **array = *kind_array(inv, k);

                for (size_t i = 0; i < *kind_count(inv, k); i++)
                        object_free(k, array[i]);
                free(array);
        }
        inventory_index_free(inv->index);
        free(inv);
        return NULL;
}

const char *port_transport(const RdmaPort *p, const RdmaDevice *d) {
        if (p->transport && *p->transport)
                return p->transport;
        return transport_from(d ? node_type_from_name(d->node_type) : 0, p->link_layer);
}

bool device_health_ok(const RdmaDevice *d) {
        return !d || !d->health || !*d->health || streq(d->health, "ok");
}

bool device_unresponsive(const RdmaDevice *d) {
        return d && streq_ptr(d->health, "unresponsive");
}

#define DEFINE_INVENTORY_FIND(kind, Type, KIND)                                                                        \
        Type *inventory_find_##kind(const Inventory *inv, const char *path) {                                          \
                return find_object(inv, KIND, path);                                                                   \
        }

DEFINE_INVENTORY_FIND(device, RdmaDevice, INVENTORY_DEVICE)
DEFINE_INVENTORY_FIND(port, RdmaPort, INVENTORY_PORT)
DEFINE_INVENTORY_FIND(netdev, RdmaNetDev, INVENTORY_NETDEV)
DEFINE_INVENTORY_FIND(sriov, RdmaSriov, INVENTORY_SRIOV)

RdmaDevice *inventory_find_device_by_name(const Inventory *inv, const char *name) {
        return find_by_name(inv, INVENTORY_DEVICE, name);
}

RdmaNetDev *inventory_find_netdev_by_name(const Inventory *inv, const char *name) {
        return find_by_name(inv, INVENTORY_NETDEV, name);
}

RdmaPort *const *inventory_device_ports(const Inventory *inv, const char *device_path, size_t *ret_n) {
        if (!inv->index) {
                *ret_n = 0;
                return NULL;
        }
        return inventory_index_ports(inv->index, device_path, ret_n);
}

RdmaNetDev *const *inventory_device_netdevs(const Inventory *inv, const char *device_path, size_t *ret_n) {
        if (!inv->index) {
                *ret_n = 0;
                return NULL;
        }
        return inventory_index_netdevs(inv->index, device_path, ret_n);
}

RdmaPort *inventory_find_port_by_number(const Inventory *inv, const char *device_path, uint32_t number) {
        RdmaPort *const *ports;
        size_t n;

        if (inv->index) {
                /* A device has a handful of ports, in order. */
                ports = inventory_index_ports(inv->index, device_path, &n);
                for (size_t i = 0; i < n && ports[i]->number <= number; i++)
                        if (ports[i]->number == number)
                                return ports[i];
                return NULL;
        }
        for (size_t i = 0; i < inv->n_ports; i++)
                if (inv->ports[i]->number == number && streq_ptr(inv->ports[i]->device, device_path))
                        return inv->ports[i];
        return NULL;
}

const char *inventory_device_name(const Inventory *inv, const char *path) {
        RdmaDevice *d = path ? inventory_find_device(inv, path) : NULL;
        return d ? d->name : NULL;
}

const char *inventory_netdev_name(const Inventory *inv, const char *path) {
        RdmaNetDev *n = path ? inventory_find_netdev(inv, path) : NULL;
        return n ? n->name : NULL;
}

/* Appends a read object to its kind's array and the index; frees it on failure. */
static int append_object(Inventory *inv, InventoryKind k, void *object) {
        void **a = reallocarray(*kind_array(inv, k), *kind_count(inv, k) + 1, sizeof(void *));

        if (!a || inventory_index_add(inv->index, k, object) < 0) {
                if (a)
                        *kind_array(inv, k) = a;
                object_free(k, object);
                return -ENOMEM;
        }
        *kind_array(inv, k) = a;
        a[(*kind_count(inv, k))++] = object;
        return 0;
}

static void remove_interface(Inventory *inv, const char *path, const char *interface) {
        int k = inventory_kind_from_interface(interface);
        void **array, *object;
        size_t *n;

        if (k < 0 || !(object = find_object(inv, k, path)))
                return;
        inventory_index_remove(inv->index, k, object);
        array = *kind_array(inv, k);
        n = kind_count(inv, k);
        for (size_t i = 0; i < *n; i++)
                if (array[i] == object) {
                        memmove(array + i, array + i + 1, (*n - i - 1) * sizeof(void *));
                        (*n)--;
                        break;
                }
        object_free(k, object);
}

int inventory_copy_objects_at(Inventory *dst, const Inventory *src, const char *path) {
        for (InventoryKind k = 0; k < _INVENTORY_KIND_MAX; k++) {
                void *object = find_object(src, k, path), *copy;
                int r;

                if (!object)
                        continue;
                copy = object_copy(k, object);
                if (!copy)
                        return -ENOMEM;
                r = append_object(dst, k, copy);
                if (r < 0)
                        return r;
        }
        return 0;
}

void inventory_remove_object(Inventory *inv, const char *path, char **interfaces) {
        for (char **i = interfaces; i && *i; i++)
                remove_interface(inv, path, *i);
}

static int add_interface(Inventory *inv, const char *path, const char *interface, sd_bus_message *m) {
        int k = inventory_kind_from_interface(interface), r;
        void *object;

        if (k < 0)
                return sd_bus_message_skip(m, "a{sv}");

        /* A second announcement of the same object replaces the first. */
        remove_interface(inv, path, interface);
        object = object_new(k, path);
        if (!object)
                return -ENOMEM;
        /* Indexed once read: the index keys on its name, number and device. */
        r = object_read_properties(k, object, m);
        if (r >= 0)
                r = object_fill_missing(k, object);
        if (r < 0) {
                object_free(k, object);
                return r;
        }
        return append_object(inv, k, object);
}

typedef struct ObjectReading {
        Inventory *inv;
        const char *path;
} ObjectReading;

/* One (interface, properties) of an object. */
static int read_interface_entry(sd_bus_message *m, void *userdata) {
        ObjectReading *o = userdata;
        const char *interface;
        int r;

        r = sd_bus_message_read(m, "s", &interface);
        if (r < 0)
                return r;
        return add_interface(o->inv, o->path, interface, m);
}

int inventory_add_object(Inventory *inv, const char *path, sd_bus_message *m) {
        ObjectReading o = { .inv = inv, .path = path };

        return bus_message_read_entries(m, 'e', "sa{sv}", read_interface_entry, &o);
}

/* One (path, interfaces) of GetManagedObjects' reply. */
static int read_object_entry(sd_bus_message *m, void *userdata) {
        const char *path;
        int r;

        r = sd_bus_message_read(m, "o", &path);
        if (r < 0)
                return r;
        return inventory_add_object(userdata, path, m);
}

int inventory_read_managed_objects(Inventory *inv, sd_bus_message *reply) {
        return bus_message_read_entries(reply, 'e', "oa{sa{sv}}", read_object_entry, inv);
}

int inventory_load(Inventory *inv, sd_bus *bus, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int r;

        r = sd_bus_call_method(bus, RDMAD_BUS_NAME, RDMAD_ROOT_PATH, DBUS_OBJECT_MANAGER_INTERFACE, "GetManagedObjects",
                               error, &reply, "");
        if (r < 0)
                return r;
        r = inventory_read_managed_objects(inv, reply);
        if (r < 0)
                return r;
        inventory_sort(inv);
        return 0;
}

/* qsort has no context argument: the inventory for the port comparison. */
static const Inventory *sorting;

static int compare_devices(const void *a, const void *b) {
        const RdmaDevice *x = *(RdmaDevice *const *) a, *y = *(RdmaDevice *const *) b;
        return strcmp(x->name, y->name);
}

static int compare_ports(const void *a, const void *b) {
        const RdmaPort *x = *(RdmaPort *const *) a, *y = *(RdmaPort *const *) b;
        const char *dx = inventory_device_name(sorting, x->device), *dy = inventory_device_name(sorting, y->device);
        int c = strcmp(dx ?: "", dy ?: "");

        if (c != 0)
                return c;
        return x->number < y->number ? -1 : x->number > y->number;
}

static int compare_netdevs(const void *a, const void *b) {
        const RdmaNetDev *x = *(RdmaNetDev *const *) a, *y = *(RdmaNetDev *const *) b;
        return strcmp(x->name, y->name);
}

void inventory_sort(Inventory *inv) {
        if (inv->n_devices > 1)
                qsort(inv->devices, inv->n_devices, sizeof(RdmaDevice *), compare_devices);
        sorting = inv;
        if (inv->n_ports > 1)
                qsort(inv->ports, inv->n_ports, sizeof(RdmaPort *), compare_ports);
        sorting = NULL;
        if (inv->n_netdevs > 1)
                qsort(inv->netdevs, inv->n_netdevs, sizeof(RdmaNetDev *), compare_netdevs);
}

void inventory_make_printable(Inventory *inv) {
        for (InventoryKind k = 0; k < _INVENTORY_KIND_MAX; k++)
                for (size_t i = 0; i < *kind_count(inv, k); i++)
                        object_make_printable(k, (*kind_array(inv, k))[i]);
}

void inventory_make_printable_at(Inventory *inv, const char *path) {
        for (InventoryKind k = 0; k < _INVENTORY_KIND_MAX; k++) {
                void *object = find_object(inv, k, path);

                if (object)
                        object_make_printable(k, object);
        }
}
