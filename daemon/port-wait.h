/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdint.h>
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
        sd_event *event; /* not owned: for the timeouts */
        PortWaitLookup lookup;
        void *userdata;
} PortWaitRegistry;

/* Each pending call holds a message and a timer: bound them. */
#define PORT_WAITS_MAX 4096

void port_wait_registry_init(PortWaitRegistry *registry, sd_event *event, PortWaitLookup lookup, void *userdata);

/* Holds `call` until the port named by device and port is in `state`
 * (a static string: the parser's table). -EBUSY past PORT_WAITS_MAX. */
int port_wait_add(PortWaitRegistry *registry, sd_bus_message *call, const char *device, uint32_t port,
                  const char *state, uint64_t timeout_usec);

/* Answers every call whose port is in its state, or gone. */
void port_wait_check(PortWaitRegistry *registry);

/* Fails every call that waits on a port of `device`, which is going away. */
void port_wait_fail_device(PortWaitRegistry *registry, const char *device);

/* At exit: the pending calls are dropped unanswered. */
void port_wait_registry_clear(PortWaitRegistry *registry);
