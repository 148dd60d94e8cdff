/* SPDX-License-Identifier: MIT */
#pragma once

/* org.rdmad1.NetDev's properties, in the order published; the columns are
 * properties.h's. */
#define NETDEV_PROPERTIES(X)                                                                                           \
        X(NAME, "Name", "s", CONST, STRING, name, FIELD, _)                                                            \
        X(DEVICE, "Device", "o", CONST, PARENT, device, GET_FIELD, device_of)                                          \
        X(DEV_PORT, "DevPort", "u", CHANGE, U32, dev_port, FIELD, _)                                                   \
        X(PORT, "Port", "o", CHANGE, U32, port, GET, port)                                                             \
        X(OPER_STATE, "OperState", "s", CHANGE, STRING, operstate, FIELD, _)                                           \
        X(ADDRESS, "Address", "s", CHANGE, STRING, address, FIELD, _)                                                  \
        X(MTU, "Mtu", "u", CHANGE, U32, mtu, FIELD, _)                                                                 \
        X(ATTRIBUTES, "Attributes", "a{ss}", CHANGE, ATTR_LIST, attributes, FIELD, _)
