/* SPDX-License-Identifier: MIT */
#pragma once

/* org.rdmad1.NetDev's properties, in the order published; the columns are
 * properties.h's. */
#define NETDEV_PROPERTIES(X)                                                                                           \
        X(NAME, "s", CONST, STRING, name, FIELD, _)                                                                    \
        X(DEVICE, "o", CONST, PARENT, device, GET_FIELD, device_of)                                                    \
        X(DEV_PORT, "u", CHANGE, U32, dev_port, FIELD, _)                                                              \
        X(PORT, "o", CHANGE, U32, port, GET, port)                                                                     \
        X(OPER_STATE, "s", CHANGE, STRING, operstate, FIELD, _)                                                        \
        X(ADDRESS, "s", CHANGE, STRING, address, FIELD, _)                                                             \
        X(MTU, "u", CHANGE, U32, mtu, FIELD, _)                                                                        \
        X(ATTRIBUTES, "a{ss}", CHANGE, ATTR_LIST, attributes, FIELD, _)
