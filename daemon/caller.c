/* SPDX-License-Identifier: MIT */
#include "caller.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "util.h"

void caller_registry_init(CallerRegistry *registry, CallerGone gone, void *userdata) {
        assert(registry);
        assert(gone);

        *registry = (CallerRegistry){ .gone = gone, .userdata = userdata };
}

static void caller_forget(CallerRegistry *registry, const char *sender) {
        for (size_t i = 0; i < registry->n_uids; i++)
                if (streq(registry->uids[i].sender, sender)) {
                        free(registry->uids[i].sender);
                        registry->uids[i] = registry->uids[--registry->n_uids];
                        return;
                }
}

/* NameOwnerChanged(name, old_owner, new_owner): a unique name with no new
 * owner is a connection that left the bus. */
static int on_name_owner_changed(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        CallerRegistry *registry = userdata;
        const char *name, *old_owner, *new_owner;

        if (sd_bus_message_read(message, "sss", &name, &old_owner, &new_owner) < 0)
                return 0;
        if (name[0] != ':' || new_owner[0] != '\0')
                return 0;
        registry->gone(name, registry->userdata);
        caller_forget(registry, name);
        return 0;
}

int caller_registry_start(CallerRegistry *registry, sd_bus *bus) {
        assert(registry);
        assert(bus);

        /* Synchronous: it is in place before anyone can call us. */
        return sd_bus_match_signal(bus, &registry->match, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                   "org.freedesktop.DBus", "NameOwnerChanged", on_name_owner_changed, registry);
}

int caller_peek_uid(CallerRegistry *registry, const char *sender, uid_t *ret) {
        assert(registry);
        assert(sender);
        assert(ret);

        for (size_t i = 0; i < registry->n_uids; i++)
                if (streq(registry->uids[i].sender, sender)) {
                        *ret = registry->uids[i].uid;
                        return 0;
                }
        return -ENOENT;
}

/* Cached only while the match can tell when the name goes. */
int caller_remember_uid(CallerRegistry *registry, const char *sender, uid_t uid) {
        uid_t known;
        char *copy;

        assert(registry);
        assert(sender);

        if (!registry->match || caller_peek_uid(registry, sender, &known) >= 0)
                return 0;
        copy = strdup(sender);
        if (!copy || ARRAY_RESERVE(registry->uids, registry->allocated, registry->n_uids + 1) < 0) {
                free(copy);
                return -ENOMEM;
        }
        registry->uids[registry->n_uids++] = (CallerUid){ .sender = copy, .uid = uid };
        return 0;
}

int caller_get_uid(CallerRegistry *registry, sd_bus_message *call, uid_t *ret) {
        _cleanup_(sd_bus_creds_unrefp) sd_bus_creds *creds = NULL;
        const char *sender;
        uid_t uid;
        int r;

        assert(registry);
        assert(call);
        assert(ret);

        sender = sd_bus_message_get_sender(call);
        if (sender && caller_peek_uid(registry, sender, ret) >= 0)
                return 0;

        /* No SD_BUS_CREDS_AUGMENT: what /proc says about a pid can change
         * under us; the bus daemon's answer is what counts. */
        r = sd_bus_query_sender_creds(call, SD_BUS_CREDS_EUID, &creds);
        if (r < 0)
                return r;
        if (sd_bus_creds_get_augmented_mask(creds) & SD_BUS_CREDS_EUID)
                return -EPERM;
        r = sd_bus_creds_get_euid(creds, &uid);
        if (r < 0)
                return r;

        /* Not on a direct connection, which has no sender. */
        if (sender) {
                r = caller_remember_uid(registry, sender, uid);
                if (r < 0)
                        return r;
        }
        *ret = uid;
        return 0;
}

void caller_registry_clear(CallerRegistry *registry) {
        assert(registry);

        registry->match = sd_bus_slot_unref(registry->match);
        for (size_t i = 0; i < registry->n_uids; i++)
                free(registry->uids[i].sender);
        free(registry->uids);
        registry->uids = NULL;
        registry->n_uids = registry->allocated = 0;
}
