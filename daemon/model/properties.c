/* SPDX-License-Identifier: MIT */
#include "properties.h"

#include <assert.h>

#include "basic/util.h"
#include "manager.h"
#include "port-gids.h"

typedef enum FieldType {
        FIELD_STRING, /* char *, owned */
        FIELD_U32,
        FIELD_I32,
        FIELD_U64,
        FIELD_DOUBLE,
        FIELD_BOOL,
        FIELD_ATTR_LIST,
        FIELD_CUSTOM,     /* compared by .equal on the whole objects */
        FIELD_UNCOMPARED, /* RELATED, PARENT: not told by comparing two snapshots */
} FieldType;

typedef struct PropertyField {
        int bit; /* its PROPERTY_BIT(), -1 for an identity row */
        FieldType type;
        size_t offset;
        bool (*equal)(const void *a, const void *b);
} PropertyField;

/* Each list's bits are 0 to _*_PROP_MAX - 1, each once, in a PropertyMask. */
static_assert(_DEVICE_PROP_MAX <= 64 && _PORT_PROP_MAX <= 64 && _NETDEV_PROP_MAX <= 64 && _SRIOV_PROP_MAX <= 64,
              "a property mask has 64 bits");

static bool netdev_names_equal(const void *x, const void *y) {
        const Device *a = x, *b = y;

        if (a->n_netdevs != b->n_netdevs)
                return false;
        for (size_t i = 0; i < a->n_netdevs; i++)
                if (!streq(a->netdevs[i]->name, b->netdevs[i]->name))
                        return false;
        return true;
}

/* Ports and PortNumbers: the ports' paths are the device's and their numbers. */
static bool port_numbers_equal(const void *x, const void *y) {
        const Device *a = x, *b = y;

        if (a->n_ports != b->n_ports)
                return false;
        for (size_t i = 0; i < a->n_ports; i++)
                if (a->ports[i].number != b->ports[i].number)
                        return false;
        return true;
}

/* Sriov: the device's own path under it when SR-IOV capable, "/" else. */
static bool sriov_path_equal(const void *x, const void *y) {
        const Device *a = x, *b = y;

        return a->sriov_capable == b->sriov_capable && (!a->sriov_capable || streq(a->name, b->name));
}

static bool gids_equal(const void *x, const void *y) {
        const Port *a = x, *b = y;

        if (a->n_gids != b->n_gids)
                return false;
        for (size_t i = 0; i < a->n_gids; i++)
                if (a->gids[i].index != b->gids[i].index || !streq(a->gids[i].gid, b->gids[i].gid) ||
                    !streq(a->gids[i].type, b->gids[i].type) || !streq(a->gids[i].ndev, b->gids[i].ndev))
                        return false;
        return true;
}

static bool port_guid_equal(const void *x, const void *y) {
        char a[PORT_GUID_MAX], b[PORT_GUID_MAX];

        return streq(port_guid(x, a), port_guid(y, b));
}

/* A list's row: its compare column as a type, an offset and a function. */
#define ROW_STRING(Object, f)    FIELD_STRING, offsetof(Object, f), NULL
#define ROW_U32(Object, f)       FIELD_U32, offsetof(Object, f), NULL
#define ROW_I32(Object, f)       FIELD_I32, offsetof(Object, f), NULL
#define ROW_U64(Object, f)       FIELD_U64, offsetof(Object, f), NULL
#define ROW_DOUBLE(Object, f)    FIELD_DOUBLE, offsetof(Object, f), NULL
#define ROW_BOOL(Object, f)      FIELD_BOOL, offsetof(Object, f), NULL
#define ROW_ATTR_LIST(Object, f) FIELD_ATTR_LIST, offsetof(Object, f), NULL
#define ROW_CUSTOM(Object, eq)   FIELD_CUSTOM, 0, eq
#define ROW_RELATED(Object, f)   FIELD_UNCOMPARED, 0, NULL
#define ROW_PARENT(Object, f)    FIELD_UNCOMPARED, 0, NULL
#define ROW_BIT_CHANGE(bit)      bit
#define ROW_BIT_CONST(bit)       -1
#define ROW(Object, prefix, id, signature, emits, compare, field, ...)                                                 \
        { ROW_BIT_##emits(prefix##id), ROW_##compare(Object, field) },

#define DEVICE_ROW(...) ROW(Device, DEVICE_PROP_, __VA_ARGS__)
#define PORT_ROW(...)   ROW(Port, PORT_PROP_, __VA_ARGS__)
#define NETDEV_ROW(...) ROW(NetDev, NETDEV_PROP_, __VA_ARGS__)
#define SRIOV_ROW(...)  ROW(Device, SRIOV_PROP_, __VA_ARGS__)

static const PropertyField device_rows[] = { DEVICE_PROPERTIES(DEVICE_ROW) };
static const PropertyField port_rows[] = { PORT_PROPERTIES(PORT_ROW) };
static const PropertyField netdev_rows[] = { NETDEV_PROPERTIES(NETDEV_ROW) };
static const PropertyField sriov_rows[] = { SRIOV_PROPERTIES(SRIOV_ROW) };

#define FIELD(object, f, type) (*(type const *) ((const uint8_t *) (object) + (f)->offset))

static bool field_equal(const PropertyField *f, const void *a, const void *b) {
        switch (f->type) {
        case FIELD_STRING:
                return streq_ptr(FIELD(a, f, char *), FIELD(b, f, char *));
        case FIELD_U32:
                return FIELD(a, f, uint32_t) == FIELD(b, f, uint32_t);
        case FIELD_I32:
                return FIELD(a, f, int32_t) == FIELD(b, f, int32_t);
        case FIELD_U64:
                return FIELD(a, f, uint64_t) == FIELD(b, f, uint64_t);
        case FIELD_DOUBLE:
                return FIELD(a, f, double) == FIELD(b, f, double);
        case FIELD_BOOL:
                return FIELD(a, f, bool) == FIELD(b, f, bool);
        case FIELD_ATTR_LIST:
                return attr_list_equal(&FIELD(a, f, AttrList), &FIELD(b, f, AttrList));
        case FIELD_CUSTOM:
                return f->equal(a, b);
        case FIELD_UNCOMPARED:
                /* RELATED: made of other devices or of how its reads went, marked
                 * by the manager; two snapshots of one device have the same PCI
                 * identity (or it is re-announced). PARENT: the object's Device,
                 * the same, or re-announced with all its children. */
                return true;
        }
        assert(!"unknown field type");
        return false;
}

static PropertyMask changed_mask(const PropertyField *rows, size_t n, const void *a, const void *b) {
        PropertyMask mask = 0;

        assert(a);
        assert(b);
        for (size_t i = 0; i < n; i++)
                if (rows[i].bit >= 0 && !field_equal(&rows[i], a, b))
                        mask |= PROPERTY_BIT(rows[i].bit);
        return mask;
}

static bool identity_changed(const PropertyField *rows, size_t n, const void *a, const void *b) {
        assert(a);
        assert(b);
        for (size_t i = 0; i < n; i++)
                if (rows[i].bit < 0 && !field_equal(&rows[i], a, b))
                        return true;
        return false;
}

/* One comparison per interface, all over the same function. */
#define DEFINE_CHANGED_MASK(kind, Object)                                                                              \
        PropertyMask kind##_changed_mask(const Object *a, const Object *b) {                                           \
                return changed_mask(kind##_rows, ELEMENTSOF(kind##_rows), a, b);                                       \
        }

DEFINE_CHANGED_MASK(device, Device)
DEFINE_CHANGED_MASK(port, Port)
DEFINE_CHANGED_MASK(netdev, NetDev)
DEFINE_CHANGED_MASK(sriov, Device)

bool port_identity_changed(const Port *a, const Port *b) {
        return identity_changed(port_rows, ELEMENTSOF(port_rows), a, b);
}

bool device_identity_changed(const Device *a, const Device *b) {
        if (identity_changed(device_rows, ELEMENTSOF(device_rows), a, b) ||
            identity_changed(sriov_rows, ELEMENTSOF(sriov_rows), a, b))
                return true;
        /* Not published itself, but what PhysicalFunction is found by: a VF
         * moved to another PF is another VF. */
        if (!streq(a->physfn_path, b->physfn_path))
                return true;

        /* The same port numbers (the Ports row), so the same ports in order. */
        for (size_t i = 0; i < a->n_ports; i++)
                if (port_identity_changed(&a->ports[i], &b->ports[i]))
                        return true;
        return false;
}

void strings_free(const size_t *strings, size_t n, void *object) {
        for (size_t i = 0; i < n; i++)
                free(STRING_AT(object, strings[i]));
}

/* Frees the strings of `stale` that `kept`, another copy of the same object,
 * no longer points to. */
static void strings_free_replaced(const size_t *strings, size_t n, void *stale, const void *kept) {
        for (size_t i = 0; i < n; i++) {
                char **s = &STRING_AT(stale, strings[i]);

                if (*s != STRING_AT(kept, strings[i]))
                        *s = mfree(*s);
        }
}

/* The old string is not freed here: the update's snapshot has it. */
int derive_str(char **field, const char *value) {
        char *s;

        if (streq_ptr(*field, value))
                return 0;
        s = strdup(value);
        if (!s)
                return -ENOMEM;
        *field = s;
        return 0;
}

/* Used when loading and when the poll has found a file with new contents. */
int object_update(const ObjectKind *k, void *object, PropertyMask *ret_changed) {
        ObjectSnapshot before;
        int r;

        assert(k->size <= sizeof(before));
        memcpy(&before, object, k->size);
        r = k->derive(object);
        if (r < 0) {
                strings_free_replaced(k->strings, k->n_strings, object, &before);
                memcpy(object, &before, k->size);
                return r;
        }
        *ret_changed = k->changed_mask(&before, object);
        strings_free_replaced(k->strings, k->n_strings, &before, object);
        return 0;
}

/* *ret_changed is what changed, with Attributes. */
int object_apply_files(const ObjectKind *k, void *object, const PolledFile *files, size_t n_files,
                       const FileValue *values, PropertyMask *ret_changed) {
        AttrList *attributes = (AttrList *) ((uint8_t *) object + k->attributes_offset);
        bool any = false;
        PropertyMask changed;
        int r;

        *ret_changed = 0;
        for (size_t i = 0; i < n_files; i++) {
                if (values[i].skipped || values[i].result == -EBADMSG)
                        continue; /* the last good value stays */
                r = attr_list_refresh(attributes, files[i].name, values[i].result, values[i].value ?: "",
                                      values[i].len);
                if (r < 0)
                        return r;
                any = any || r > 0;
        }
        if (!any)
                return 0;

        r = object_update(k, object, &changed);
        if (r < 0)
                return r;
        *ret_changed = changed | k->attributes_bit;
        return 0;
}

void model_report(Manager *m, ModelObjectKind kind, void *object, PropertyMask mask) {
        if ((mask != 0 || kind == MODEL_DEVICE_SET) && m->events.changed)
                m->events.changed(kind, object, mask, m->events_userdata);
}
