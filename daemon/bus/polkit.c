/* SPDX-License-Identifier: MIT */
#include "polkit.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/list.h"
#include "basic/log.h"
#include "basic/util.h"
#include "bus-util.h"

/* CheckAuthorization's flag: the caller accepts a password prompt. */
#define POLKIT_ALLOW_USER_INTERACTION 1u

struct PolkitQuery {
        LIST_FIELDS(PolkitQuery, queries);
        PolkitRegistry *registry;
        HeldCalls held; /* the calls of one sender waiting for this verdict (identical ones share it) */
        uid_t uid;
        char *action;
        char *scope;
        char *key;         /* action, scope, details and flags: what makes two calls identical */
        sd_bus_slot *slot; /* the pending CheckAuthorization */
        sd_event_source *cleanup;
        bool done;
        bool authorized;
        bool challenge;
        sd_bus_error error; /* polkit could not be asked */
};

static void query_free(PolkitQuery *q) {
        PolkitRegistry *registry = q->registry;

        LIST_REMOVE(queries, registry->queries, q);
        registry->n_queries--;
        sd_bus_slot_unref(q->slot);
        sd_event_source_disable_unref(q->cleanup);
        held_calls_clear(&q->held);
        sd_bus_error_free(&q->error);
        free(q->action);
        free(q->scope);
        free(q->key);
        free(q);
        /* Tests read this to prove that nothing is left behind. */
        log_debug("Authorization checks held: %u.", registry->n_queries);
}

void polkit_registry_clear(PolkitRegistry *registry) {
        assert(registry);
        while (registry->queries)
                query_free(registry->queries);
}

void polkit_drop_sender(PolkitRegistry *registry, const char *sender) {
        assert(registry);
        assert(sender);
        LIST_FOREACH_SAFE(queries, q, next, registry->queries)
                if (streq(sd_bus_message_get_sender(q->held.calls[0]), sender))
                        query_free(q);
}

void polkit_fail_all(PolkitRegistry *registry, const char *reason) {
        assert(registry);
        assert(reason);
        LIST_FOREACH_SAFE(queries, q, next, registry->queries) {
                /* Also the calls of a query with its verdict: their re-queued copies
                 * may never run now. Should one have been answered already, the bus
                 * drops the second reply. */
                for (size_t i = 0; i < q->held.n; i++)
                        (void) sd_bus_reply_method_errorf(q->held.calls[i], RDMAD_ERROR_FAILED, "%s", reason);
                query_free(q);
        }
}

/* Runs once the loop is idle, so after every re-queued call was dispatched:
 * a call whose handler stopped before asking for its verdict (a check that
 * failed meanwhile, the device gone or renamed: sd-bus answers
 * UnknownObject without calling it) leaves the query behind; here it goes. */
static int on_query_cleanup(sd_event_source *s, void *userdata) {
        query_free(userdata);
        return 0;
}

static int on_check_reply(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        PolkitQuery *q = userdata;
        sd_bus *bus = sd_bus_message_get_bus(reply);
        const sd_bus_error *e;
        int r, authorized = 0, challenge = 0;

        q->done = true;
        q->slot = sd_bus_slot_unref(q->slot);

        e = sd_bus_message_get_error(reply);
        if (e) {
                /* No polkit on the bus, or it failed or timed out: a refusal, said clearly. */
                sd_bus_error_setf(&q->error, SD_BUS_ERROR_ACCESS_DENIED,
                                  "Cannot ask polkit for authorization (%s: %s).", e->name, strempty(e->message));
        } else {
                /* CheckAuthorization returns (bba{ss}): is_authorized, is_challenge, details. */
                r = sd_bus_message_enter_container(reply, 'r', "bba{ss}");
                if (r >= 0)
                        r = sd_bus_message_read(reply, "bb", &authorized, &challenge);
                if (r < 0)
                        sd_bus_error_setf(&q->error, SD_BUS_ERROR_ACCESS_DENIED, "Cannot parse polkit's answer: %s.",
                                          strerror(-r));
                q->authorized = authorized;
                q->challenge = challenge;
        }

        r = sd_event_add_defer(sd_bus_get_event(bus), &q->cleanup, on_query_cleanup, q);
        if (r >= 0)
                r = sd_event_source_set_priority(q->cleanup, SD_EVENT_PRIORITY_IDLE);
        if (r < 0) {
                log_error_errno(r, "Failed to schedule the end of an authorization: %m");
                for (size_t i = 0; i < q->held.n; i++)
                        (void) sd_bus_reply_method_errorf(q->held.calls[i], SD_BUS_ERROR_FAILED, "Internal error: %s.",
                                                          strerror(-r));
                query_free(q);
                return 1;
        }

        /* Run the method handler again with each original message. */
        for (size_t i = 0; i < q->held.n; i++) {
                r = sd_bus_enqueue_for_read(bus, q->held.calls[i]);
                if (r < 0) {
                        log_error_errno(r, "Failed to re-queue a method call after authorization: %m");
                        (void) sd_bus_reply_method_errorf(q->held.calls[i], SD_BUS_ERROR_FAILED, "Internal error: %s.",
                                                          strerror(-r));
                }
        }
        return 1;
}

/* org.freedesktop.PolicyKit1.Authority.CheckAuthorization for the sender of call. */
static int check_authorization_message(sd_bus_message *call, const char *sender, const char *action,
                                       const char *const *details, uint32_t flags, sd_bus_message **ret) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *check = NULL;
        int r;

        r = sd_bus_message_new_method_call(sd_bus_message_get_bus(call), &check, "org.freedesktop.PolicyKit1",
                                           "/org/freedesktop/PolicyKit1/Authority",
                                           "org.freedesktop.PolicyKit1.Authority", "CheckAuthorization");
        if (r >= 0)
                r = sd_bus_message_append(check, "(sa{sv})s", "system-bus-name", 1, "name", "s", sender, action);
        if (r >= 0)
                r = sd_bus_message_open_container(check, 'a', "{ss}");
        for (size_t i = 0; r >= 0 && details && details[i] && details[i + 1]; i += 2)
                r = sd_bus_message_append(check, "{ss}", details[i], details[i + 1]);
        if (r >= 0)
                r = sd_bus_message_close_container(check);
        if (r >= 0)
                r = sd_bus_message_append(check, "us", flags, "");
        if (r < 0)
                return r;
        *ret = TAKE_PTR(check);
        return 0;
}

/* The verdict for `call`, taken from its query: 1, or <0 with `error` set. */
static int query_take_verdict(PolkitQuery *q, sd_bus_message *call, sd_bus_error *error) {
        int r;

        if (sd_bus_error_is_set(&q->error))
                r = sd_bus_error_copy(error, &q->error);
        else if (q->authorized)
                r = 1;
        else if (q->challenge)
                r = sd_bus_error_setf(error, SD_BUS_ERROR_INTERACTIVE_AUTHORIZATION_REQUIRED,
                                      "Authentication is required for %s.", q->action);
        else
                r = sd_bus_error_setf(error, SD_BUS_ERROR_ACCESS_DENIED, "Not authorized for %s.", q->action);

        (void) held_calls_remove(&q->held, call);
        if (q->held.n == 0)
                query_free(q);
        return r;
}

static char *query_key(const char *action, const char *scope, const char *const *details, uint32_t flags) {
        char *key = NULL, *next;

        if (asprintf(&key, "%s\x1f%s\x1f%u", action, scope, flags) < 0)
                return NULL;
        for (size_t i = 0; details && details[i] && details[i + 1]; i += 2) {
                if (asprintf(&next, "%s\x1f%s=%s", key, details[i], details[i + 1]) < 0)
                        next = NULL;
                free(key);
                if (!next)
                        return NULL;
                key = next;
        }
        return key;
}

int polkit_check_async(PolkitRegistry *registry, sd_bus_message *call, uid_t uid, const char *action, const char *scope,
                       const char *const *details, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *check = NULL;
        _cleanup_free_ char *key = NULL;
        unsigned n_user = 0;
        const char *sender;
        uint32_t flags = 0;
        int r;

        assert(registry);
        assert(call);
        assert(action);
        assert(scope);

        /* The second round: the verdict is in. */
        LIST_FOREACH(queries, q, registry->queries)
                for (size_t i = 0; i < q->held.n; i++)
                        if (q->held.calls[i] == call)
                                return q->done ? query_take_verdict(q, call, error) : 0;

        /* Root is authorized without polkit, as systemd's daemons do. */
        if (uid == 0)
                return 1;

        sender = sd_bus_message_get_sender(call);
        if (!sender)
                return sd_bus_error_set(error, SD_BUS_ERROR_ACCESS_DENIED, "The caller has no bus name.");
        if (sd_bus_message_get_allow_interactive_authorization(call) > 0)
                flags |= POLKIT_ALLOW_USER_INTERACTION;
        key = query_key(action, scope, details, flags);
        if (!key)
                return -ENOMEM;

        /* One pending check per caller, action and scope; an identical call shares it. */
        LIST_FOREACH(queries, q, registry->queries) {
                n_user += q->uid == uid;
                if (q->done || !streq(sd_bus_message_get_sender(q->held.calls[0]), sender) ||
                    !streq(q->action, action) || !streq(q->scope, scope))
                        continue;
                if (!streq(q->key, key))
                        return sd_bus_error_setf(error, RDMAD_ERROR_BUSY,
                                                 "Another authorization of this caller for %s is pending (at "
                                                 "most one per caller and device).",
                                                 scope);
                if (q->held.n >= POLKIT_CALLS_PER_QUERY_MAX)
                        return sd_bus_error_setf(error, RDMAD_ERROR_BUSY,
                                                 "Too many identical calls of this caller wait for authorization "
                                                 "(at most %u).",
                                                 POLKIT_CALLS_PER_QUERY_MAX);
                r = held_calls_add(&q->held, call);
                return r < 0 ? r : 0;
        }
        if (n_user >= POLKIT_QUERIES_PER_USER_MAX)
                return sd_bus_error_setf(error, RDMAD_ERROR_BUSY,
                                         "Too many authorizations pending for uid %u (at most %u per user).",
                                         (unsigned) uid, POLKIT_QUERIES_PER_USER_MAX);
        if (registry->n_queries >= POLKIT_QUERIES_MAX)
                return sd_bus_error_setf(error, RDMAD_ERROR_BUSY, "Too many authorizations pending (at most %u).",
                                         POLKIT_QUERIES_MAX);

        r = check_authorization_message(call, sender, action, details, flags, &check);
        if (r < 0)
                return sd_bus_error_set_errnof(error, r, "Cannot build the polkit request: %m");

        PolkitQuery *q = calloc(1, sizeof(PolkitQuery));
        if (!q)
                return -ENOMEM;
        q->registry = registry;
        q->uid = uid;
        LIST_PREPEND(queries, registry->queries, q);
        registry->n_queries++;
        q->action = strdup(action);
        q->scope = strdup(scope);
        q->key = TAKE_PTR(key);
        if (!q->action || !q->scope || held_calls_add(&q->held, call) < 0) {
                query_free(q);
                return -ENOMEM;
        }

        r = sd_bus_call_async(sd_bus_message_get_bus(call), &q->slot, check, on_check_reply, q,
                              flags & POLKIT_ALLOW_USER_INTERACTION ? POLKIT_INTERACTIVE_TIMEOUT_USEC
                                                                    : POLKIT_TIMEOUT_USEC);
        if (r < 0) {
                query_free(q);
                return sd_bus_error_set_errnof(error, r, "Cannot ask polkit for authorization: %m");
        }
        log_debug("Authorization checks held: %u.", registry->n_queries);
        return 0;
}
