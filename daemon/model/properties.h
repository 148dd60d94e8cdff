/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model-events.h"
#include "model.h"

#include "properties-device.h"
#include "properties-netdev.h"
#include "properties-port.h"
#include "properties-sriov.h"

/* Every published property, once: a list per interface (properties-*.h),
 * in the order the interface publishes them, which the model side
 * (properties.c: the enums below, names, comparisons) and the bus side
 * (bus-<kind>.c: the vtable, the bound of a reply's size) both expand.
 * A row is
 *
 *   X(id, signature, emits, compare, field, bus, getter)
 *
 *   id         PORT_PROP_<id> and so on, for a property that can change;
 *              its D-Bus name is RDMAD_PORT_PROPERTY_<id> and so on
 *              (api/rdmad-api.h), which only the bus side knows
 *   signature  its D-Bus type
 *   emits      CHANGE: it can change at run time, and announces it with
 *              PropertiesChanged; its bit in the masks of changes
 *              (PROPERTY_BIT(PORT_PROP_STATE)) is its place among the list's
 *              CHANGE rows, which is also the order a PropertiesChanged
 *              names them in; CONST: constant, compared as an identity row:
 *              one that differs means the object is re-announced
 *   compare    how two snapshots of the object differ: STRING, U32, I32, U64,
 *              DOUBLE, BOOL, ATTR_LIST: the model's field `field`;
 *              CUSTOM: field names a function of properties.c comparing the
 *              whole objects; RELATED: made of other devices, of how the
 *              reads went or of the port's past (LinkHistory), marked by
 *              the manager; PARENT: the object's Device,
 *              compared by the Device's own rows
 *   bus        how sd-bus reads it: FIELD: the field (an AttrList through
 *              bus_property_get_attr_list()); GET: the getter
 *              bus_property_get_<getter>() on the object; GET_FIELD: the same
 *              on the field. A getter comes with bus_property_size_<getter>(),
 *              an upper bound of what it marshals (bus-objects.h)
 *   getter     GET and GET_FIELD's, _ for FIELD
 *
 * The changes are collected as masks of these bits on the objects and turned
 * into one PropertiesChanged per object per event-loop iteration. */

#define PROPERTY_ENUM_CHANGE(id) id,
#define PROPERTY_ENUM_CONST(id)
#define PROPERTY_ENUM(prefix, id, signature, emits, ...) PROPERTY_ENUM_##emits(prefix##id)

#define PROPERTY_COUNT_CHANGE +1
#define PROPERTY_COUNT_CONST
#define PROPERTY_COUNT(id, signature, emits, ...) PROPERTY_COUNT_##emits

#define DEVICE_PROPERTY_ENUM(...) PROPERTY_ENUM(DEVICE_PROP_, __VA_ARGS__)
#define PORT_PROPERTY_ENUM(...)   PROPERTY_ENUM(PORT_PROP_, __VA_ARGS__)
#define NETDEV_PROPERTY_ENUM(...) PROPERTY_ENUM(NETDEV_PROP_, __VA_ARGS__)
#define SRIOV_PROPERTY_ENUM(...)  PROPERTY_ENUM(SRIOV_PROP_, __VA_ARGS__)

typedef enum DeviceProperty {
        DEVICE_PROPERTIES(DEVICE_PROPERTY_ENUM) _DEVICE_PROP_MAX = 0 DEVICE_PROPERTIES(PROPERTY_COUNT),
} DeviceProperty;

typedef enum PortProperty {
        PORT_PROPERTIES(PORT_PROPERTY_ENUM) _PORT_PROP_MAX = 0 PORT_PROPERTIES(PROPERTY_COUNT),
} PortProperty;

typedef enum NetDevProperty {
        NETDEV_PROPERTIES(NETDEV_PROPERTY_ENUM) _NETDEV_PROP_MAX = 0 NETDEV_PROPERTIES(PROPERTY_COUNT),
} NetDevProperty;

/* Sriov's object is its Device. */
typedef enum SriovProperty {
        SRIOV_PROPERTIES(SRIOV_PROPERTY_ENUM) _SRIOV_PROP_MAX = 0 SRIOV_PROPERTIES(PROPERTY_COUNT),
} SriovProperty;

#define PROPERTY_BIT(p) (UINT64_C(1) << (p))

/* A State or PhysState change: also what moves StateChangedUsec. */
#define PORT_STATE_MASK                                                                                                \
        (PROPERTY_BIT(PORT_PROP_STATE) | PROPERTY_BIT(PORT_PROP_STATE_NUM) | PROPERTY_BIT(PORT_PROP_STATE_NAME) |      \
         PROPERTY_BIT(PORT_PROP_PHYS_STATE) | PROPERTY_BIT(PORT_PROP_PHYS_STATE_NUM) |                                 \
         PROPERTY_BIT(PORT_PROP_PHYS_STATE_NAME))

/* The one place that decides what changed: two snapshots of the same object
 * compared field by field through the tables; a mask of PROPERTY_BIT()s.
 * Strings may be NULL (a port being loaded). */
PropertyMask device_changed_mask(const Device *a, const Device *b);
PropertyMask port_changed_mask(const Port *a, const Port *b);
PropertyMask netdev_changed_mask(const NetDev *a, const NetDev *b);
PropertyMask sriov_changed_mask(const Device *a, const Device *b);

/* An identity row of the Device, its Sriov or one of its Ports differs (name,
 * paths, driver, GUIDs, firmware, the set of ports, SR-IOV capability), or the
 * PF a VF is attached to: the objects must be re-announced, removed and added,
 * not changed in place. */
bool device_identity_changed(const Device *a, const Device *b);
bool port_identity_changed(const Port *a, const Port *b);

/* For device.c, port.c and netdev.c: the update of an object from its
 * attributes, and the strings it owns. */

/* The char * fields an object owns, by offset: freed by its clear, and by an
 * update for those that a re-derivation replaced, whether or not they are
 * published. A new char * field of Port, NetDev or Device goes in its list. */
#define STRING_AT(object, offset) (*(char **) ((uint8_t *) (object) + (offset)))
void strings_free(const size_t *strings, size_t n, void *object);

/* Puts a copy of value in *field unless it is equal already; the old string
 * is freed by the update that called the derivation (object_update()). */
int derive_str(char **field, const char *value);

/* What the update and the refresh of a port or a netdev need to know of it. */
typedef struct ObjectKind {
        size_t size;
        const size_t *strings;
        size_t n_strings;
        size_t attributes_offset;
        PropertyMask attributes_bit;
        int (*derive)(void *object);
        PropertyMask (*changed_mask)(const void *a, const void *b);
} ObjectKind;

/* kind##_kind for port.c and netdev.c, from what each defines: Object's
 * kind##_strings[], kind##_derive() and kind##_changed_mask(). */
#define DEFINE_OBJECT_KIND(kind, Object, PREFIX)                                                                       \
        static PropertyMask kind##_changed_object(const void *a, const void *b) {                                      \
                return kind##_changed_mask(a, b);                                                                      \
        }                                                                                                              \
        static const ObjectKind kind##_kind = {                                                                        \
                .size = sizeof(Object),                                                                                \
                .strings = kind##_strings,                                                                             \
                .n_strings = ELEMENTSOF(kind##_strings),                                                               \
                .attributes_offset = offsetof(Object, attributes),                                                     \
                .attributes_bit = PROPERTY_BIT(PREFIX##_PROP_ATTRIBUTES),                                              \
                .derive = kind##_derive,                                                                               \
                .changed_mask = kind##_changed_object,                                                                 \
        }

/* A shallow copy of any object of a kind, taken before re-deriving it. */
typedef union ObjectSnapshot {
        Port port;
        NetDev netdev;
} ObjectSnapshot;

/* Re-derives the object from its attribute map; *ret_changed is what that
 * changed (properties.c compares). On failure the object is as it was. */
int object_update(const ObjectKind *k, void *object, PropertyMask *ret_changed);

/* The applying half of a re-read, on the loop: the values read by
 * object_read_files() (sysfs.h) into the object's attributes and, if any
 * differed, the object re-derived. */
int object_apply_files(const ObjectKind *k, void *object, const PolledFile *files, size_t n_files,
                       const FileValue *values, PropertyMask *ret_changed);

/* Every change of a published object's properties (a mask of its
 * PROPERTY_BIT()s), and every change of the device set (MODEL_DEVICE_SET,
 * 0), goes out through here to the manager's ModelEvents; who publishes
 * keeps what is pending. Objects coming and going and a finished rescan
 * have their own events. */
void model_report(Manager *m, ModelObjectKind kind, void *object, PropertyMask mask);
