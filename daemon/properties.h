/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdint.h>

/* One bit per property that can change at run time, per interface. Changes
 * are collected as masks on the objects and turned into one
 * PropertiesChanged per object per event-loop iteration. */

enum {
        DEVICE_NODE_DESCRIPTION = 1u << 0,
        DEVICE_NETDEVS = 1u << 1,
        DEVICE_ATTRIBUTES = 1u << 2,
        DEVICE_POWER_ATTRIBUTES = 1u << 3,
};

enum {
        PORT_STATE = 1u << 0,
        PORT_STATE_NUM = 1u << 1,
        PORT_STATE_NAME = 1u << 2,
        PORT_PHYS_STATE = 1u << 3,
        PORT_PHYS_STATE_NUM = 1u << 4,
        PORT_PHYS_STATE_NAME = 1u << 5,
        PORT_RATE = 1u << 6,
        PORT_RATE_SPEED = 1u << 7,
        PORT_RATE_UNIT = 1u << 8,
        PORT_RATE_INFO = 1u << 9,
        PORT_LINK_LAYER = 1u << 10,
        PORT_LID = 1u << 11,
        PORT_SM_LID = 1u << 12,
        PORT_LID_MASK_COUNT = 1u << 13,
        PORT_SM_SL = 1u << 14,
        PORT_CAP_MASK = 1u << 15,
        PORT_NETDEV = 1u << 16,
        PORT_GIDS = 1u << 17,
        PORT_ATTRIBUTES = 1u << 18,
        PORT_STATE_CHANGED_USEC = 1u << 19,
        PORT_STATE_CHANGES = 1u << 20,
};

enum {
        NETDEV_DEV_PORT = 1u << 0,
        NETDEV_PORT = 1u << 1,
        NETDEV_OPER_STATE = 1u << 2,
        NETDEV_ADDRESS = 1u << 3,
        NETDEV_MTU = 1u << 4,
        NETDEV_ATTRIBUTES = 1u << 5,
};

enum {
        SRIOV_NUM_VFS = 1u << 0,
};

#define PROPERTY_NAMES_MAX 32

typedef struct PropertyNames {
        const char *names[PROPERTY_NAMES_MAX + 1]; /* NULL-terminated, for sd_bus_emit_properties_changed_strv */
        unsigned n;
} PropertyNames;

void device_property_names(uint32_t mask, PropertyNames *ret);
void port_property_names(uint32_t mask, PropertyNames *ret);
void netdev_property_names(uint32_t mask, PropertyNames *ret);
void sriov_property_names(uint32_t mask, PropertyNames *ret);
