/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdint.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "bus-util.h"

/* Rescan() calls held until the reads they asked for are applied: what a
 * rescan found is in the model when the caller hears back. At most the
 * read timeout (a device that hangs meanwhile is left to its recovery); at
 * most RESCAN_CALLS_MAX held, each dropped when its caller leaves. */
#define RESCAN_CALLS_MAX 64

typedef struct RescanCalls {
        HeldCalls held;
        sd_event_source *timer;
} RescanCalls;

/* Holds the call, answered by rescan_calls_answer() or after timeout_usec;
 * a D-Bus error in *error when too many are held. */
int rescan_calls_hold(RescanCalls *c, sd_event *event, sd_bus_message *call, uint64_t timeout_usec,
                      sd_bus_error *error);
/* The call is answered otherwise (the rescan could not start): let go of it. */
void rescan_calls_release(RescanCalls *c, sd_bus_message *call);
/* Every held call is answered. */
void rescan_calls_answer(RescanCalls *c);
void rescan_calls_drop_sender(RescanCalls *c, const char *sender);
void rescan_calls_clear(RescanCalls *c);
