/* SPDX-License-Identifier: MIT */
#pragma once

/* A client's copy of rdmad's objects, kept current: subscribe to rdmad's
 * signals, read GetManagedObjects once, apply InterfacesAdded,
 * InterfacesRemoved and PropertiesChanged to the Inventory, and read all of
 * it again whenever org.rdmad1 gets an owner (rdmad started or restarted).
 * Only signals broadcast by the current owner of org.rdmad1 are applied,
 * and only the bus driver's NameOwnerChanged (rdmad-signals.h).
 * rdmad-exporter and `rdmactl wait` follow it this way; what they do with
 * each step is theirs, through the callbacks. */

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

#include "client/inventory.h"

typedef struct InventoryFollow InventoryFollow;

typedef enum InventoryChange {
        INVENTORY_CHANGE_ADDED,      /* InterfacesAdded */
        INVENTORY_CHANGE_REMOVED,    /* InterfacesRemoved */
        INVENTORY_CHANGE_PROPERTIES, /* PropertiesChanged */
} InventoryChange;

typedef struct InventoryFollowOptions {
        bool auto_start;    /* GetManagedObjects may have the bus start rdmad (D-Bus activation) */
        bool async_matches; /* subscribe without waiting for the bus: for a loop that must never block */
        /* Drop the inventory (and a read in flight) as soon as org.rdmad1
         * changes owner; otherwise the last known one stays until a new
         * read replaces it. */
        bool forget_on_owner_change;
        /* Before each signal is applied, copy the objects at its path, for
         * inventory_follow_before() in the changed callback. */
        bool keep_before;
        uint64_t load_timeout_usec; /* of each GetManagedObjects */
} InventoryFollowOptions;

/* Every callback may be NULL. */
typedef struct InventoryFollowCallbacks {
        /* A GetManagedObjects answered. r >= 0: its reply is the inventory
         * now. r < 0: it failed, and the inventory is as it was; error is the
         * reply's error, NULL when the reply could not be read. */
        void (*loaded)(InventoryFollow *f, int r, const sd_bus_error *error, void *userdata);
        /* A signal went into the inventory; r < 0: it could not be read in
         * full. path: the object, NULL when unreadable. Signals that come
         * while there is no inventory yet are left to the read. */
        void (*changed)(InventoryFollow *f, InventoryChange change, const char *path, int r, void *userdata);
        /* org.rdmad1 changed hands. owner NULL: it has no owner any more.
         * Otherwise it has a new one, and the inventory was asked for again:
         * r < 0 when that call could not be made. */
        void (*owner_changed)(InventoryFollow *f, const char *owner, int r, void *userdata);
        /* The bus connection is gone; NULL: not followed. */
        void (*disconnected)(InventoryFollow *f, void *userdata);
} InventoryFollowCallbacks;

InventoryFollow *inventory_follow_new(const InventoryFollowOptions *options, const InventoryFollowCallbacks *callbacks,
                                      void *userdata);
InventoryFollow *inventory_follow_free(InventoryFollow *f);
static inline void inventory_follow_freep(InventoryFollow **f) {
        inventory_follow_free(*f);
}

/* Subscribes on bus (an event loop attached), then asks for the objects.
 * An earlier bus's matches and call are dropped, the inventory stays. On
 * failure the follower holds no bus. */
int inventory_follow_start(InventoryFollow *f, sd_bus *bus);

/* Lets go of the bus, the matches and a call in flight; the inventory stays. */
void inventory_follow_stop(InventoryFollow *f);

/* NULL until a GetManagedObjects was answered (and after a forgetting owner change). */
Inventory *inventory_follow_inventory(const InventoryFollow *f);

/* What the step being reported replaced, valid during its callback only:
 * in loaded, the previous inventory (NULL for the first); in changed, with
 * options.keep_before, the objects at path as they were before the signal
 * (an empty inventory when it added them). NULL otherwise. What `rdmactl
 * monitor` tells a change against. */
const Inventory *inventory_follow_before(const InventoryFollow *f);

/* Asks for the objects again (the loaded callback answers);
 * a read already in flight is replaced. -ENOTCONN when not started. */
int inventory_follow_reload(InventoryFollow *f);

/* The unique name of org.rdmad1 whose signals are believed; NULL: none yet. */
const char *inventory_follow_owner(const InventoryFollow *f);

/* GetManagedObjects calls made so far, over all buses. */
uint64_t inventory_follow_load_calls(const InventoryFollow *f);
