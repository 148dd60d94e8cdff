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
#define RDMAD_METHOD_RESCAN           "Rescan"
#define RDMAD_METHOD_RESOLVE_ADDRESS  "ResolveAddress"
#define RDMAD_METHOD_GET_ALL_COUNTERS "GetAllCounters"
#define RDMAD_METHOD_GET_COUNTERS     "GetCounters"
#define RDMAD_METHOD_WAIT_FOR_STATE   "WaitForState"
#define RDMAD_METHOD_SET_NUM_VFS      "SetNumVfs"

#define RDMAD_ERROR_INVALID_ARGUMENT RDMAD_BUS_NAME ".Error.InvalidArgument"
#define RDMAD_ERROR_NO_SUCH_DEVICE   RDMAD_BUS_NAME ".Error.NoSuchDevice"
#define RDMAD_ERROR_BUSY             RDMAD_BUS_NAME ".Error.Busy"
#define RDMAD_ERROR_FAILED           RDMAD_BUS_NAME ".Error.Failed"
#define RDMAD_ERROR_NOT_SUPPORTED    RDMAD_BUS_NAME ".Error.NotSupported"
#define RDMAD_ERROR_TIMEOUT          RDMAD_BUS_NAME ".Error.Timeout"
#define RDMAD_ERROR_UNRESPONSIVE     RDMAD_BUS_NAME ".Error.Unresponsive"
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
