/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "forward.h"

/* Port.WaitForState calls: each answered exactly once, when the port reaches
 * the state, on its timeout, or when its device goes away. A wait holds its
 * port, which keeps its address until its device's removal, when
 * port_wait_fail_device() answers the wait. */

typedef struct PortWait PortWait;

typedef struct PortWaitRegistry {
        PortWait *waits;
        unsigned n_waits;
        unsigned n_unprivileged; /* those of callers other than root */
        sd_event *event;         /* not owned: for the timeouts */
} PortWaitRegistry;

/* Each pending call holds a message and a timer: bound them per user (the
 * bus-verified uid: a user opening many connections gets no more), for all
 * unprivileged users together, and in time. Root has a bound of its own, so
 * that no other user can make root's calls fail. */
#define PORT_WAITS_PER_USER_MAX     256
#define PORT_WAITS_UNPRIVILEGED_MAX 4096
#define PORT_WAITS_ROOT_MAX         4096
/* A longer timeout is cut to this: the call then fails with Timeout after
 * 24 hours, and the caller asks again if it wants to wait longer. */
#define PORT_WAIT_TIMEOUT_MAX_MS (24U * 60 * 60 * 1000)

void port_wait_registry_init(PortWaitRegistry *registry, sd_event *event);

/* Holds `call`, from a caller with bus-verified `uid`, until port is in
 * `state` (a static string: the parser's table), for at most timeout_ms
 * (cut to PORT_WAIT_TIMEOUT_MAX_MS). Fails with
 * `error` set: -EINVAL for a call that expects no reply (there is no one to
 * answer, nothing is held), -EBUSY past a limit, naming it. */
int port_wait_add(PortWaitRegistry *registry, sd_bus_message *call, uid_t uid, const Port *port, const char *state,
                  uint32_t timeout_ms, sd_bus_error *error);

/* Answers every call whose port is in its state. */
void port_wait_check(PortWaitRegistry *registry);

/* Fails every call that waits on a port of d, which is going away. */
void port_wait_fail_device(PortWaitRegistry *registry, const Device *d);

/* The caller `sender` left the bus: its calls are dropped, there is no one to answer. */
void port_wait_drop_sender(PortWaitRegistry *registry, const char *sender);

/* On SIGTERM: every pending call fails with org.rdmad1.Error.Failed. */
void port_wait_fail_all(PortWaitRegistry *registry, const char *reason);

/* At exit: the pending calls are dropped unanswered. */
void port_wait_registry_clear(PortWaitRegistry *registry);
