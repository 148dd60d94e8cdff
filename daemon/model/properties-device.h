/* SPDX-License-Identifier: MIT */
#pragma once

/* org.rdmad1.Device's properties, in the order published; the columns are
 * properties.h's. What identifies the hardware is constant for the
 * object's lifetime: a change there re-announces the device. Its
 * relations to other devices (PhysicalFunction, VirtualFunctions) and its
 * health are RELATED: marked by the manager when a PF or VF comes or goes,
 * or when its reads hang, fail or answer again. */
#define DEVICE_PROPERTIES(X)                                                                                           \
        X(NAME, "s", CONST, STRING, name, FIELD, _)                                                                    \
        X(SYSFS_PATH, "s", CONST, STRING, sysfs_path, FIELD, _)                                                        \
        X(DEVICE_PATH, "s", CONST, STRING, device_path, FIELD, _)                                                      \
        X(DRIVER, "s", CONST, STRING, driver, FIELD, _)                                                                \
        X(NODE_TYPE, "s", CONST, STRING, node_type, FIELD, _)                                                          \
        X(TRANSPORT, "s", CONST, STRING, transport, FIELD, _)                                                          \
        X(PCI_ADDRESS, "s", CONST, STRING, pci_address, FIELD, _)                                                      \
        X(NUMA_NODE, "i", CONST, I32, numa_node, FIELD, _)                                                             \
        X(PHYSICAL_FUNCTION, "o", CHANGE, RELATED, _, GET, physical_function)                                          \
        X(VIRTUAL_FUNCTIONS, "ao", CHANGE, RELATED, _, GET, virtual_functions)                                         \
        X(NODE_GUID, "s", CONST, STRING, node_guid, FIELD, _)                                                          \
        X(SYS_IMAGE_GUID, "s", CONST, STRING, sys_image_guid, FIELD, _)                                                \
        X(FIRMWARE_VERSION, "s", CONST, STRING, fw_ver, FIELD, _)                                                      \
        X(HCA_TYPE, "s", CONST, STRING, hca_type, FIELD, _)                                                            \
        X(HW_REV, "s", CONST, STRING, hw_rev, FIELD, _)                                                                \
        X(BOARD_ID, "s", CONST, STRING, board_id, FIELD, _)                                                            \
        X(NODE_DESCRIPTION, "s", CHANGE, STRING, node_desc, FIELD, _)                                                  \
        X(HEALTH, "s", CHANGE, RELATED, _, GET, health)                                                                \
        X(HEALTH_REASON, "s", CHANGE, RELATED, health_reason, FIELD, _)                                                \
        X(PORTS, "ao", CONST, CUSTOM, port_numbers_equal, GET, ports)                                                  \
        X(PORT_NUMBERS, "au", CONST, CUSTOM, port_numbers_equal, GET, port_numbers)                                    \
        X(NETDEVS, "ao", CHANGE, CUSTOM, netdev_names_equal, GET, netdevs)                                             \
        X(SRIOV_CAPABLE, "b", CONST, BOOL, sriov_capable, GET, sriov_capable)                                          \
        X(SRIOV, "o", CONST, CUSTOM, sriov_path_equal, GET, sriov)                                                     \
        X(ATTRIBUTES, "a{ss}", CHANGE, ATTR_LIST, attributes, FIELD, _)                                                \
        X(POWER_ATTRIBUTES, "a{ss}", CHANGE, ATTR_LIST, power_attributes, FIELD, _)
