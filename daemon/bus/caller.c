/* SPDX-License-Identifier: MIT */
#include "caller.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/bus-message.h"
#include "api/bus-signal.h"
#include "api/rdmad-api.h"
#include "basic/log.h"
#include "basic/util.h"
#include "bus-util.h"

/* A question to the bus driver about one unique name: GetConnectionCredentials
 * (a lookup, and the calls waiting for it), or GetNameOwner of a cached name
 * (a check: is it still on the bus?). */
struct CallerLookup {
        LIST_FIELDS(CallerLookup, lookups);
        CallerRegistry *registry;
        char *sender;
        sd_bus_slot *slot;
        HeldCalls parked; /* a lookup's */
};

void caller_registry_init(CallerRegistry *registry, CallerGone gone, void *userdata) {
        assert(registry);
        assert(gone);

        *registry = (CallerRegistry){ .gone = gone, .userdata = userdata };
}

static CallerUid *uid_find(const CallerRegistry *registry, const char *sender) {
        for (size_t i = 0; i < registry->n_uids; i++)
                if (streq(registry->uids[i].sender, sender))
                        return &registry->uids[i];
        return NULL;
}

/* ---------- lookups ---------- */

static void lookups_start_waiting(CallerRegistry *registry);

static void lookup_free(CallerLookup *l) {
        CallerRegistry *registry = l->registry;

        if (l->slot) {
                LIST_REMOVE(lookups, registry->lookups, l);
                registry->n_lookups--;
        } else {
                LIST_REMOVE_TAIL(lookups, registry->waiting, registry->waiting_tail, l);
                registry->n_waiting--;
        }
        registry->n_parked -= l->parked.n;
        held_calls_clear(&l->parked);
        sd_bus_slot_unref(l->slot);
        free(l->sender);
        free(l);
}

static CallerLookup *lookup_find(CallerRegistry *registry, const char *sender) {
        LIST_FOREACH(lookups, l, registry->lookups)
                if (streq(l->sender, sender))
                        return l;
        LIST_FOREACH(lookups, l, registry->waiting)
                if (streq(l->sender, sender))
                        return l;
        return NULL;
}

static void revalidate_arm_in(CallerRegistry *registry, uint64_t usec) {
        if (!registry->revalidate_timer || registry->n_uids == 0 ||
            sd_event_source_get_enabled(registry->revalidate_timer, NULL) > 0)
                return;
        (void) sd_event_source_set_time_relative(registry->revalidate_timer, usec);
        (void) sd_event_source_set_enabled(registry->revalidate_timer, SD_EVENT_ONESHOT);
}

/* The caller's name left: who held something for it drops it. */
static void caller_departed(CallerRegistry *registry, const char *name) {
        _cleanup_free_ char *copy = strdup(name); /* `name` may be one of ours */
        CallerLookup *l;
        CallerUid *u;

        if (!copy)
                return (void) log_oom();
        l = lookup_find(registry, copy);
        if (l) {
                log_debug("%s left the bus; %zu call%s waiting to be identified dropped.", copy, l->parked.n,
                          l->parked.n == 1 ? "" : "s");
                lookup_free(l);
        }
        registry->gone(copy, registry->userdata);
        u = uid_find(registry, copy);
        if (u) {
                free(u->sender);
                *u = registry->uids[--registry->n_uids];
        }
}

/* GetConnectionCredentials returns a{sv}: UnixUserID is what counts. */
typedef struct Credentials {
        uint32_t uid, pid;
} Credentials;

static int read_credential(sd_bus_message *reply, void *userdata) {
        Credentials *c = userdata;
        const char *key;
        int r;

        r = sd_bus_message_read(reply, "s", &key);
        if (r < 0)
                return r;
        if (streq(key, "UnixUserID"))
                return sd_bus_message_read(reply, "v", "u", &c->uid);
        if (streq(key, "ProcessID"))
                return sd_bus_message_read(reply, "v", "u", &c->pid);
        return sd_bus_message_skip(reply, "v");
}

static int caller_remember(CallerRegistry *registry, const char *sender, uid_t uid, pid_t pid);

static int on_lookup_reply(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        CallerLookup *l = userdata;
        CallerRegistry *registry = l->registry;
        const sd_bus_error *e = sd_bus_message_get_error(reply);
        Credentials c = { .uid = UINT32_MAX };
        int r;

        if (e && sd_bus_error_has_name(e, SD_BUS_ERROR_NAME_HAS_NO_OWNER)) {
                /* Gone before we knew it: its calls go unanswered, and so does what it holds. */
                caller_departed(registry, l->sender);
                lookups_start_waiting(registry);
                return 0;
        }
        r = e ? -EIO : bus_message_read_entries(reply, SD_BUS_TYPE_DICT_ENTRY, "sv", read_credential, &c);
        if (r >= 0)
                r = c.uid == UINT32_MAX ? -ENODATA : caller_remember(registry, l->sender, c.uid, c.pid);
        if (r < 0) {
                if (e)
                        log_warning("Failed to tell who %s is (%s); its calls are refused.", l->sender, e->name);
                else
                        log_warning_errno(r, "Failed to remember who %s is: %m", l->sender);
                for (size_t i = 0; i < l->parked.n; i++)
                        (void) sd_bus_reply_method_errorf(l->parked.calls[i], SD_BUS_ERROR_ACCESS_DENIED,
                                                          "Cannot tell who is calling: %s.",
                                                          e ? e->name : strerror(-r));
        } else
                /* Every call that waited runs again, now finding the uid. */
                for (size_t i = 0; i < l->parked.n; i++) {
                        sd_bus_message *m = l->parked.calls[i];
                        int k = sd_bus_enqueue_for_read(sd_bus_message_get_bus(m), m);

                        if (k < 0)
                                (void) sd_bus_reply_method_errnof(m, k, "Cannot dispatch the call again: %m");
                }
        lookup_free(l);
        lookups_start_waiting(registry);
        /* The bus daemon did not answer in time: messages may be lost, a signal too. */
        if (e)
                caller_registry_revalidate(registry);
        return 0;
}

/* The bus driver's `method` about `name`. Not sd-bus's 25 s: an answer the
 * bus dropped must not hold a lookup or a sweep that long. */
static int ask_bus_driver(sd_bus *bus, const char *method, const char *name, sd_bus_slot **ret_slot,
                          sd_bus_message_handler_t callback, void *userdata) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        int r;

        r = sd_bus_message_new_method_call(bus, &m, DBUS_SERVICE_NAME, DBUS_PATH, DBUS_INTERFACE, method);
        if (r >= 0)
                r = sd_bus_message_append(m, "s", name);
        return r < 0 ? r : sd_bus_call_async(bus, ret_slot, m, callback, userdata, CALLER_LOOKUP_TIMEOUT_USEC);
}

/* Sends the question of a waiting lookup; it is in flight then. */
static int lookup_send(CallerRegistry *registry, CallerLookup *l) {
        sd_bus_slot *slot = NULL;
        int r;

        r = ask_bus_driver(registry->bus, "GetConnectionCredentials", l->sender, &slot, on_lookup_reply, l);
        if (r < 0)
                return r;
        LIST_REMOVE_TAIL(lookups, registry->waiting, registry->waiting_tail, l);
        registry->n_waiting--;
        l->slot = slot;
        LIST_PREPEND(lookups, registry->lookups, l);
        registry->n_lookups++;
        return 0;
}

static void lookups_start_waiting(CallerRegistry *registry) {
        while (registry->waiting && registry->n_lookups < CALLER_LOOKUPS_MAX) {
                CallerLookup *l = registry->waiting;
                int r = lookup_send(registry, l);

                if (r < 0) {
                        log_warning_errno(r, "Failed to ask who %s is: %m", l->sender);
                        for (size_t i = 0; i < l->parked.n; i++)
                                (void) sd_bus_reply_method_errnof(l->parked.calls[i], r,
                                                                  "Cannot ask who is calling: %m");
                        lookup_free(l);
                }
        }
}

static int lookup_new(CallerRegistry *registry, const char *sender, CallerLookup **ret) {
        CallerLookup *l;

        l = calloc(1, sizeof(CallerLookup));
        if (!l)
                return -ENOMEM;
        l->registry = registry;
        l->sender = strdup(sender);
        if (!l->sender) {
                free(l);
                return -ENOMEM;
        }
        LIST_APPEND(lookups, registry->waiting, registry->waiting_tail, l);
        registry->n_waiting++;
        *ret = l;
        return 0;
}

/* A direct connection has no sender: its peer's credentials come with the
 * socket, no question to anyone. */
static int caller_peer_uid(sd_bus_message *call, uid_t *ret) {
        _cleanup_(sd_bus_creds_unrefp) sd_bus_creds *creds = NULL;
        int r;

        r = sd_bus_query_sender_creds(call, SD_BUS_CREDS_EUID, &creds);
        if (r < 0)
                return r;
        if (sd_bus_creds_get_augmented_mask(creds) & SD_BUS_CREDS_EUID)
                return -EPERM;
        return sd_bus_creds_get_euid(creds, ret);
}

int caller_resolve_uid(CallerRegistry *registry, sd_bus_message *call, uid_t *ret, sd_bus_error *error) {
        const char *sender;
        CallerLookup *l;
        int r;

        assert(registry);
        assert(call);
        assert(ret);

        sender = sd_bus_message_get_sender(call);
        if (!sender) {
                r = caller_peer_uid(call, ret);
                if (r < 0)
                        return sd_bus_error_set_errnof(error, r, "Cannot tell who is calling: %m");
                return 1;
        }
        if (caller_peek_uid(registry, sender, ret) >= 0)
                return 1;
        if (!registry->bus)
                return sd_bus_error_set(error, SD_BUS_ERROR_ACCESS_DENIED, "Cannot tell who is calling.");

        l = lookup_find(registry, sender);
        if (l && l->parked.n >= CALLER_PARKED_PER_SENDER_MAX)
                return sd_bus_error_setf(error, RDMAD_ERROR_BUSY,
                                         "This connection has %u calls waiting to be identified already.",
                                         CALLER_PARKED_PER_SENDER_MAX);
        if (registry->n_parked >= CALLER_PARKED_MAX)
                return sd_bus_error_setf(error, RDMAD_ERROR_BUSY, "Too many calls wait to be identified (at most %u).",
                                         CALLER_PARKED_MAX);
        if (!l) {
                if (registry->n_uids + registry->n_lookups + registry->n_waiting >= CALLER_CACHE_MAX) {
                        /* Names that left without a word fill it: find them. */
                        caller_registry_revalidate(registry);
                        return sd_bus_error_setf(error, RDMAD_ERROR_BUSY,
                                                 "Too many callers are known (at most %u); try again.",
                                                 CALLER_CACHE_MAX);
                }
                r = lookup_new(registry, sender, &l);
                if (r < 0)
                        return sd_bus_error_set_errnof(error, r, "Cannot ask who is calling: %m");
        }
        if (held_calls_add(&l->parked, call) < 0) {
                if (l->parked.n == 0)
                        lookup_free(l);
                return sd_bus_error_set_errnof(error, ENOMEM, "Cannot hold the call: %m");
        }
        registry->n_parked++;
        lookups_start_waiting(registry);
        return 0;
}

/* ---------- the cache ---------- */

int caller_peek_uid(CallerRegistry *registry, const char *sender, uid_t *ret) {
        const CallerUid *u;

        assert(registry);
        assert(sender);
        assert(ret);

        u = uid_find(registry, sender);
        if (!u)
                return -ENOENT;
        *ret = u->uid;
        return 0;
}

/* Cached only while the match can tell when the name goes. */
static int caller_remember(CallerRegistry *registry, const char *sender, uid_t uid, pid_t pid) {
        char *copy;

        assert(registry);
        assert(sender);

        if (!registry->match || uid_find(registry, sender))
                return 0;
        if (registry->n_uids >= CALLER_CACHE_MAX)
                return -ENOSPC;
        copy = strdup(sender);
        if (!copy || ARRAY_RESERVE(registry->uids, registry->allocated, registry->n_uids + 1) < 0) {
                free(copy);
                return -ENOMEM;
        }
        registry->uids[registry->n_uids++] = (CallerUid){ .sender = copy, .uid = uid, .pid = pid };
        revalidate_arm_in(registry, CALLER_REVALIDATE_USEC);
        return 0;
}

char *caller_describe(CallerRegistry *registry, const char *sender) {
        const CallerUid *u;
        char *s;

        assert(registry);

        u = sender ? uid_find(registry, sender) : NULL;
        if (!u)
                return strdup(strempty(sender));
        return asprintf(&s, "%s (uid %u, pid %d)", sender, (unsigned) u->uid, (int) u->pid) < 0 ? NULL : s;
}

/* ---------- re-validation ---------- */

static void check_free(CallerLookup *c) {
        LIST_REMOVE(lookups, c->registry->checks, c);
        c->registry->n_checks--;
        sd_bus_slot_unref(c->slot);
        free(c->sender);
        free(c);
}

static void sweep_continue(CallerRegistry *registry);

static int on_check_reply(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        CallerLookup *c = userdata;
        CallerRegistry *registry = c->registry;
        const sd_bus_error *e = sd_bus_message_get_error(reply);

        if (e && sd_bus_error_has_name(e, SD_BUS_ERROR_NAME_HAS_NO_OWNER)) {
                log_debug("%s left the bus without a word; what it held is dropped.", c->sender);
                caller_departed(registry, c->sender);
        } else if (e)
                registry->sweep_failed = true; /* the answer was lost too (a full queue): ask again soon */
        check_free(c);
        sweep_continue(registry);
        return 0;
}

static void sweep_clear(CallerRegistry *registry) {
        for (size_t i = 0; i < registry->n_sweep; i++)
                free(registry->sweep[i]);
        registry->sweep = mfree(registry->sweep);
        registry->n_sweep = registry->sweep_next = 0;
}

static void sweep_continue(CallerRegistry *registry) {
        while (registry->sweep_next < registry->n_sweep && registry->n_checks < CALLER_REVALIDATE_BATCH) {
                CallerLookup *c = calloc(1, sizeof(CallerLookup));

                if (!c)
                        break;
                c->registry = registry;
                c->sender = TAKE_PTR(registry->sweep[registry->sweep_next]);
                registry->sweep_next++;
                if (ask_bus_driver(registry->bus, "GetNameOwner", c->sender, &c->slot, on_check_reply, c) < 0) {
                        free(c->sender);
                        free(c);
                        break;
                }
                LIST_PREPEND(lookups, registry->checks, c);
                registry->n_checks++;
        }
        if (registry->sweep_next >= registry->n_sweep && registry->n_checks == 0) {
                sweep_clear(registry);
                revalidate_arm_in(registry,
                                  registry->sweep_failed ? CALLER_REVALIDATE_RETRY_USEC : CALLER_REVALIDATE_USEC);
                registry->sweep_failed = false;
        }
}

void caller_registry_revalidate(CallerRegistry *registry) {
        assert(registry);

        if (!registry->bus || registry->sweep || registry->n_checks > 0 || registry->n_uids == 0)
                return; /* one sweep at a time */
        registry->sweep = calloc(registry->n_uids, sizeof(char *));
        if (!registry->sweep)
                return (void) log_oom();
        for (size_t i = 0; i < registry->n_uids; i++) {
                registry->sweep[i] = strdup(registry->uids[i].sender);
                if (!registry->sweep[i])
                        break;
                registry->n_sweep++;
        }
        log_debug("Asking the bus whether %zu callers are still there.", registry->n_sweep);
        sweep_continue(registry);
}

static int on_revalidate_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        caller_registry_revalidate(userdata);
        return 0;
}

/* ---------- the match ---------- */

/* NameOwnerChanged(name, old_owner, new_owner): a unique name with no new
 * owner is a connection that left the bus. Asked of the bus with AddMatch,
 * and told from the other messages by a filter: a match of sd-bus's would
 * make every message, each Get, walk its match tree. */
static int on_name_owner_changed(sd_bus_message *message, void *userdata, sd_bus_error *error) {
        CallerRegistry *registry = userdata;
        const char *name, *old_owner, *new_owner;

        if (registry->ignore_name_owner_changed ||
            !sd_bus_message_is_signal(message, DBUS_INTERFACE, "NameOwnerChanged"))
                return 0;
        /* Anyone may send a NameOwnerChanged to us by name: only the bus
         * driver's broadcast says that a caller left. */
        if (!bus_signal_is_from(message, DBUS_SERVICE_NAME))
                return 0;
        if (sd_bus_message_read(message, "sss", &name, &old_owner, &new_owner) < 0)
                return 0;
        if (name[0] != ':' || new_owner[0] != '\0')
                return 0;
        caller_departed(registry, name);
        return 0;
}

int caller_registry_start(CallerRegistry *registry, sd_bus *bus, sd_event *event) {
        int r;

        assert(registry);
        assert(bus);
        assert(event);

        registry->bus = bus;
        r = sd_event_add_time_relative(event, &registry->revalidate_timer, CLOCK_MONOTONIC, CALLER_REVALIDATE_USEC, 0,
                                       on_revalidate_timer, registry);
        if (r < 0)
                return r;
        (void) sd_event_source_set_enabled(registry->revalidate_timer, SD_EVENT_OFF);
        (void) sd_event_source_set_description(registry->revalidate_timer, "caller-revalidate");

        /* Synchronous: it is in place before anyone can call us. */
        r = sd_bus_call_method(bus, DBUS_SERVICE_NAME, DBUS_PATH, DBUS_INTERFACE, "AddMatch", NULL, NULL, "s",
                               DBUS_NAME_OWNER_CHANGED_MATCH);
        return r < 0 ? r : sd_bus_add_filter(bus, &registry->match, on_name_owner_changed, registry);
}

void caller_registry_clear(CallerRegistry *registry) {
        assert(registry);

        while (registry->lookups)
                lookup_free(registry->lookups);
        while (registry->waiting)
                lookup_free(registry->waiting);
        while (registry->checks)
                check_free(registry->checks);
        sweep_clear(registry);
        registry->revalidate_timer = sd_event_source_disable_unref(registry->revalidate_timer);
        registry->match = sd_bus_slot_unref(registry->match);
        for (size_t i = 0; i < registry->n_uids; i++)
                free(registry->uids[i].sender);
        registry->uids = mfree(registry->uids);
        registry->n_uids = registry->allocated = 0;
        registry->bus = NULL;
}
