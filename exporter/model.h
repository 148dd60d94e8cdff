/* SPDX-License-Identifier: MIT */
#pragma once

/* rdmad-exporter's copy of rdmad's model, kept by signals: one
 * GetManagedObjects when the exporter starts and whenever org.rdmad1 gets
 * an owner (rdmad started or restarted), then InterfacesAdded,
 * InterfacesRemoved and PropertiesChanged. A scrape reads it as it is and
 * asks rdmad only for the counters. When rdmad leaves or hangs, the last
 * known model stays, with the time it was last confirmed. */

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "client/counter-table.h"
#include "client/inventory.h"

typedef struct Model Model;

/* A scrape's counters call finished: up (rdmad answered), the counters in t
 * (owned by the callee until it returns). */
typedef void (*model_counters_done_t)(const CounterTable *t, bool up, void *userdata);

Model *model_new(sd_event *event);
Model *model_free(Model *m);

/* Connects to the system bus (again, when it went away), subscribes and
 * asks for the model. A failure is logged and retried on the next scrape. */
int model_connect(Model *m);

/* The last known model; NULL until one GetManagedObjects was answered. */
const Inventory *model_inventory(const Model *m);

/* CLOCK_REALTIME µs of the last time rdmad told the exporter anything (a
 * reply or a signal); 0: never. */
uint64_t model_last_update_usec(const Model *m);

/* GetManagedObjects calls made so far. */
uint64_t model_gmo_calls(const Model *m);

/* One GetAllCounters with this timeout; done is called exactly once, also
 * when the call cannot be made. Returns a handle for model_counters_cancel(). */
typedef struct CountersCall CountersCall;
int model_get_counters(Model *m, uint64_t timeout_usec, model_counters_done_t done, void *userdata, CountersCall **ret);
void model_counters_cancel(CountersCall *c);
