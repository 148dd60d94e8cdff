/* SPDX-License-Identifier: MIT */
/* The daemon's objects as rdmactl sees them, read from a{sa{sv}} and a{sv}
 * containers. Unknown properties and properties of an unexpected type are
 * skipped, so a newer daemon with more properties still works. */
#include "client/inventory.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "basic/util.h"

typedef enum PropertyKind {
        PROPERTY_STRING, /* 's' or 'o' into a char * */
        PROPERTY_UINT32,
        PROPERTY_INT32,
        PROPERTY_UINT64,
        PROPERTY_BOOL,
        PROPERTY_DOUBLE,
} PropertyKind;

typedef struct PropertySpec {
        const char *name;
        const char *signature;
        PropertyKind kind;
        size_t offset;
} PropertySpec;

#define STRING(n, type, field)                                                                                         \
        { n, "s", PROPERTY_STRING, offsetof(type, field) }
#define OBJECT(n, type, field)                                                                                         \
        { n, "o", PROPERTY_STRING, offsetof(type, field) }
#define UINT32(n, type, field)                                                                                         \
        { n, "u", PROPERTY_UINT32, offsetof(type, field) }
#define INT32(n, type, field)                                                                                          \
        { n, "i", PROPERTY_INT32, offsetof(type, field) }
#define UINT64(n, type, field)                                                                                         \
        { n, "t", PROPERTY_UINT64, offsetof(type, field) }
#define BOOL(n, type, field)                                                                                           \
        { n, "b", PROPERTY_BOOL, offsetof(type, field) }
#define DOUBLE(n, type, field)                                                                                         \
        { n, "d", PROPERTY_DOUBLE, offsetof(type, field) }

static const PropertySpec device_properties[] = {
        STRING("Name", RdmaDevice, name),
        STRING("SysfsPath", RdmaDevice, sysfs_path),
        STRING("DevicePath", RdmaDevice, device_path),
        STRING("Driver", RdmaDevice, driver),
        STRING("NodeType", RdmaDevice, node_type),
        STRING("Transport", RdmaDevice, transport),
        STRING("PciAddress", RdmaDevice, pci_address),
        INT32("NumaNode", RdmaDevice, numa_node),
        OBJECT("PhysicalFunction", RdmaDevice, physical_function),
        STRING("NodeGuid", RdmaDevice, node_guid),
        STRING("SysImageGuid", RdmaDevice, sys_image_guid),
        STRING("FirmwareVersion", RdmaDevice, firmware_version),
        STRING("HcaType", RdmaDevice, hca_type),
        STRING("HwRev", RdmaDevice, hw_rev),
        STRING("BoardId", RdmaDevice, board_id),
        STRING("NodeDescription", RdmaDevice, node_description),
        STRING("Health", RdmaDevice, health),
        STRING("HealthReason", RdmaDevice, health_reason),
        BOOL("SriovCapable", RdmaDevice, sriov_capable),
        OBJECT("Sriov", RdmaDevice, sriov),
        {},
};

static const PropertySpec port_properties[] = {
        OBJECT("Device", RdmaPort, device),
        UINT32("Number", RdmaPort, number),
        STRING("StateName", RdmaPort, state_name),
        UINT32("StateNum", RdmaPort, state_num),
        STRING("PhysStateName", RdmaPort, phys_state_name),
        UINT32("PhysStateNum", RdmaPort, phys_state_num),
        STRING("Rate", RdmaPort, rate),
        STRING("LinkLayer", RdmaPort, link_layer),
        STRING("Transport", RdmaPort, transport),
        STRING("LinkWidth", RdmaPort, link_width),
        STRING("LinkSpeed", RdmaPort, link_speed),
        STRING("RateInfo", RdmaPort, rate_info),
        DOUBLE("RateSpeed", RdmaPort, rate_speed),
        UINT32("Lid", RdmaPort, lid),
        UINT32("SmLid", RdmaPort, sm_lid),
        UINT32("LidMaskCount", RdmaPort, lid_mask_count),
        UINT32("SmSl", RdmaPort, sm_sl),
        UINT32("CapMask", RdmaPort, cap_mask),
        OBJECT("NetDev", RdmaPort, netdev),
        UINT64("StateChangedUsec", RdmaPort, state_changed_usec),
        UINT64("StateChanges", RdmaPort, state_changes),
        STRING("LinkEvents", RdmaPort, link_events),
        {},
};

static const PropertySpec netdev_properties[] = {
        STRING("Name", RdmaNetDev, name),
        OBJECT("Device", RdmaNetDev, device),
        UINT32("DevPort", RdmaNetDev, dev_port),
        OBJECT("Port", RdmaNetDev, port),
        STRING("OperState", RdmaNetDev, oper_state),
        STRING("Address", RdmaNetDev, address),
        UINT32("Mtu", RdmaNetDev, mtu),
        {},
};

static const PropertySpec sriov_properties[] = {
        OBJECT("Device", RdmaSriov, device),
        STRING("DevicePath", RdmaSriov, device_path),
        UINT32("NumVfs", RdmaSriov, num_vfs),
        UINT32("TotalVfs", RdmaSriov, total_vfs),
        {},
};

static void gids_free(RdmaGid *gids, size_t n) {
        for (size_t i = 0; i < n; i++) {
                free(gids[i].gid);
                free(gids[i].type);
                free(gids[i].netdev);
        }
        free(gids);
}

/* "a(usss)" (index, gid, type, netdev); "a(uss)" from daemons before GID netdevs. */
static int read_gids(RdmaPort *p, sd_bus_message *m, bool with_netdev) {
        RdmaGid *gids = NULL;
        size_t n = 0, allocated = 0;
        uint32_t index;
        const char *gid, *type, *netdev = "";
        int r;

        r = sd_bus_message_enter_container(m, 'a', with_netdev ? "(usss)" : "(uss)");
        if (r < 0)
                return r;
        while ((r = with_netdev ? sd_bus_message_read(m, "(usss)", &index, &gid, &type, &netdev)
                                : sd_bus_message_read(m, "(uss)", &index, &gid, &type)) > 0) {
                r = ARRAY_RESERVE(gids, allocated, n + 1);
                if (r < 0)
                        break;
                gids[n] =
                        (RdmaGid){ .index = index, .gid = strdup(gid), .type = strdup(type), .netdev = strdup(netdev) };
                n++;
                if (!gids[n - 1].gid || !gids[n - 1].type || !gids[n - 1].netdev) {
                        r = -ENOMEM;
                        break;
                }
        }
        if (r < 0) {
                gids_free(gids, n);
                return r;
        }
        gids_free(p->gids, p->n_gids);
        p->gids = gids;
        p->n_gids = n;
        return sd_bus_message_exit_container(m);
}

static int read_port_numbers(RdmaDevice *d, sd_bus_message *m) {
        const uint32_t *numbers;
        size_t size;
        uint32_t *copy = NULL;
        int r;

        r = sd_bus_message_read_array(m, 'u', (const void **) &numbers, &size);
        if (r < 0)
                return r;
        if (size > 0) {
                copy = malloc(size);
                if (!copy)
                        return -ENOMEM;
                memcpy(copy, numbers, size);
        }
        free(d->port_numbers);
        d->port_numbers = copy;
        d->n_port_numbers = size / sizeof(uint32_t);
        return 0;
}

/* Properties that need more than the table: arrays. Returns 1 when it
 * consumed the variant's contents, 0 when the name is not one of them. */
typedef int (*SpecialReader)(void *object, const char *name, const char *contents, sd_bus_message *m);

static int port_special(void *object, const char *name, const char *contents, sd_bus_message *m) {
        if (streq(name, "Gids") && (streq(contents, "a(usss)") || streq(contents, "a(uss)"))) {
                int r = read_gids(object, m, streq(contents, "a(usss)"));
                return r < 0 ? r : 1;
        }
        return 0;
}

static int read_virtual_functions(RdmaDevice *d, sd_bus_message *m) {
        _cleanup_strv_free_ char **paths = NULL;
        size_t n = 0, allocated = 0;
        const char *path;
        int r;

        r = sd_bus_message_enter_container(m, 'a', "o");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_read_basic(m, 'o', &path)) > 0) {
                r = strv_push_take(&paths, &n, &allocated, strdup(path));
                if (r < 0)
                        return r;
        }
        if (r < 0)
                return r;
        strv_free(d->virtual_functions);
        d->virtual_functions = TAKE_PTR(paths);
        return sd_bus_message_exit_container(m);
}

static int device_special(void *object, const char *name, const char *contents, sd_bus_message *m) {
        if (streq(name, "PortNumbers") && streq(contents, "au")) {
                int r = read_port_numbers(object, m);
                return r < 0 ? r : 1;
        }
        if (streq(name, "VirtualFunctions") && streq(contents, "ao")) {
                int r = read_virtual_functions(object, m);
                return r < 0 ? r : 1;
        }
        return 0;
}

static int read_value(void *object, const PropertySpec *spec, sd_bus_message *m) {
        uint8_t *field = (uint8_t *) object + spec->offset;
        int r;

        switch (spec->kind) {
        case PROPERTY_STRING: {
                const char *s;

                r = sd_bus_message_read_basic(m, spec->signature[0], &s);
                if (r < 0)
                        return r;
                return free_and_strdup((char **) field, s);
        }
        case PROPERTY_UINT32:
                return sd_bus_message_read_basic(m, 'u', field);
        case PROPERTY_INT32:
                return sd_bus_message_read_basic(m, 'i', field);
        case PROPERTY_UINT64:
                return sd_bus_message_read_basic(m, 't', field);
        case PROPERTY_DOUBLE:
                return sd_bus_message_read_basic(m, 'd', field);
        case PROPERTY_BOOL: {
                int b;

                r = sd_bus_message_read_basic(m, 'b', &b);
                if (r < 0)
                        return r;
                *(bool *) field = b;
                return 0;
        }
        }
        return -EINVAL;
}

static int read_properties(void *object, const PropertySpec *specs, SpecialReader special, sd_bus_message *m) {
        int r;

        r = sd_bus_message_enter_container(m, 'a', "{sv}");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
                const PropertySpec *spec = NULL;
                const char *name, *contents;
                char type;

                r = sd_bus_message_read(m, "s", &name);
                if (r < 0)
                        return r;
                r = sd_bus_message_peek_type(m, &type, &contents);
                if (r < 0)
                        return r;
                for (const PropertySpec *s = specs; s->name; s++)
                        if (streq(s->name, name) && streq(s->signature, contents)) {
                                spec = s;
                                break;
                        }

                r = sd_bus_message_enter_container(m, 'v', contents);
                if (r < 0)
                        return r;
                if (spec)
                        r = read_value(object, spec, m);
                else if (special && (r = special(object, name, contents, m)) > 0)
                        r = 0;
                else if (r >= 0)
                        r = sd_bus_message_skip(m, contents);
                if (r < 0)
                        return r;
                r = sd_bus_message_exit_container(m);
                if (r < 0)
                        return r;
                r = sd_bus_message_exit_container(m);
                if (r < 0)
                        return r;
        }
        if (r < 0)
                return r;
        return sd_bus_message_exit_container(m);
}

int port_read_properties(RdmaPort *p, sd_bus_message *m) {
        return read_properties(p, port_properties, port_special, m);
}

int sriov_read_properties(RdmaSriov *s, sd_bus_message *m) {
        return read_properties(s, sriov_properties, NULL, m);
}

int device_read_properties(RdmaDevice *d, sd_bus_message *m) {
        return read_properties(d, device_properties, device_special, m);
}

int netdev_read_properties(RdmaNetDev *n, sd_bus_message *m) {
        return read_properties(n, netdev_properties, NULL, m);
}

int inventory_apply_properties_changed(Inventory *inv, sd_bus_message *m) {
        const char *path = sd_bus_message_get_path(m), *interface;
        RdmaPort *p;
        RdmaSriov *s;
        RdmaDevice *d;
        RdmaNetDev *n;
        int r;

        if (!path)
                return -EINVAL;
        r = sd_bus_message_read(m, "s", &interface);
        if (r < 0)
                return r;
        if (streq(interface, RDMAD_PORT_INTERFACE) && (p = inventory_find_port(inv, path)))
                return port_read_properties(p, m);
        if (streq(interface, RDMAD_SRIOV_INTERFACE) && (s = inventory_find_sriov(inv, path)))
                return sriov_read_properties(s, m);
        if (streq(interface, RDMAD_DEVICE_INTERFACE) && (d = inventory_find_device(inv, path)))
                return device_read_properties(d, m);
        if (streq(interface, RDMAD_NETDEV_INTERFACE) && (n = inventory_find_netdev(inv, path)))
                return netdev_read_properties(n, m);
        return 0;
}

static void device_free_arrays(void *object) {
        free(((RdmaDevice *) object)->port_numbers);
        strv_free(((RdmaDevice *) object)->virtual_functions);
}

static void port_free_arrays(void *object) {
        RdmaPort *p = object;
        gids_free(p->gids, p->n_gids);
}

/* The arrays of a copy made by memcpy(): its own, or NULL and -ENOMEM. */
static int device_copy_arrays(void *object) {
        RdmaDevice *d = object;
        const uint32_t *numbers = d->port_numbers;
        char **vfs = d->virtual_functions;

        d->port_numbers = NULL;
        d->virtual_functions = NULL;
        if (d->n_port_numbers > 0) {
                d->port_numbers = malloc(d->n_port_numbers * sizeof(uint32_t));
                if (!d->port_numbers)
                        return -ENOMEM;
                memcpy(d->port_numbers, numbers, d->n_port_numbers * sizeof(uint32_t));
        }
        if (vfs) {
                size_t n = strv_length(vfs);

                d->virtual_functions = calloc(n + 1, sizeof(char *));
                if (!d->virtual_functions)
                        return -ENOMEM;
                for (size_t i = 0; i < n; i++)
                        if (!(d->virtual_functions[i] = strdup(vfs[i])))
                                return -ENOMEM;
        }
        return 0;
}

static int port_copy_arrays(void *object) {
        RdmaPort *p = object;
        const RdmaGid *gids = p->gids;
        size_t n = p->n_gids;

        p->gids = NULL;
        p->n_gids = 0;
        if (n == 0)
                return 0;
        p->gids = calloc(n, sizeof(RdmaGid));
        if (!p->gids)
                return -ENOMEM;
        for (; p->n_gids < n; p->n_gids++) {
                RdmaGid *g = &p->gids[p->n_gids];

                *g = (RdmaGid){ .index = gids[p->n_gids].index,
                                .gid = strdup(gids[p->n_gids].gid),
                                .type = strdup(gids[p->n_gids].type),
                                .netdev = strdup(gids[p->n_gids].netdev) };
                if (!g->gid || !g->type || !g->netdev) {
                        p->n_gids++;
                        return -ENOMEM;
                }
        }
        return 0;
}

/* The four kinds of object: each an array of pointers in the Inventory,
 * read and freed through its property table. Every object type starts with
 * its path. */
typedef struct ObjectKind {
        const char *interface;
        size_t array_offset, count_offset; /* in Inventory */
        size_t size;
        const PropertySpec *properties;
        SpecialReader special;
        void (*free_arrays)(void *object); /* what the table does not cover */
        int (*copy_arrays)(void *object);  /* the same, in a copy */
} ObjectKind;

#define OBJECT_KIND(iface, array, count, type, props, special_reader, free_fn, copy_fn)                                \
        {                                                                                                              \
                iface, offsetof(Inventory, array), offsetof(Inventory, count), sizeof(type), props, special_reader,    \
                        free_fn, copy_fn                                                                               \
        }

static const ObjectKind object_kinds[] = {
        OBJECT_KIND(RDMAD_DEVICE_INTERFACE, devices, n_devices, RdmaDevice, device_properties, device_special,
                    device_free_arrays, device_copy_arrays),
        OBJECT_KIND(RDMAD_PORT_INTERFACE, ports, n_ports, RdmaPort, port_properties, port_special, port_free_arrays,
                    port_copy_arrays),
        OBJECT_KIND(RDMAD_NETDEV_INTERFACE, netdevs, n_netdevs, RdmaNetDev, netdev_properties, NULL, NULL, NULL),
        OBJECT_KIND(RDMAD_SRIOV_INTERFACE, sriovs, n_sriovs, RdmaSriov, sriov_properties, NULL, NULL, NULL),
};

static void ***kind_array(const Inventory *inv, const ObjectKind *k) {
        return (void ***) ((uint8_t *) inv + k->array_offset);
}

static size_t *kind_count(const Inventory *inv, const ObjectKind *k) {
        return (size_t *) ((uint8_t *) inv + k->count_offset);
}

static const ObjectKind *kind_of_interface(const char *interface) {
        for (size_t i = 0; i < ELEMENTSOF(object_kinds); i++)
                if (streq(object_kinds[i].interface, interface))
                        return &object_kinds[i];
        return NULL;
}

static void object_free(const ObjectKind *k, void *object) {
        for (const PropertySpec *s = k->properties; s->name; s++)
                if (s->kind == PROPERTY_STRING)
                        free(*(char **) ((uint8_t *) object + s->offset));
        if (k->free_arrays)
                k->free_arrays(object);
        free(*(char **) object);
        free(object);
}

Inventory *inventory_new(void) {
        return calloc(1, sizeof(Inventory));
}

Inventory *inventory_free(Inventory *inv) {
        if (!inv)
                return NULL;
        for (const ObjectKind *k = object_kinds; k < object_kinds + ELEMENTSOF(object_kinds); k++) {
                void **array = *kind_array(inv, k);

                for (size_t i = 0; i < *kind_count(inv, k); i++)
                        object_free(k, array[i]);
                free(array);
        }
        free(inv);
        return NULL;
}

/* The entry of an array of object pointers whose path is `wanted`, or NULL. */
#define FIND_BY_PATH(array, n, wanted)                                                                                 \
        ({                                                                                                             \
                __typeof__((array)[0]) _found = NULL;                                                                  \
                for (size_t _i = 0; _i < (n); _i++)                                                                    \
                        if (streq((array)[_i]->path, (wanted))) {                                                      \
                                _found = (array)[_i];                                                                  \
                                break;                                                                                 \
                        }                                                                                              \
                _found;                                                                                                \
        })

bool device_health_ok(const RdmaDevice *d) {
        return !d || !d->health || !*d->health || streq(d->health, "ok");
}

bool device_unresponsive(const RdmaDevice *d) {
        return d && streq_ptr(d->health, "unresponsive");
}

RdmaDevice *inventory_find_device(const Inventory *inv, const char *path) {
        return FIND_BY_PATH(inv->devices, inv->n_devices, path);
}

RdmaPort *inventory_find_port(const Inventory *inv, const char *path) {
        return FIND_BY_PATH(inv->ports, inv->n_ports, path);
}

RdmaNetDev *inventory_find_netdev(const Inventory *inv, const char *path) {
        return FIND_BY_PATH(inv->netdevs, inv->n_netdevs, path);
}

RdmaSriov *inventory_find_sriov(const Inventory *inv, const char *path) {
        return FIND_BY_PATH(inv->sriovs, inv->n_sriovs, path);
}

RdmaDevice *inventory_find_device_by_name(const Inventory *inv, const char *name) {
        for (size_t i = 0; i < inv->n_devices; i++)
                if (streq_ptr(inv->devices[i]->name, name))
                        return inv->devices[i];
        return NULL;
}

RdmaNetDev *inventory_find_netdev_by_name(const Inventory *inv, const char *name) {
        for (size_t i = 0; i < inv->n_netdevs; i++)
                if (streq_ptr(inv->netdevs[i]->name, name))
                        return inv->netdevs[i];
        return NULL;
}

RdmaPort *inventory_find_port_by_number(const Inventory *inv, const char *device_path, uint32_t number) {
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

/* Appends a new zeroed object of `size` bytes to an array of pointers. */
static void *append_object(void ***array, size_t *n, size_t size, const char *path) {
        void **a;
        void *o;

        a = reallocarray(*array, *n + 1, sizeof(void *));
        if (!a)
                return NULL;
        *array = a;
        o = calloc(1, size);
        if (!o)
                return NULL;
        /* Every object type starts with its path. */
        *(char **) o = strdup(path);
        if (!*(char **) o) {
                free(o);
                return NULL;
        }
        a[(*n)++] = o;
        return o;
}

/* Empty strings instead of NULL for what the daemon did not send. */
static int fill_missing(void *object, const PropertySpec *specs) {
        for (const PropertySpec *s = specs; s->name; s++) {
                char **field = (char **) ((uint8_t *) object + s->offset);

                if (s->kind == PROPERTY_STRING && !*field) {
                        *field = strdup(streq(s->signature, "o") ? "/" : "");
                        if (!*field)
                                return -ENOMEM;
                }
        }
        return 0;
}

static void remove_interface(Inventory *inv, const char *path, const char *interface) {
        const ObjectKind *k = kind_of_interface(interface);
        void **array;
        size_t *n;

        if (!k)
                return;
        array = *kind_array(inv, k);
        n = kind_count(inv, k);
        for (size_t i = 0; i < *n; i++)
                if (streq(*(char **) array[i], path)) {
                        object_free(k, array[i]);
                        memmove(array + i, array + i + 1, (*n - i - 1) * sizeof(void *));
                        (*n)--;
                        return;
                }
}

/* A deep copy of object; NULL when out of memory. */
static void *object_copy(const ObjectKind *k, const void *object) {
        void *copy = malloc(k->size);
        bool failed = false;

        if (!copy)
                return NULL;
        memcpy(copy, object, k->size);
        /* Every pointer the copy shares is replaced before any can fail, so that object_free() frees only its own. */
        for (const PropertySpec *s = k->properties; s->name; s++)
                if (s->kind == PROPERTY_STRING) {
                        char **field = (char **) ((uint8_t *) copy + s->offset);
                        const char *from = *field;

                        *field = from ? strdup(from) : NULL;
                        failed = failed || (from && !*field);
                }
        *(char **) copy = strdup(*(char *const *) object);
        failed = failed || !*(char **) copy;
        if ((k->copy_arrays && k->copy_arrays(copy) < 0) || failed) {
                object_free(k, copy);
                return NULL;
        }
        return copy;
}

int inventory_copy_objects_at(Inventory *dst, const Inventory *src, const char *path) {
        for (const ObjectKind *k = object_kinds; k < object_kinds + ELEMENTSOF(object_kinds); k++) {
                void **array = *kind_array(src, k), **a, *copy;
                size_t *n = kind_count(dst, k);

                for (size_t i = 0; i < *kind_count(src, k); i++) {
                        if (!streq(*(char **) array[i], path))
                                continue;
                        a = reallocarray(*kind_array(dst, k), *n + 1, sizeof(void *));
                        if (!a)
                                return -ENOMEM;
                        *kind_array(dst, k) = a;
                        copy = object_copy(k, array[i]);
                        if (!copy)
                                return -ENOMEM;
                        a[(*n)++] = copy;
                }
        }
        return 0;
}

void inventory_remove_object(Inventory *inv, const char *path, char **interfaces) {
        for (char **i = interfaces; i && *i; i++)
                remove_interface(inv, path, *i);
}

static int add_interface(Inventory *inv, const char *path, const char *interface, sd_bus_message *m) {
        const ObjectKind *k = kind_of_interface(interface);
        void *object;
        int r;

        if (!k)
                return sd_bus_message_skip(m, "a{sv}");

        /* A second announcement of the same object replaces the first. */
        remove_interface(inv, path, interface);
        object = append_object(kind_array(inv, k), kind_count(inv, k), k->size, path);
        if (!object)
                return -ENOMEM;
        r = read_properties(object, k->properties, k->special, m);
        return r < 0 ? r : fill_missing(object, k->properties);
}

int inventory_add_object(Inventory *inv, const char *path, sd_bus_message *m) {
        int r;

        r = sd_bus_message_enter_container(m, 'a', "{sa{sv}}");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_enter_container(m, 'e', "sa{sv}")) > 0) {
                const char *interface;

                r = sd_bus_message_read(m, "s", &interface);
                if (r < 0)
                        return r;
                r = add_interface(inv, path, interface, m);
                if (r < 0)
                        return r;
                r = sd_bus_message_exit_container(m);
                if (r < 0)
                        return r;
        }
        if (r < 0)
                return r;
        return sd_bus_message_exit_container(m);
}

int inventory_read_managed_objects(Inventory *inv, sd_bus_message *reply) {
        int r;

        r = sd_bus_message_enter_container(reply, 'a', "{oa{sa{sv}}}");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_enter_container(reply, 'e', "oa{sa{sv}}")) > 0) {
                const char *path;

                r = sd_bus_message_read(reply, "o", &path);
                if (r < 0)
                        return r;
                r = inventory_add_object(inv, path, reply);
                if (r < 0)
                        return r;
                r = sd_bus_message_exit_container(reply);
                if (r < 0)
                        return r;
        }
        if (r < 0)
                return r;
        return sd_bus_message_exit_container(reply);
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

void make_printable(char *s) {
        for (unsigned char *p = (unsigned char *) s; p && *p; p++)
                if (*p < 0x20 || *p == 0x7f)
                        *p = '?';
}

static void strings_make_printable(void *object, const PropertySpec *specs) {
        for (const PropertySpec *s = specs; s->name; s++)
                if (s->kind == PROPERTY_STRING)
                        make_printable(*(char **) ((uint8_t *) object + s->offset));
}

void inventory_make_printable(Inventory *inv) {
        for (const ObjectKind *k = object_kinds; k < object_kinds + ELEMENTSOF(object_kinds); k++)
                for (size_t i = 0; i < *kind_count(inv, k); i++)
                        strings_make_printable((*kind_array(inv, k))[i], k->properties);
        for (size_t i = 0; i < inv->n_ports; i++)
                for (size_t g = 0; g < inv->ports[i]->n_gids; g++) {
                        make_printable(inv->ports[i]->gids[g].gid);
                        make_printable(inv->ports[i]->gids[g].type);
                        make_printable(inv->ports[i]->gids[g].netdev);
                }
}
