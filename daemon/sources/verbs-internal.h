/* SPDX-License-Identifier: MIT */
#pragma once

/* The verbs event source's insides, shared by its two halves:
 * verbs-events.c (the contexts' events on the loop, the devices it follows)
 * and verbs-open.c (the device list, each context's open and close, on the
 * reader pool). Nothing outside daemon/sources/ includes this. */

#include <infiniband/verbs.h>
#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "forward.h"
#include "verbs-events.h"

typedef struct VerbsDevice {
        VerbsEvents *owner;
        /* Its device: a VerbsDevice lives from the device's addition to its
         * removal (verbs_device_added(), verbs_device_removing()). */
        Device *device;
        char *name;
        char *node; /* "uverbs0", for its remove uevent; "" before the first open */
        struct ibv_context *context;
        sd_event_source *io, *retry;
        bool want_open;        /* an open waits for the next device list */
        bool opening;          /* its open runs on its lane */
        unsigned failures;     /* failed reads in a row, for the back-off */
        bool fatal;            /* DEVICE_FATAL: closed until the device or its node comes back */
        char *said;            /* why it polls, as last logged: each reason is said once */
        uint64_t pending;      /* PROPERTY_BIT-style bits of ports 1..63 to re-read */
        bool pending_all;      /* every port (a port number beyond 63, a reopen) */
        uint64_t pending_gids; /* the same for GID tables (GID_CHANGE) */
        bool pending_gids_all;
        /* uverbs nodes removed while an open was wanted or ran: its node is
         * known only when the open is applied, and may be one of them;
         * node_back: one of them was added again meanwhile, so an open
         * dropped for it is made again. Reset when an open is wanted. */
        char **nodes_gone;
        size_t n_nodes_gone, allocated_nodes_gone;
        bool node_back;
} VerbsDevice;

struct VerbsEvents {
        Manager *manager;
        VerbsDevice **devices;
        size_t n_devices, allocated;
        sd_event_source *defer; /* the re-reads the events asked for, once per iteration */
        bool stopped;
        bool said_none; /* "no verbs devices" is said once */
        /* One list serves every open that waits for it: libibverbs reads
         * sysfs for each list. listing: one is being made; list_again:
         * another open came meanwhile, so another list follows. */
        bool listing, list_again;
        /* Takes the context an open of d made (verbs-events.c): watched on
         * the loop from now on (its events read, the device's ports
         * covered), or closed if that cannot be. */
        void (*attach)(VerbsDevice *vd, Device *d, struct ibv_context *context, const char *node);
};

/* verbs-events.c */
/* Re-reads a port (0: every port) once this loop iteration is done; gids:
 * its GID table too, which only GID_CHANGE tells of. */
void verbs_schedule_reread(VerbsDevice *vd, uint32_t port, bool gids);

/* verbs-open.c */
VerbsDevice *verbs_find(VerbsEvents *v, const char *name);
/* Says once, at info, why a device is polled; a new reason is said again. */
void verbs_say_polling(VerbsDevice *vd, int error, const char *why);
/* Opens the device's context unless it is open, given up on, or the source
 * stopped: with the next device list, on its lane. */
void verbs_open(VerbsDevice *vd);
/* The context is closed on the device's lane (d: NULL once it is gone),
 * never on the loop. */
void verbs_close_context(VerbsEvents *v, Device *d, const char *name, struct ibv_context *context);
