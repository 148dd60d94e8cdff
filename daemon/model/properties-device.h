/* SPDX-License-Identifier: MIT */
#pragma once

/* org.rdmad1.Device's properties, in the order published; the columns are
 * properties.h's. What identifies the hardware is constant for the
 * object's lifetime: a change there re-announces the device. Its
 * relations to other devices (PhysicalFunction, VirtualFunctions) and its
 * health are RELATED: marked by the manager when a PF or VF comes or goes,
 * or when its reads hang, fail or answer again. */
#define DEVICE_PROPERTIES(X)                                                                                           \
        X(NAME, "Name", "s", CONST, STRING, name, FIELD, _)                                                            \
        X(SYSFS_PATH, "SysfsPath", "s", CONST, STRING, sysfs_path, FIELD, _)                                           \
        X(DEVICE_PATH, "DevicePath", "s", CONST, STRING, device_path, FIELD, _)                                        \
        X(DRIVER, "Driver", "s", CONST, STRING, driver, FIELD, _)                                                      \
        X(NODE_TYPE, "NodeType", "s", CONST, STRING, node_type, FIELD, _)                                              \
        X(TRANSPORT, "Transport", "s", CONST, STRING, transport, FIELD, _)                                             \
        X(PCI_ADDRESS, "PciAddress", "s", CONST, STRING, pci_address, FIELD, _)                                        \
        X(NUMA_NODE, "NumaNode", "i", CONST, I32, numa_node, FIELD, _)                                                 \
        X(PHYSICAL_FUNCTION, "PhysicalFunction", "o", CHANGE, RELATED, _, GET, physical_function)                      \
        X(VIRTUAL_FUNCTIONS, "VirtualFunctions", "ao", CHANGE, RELATED, _, GET, virtual_functions)                     \
        X(NODE_GUID, "NodeGuid", "s", CONST, STRING, node_guid, FIELD, _)                                              \
        X(SYS_IMAGE_GUID, "SysImageGuid", "s", CONST, STRING, sys_image_guid, FIELD, _)                                \
        X(FIRMWARE_VERSION, "FirmwareVersion", "s", CONST, STRING, fw_ver, FIELD, _)                                   \
        X(HCA_TYPE, "HcaType", "s", CONST, STRING, hca_type, FIELD, _)                                                 \
        X(HW_REV, "HwRev", "s", CONST, STRING, hw_rev, FIELD, _)                                                       \
        X(BOARD_ID, "BoardId", "s", CONST, STRING, board_id, FIELD, _)                                                 \
        X(NODE_DESCRIPTION, "NodeDescription", "s", CHANGE, STRING, node_desc, FIELD, _)                               \
        X(HEALTH, "Health", "s", CHANGE, RELATED, _, GET, health)                                                      \
        X(HEALTH_REASON, "HealthReason", "s", CHANGE, RELATED, health_reason, FIELD, _)                                \
        X(PORTS, "Ports", "ao", CONST, CUSTOM, port_numbers_equal, GET, ports)                                         \
        X(PORT_NUMBERS, "PortNumbers", "au", CONST, CUSTOM, port_numbers_equal, GET, port_numbers)                     \
        X(NETDEVS, "NetDevs", "ao", CHANGE, CUSTOM, netdev_names_equal, GET, netdevs)                                  \
        X(SRIOV_CAPABLE, "SriovCapable", "b", CONST, BOOL, sriov_capable, GET, sriov_capable)                          \
        X(SRIOV, "Sriov", "o", CONST, CUSTOM, sriov_path_equal, GET, sriov)                                            \
        X(ATTRIBUTES, "Attributes", "a{ss}", CHANGE, ATTR_LIST, attributes, FIELD, _)                                  \
        X(POWER_ATTRIBUTES, "PowerAttributes", "a{ss}", CHANGE, ATTR_LIST, power_attributes, FIELD, _)
