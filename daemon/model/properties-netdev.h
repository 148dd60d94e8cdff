/* SPDX-License-Identifier: MIT */
#pragma once

/* org.rdmad1.NetDev's properties, in the order published; the columns are
 * properties.h's. */
#define NETDEV_PROPERTIES(X)                                                                                           \
        X(NAME, "Name", "s", CONST, _, STRING, name, FIELD, _)                                                         \
        X(DEVICE, "Device", "o", CONST, _, PARENT, device, GET_FIELD, device_of)                                       \
        X(DEV_PORT, "DevPort", "u", CHANGE, 0, U32, dev_port, FIELD, _)                                                \
        X(PORT, "Port", "o", CHANGE, 1, U32, port, GET, port)                                                          \
        X(OPER_STATE, "OperState", "s", CHANGE, 2, STRING, operstate, FIELD, _)                                        \
        X(ADDRESS, "Address", "s", CHANGE, 3, STRING, address, FIELD, _)                                               \
        X(MTU, "Mtu", "u", CHANGE, 4, U32, mtu, FIELD, _)                                                              \
        X(ATTRIBUTES, "Attributes", "a{ss}", CHANGE, 5, ATTR_LIST, attributes, FIELD, _)
