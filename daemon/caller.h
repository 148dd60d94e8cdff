/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>

/* Who is calling. Limits are per user: the uid the bus daemon vouches for
 * (GetConnectionCredentials, never what a message claims), looked up once
 * per unique name and cached until that name leaves the bus. Lifetimes are
 * per connection: one NameOwnerChanged match for the whole daemon tells
 * when a unique name is gone, and the owner drops everything that caller
 * made it hold. One match rather than an sd_bus_track per caller: the bus
 * allows a connection a few hundred match rules, and a caller must not be
 * able to use them up. */

typedef void (*CallerGone)(const char *sender, void *userdata);

typedef struct CallerUid {
        char *sender;
        uid_t uid;
} CallerUid;

typedef struct CallerRegistry {
        CallerUid *uids; /* the cache: callers that asked for something held */
        size_t n_uids, allocated;
        sd_bus_slot *match;
        CallerGone gone;
        void *userdata;
} CallerRegistry;

void caller_registry_init(CallerRegistry *registry, CallerGone gone, void *userdata);

/* Subscribes to NameOwnerChanged on `bus`; before the name is taken. */
int caller_registry_start(CallerRegistry *registry, sd_bus *bus);

/* The bus-verified effective uid of the sender of `call` (the peer's on a
 * direct connection). */
int caller_get_uid(CallerRegistry *registry, sd_bus_message *call, uid_t *ret);

/* The cached uid of `sender`, without asking the bus: -ENOENT when not
 * known yet. Callers that must not wait for dbus-daemon (whose answer
 * queues behind whatever the daemon is sending) ask it asynchronously and
 * remember the answer here. */
int caller_peek_uid(CallerRegistry *registry, const char *sender, uid_t *ret);
int caller_remember_uid(CallerRegistry *registry, const char *sender, uid_t uid);

void caller_registry_clear(CallerRegistry *registry);
