/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "basic/time-util.h"

/* Asynchronous polkit checks, the way systemd's daemons do them: the first
 * time a method call arrives, CheckAuthorization is sent and the handler
 * returns "later"; when polkit answers, the original call is re-queued with
 * sd_bus_enqueue_for_read() and the handler runs again, now finding the
 * verdict. Nothing blocks the event loop.
 *
 * Root (uid 0, as the bus daemon knows it) is authorized without asking
 * polkit, as systemd's daemons do: a host without polkitd stays manageable.
 *
 * What a caller can make the daemon hold is bounded: one pending check per
 * caller (unique name), action and scope (the device); identical calls
 * while it is pending share it; per user and in all, the number of checks
 * is limited (the bus lets rdmad wait for 128 replies at a time, and a
 * flood of checks must not use them all). Checks are bounded in time, and
 * dropped when their caller leaves the bus. */

/* Distinct checks pending or being replayed, per (non-root) user and in all. */
#define POLKIT_QUERIES_PER_USER_MAX 8
#define POLKIT_QUERIES_MAX          64
/* Identical calls of one caller that share a pending check. */
#define POLKIT_CALLS_PER_QUERY_MAX 16
/* polkit answers in milliseconds; this covers its start by bus activation. */
#define POLKIT_TIMEOUT_USEC (25 * USEC_PER_SEC)
/* With the caller's interaction flag polkit may ask for a password: a prompt
 * left alone this long is abandoned. Shorter than rdmactl's 300 s, so that
 * the refusal still reaches it. */
#define POLKIT_INTERACTIVE_TIMEOUT_USEC (240 * USEC_PER_SEC)

typedef struct PolkitQuery PolkitQuery;

typedef struct PolkitRegistry {
        PolkitQuery *queries;
        unsigned n_queries;
} PolkitRegistry;

/* Returns 1 if the caller of `call`, whose bus-verified uid is `uid`, is
 * authorized for `action`, 0 if the answer is pending (the handler must
 * return 1 and will be called again), or a negative errno with `error` set:
 * AccessDenied, InteractiveAuthorizationRequired, the reason polkit could
 * not be asked, or org.rdmad1.Error.Busy naming the limit that was hit.
 * scope: what the action applies to (a device name): at most one pending
 * check per caller, action and scope. details: NULL-terminated key, value
 * pairs. */
int polkit_check_async(PolkitRegistry *registry, sd_bus_message *call, uid_t uid, const char *action, const char *scope,
                       const char *const *details, sd_bus_error *error);

/* The caller `sender` left the bus: its pending checks are dropped. */
void polkit_drop_sender(PolkitRegistry *registry, const char *sender);

/* On SIGTERM: every call still waiting for polkit fails with
 * org.rdmad1.Error.Failed and `reason`. */
void polkit_fail_all(PolkitRegistry *registry, const char *reason);

void polkit_registry_clear(PolkitRegistry *registry);
