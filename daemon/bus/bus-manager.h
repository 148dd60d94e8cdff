/* SPDX-License-Identifier: MIT */
#pragma once

#include "api/rdmad-api.h"

#include <systemd/sd-bus.h>

#include "forward.h"

/* org.rdmad1.Manager, one object at RDMAD_ROOT_PATH (userdata: the BusServer). */

extern const sd_bus_vtable manager_vtable[];

/* PropertiesChanged for Manager.Devices. */
int bus_manager_send_changed(BusServer *s);

/* Rescan() answers once the reads it asked for are applied: what it found
 * is in the model when the caller hears back. At most the read timeout
 * (a device that hangs meanwhile is left to its recovery); at most
 * RESCAN_CALLS_MAX held, each dropped when its caller leaves. */
#define RESCAN_CALLS_MAX 64

typedef struct RescanCalls {
        sd_bus_message **calls;
        size_t n, allocated;
        sd_event_source *timer;
} RescanCalls;

/* The model's rescanned event: every held Rescan() is answered. */
void bus_manager_rescanned(BusServer *s);
void rescan_calls_drop_sender(RescanCalls *c, const char *sender);
void rescan_calls_clear(RescanCalls *c);
