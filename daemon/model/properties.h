/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"

/* Every published property, once: a table per interface (properties.c) with
 * the D-Bus name and how to compare the model's field. The rows of the
 * properties that can change at run time come first, indexed by the enum
 * below; changes are collected as masks of these bits on the objects
 * (PROPERTY_BIT(PORT_PROP_STATE)) and turned into one PropertiesChanged per
 * object per event-loop iteration. The constant properties follow as identity
 * rows, with no bit: one that differs means the object is re-announced. */

typedef enum DeviceProperty {
        DEVICE_PROP_NODE_DESCRIPTION,
        DEVICE_PROP_NETDEVS,
        DEVICE_PROP_ATTRIBUTES,
        DEVICE_PROP_POWER_ATTRIBUTES,
        DEVICE_PROP_PHYSICAL_FUNCTION, /* set by the manager when the PF comes or goes */
        DEVICE_PROP_VIRTUAL_FUNCTIONS, /* ... when a VF's RDMA device comes or goes */
        DEVICE_PROP_HEALTH,            /* ... when its reads hang, fail or answer again */
        DEVICE_PROP_HEALTH_REASON,
        _DEVICE_PROP_MAX,
} DeviceProperty;

typedef enum PortProperty {
        PORT_PROP_STATE,
        PORT_PROP_STATE_NUM,
        PORT_PROP_STATE_NAME,
        PORT_PROP_PHYS_STATE,
        PORT_PROP_PHYS_STATE_NUM,
        PORT_PROP_PHYS_STATE_NAME,
        PORT_PROP_RATE,
        PORT_PROP_RATE_SPEED,
        PORT_PROP_RATE_UNIT,
        PORT_PROP_RATE_INFO,
        PORT_PROP_LINK_WIDTH,
        PORT_PROP_LINK_SPEED,
        PORT_PROP_LINK_LAYER,
        PORT_PROP_TRANSPORT,
        PORT_PROP_LID,
        PORT_PROP_SM_LID,
        PORT_PROP_LID_MASK_COUNT,
        PORT_PROP_SM_SL,
        PORT_PROP_CAP_MASK,
        PORT_PROP_NETDEV,
        PORT_PROP_GIDS,
        PORT_PROP_ATTRIBUTES,
        PORT_PROP_STATE_CHANGED_USEC,
        PORT_PROP_STATE_CHANGES,
        PORT_PROP_LINK_EVENTS,
        _PORT_PROP_MAX,
} PortProperty;

typedef enum NetDevProperty {
        NETDEV_PROP_DEV_PORT,
        NETDEV_PROP_PORT,
        NETDEV_PROP_OPER_STATE,
        NETDEV_PROP_ADDRESS,
        NETDEV_PROP_MTU,
        NETDEV_PROP_ATTRIBUTES,
        _NETDEV_PROP_MAX,
} NetDevProperty;

/* Sriov's object is its Device. */
typedef enum SriovProperty {
        SRIOV_PROP_NUM_VFS,
        _SRIOV_PROP_MAX,
} SriovProperty;

#define PROPERTY_BIT(p) (UINT32_C(1) << (p))

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

#define PROPERTY_NAMES_MAX 32

typedef struct PropertyNames {
        const char *names[PROPERTY_NAMES_MAX + 1]; /* NULL-terminated, for sd_bus_emit_properties_changed_strv */
        unsigned n;
} PropertyNames;

/* The names of the bits set in mask, in enum order. */
void device_property_names(uint32_t mask, PropertyNames *ret);
void port_property_names(uint32_t mask, PropertyNames *ret);
void netdev_property_names(uint32_t mask, PropertyNames *ret);
void sriov_property_names(uint32_t mask, PropertyNames *ret);

/* The one place that decides what changed: two snapshots of the same object
 * compared field by field through the tables; a mask of PROPERTY_BIT()s.
 * Strings may be NULL (a port being loaded). */
uint32_t device_changed_mask(const Device *a, const Device *b);
uint32_t port_changed_mask(const Port *a, const Port *b);
uint32_t netdev_changed_mask(const NetDev *a, const NetDev *b);
uint32_t sriov_changed_mask(const Device *a, const Device *b);

/* Row i of an interface's whole table: changeable rows in enum order, then
 * the identity rows; *ret_identity says which. NULL past the last row. */
const char *device_property_row(size_t i, bool *ret_identity);
const char *port_property_row(size_t i, bool *ret_identity);
const char *netdev_property_row(size_t i, bool *ret_identity);
const char *sriov_property_row(size_t i, bool *ret_identity);

/* An identity row of the Device, its Sriov or one of its Ports differs (name,
 * paths, driver, GUIDs, firmware, the set of ports, SR-IOV capability), or the
 * PF a VF is attached to: the objects must be re-announced, removed and added,
 * not changed in place. */
bool device_identity_changed(const Device *a, const Device *b);
bool port_identity_changed(const Port *a, const Port *b);
bool netdev_identity_changed(const NetDev *a, const NetDev *b);
