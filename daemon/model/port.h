/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "forward.h"
#include "history-store.h"
#include "model.h"

/* A port's whole life (port.c): loaded with its device, re-read on the
 * device's lane of the reader pool, the result applied on the loop,
 * derived, compared with what it was, stamped and reported. */

/* Which mechanism reports the port's link changes: "rtnetlink" for an
 * Ethernet link layer (RoCE, iWARP), "verbs" on a device whose verbs
 * context is open, "poll" otherwise. */
const char *port_link_events(const Port *p);

/* A port's re-reads in two halves: the reads on a reader thread into values
 * (no model touched), and their application on the loop.
 * PORT_LINK_FILES values for the link, PORT_UNREPORTED_FILES for the
 * unreported files. */
#define PORT_LINK_FILES       7
#define PORT_UNREPORTED_FILES 2
int port_read_files(const char *device_path, uint32_t number, bool link, bool ethernet, FileValue *values);
/* A state value as the kernel prints it ("4: ACTIVE"); "" or garbage is not. */
bool port_state_parses(const char *value);
/* After a full read whose state did not parse: old's state, kept. */
int port_keep_state(Port *p, const Port *old);
int port_apply_link(Port *p, const FileValue *values, PropertyMask *ret_changed);
/* What to read of a port (PollTurn.what). */
enum {
        PORT_READ_STATE = 1 << 0,      /* the state through a kept descriptor; the link if it differs */
        PORT_READ_LINK = 1 << 1,       /* port_read_files(), the link's */
        PORT_READ_UNREPORTED = 1 << 2, /* phys_state and rate */
        PORT_READ_GIDS = 1 << 3,       /* port_read_gids() */
};

/* The poll's turn of a device: the ports and what to read of each; the
 * results are applied when they come. 1 when queued on the device's lane
 * (the poll hears of it through ModelSources.turn_done), 0 when done or
 * when nothing may be read of the device now. */
typedef struct PollTurn {
        Port *port;
        unsigned what;
} PollTurn;
int device_poll_ports(Device *d, const PollTurn *turns, size_t n);

/* Re-reads a port's link (port_read_files()) and reports what changed when
 * the result is applied; a State or PhysState change also moves
 * StateChangedUsec. A lack of resources defers to a resync
 * (resync_defer()). Nothing is read of an unresponsive device: its
 * recovery reads it in full. */
int port_refresh(Port *p);
/* Re-reads a port's GIDs (port_read_gids()) and reports a change. */
int port_refresh_gids(Port *p);

/* Whether a verbs context delivers the device's link events: its ports'
 * LinkEvents follow. */
void device_set_verbs_covered(Device *d, bool covered);

/* A State or PhysState change also moves StateChangedUsec, and is logged; a
 * State change counts in StateChanges and goes into LinkHistory. The mask
 * with what that moved. */
PropertyMask port_stamp(Port *p, PropertyMask mask, const char *old_state_name);

/* A device read again: what a port keeps across reads, into fresh (its new
 * read) before the two are compared; then fresh's values into p, which
 * keeps its address, and p's old values into fresh, freed with it. */
void port_carry_over(Port *fresh, const Port *p);
void port_take_values(Port *p, Port *fresh);

/* A port's lifetime within its device, and the loading of a device's ports
 * (device.c). */
void port_clear(Port *p);
int device_load_ports(int dev_fd, Device *d);

/* Port.LinkHistory: each port of d gets its history kept in the state
 * directory (store NULL: none), read back when the device appears; a
 * port's State changes are recorded where they are stamped. Kept by its
 * port GUID where it has one (it follows the adapter across renames and
 * slots), else by device name and port number. */
void device_history_load(HistoryStore *store, Device *d);
