/* SPDX-License-Identifier: MIT */
#pragma once

/* rdmad-exporter's side of the system bus: one scrape is one
 * GetManagedObjects and one GetAllCounters, sent together. rdmad is never
 * started by a scrape (no auto-start): absent is absent. */

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

#include "counter-table.h"
#include "inventory.h"

typedef struct RdmadClient {
        sd_bus *bus; /* connected on first use, again after the bus went away */
        uint64_t timeout_usec;
        bool failing; /* the last scrape failed: log the next failure at debug level only */
        bool warned_no_counters;
} RdmadClient;

/* Returns 0 with both replies loaded into *ret_inventory (new) and
 * *counters (empty on entry), or a negative errno when rdmad did not answer
 * (-ENXIO: not on the bus) — the scrape then says rdmad_up 0. */
int rdmad_client_scrape(RdmadClient *c, Inventory **ret_inventory, CounterTable *counters);

void rdmad_client_done(RdmadClient *c);
