/* SPDX-License-Identifier: MIT */
#pragma once

/* Every name of rdmad's D-Bus API, spelled once: the daemon publishes them,
 * rdmactl, rdmad-exporter, the tests and the benchmarks call them. The
 * object path grammar below the device prefix is bus-path.h's. */

#define RDMAD_BUS_NAME "org.rdmad1"

#define RDMAD_ROOT_PATH     "/org/rdmad1"
#define RDMAD_DEVICE_PREFIX RDMAD_ROOT_PATH "/device"

#define RDMAD_MANAGER_INTERFACE RDMAD_BUS_NAME ".Manager"
#define RDMAD_DEVICE_INTERFACE  RDMAD_BUS_NAME ".Device"
#define RDMAD_PORT_INTERFACE    RDMAD_BUS_NAME ".Port"
#define RDMAD_NETDEV_INTERFACE  RDMAD_BUS_NAME ".NetDev"
#define RDMAD_SRIOV_INTERFACE   RDMAD_BUS_NAME ".Sriov"

/* The methods of rdmad's interfaces (introspection/). */
#define RDMAD_METHOD_RESCAN             "Rescan"
#define RDMAD_METHOD_RESOLVE_ADDRESS    "ResolveAddress"
#define RDMAD_METHOD_GET_ALL_COUNTERS   "GetAllCounters"
#define RDMAD_METHOD_GET_COUNTERS       "GetCounters"
#define RDMAD_METHOD_WAIT_FOR_STATE     "WaitForState"
#define RDMAD_METHOD_SET_NUM_VFS        "SetNumVfs"
#define RDMAD_METHOD_GET_DEVICE_BY_NAME "GetDeviceByName"

/* org.rdmad1.Manager's properties. */
#define RDMAD_MANAGER_PROPERTY_VERSION          "Version"
#define RDMAD_MANAGER_PROPERTY_DEVICES          "Devices"
#define RDMAD_MANAGER_PROPERTY_POLL_INTERVAL_MS "PollIntervalMs"

/* org.rdmad1.Device's properties (daemon/model/properties-device.h lists them in order). */
#define RDMAD_DEVICE_PROPERTY_NAME              "Name"
#define RDMAD_DEVICE_PROPERTY_SYSFS_PATH        "SysfsPath"
#define RDMAD_DEVICE_PROPERTY_DEVICE_PATH       "DevicePath"
#define RDMAD_DEVICE_PROPERTY_DRIVER            "Driver"
#define RDMAD_DEVICE_PROPERTY_NODE_TYPE         "NodeType"
#define RDMAD_DEVICE_PROPERTY_TRANSPORT         "Transport"
#define RDMAD_DEVICE_PROPERTY_PCI_ADDRESS       "PciAddress"
#define RDMAD_DEVICE_PROPERTY_NUMA_NODE         "NumaNode"
#define RDMAD_DEVICE_PROPERTY_PHYSICAL_FUNCTION "PhysicalFunction"
#define RDMAD_DEVICE_PROPERTY_VIRTUAL_FUNCTIONS "VirtualFunctions"
#define RDMAD_DEVICE_PROPERTY_NODE_GUID         "NodeGuid"
#define RDMAD_DEVICE_PROPERTY_SYS_IMAGE_GUID    "SysImageGuid"
#define RDMAD_DEVICE_PROPERTY_FIRMWARE_VERSION  "FirmwareVersion"
#define RDMAD_DEVICE_PROPERTY_HCA_TYPE          "HcaType"
#define RDMAD_DEVICE_PROPERTY_HW_REV            "HwRev"
#define RDMAD_DEVICE_PROPERTY_BOARD_ID          "BoardId"
#define RDMAD_DEVICE_PROPERTY_NODE_DESCRIPTION  "NodeDescription"
#define RDMAD_DEVICE_PROPERTY_HEALTH            "Health"
#define RDMAD_DEVICE_PROPERTY_HEALTH_REASON     "HealthReason"
#define RDMAD_DEVICE_PROPERTY_PORTS             "Ports"
#define RDMAD_DEVICE_PROPERTY_PORT_NUMBERS      "PortNumbers"
#define RDMAD_DEVICE_PROPERTY_NETDEVS           "NetDevs"
#define RDMAD_DEVICE_PROPERTY_SRIOV_CAPABLE     "SriovCapable"
#define RDMAD_DEVICE_PROPERTY_SRIOV             "Sriov"
#define RDMAD_DEVICE_PROPERTY_ATTRIBUTES        "Attributes"
#define RDMAD_DEVICE_PROPERTY_POWER_ATTRIBUTES  "PowerAttributes"

/* org.rdmad1.Port's properties (daemon/model/properties-port.h lists them in order). */
#define RDMAD_PORT_PROPERTY_DEVICE             "Device"
#define RDMAD_PORT_PROPERTY_NUMBER             "Number"
#define RDMAD_PORT_PROPERTY_TRANSPORT          "Transport"
#define RDMAD_PORT_PROPERTY_STATE              "State"
#define RDMAD_PORT_PROPERTY_STATE_NUM          "StateNum"
#define RDMAD_PORT_PROPERTY_STATE_NAME         "StateName"
#define RDMAD_PORT_PROPERTY_PHYS_STATE         "PhysState"
#define RDMAD_PORT_PROPERTY_PHYS_STATE_NUM     "PhysStateNum"
#define RDMAD_PORT_PROPERTY_PHYS_STATE_NAME    "PhysStateName"
#define RDMAD_PORT_PROPERTY_RATE               "Rate"
#define RDMAD_PORT_PROPERTY_RATE_SPEED         "RateSpeed"
#define RDMAD_PORT_PROPERTY_RATE_UNIT          "RateUnit"
#define RDMAD_PORT_PROPERTY_RATE_INFO          "RateInfo"
#define RDMAD_PORT_PROPERTY_LINK_WIDTH         "LinkWidth"
#define RDMAD_PORT_PROPERTY_LINK_SPEED         "LinkSpeed"
#define RDMAD_PORT_PROPERTY_LINK_LAYER         "LinkLayer"
#define RDMAD_PORT_PROPERTY_LID                "Lid"
#define RDMAD_PORT_PROPERTY_SM_LID             "SmLid"
#define RDMAD_PORT_PROPERTY_LID_MASK_COUNT     "LidMaskCount"
#define RDMAD_PORT_PROPERTY_SM_SL              "SmSl"
#define RDMAD_PORT_PROPERTY_CAP_MASK           "CapMask"
#define RDMAD_PORT_PROPERTY_NETDEV             "NetDev"
#define RDMAD_PORT_PROPERTY_GIDS               "Gids"
#define RDMAD_PORT_PROPERTY_ATTRIBUTES         "Attributes"
#define RDMAD_PORT_PROPERTY_STATE_CHANGED_USEC "StateChangedUsec"
#define RDMAD_PORT_PROPERTY_STATE_CHANGES      "StateChanges"
#define RDMAD_PORT_PROPERTY_LINK_EVENTS        "LinkEvents"
#define RDMAD_PORT_PROPERTY_PORT_GUID          "PortGuid"
#define RDMAD_PORT_PROPERTY_LINK_HISTORY       "LinkHistory"

/* org.rdmad1.NetDev's properties (daemon/model/properties-netdev.h lists them in order). */
#define RDMAD_NETDEV_PROPERTY_NAME       "Name"
#define RDMAD_NETDEV_PROPERTY_DEVICE     "Device"
#define RDMAD_NETDEV_PROPERTY_DEV_PORT   "DevPort"
#define RDMAD_NETDEV_PROPERTY_PORT       "Port"
#define RDMAD_NETDEV_PROPERTY_OPER_STATE "OperState"
#define RDMAD_NETDEV_PROPERTY_ADDRESS    "Address"
#define RDMAD_NETDEV_PROPERTY_MTU        "Mtu"
#define RDMAD_NETDEV_PROPERTY_ATTRIBUTES "Attributes"

/* org.rdmad1.Sriov's properties (daemon/model/properties-sriov.h lists them in order). */
#define RDMAD_SRIOV_PROPERTY_DEVICE      "Device"
#define RDMAD_SRIOV_PROPERTY_DEVICE_PATH "DevicePath"
#define RDMAD_SRIOV_PROPERTY_NUM_VFS     "NumVfs"
#define RDMAD_SRIOV_PROPERTY_TOTAL_VFS   "TotalVfs"
#define RDMAD_ERROR_INVALID_ARGUMENT     RDMAD_BUS_NAME ".Error.InvalidArgument"
#define RDMAD_ERROR_NO_SUCH_DEVICE       RDMAD_BUS_NAME ".Error.NoSuchDevice"
#define RDMAD_ERROR_BUSY                 RDMAD_BUS_NAME ".Error.Busy"
#define RDMAD_ERROR_FAILED               RDMAD_BUS_NAME ".Error.Failed"
#define RDMAD_ERROR_NOT_SUPPORTED        RDMAD_BUS_NAME ".Error.NotSupported"
#define RDMAD_ERROR_TIMEOUT              RDMAD_BUS_NAME ".Error.Timeout"
#define RDMAD_ERROR_UNRESPONSIVE         RDMAD_BUS_NAME ".Error.Unresponsive"
/* Manager.ResolveAddress: no route to the address; its egress netdev carries
 * no RDMA port; the port's GID table has no entry for the source address. */
#define RDMAD_ERROR_NO_ROUTE RDMAD_BUS_NAME ".Error.NoRoute"
#define RDMAD_ERROR_NOT_RDMA RDMAD_BUS_NAME ".Error.NotRdma"
#define RDMAD_ERROR_NO_GID   RDMAD_BUS_NAME ".Error.NoGid"

/* The polkit action of SetNumVfs (systemd/org.rdmad1.policy). */
#define RDMAD_POLKIT_ACTION_SET_NUM_VFS RDMAD_BUS_NAME ".set-num-vfs"

/* The bus's own names that rdmad and its clients use, spelled here too.
 * sd-bus's SD_BUS_ERROR_* macros spell the standard errors. */
#define DBUS_SERVICE_NAME             "org.freedesktop.DBus"
#define DBUS_PATH                     "/org/freedesktop/DBus"
#define DBUS_INTERFACE                DBUS_SERVICE_NAME
#define DBUS_LOCAL_PATH               DBUS_PATH "/Local"
#define DBUS_LOCAL_INTERFACE          DBUS_INTERFACE ".Local"
#define DBUS_PEER_INTERFACE           DBUS_INTERFACE ".Peer"
#define DBUS_PROPERTIES_INTERFACE     DBUS_INTERFACE ".Properties"
#define DBUS_INTROSPECTABLE_INTERFACE DBUS_INTERFACE ".Introspectable"
#define DBUS_OBJECT_MANAGER_INTERFACE DBUS_INTERFACE ".ObjectManager"
#define DBUS_ERROR_SPAWN_PREFIX       DBUS_INTERFACE ".Error.Spawn."

/* Every NameOwnerChanged of the bus: callers coming and going. */
#define DBUS_NAME_OWNER_CHANGED_MATCH                                                                                  \
        "type='signal',sender='" DBUS_SERVICE_NAME "',path='" DBUS_PATH "',interface='" DBUS_INTERFACE                 \
        "',member='NameOwnerChanged'"

/* NameOwnerChanged of org.rdmad1 only (arg0): rdmad's coming and going. */
#define RDMAD_NAME_OWNER_MATCH                                                                                         \
        "type='signal',sender='" DBUS_SERVICE_NAME "',path='" DBUS_PATH "',interface='" DBUS_INTERFACE                 \
        "',member='NameOwnerChanged',arg0='" RDMAD_BUS_NAME "'"
