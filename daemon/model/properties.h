/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
 *   X(id, name, signature, emits, compare, field, bus, getter)
 *
 *   id         PORT_PROP_<id> and so on, for a property that can change
 *   name       its D-Bus name; signature its D-Bus type
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
#define PROPERTY_ENUM(prefix, id, name, signature, emits, ...) PROPERTY_ENUM_##emits(prefix##id)

#define PROPERTY_COUNT_CHANGE +1
#define PROPERTY_COUNT_CONST
#define PROPERTY_COUNT(id, name, signature, emits, ...) PROPERTY_COUNT_##emits

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

/* The D-Bus name of a property; NULL out of range. */
const char *device_property_to_string(DeviceProperty p);
const char *port_property_to_string(PortProperty p);
const char *netdev_property_to_string(NetDevProperty p);
const char *sriov_property_to_string(SriovProperty p);

#define PROPERTY_NAMES_MAX 64

typedef struct PropertyNames {
        const char *names[PROPERTY_NAMES_MAX + 1]; /* NULL-terminated, for sd_bus_emit_properties_changed_strv */
        unsigned n;
} PropertyNames;

/* The names of the bits set in mask, in enum order. */
void device_property_names(PropertyMask mask, PropertyNames *ret);
void port_property_names(PropertyMask mask, PropertyNames *ret);
void netdev_property_names(PropertyMask mask, PropertyNames *ret);
void sriov_property_names(PropertyMask mask, PropertyNames *ret);

/* The one place that decides what changed: two snapshots of the same object
 * compared field by field through the tables; a mask of PROPERTY_BIT()s.
 * Strings may be NULL (a port being loaded). */
PropertyMask device_changed_mask(const Device *a, const Device *b);
PropertyMask port_changed_mask(const Port *a, const Port *b);
PropertyMask netdev_changed_mask(const NetDev *a, const NetDev *b);
PropertyMask sriov_changed_mask(const Device *a, const Device *b);

/* Row i of an interface's list, in its order: the property's name, and in
 * *ret_bit its bit, -1 for a constant one (an identity row). NULL past the
 * last row. */
const char *device_property_row(size_t i, int *ret_bit);
const char *port_property_row(size_t i, int *ret_bit);
const char *netdev_property_row(size_t i, int *ret_bit);
const char *sriov_property_row(size_t i, int *ret_bit);

/* An identity row of the Device, its Sriov or one of its Ports differs (name,
 * paths, driver, GUIDs, firmware, the set of ports, SR-IOV capability), or the
 * PF a VF is attached to: the objects must be re-announced, removed and added,
 * not changed in place. */
bool device_identity_changed(const Device *a, const Device *b);
bool port_identity_changed(const Port *a, const Port *b);
bool netdev_identity_changed(const NetDev *a, const NetDev *b);
