/* SPDX-License-Identifier: MIT */
/* rdmactl monitor's output (monitor-output.c): the lines it prints, and
 * the state they are printed from, which the event handling (monitor.c)
 * keeps. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "client/inventory.h"
#include "client/inventory-follow.h"
#include "filter.h"
#include "json-writer.h"
#include "rdmactl.h"

typedef struct RemovedDevice {
        char *name, *device_path, *node_guid;
        uint64_t usec; /* CLOCK_REALTIME when the removal arrived */
} RemovedDevice;

typedef struct Monitor {
        sd_event *event;
        InventoryFollow *follow; /* the inventory, kept current by rdmad's believed signals */
        const Options *options;
        PortFilter filter;      /* the patterns: only what they name is told */
        bool started;           /* the first GetManagedObjects answered */
        RemovedDevice *removed; /* not yet announced */
        size_t n_removed, allocated_removed;
        char **renamed; /* object paths of devices announced as renames: their ports are no news */
        size_t n_renamed, allocated_renamed;
        sd_event_source *flush_timer;
        bool away;       /* rdmad left the bus; its return is awaited */
        JsonWriter json; /* --json: on stdout, a document a line (or indented) */
} Monitor;

/* A port as it was or as it is, and the name of its netdev ("" for none):
 * the inventory's own object, not a copy. */
typedef struct PortSide {
        const RdmaPort *port;
        const char *netdev;
} PortSide;

/* One line each, text or JSON as the options say, flushed at once. */
void announce_removal(Monitor *m, const RemovedDevice *r);
void announce_device_added(Monitor *m, const RdmaDevice *d);
void announce_rename(Monitor *m, const RemovedDevice *from, const RdmaDevice *to);
void announce_port_added(Monitor *m, const RdmaPort *p);
/* A line for a state or physical state change, then one per other property that changed. */
void announce_port_changes(Monitor *m, const PortSide *old, const PortSide *new);
void announce_num_vfs(Monitor *m, const RdmaSriov *s, uint32_t old);
/* A device's Health or its reason changed from old_health (old_reason). */
void announce_health(Monitor *m, const RdmaDevice *d, const char *old_health, const char *old_reason);
void announce_daemon_left(Monitor *m);
void announce_daemon_restarted(Monitor *m);
