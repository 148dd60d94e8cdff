/* SPDX-License-Identifier: MIT */
/* The wire side of the inventory: each object kind's property table, and
 * its objects read from a{sv} containers, copied, freed. Unknown properties
 * and properties of an unexpected type are skipped, so a newer daemon with
 * more properties still works. */
#include "client/inventory-decode.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "api/bus-message.h"
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
        STRING(RDMAD_DEVICE_PROPERTY_NAME, RdmaDevice, name),
        STRING(RDMAD_DEVICE_PROPERTY_SYSFS_PATH, RdmaDevice, sysfs_path),
        STRING(RDMAD_DEVICE_PROPERTY_DEVICE_PATH, RdmaDevice, device_path),
        STRING(RDMAD_DEVICE_PROPERTY_DRIVER, RdmaDevice, driver),
        STRING(RDMAD_DEVICE_PROPERTY_NODE_TYPE, RdmaDevice, node_type),
        STRING(RDMAD_DEVICE_PROPERTY_TRANSPORT, RdmaDevice, transport),
        STRING(RDMAD_DEVICE_PROPERTY_PCI_ADDRESS, RdmaDevice, pci_address),
        INT32(RDMAD_DEVICE_PROPERTY_NUMA_NODE, RdmaDevice, numa_node),
        OBJECT(RDMAD_DEVICE_PROPERTY_PHYSICAL_FUNCTION, RdmaDevice, physical_function),
        STRING(RDMAD_DEVICE_PROPERTY_NODE_GUID, RdmaDevice, node_guid),
        STRING(RDMAD_DEVICE_PROPERTY_SYS_IMAGE_GUID, RdmaDevice, sys_image_guid),
        STRING(RDMAD_DEVICE_PROPERTY_FIRMWARE_VERSION, RdmaDevice, firmware_version),
        STRING(RDMAD_DEVICE_PROPERTY_HCA_TYPE, RdmaDevice, hca_type),
        STRING(RDMAD_DEVICE_PROPERTY_HW_REV, RdmaDevice, hw_rev),
        STRING(RDMAD_DEVICE_PROPERTY_BOARD_ID, RdmaDevice, board_id),
        STRING(RDMAD_DEVICE_PROPERTY_NODE_DESCRIPTION, RdmaDevice, node_description),
        STRING(RDMAD_DEVICE_PROPERTY_HEALTH, RdmaDevice, health),
        STRING(RDMAD_DEVICE_PROPERTY_HEALTH_REASON, RdmaDevice, health_reason),
        BOOL(RDMAD_DEVICE_PROPERTY_SRIOV_CAPABLE, RdmaDevice, sriov_capable),
        OBJECT(RDMAD_DEVICE_PROPERTY_SRIOV, RdmaDevice, sriov),
        {},
};

#define PORT_SHOWN_DECODE(bus, type, field, key, label, text, flags) type(bus, RdmaPort, field),

static const PropertySpec port_properties[] = {
        OBJECT(RDMAD_PORT_PROPERTY_DEVICE, RdmaPort, device),
        UINT32(RDMAD_PORT_PROPERTY_NUMBER, RdmaPort, number),
        STRING(RDMAD_PORT_PROPERTY_STATE_NAME, RdmaPort, state_name),
        UINT32(RDMAD_PORT_PROPERTY_STATE_NUM, RdmaPort, state_num),
        STRING(RDMAD_PORT_PROPERTY_PHYS_STATE_NAME, RdmaPort, phys_state_name),
        UINT32(RDMAD_PORT_PROPERTY_PHYS_STATE_NUM, RdmaPort, phys_state_num),
        STRING(RDMAD_PORT_PROPERTY_RATE, RdmaPort, rate),
        STRING(RDMAD_PORT_PROPERTY_LINK_LAYER, RdmaPort, link_layer),
        STRING(RDMAD_PORT_PROPERTY_TRANSPORT, RdmaPort, transport),
        STRING(RDMAD_PORT_PROPERTY_LINK_WIDTH, RdmaPort, link_width),
        STRING(RDMAD_PORT_PROPERTY_LINK_SPEED, RdmaPort, link_speed),
        STRING(RDMAD_PORT_PROPERTY_RATE_INFO, RdmaPort, rate_info),
        DOUBLE(RDMAD_PORT_PROPERTY_RATE_SPEED, RdmaPort, rate_speed),
        /* Lid, SmLid, LidMaskCount, SmSl, CapMask, ... */
        PORT_SHOWN_PROPERTIES(PORT_SHOWN_DECODE) /* rows with their commas */
        OBJECT(RDMAD_PORT_PROPERTY_NETDEV, RdmaPort, netdev),
        UINT64(RDMAD_PORT_PROPERTY_STATE_CHANGED_USEC, RdmaPort, state_changed_usec),
        UINT64(RDMAD_PORT_PROPERTY_STATE_CHANGES, RdmaPort, state_changes),
        STRING(RDMAD_PORT_PROPERTY_LINK_EVENTS, RdmaPort, link_events),
        STRING(RDMAD_PORT_PROPERTY_PORT_GUID, RdmaPort, port_guid),
        {},
};

#define PORT_SHOWN_ROW(bus, type, field, key, label, text, flags)                                                      \
        [PORT_SHOWN_##field] = { key, label, offsetof(RdmaPort, field), sizeof(((RdmaPort *) NULL)->field), flags },
const PortShownProperty port_shown_properties[_PORT_SHOWN_MAX] = { PORT_SHOWN_PROPERTIES(PORT_SHOWN_ROW) };

uint64_t port_shown_value(const RdmaPort *p, PortShown i) {
        const uint8_t *field = (const uint8_t *) p + port_shown_properties[i].offset;

        return port_shown_properties[i].size == sizeof(uint64_t) ? *(const uint64_t *) field
                                                                 : *(const uint32_t *) field;
}

static const PropertySpec netdev_properties[] = {
        STRING(RDMAD_NETDEV_PROPERTY_NAME, RdmaNetDev, name),
        OBJECT(RDMAD_NETDEV_PROPERTY_DEVICE, RdmaNetDev, device),
        UINT32(RDMAD_NETDEV_PROPERTY_DEV_PORT, RdmaNetDev, dev_port),
        OBJECT(RDMAD_NETDEV_PROPERTY_PORT, RdmaNetDev, port),
        STRING(RDMAD_NETDEV_PROPERTY_OPER_STATE, RdmaNetDev, oper_state),
        STRING(RDMAD_NETDEV_PROPERTY_ADDRESS, RdmaNetDev, address),
        UINT32(RDMAD_NETDEV_PROPERTY_MTU, RdmaNetDev, mtu),
        {},
};

static const PropertySpec sriov_properties[] = {
        OBJECT(RDMAD_SRIOV_PROPERTY_DEVICE, RdmaSriov, device),
        STRING(RDMAD_SRIOV_PROPERTY_DEVICE_PATH, RdmaSriov, device_path),
        UINT32(RDMAD_SRIOV_PROPERTY_NUM_VFS, RdmaSriov, num_vfs),
        UINT32(RDMAD_SRIOV_PROPERTY_TOTAL_VFS, RdmaSriov, total_vfs),
        {},
};

/* A property that is an array of structs: its members in the order of the
 * struct's signature, as the table's rows. A daemon may send fewer than
 * all: the members it does not send are empty strings. */
typedef struct ArraySpec {
        const char *name;
        const PropertySpec *members;
        size_t min_members;
        size_t size;             /* of an element */
        size_t offset, n_offset; /* of the array and of its length in the object */
} ArraySpec;

static const PropertySpec gid_members[] = {
        UINT32("index", RdmaGid, index),
        STRING("gid", RdmaGid, gid),
        STRING("type", RdmaGid, type),
        STRING("netdev", RdmaGid, netdev),
        {},
};

static const PropertySpec link_change_members[] = {
        UINT64("usec", RdmaLinkChange, usec),
        STRING("old_state", RdmaLinkChange, old_state),
        STRING("new_state", RdmaLinkChange, new_state),
        {},
};

static const ArraySpec port_arrays[] = {
        /* "a(usss)" (index, gid, type, netdev); "a(uss)" from daemons before GID netdevs. */
        { RDMAD_PORT_PROPERTY_GIDS, gid_members, 3, sizeof(RdmaGid), offsetof(RdmaPort, gids),
          offsetof(RdmaPort, n_gids) },
        /* "a(tss)": (usec, old state, new state), oldest first. */
        { RDMAD_PORT_PROPERTY_LINK_HISTORY, link_change_members, 3, sizeof(RdmaLinkChange),
          offsetof(RdmaPort, link_history), offsetof(RdmaPort, n_link_history) },
        {},
};

#define FIELD(object, spec)  ((uint8_t *) (object) + (spec)->offset)
#define LENGTH(object, spec) ((size_t *) ((uint8_t *) (object) + (spec)->n_offset))

static int read_value(void *object, const PropertySpec *spec, sd_bus_message *m) {
        uint8_t *field = FIELD(object, spec);
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

static void strings_free(const PropertySpec *specs, void *object) {
        for (const PropertySpec *s = specs; s->name; s++)
                if (s->kind == PROPERTY_STRING)
                        free(*(char **) FIELD(object, s));
}

/* Replaces every string of a memcpy()'d copy with its own copy (NULL when
 * out of memory), so that freeing the copy frees only its own; false then. */
static bool strings_copy(const PropertySpec *specs, void *copy) {
        bool ok = true;

        for (const PropertySpec *s = specs; s->name; s++)
                if (s->kind == PROPERTY_STRING) {
                        char **field = (char **) FIELD(copy, s);
                        const char *from = *field;

                        *field = from ? strdup(from) : NULL;
                        ok = ok && (!from || *field);
                }
        return ok;
}

static void elements_free(const ArraySpec *a, void *elements, size_t n) {
        for (size_t i = 0; i < n; i++)
                strings_free(a->members, (uint8_t *) elements + i * a->size);
        free(elements);
}

/* How many members contents ("a(usss)") sends, or -EINVAL when it is not this array's. */
static int array_members_sent(const ArraySpec *a, const char *contents) {
        size_t k = 0;

        if (strncmp(contents, "a(", 2) != 0)
                return -EINVAL;
        for (contents += 2; a->members[k].name && *contents == a->members[k].signature[0]; contents++)
                k++;
        return streq(contents, ")") && k >= a->min_members ? (int) k : -EINVAL;
}

typedef struct ArrayReading {
        const ArraySpec *spec;
        size_t n_sent; /* members per element */
        void *elements;
        size_t n, allocated;
} ArrayReading;

static int read_element(sd_bus_message *m, void *userdata) {
        ArrayReading *a = userdata;
        const PropertySpec *members = a->spec->members;
        uint8_t *element;
        int r;

        r = array_reserve(&a->elements, &a->allocated, a->n + 1, a->spec->size);
        if (r < 0)
                return r;
        element = (uint8_t *) a->elements + a->n++ * a->spec->size;
        memset(element, 0, a->spec->size);
        for (size_t i = 0; members[i].name; i++) {
                if (i < a->n_sent)
                        r = read_value(element, &members[i], m);
                else if (members[i].kind == PROPERTY_STRING)
                        r = free_and_strdup((char **) FIELD(element, &members[i]), "");
                if (r < 0)
                        return r;
        }
        return 0;
}

static int read_array(void *object, const ArraySpec *spec, size_t n_sent, const char *contents, sd_bus_message *m) {
        ArrayReading a = { .spec = spec, .n_sent = n_sent };
        char members[256];
        int r;

        snprintf(members, sizeof(members), "%.*s", (int) strlen(contents) - 3, contents + 2); /* a(...) */
        r = sd_bus_message_enter_container(m, 'v', contents);
        if (r >= 0)
                r = bus_message_read_entries(m, 'r', members, read_element, &a);
        if (r < 0) {
                elements_free(spec, a.elements, a.n);
                return r;
        }
        elements_free(spec, *(void **) FIELD(object, spec), *LENGTH(object, spec));
        *(void **) FIELD(object, spec) = a.elements;
        *LENGTH(object, spec) = a.n;
        return sd_bus_message_exit_container(m);
}

/* The arrays of copy, a memcpy() of object: its own, or NULL and -ENOMEM. */
static int arrays_copy(const ArraySpec *arrays, void *copy, const void *object) {
        /* Every array is the copy's own (or NULL) before anything can fail. */
        for (const ArraySpec *a = arrays; a && a->name; a++) {
                *(void **) FIELD(copy, a) = NULL;
                *LENGTH(copy, a) = 0;
        }
        for (const ArraySpec *a = arrays; a && a->name; a++) {
                size_t n = *LENGTH(object, a);
                uint8_t *elements;
                bool ok = true;

                if (n == 0)
                        continue;
                elements = malloc(n * a->size);
                if (!elements)
                        return -ENOMEM;
                memcpy(elements, *(void **) FIELD(object, a), n * a->size);
                *(void **) FIELD(copy, a) = elements;
                *LENGTH(copy, a) = n;
                for (size_t i = 0; i < n; i++)
                        ok = strings_copy(a->members, elements + i * a->size) && ok;
                if (!ok)
                        return -ENOMEM;
        }
        return 0;
}

uint64_t port_last_change_usec(const RdmaPort *p) {
        uint64_t last = p->state_changed_usec;

        if (p->n_link_history > 0 && p->link_history[p->n_link_history - 1].usec > last)
                last = p->link_history[p->n_link_history - 1].usec;
        return last;
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
        if (streq(name, RDMAD_DEVICE_PROPERTY_PORT_NUMBERS) && streq(contents, "au")) {
                int r = read_port_numbers(object, m);
                return r < 0 ? r : 1;
        }
        if (streq(name, RDMAD_DEVICE_PROPERTY_VIRTUAL_FUNCTIONS) && streq(contents, "ao")) {
                int r = read_virtual_functions(object, m);
                return r < 0 ? r : 1;
        }
        return 0;
}

typedef struct PropertiesReading {
        void *object;
        const PropertySpec *specs;
        const ArraySpec *arrays;
        SpecialReader special;
} PropertiesReading;

/* One (name, value) of an a{sv}. */
static int read_property_entry(sd_bus_message *m, void *userdata) {
        const PropertiesReading *p = userdata;
        const PropertySpec *spec = NULL;
        const char *name, *contents;
        char type;
        int r;

        r = sd_bus_message_read(m, "s", &name);
        if (r < 0)
                return r;
        r = sd_bus_message_peek_type(m, &type, &contents);
        if (r < 0)
                return r;
        for (const PropertySpec *s = p->specs; s->name; s++)
                if (streq(s->name, name) && streq(s->signature, contents)) {
                        spec = s;
                        break;
                }
        for (const ArraySpec *a = p->arrays; !spec && a && a->name; a++)
                if (streq(a->name, name) && (r = array_members_sent(a, contents)) >= 0)
                        return read_array(p->object, a, r, contents, m);

        r = sd_bus_message_enter_container(m, 'v', contents);
        if (r < 0)
                return r;
        if (spec)
                r = read_value(p->object, spec, m);
        else if (p->special && (r = p->special(p->object, name, contents, m)) > 0)
                r = 0;
        else if (r >= 0)
                r = sd_bus_message_skip(m, contents);
        if (r < 0)
                return r;
        return sd_bus_message_exit_container(m);
}

static void device_free_arrays(void *object) {
        free(((RdmaDevice *) object)->port_numbers);
        strv_free(((RdmaDevice *) object)->virtual_functions);
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

/* What the tables do not cover, per kind. */
typedef struct KindDecoder {
        const char *interface;
        size_t size;
        const PropertySpec *properties;
        const ArraySpec *arrays;
        SpecialReader special;
        void (*free_arrays)(void *object);
        int (*copy_arrays)(void *object);
} KindDecoder;

static const KindDecoder decoders[_INVENTORY_KIND_MAX] = {
        [INVENTORY_DEVICE] = { RDMAD_DEVICE_INTERFACE, sizeof(RdmaDevice), device_properties, NULL, device_special,
                               device_free_arrays, device_copy_arrays },
        [INVENTORY_PORT] = { RDMAD_PORT_INTERFACE, sizeof(RdmaPort), port_properties, port_arrays },
        [INVENTORY_NETDEV] = { RDMAD_NETDEV_INTERFACE, sizeof(RdmaNetDev), netdev_properties },
        [INVENTORY_SRIOV] = { RDMAD_SRIOV_INTERFACE, sizeof(RdmaSriov), sriov_properties },
};

int inventory_kind_from_interface(const char *interface) {
        for (InventoryKind k = 0; k < _INVENTORY_KIND_MAX; k++)
                if (streq(decoders[k].interface, interface))
                        return (int) k;
        return -EINVAL;
}

void *object_new(InventoryKind kind, const char *path) {
        void *o = calloc(1, decoders[kind].size);

        if (!o)
                return NULL;
        /* Every object type starts with its path. */
        *(char **) o = strdup(path);
        if (!*(char **) o) {
                free(o);
                return NULL;
        }
        return o;
}

int object_read_properties(InventoryKind kind, void *object, sd_bus_message *m) {
        PropertiesReading p = {
                .object = object,
                .specs = decoders[kind].properties,
                .arrays = decoders[kind].arrays,
                .special = decoders[kind].special,
        };

        return bus_message_read_entries(m, 'e', "sv", read_property_entry, &p);
}

void object_free(InventoryKind kind, void *object) {
        const KindDecoder *k = &decoders[kind];

        strings_free(k->properties, object);
        for (const ArraySpec *a = k->arrays; a && a->name; a++)
                elements_free(a, *(void **) FIELD(object, a), *LENGTH(object, a));
        if (k->free_arrays)
                k->free_arrays(object);
        free(*(char **) object);
        free(object);
}

/* Empty strings instead of NULL for what the daemon did not send. */
int object_fill_missing(InventoryKind kind, void *object) {
        for (const PropertySpec *s = decoders[kind].properties; s->name; s++) {
                char **field = (char **) FIELD(object, s);

                if (s->kind == PROPERTY_STRING && !*field) {
                        *field = strdup(streq(s->signature, "o") ? "/" : "");
                        if (!*field)
                                return -ENOMEM;
                }
        }
        return 0;
}

/* A deep copy of object; NULL when out of memory. */
void *object_copy(InventoryKind kind, const void *object) {
        const KindDecoder *k = &decoders[kind];
        void *copy = malloc(k->size);
        bool ok;

        if (!copy)
                return NULL;
        memcpy(copy, object, k->size);
        /* Every pointer the copy shares is replaced before any can fail, so that object_free() frees only its own. */
        ok = strings_copy(k->properties, copy);
        *(char **) copy = strdup(*(char *const *) object);
        ok = *(char **) copy && ok;
        ok = arrays_copy(k->arrays, copy, object) >= 0 && ok;
        ok = (!k->copy_arrays || k->copy_arrays(copy) >= 0) && ok;
        if (!ok) {
                object_free(kind, copy);
                return NULL;
        }
        return copy;
}

void make_printable(char *s) {
        for (unsigned char *p = (unsigned char *) s; p && *p; p++)
                if (*p < 0x20 || *p == 0x7f)
                        *p = '?';
}

static void strings_make_printable(const PropertySpec *specs, void *object) {
        for (const PropertySpec *s = specs; s->name; s++)
                if (s->kind == PROPERTY_STRING)
                        make_printable(*(char **) FIELD(object, s));
}

void object_make_printable(InventoryKind kind, void *object) {
        strings_make_printable(decoders[kind].properties, object);
        for (const ArraySpec *a = decoders[kind].arrays; a && a->name; a++)
                for (size_t i = 0; i < *LENGTH(object, a); i++)
                        strings_make_printable(a->members, *(uint8_t **) FIELD(object, a) + i * a->size);
}
