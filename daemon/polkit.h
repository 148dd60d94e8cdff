/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <systemd/sd-bus.h>

/* Asynchronous polkit checks, the way systemd's daemons do them: the first
 * time a method call arrives, CheckAuthorization is sent and the handler
 * returns "later"; when polkit answers, the original call is re-queued with
 * sd_bus_enqueue_for_read() and the handler runs again, now finding the
 * verdict. Nothing blocks the event loop. */

typedef struct PolkitQuery PolkitQuery;

typedef struct PolkitRegistry {
        PolkitQuery *queries;
} PolkitRegistry;

/* Returns 1 if the caller of `call` is authorized for `action`, 0 if the
 * answer is pending (the handler must return 1 and will be called again),
 * or a negative errno with `error` set: AccessDenied,
 * InteractiveAuthorizationRequired, or the reason polkit could not be asked.
 * details: NULL-terminated key, value pairs. */
int polkit_check_async(PolkitRegistry *registry, sd_bus_message *call, const char *action,
                       const char *const *details, sd_bus_error *error);

void polkit_registry_clear(PolkitRegistry *registry);
