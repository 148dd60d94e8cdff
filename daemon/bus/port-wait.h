/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

/* Port.WaitForState calls: each answered exactly once, when the port reaches
 * the state, on its timeout, or when the port or its device goes away. The
 * registry knows ports by device name and number only; where they stand it
 * asks its owner through the lookup callback. */

typedef struct PortWait PortWait;

/* The port's current state name, or NULL if there is no such port (any more). */
typedef const char *(*PortWaitLookup)(const char *device, uint32_t port, void *userdata);

typedef struct PortWaitRegistry {
        PortWait *waits;
        unsigned n_waits;
        unsigned n_unprivileged; /* those of callers other than root */
        sd_event *event;         /* not owned: for the timeouts */
        PortWaitLookup lookup;
        void *userdata;
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

void port_wait_registry_init(PortWaitRegistry *registry, sd_event *event, PortWaitLookup lookup, void *userdata);

/* Holds `call`, from a caller with bus-verified `uid`, until the port named
 * by device and port is in `state` (a static string: the parser's table),
 * for at most timeout_ms (cut to PORT_WAIT_TIMEOUT_MAX_MS). Fails with
 * `error` set: -EINVAL for a call that expects no reply (there is no one to
 * answer, nothing is held), -EBUSY past a limit, naming it. */
int port_wait_add(PortWaitRegistry *registry, sd_bus_message *call, uid_t uid, const char *device, uint32_t port,
                  const char *state, uint32_t timeout_ms, sd_bus_error *error);

/* Answers every call whose port is in its state, or gone. */
void port_wait_check(PortWaitRegistry *registry);

/* Fails every call that waits on a port of `device`, which is going away. */
void port_wait_fail_device(PortWaitRegistry *registry, const char *device);

/* The caller `sender` left the bus: its calls are dropped, there is no one to answer. */
void port_wait_drop_sender(PortWaitRegistry *registry, const char *sender);

/* On SIGTERM: every pending call fails with org.rdmad1.Error.Failed. */
void port_wait_fail_all(PortWaitRegistry *registry, const char *reason);

/* At exit: the pending calls are dropped unanswered. */
void port_wait_registry_clear(PortWaitRegistry *registry);
