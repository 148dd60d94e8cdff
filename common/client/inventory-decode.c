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

#define PORT_SHOWN_DECODE(bus, type, field, key, label, text, flags) type(bus, RdmaPort, field),

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
        /* Lid, SmLid, LidMaskCount, SmSl, CapMask, ... */
        PORT_SHOWN_PROPERTIES(PORT_SHOWN_DECODE) /* rows with their commas */
        OBJECT("NetDev", RdmaPort, netdev),
        UINT64("StateChangedUsec", RdmaPort, state_changed_usec),
        UINT64("StateChanges", RdmaPort, state_changes),
        STRING("LinkEvents", RdmaPort, link_events),
        STRING("PortGuid", RdmaPort, port_guid),
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

static void link_history_free(RdmaLinkChange *h, size_t n) {
        for (size_t i = 0; i < n; i++) {
                free(h[i].old_state);
                free(h[i].new_state);
        }
        free(h);
}

/* "a(tss)": (usec, old state, new state), oldest first. */
static int read_link_history(RdmaPort *p, sd_bus_message *m) {
        RdmaLinkChange *h = NULL;
        size_t n = 0, allocated = 0;
        const char *a, *b;
        uint64_t usec;
        int r;

        r = sd_bus_message_enter_container(m, 'a', "(tss)");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_read(m, "(tss)", &usec, &a, &b)) > 0) {
                r = ARRAY_RESERVE(h, allocated, n + 1);
                if (r < 0)
                        break;
                h[n++] = (RdmaLinkChange){ .usec = usec, .old_state = strdup(a), .new_state = strdup(b) };
                if (!h[n - 1].old_state || !h[n - 1].new_state) {
                        r = -ENOMEM;
                        break;
                }
        }
        if (r < 0) {
                link_history_free(h, n);
                return r;
        }
        link_history_free(p->link_history, p->n_link_history);
        p->link_history = h;
        p->n_link_history = n;
        return sd_bus_message_exit_container(m);
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

static int port_special(void *object, const char *name, const char *contents, sd_bus_message *m) {
        if (streq(name, "Gids") && (streq(contents, "a(usss)") || streq(contents, "a(uss)"))) {
                int r = read_gids(object, m, streq(contents, "a(usss)"));
                return r < 0 ? r : 1;
        }
        if (streq(name, "LinkHistory") && streq(contents, "a(tss)")) {
                int r = read_link_history(object, m);
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

typedef struct PropertiesReading {
        void *object;
        const PropertySpec *specs;
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

static int read_properties(void *object, const PropertySpec *specs, SpecialReader special, sd_bus_message *m) {
        PropertiesReading p = { .object = object, .specs = specs, .special = special };

        return bus_message_read_entries(m, 'e', "sv", read_property_entry, &p);
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

static void device_free_arrays(void *object) {
        free(((RdmaDevice *) object)->port_numbers);
        strv_free(((RdmaDevice *) object)->virtual_functions);
}

static void port_free_arrays(void *object) {
        RdmaPort *p = object;
        gids_free(p->gids, p->n_gids);
        link_history_free(p->link_history, p->n_link_history);
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

static int port_copy_link_history(RdmaPort *p) {
        const RdmaLinkChange *h = p->link_history;
        size_t n = p->n_link_history;

        p->link_history = NULL;
        p->n_link_history = 0;
        if (n == 0)
                return 0;
        p->link_history = calloc(n, sizeof(RdmaLinkChange));
        if (!p->link_history)
                return -ENOMEM;
        for (; p->n_link_history < n; p->n_link_history++) {
                RdmaLinkChange *c = &p->link_history[p->n_link_history];

                *c = (RdmaLinkChange){ .usec = h[p->n_link_history].usec,
                                       .old_state = strdup(h[p->n_link_history].old_state),
                                       .new_state = strdup(h[p->n_link_history].new_state) };
                if (!c->old_state || !c->new_state) {
                        p->n_link_history++;
                        return -ENOMEM;
                }
        }
        return 0;
}

static int port_copy_arrays(void *object) {
        RdmaPort *p = object;
        const RdmaGid *gids = p->gids;
        size_t n = p->n_gids;

        p->gids = NULL;
        p->n_gids = 0;
        /* Both arrays are the copy's own (or NULL) before anything can fail. */
        if (port_copy_link_history(p) < 0)
                return -ENOMEM;
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

/* What the tables do not cover, per kind. */
typedef struct KindDecoder {
        const char *interface;
        size_t size;
        const PropertySpec *properties;
        SpecialReader special;
        void (*free_arrays)(void *object);
        int (*copy_arrays)(void *object);
} KindDecoder;

static const KindDecoder decoders[_INVENTORY_KIND_MAX] = {
        [INVENTORY_DEVICE] = { RDMAD_DEVICE_INTERFACE, sizeof(RdmaDevice), device_properties, device_special,
                               device_free_arrays, device_copy_arrays },
        [INVENTORY_PORT] = { RDMAD_PORT_INTERFACE, sizeof(RdmaPort), port_properties, port_special, port_free_arrays,
                             port_copy_arrays },
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
        return read_properties(object, decoders[kind].properties, decoders[kind].special, m);
}

void object_free(InventoryKind kind, void *object) {
        const KindDecoder *k = &decoders[kind];

        for (const PropertySpec *s = k->properties; s->name; s++)
                if (s->kind == PROPERTY_STRING)
                        free(*(char **) ((uint8_t *) object + s->offset));
        if (k->free_arrays)
                k->free_arrays(object);
        free(*(char **) object);
        free(object);
}

/* Empty strings instead of NULL for what the daemon did not send. */
int object_fill_missing(InventoryKind kind, void *object) {
        for (const PropertySpec *s = decoders[kind].properties; s->name; s++) {
                char **field = (char **) ((uint8_t *) object + s->offset);

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

void object_make_printable(InventoryKind kind, void *object) {
        for (const PropertySpec *s = decoders[kind].properties; s->name; s++)
                if (s->kind == PROPERTY_STRING)
                        make_printable(*(char **) ((uint8_t *) object + s->offset));
        if (kind == INVENTORY_PORT) {
                RdmaPort *p = object;

                for (size_t g = 0; g < p->n_gids; g++) {
                        make_printable(p->gids[g].gid);
                        make_printable(p->gids[g].type);
                        make_printable(p->gids[g].netdev);
                }
                for (size_t i = 0; i < p->n_link_history; i++) {
                        make_printable(p->link_history[i].old_state);
                        make_printable(p->link_history[i].new_state);
                }
        }
}
