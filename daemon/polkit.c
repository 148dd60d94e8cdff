/* SPDX-License-Identifier: MIT */
#include "polkit.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "util.h"

/* CheckAuthorization's flag: the caller accepts a password prompt. */
#define POLKIT_ALLOW_USER_INTERACTION 1u

struct PolkitQuery {
        PolkitQuery *next;
        PolkitRegistry *registry;
        sd_bus_message *call; /* the method call being authorized */
        char *action;
        sd_bus_slot *slot;    /* the pending CheckAuthorization */
        bool done;
        bool authorized;
        bool challenge;
        sd_bus_error error;   /* polkit could not be asked */
};

static void query_free(PolkitQuery *q) {
        for (PolkitQuery **i = &q->registry->queries; *i; i = &(*i)->next)
                if (*i == q) {
                        *i = q->next;
                        break;
                }
        sd_bus_slot_unref(q->slot);
        sd_bus_message_unref(q->call);
        sd_bus_error_free(&q->error);
        free(q->action);
        free(q);
}

void polkit_registry_clear(PolkitRegistry *registry) {
        assert(registry);
        while (registry->queries)
                query_free(registry->queries);
}

/* CheckAuthorization returns (bba{ss}): is_authorized, is_challenge, details. */
static int check_authorization_read(sd_bus_message *reply, int *ret_authorized, int *ret_challenge) {
        int r;

        r = sd_bus_message_enter_container(reply, 'r', "bba{ss}");
        if (r < 0)
                return r;
        return sd_bus_message_read(reply, "bb", ret_authorized, ret_challenge);
}

static int on_check_reply(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        PolkitQuery *q = userdata;
        const sd_bus_error *e;
        int r, authorized = 0, challenge = 0;

        q->done = true;
        q->slot = sd_bus_slot_unref(q->slot);

        e = sd_bus_message_get_error(reply);
        if (e) {
                /* No polkit on the bus, or it failed: a refusal, said clearly. */
                sd_bus_error_setf(&q->error, SD_BUS_ERROR_ACCESS_DENIED,
                                  "Cannot ask polkit for authorization (%s: %s).", e->name, strempty(e->message));
        } else {
                r = check_authorization_read(reply, &authorized, &challenge);
                if (r < 0)
                        sd_bus_error_setf(&q->error, SD_BUS_ERROR_ACCESS_DENIED,
                                          "Cannot parse polkit's answer: %s.", strerror(-r));
                q->authorized = authorized;
                q->challenge = challenge;
        }

        /* Run the method handler again with the original message. */
        r = sd_bus_enqueue_for_read(sd_bus_message_get_bus(q->call), q->call);
        if (r < 0) {
                log_error_errno(r, "Cannot re-queue a method call after authorization: %m");
                (void) sd_bus_reply_method_errorf(q->call, SD_BUS_ERROR_FAILED, "Internal error: %s.", strerror(-r));
                query_free(q);
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
        if (r < 0)
                return r;
        r = sd_bus_message_append(check, "(sa{sv})s", "system-bus-name", 1, "name", "s", sender, action);
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(check, 'a', "{ss}");
        if (r < 0)
                return r;
        for (size_t i = 0; details && details[i] && details[i + 1]; i += 2) {
                r = sd_bus_message_append(check, "{ss}", details[i], details[i + 1]);
                if (r < 0)
                        return r;
        }
        r = sd_bus_message_close_container(check);
        if (r < 0)
                return r;
        r = sd_bus_message_append(check, "us", flags, "");
        if (r < 0)
                return r;
        *ret = TAKE_PTR(check);
        return 0;
}

int polkit_check_async(PolkitRegistry *registry, sd_bus_message *call, const char *action,
                       const char *const *details, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *check = NULL;
        PolkitQuery *q;
        const char *sender;
        uint32_t flags = 0;
        int r;

        assert(registry);
        assert(call);
        assert(action);

        /* The second round: the verdict is in. */
        for (q = registry->queries; q; q = q->next)
                if (q->call == call && streq(q->action, action))
                        break;
        if (q) {
                if (!q->done)
                        return 0;
                if (sd_bus_error_is_set(&q->error))
                        r = sd_bus_error_copy(error, &q->error);
                else if (q->authorized)
                        r = 1;
                else if (q->challenge)
                        r = sd_bus_error_setf(error, SD_BUS_ERROR_INTERACTIVE_AUTHORIZATION_REQUIRED,
                                              "Authentication is required for %s.", action);
                else
                        r = sd_bus_error_setf(error, SD_BUS_ERROR_ACCESS_DENIED, "Not authorized for %s.", action);
                query_free(q);
                return r;
        }

        sender = sd_bus_message_get_sender(call);
        if (!sender)
                return sd_bus_error_set(error, SD_BUS_ERROR_ACCESS_DENIED, "The caller has no bus name.");
        if (sd_bus_message_get_allow_interactive_authorization(call) > 0)
                flags |= POLKIT_ALLOW_USER_INTERACTION;

        r = check_authorization_message(call, sender, action, details, flags, &check);
        if (r < 0)
                return sd_bus_error_set_errnof(error, r, "Cannot build the polkit request: %m");

        q = calloc(1, sizeof(PolkitQuery));
        if (!q)
                return -ENOMEM;
        q->registry = registry;
        q->call = sd_bus_message_ref(call);
        q->action = strdup(action);
        q->next = registry->queries;
        registry->queries = q;
        if (!q->action) {
                query_free(q);
                return -ENOMEM;
        }

        /* With user interaction a password prompt may take long: no short timeout then. */
        r = sd_bus_call_async(sd_bus_message_get_bus(call), &q->slot, check, on_check_reply, q,
                              flags & POLKIT_ALLOW_USER_INTERACTION ? UINT64_MAX - 1 : 0);
        if (r < 0) {
                query_free(q);
                return sd_bus_error_set_errnof(error, r, "Cannot ask polkit for authorization: %m");
        }
        return 0;
}
