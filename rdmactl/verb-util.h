/* SPDX-License-Identifier: MIT */
#pragma once

/* What several verbs do the same way: read the inventory, end the output,
 * name a port's device, its health. */

#include <stdbool.h>
#include <systemd/sd-bus.h>

#include "client/inventory-follow.h"
#include "client/inventory.h"
#include "field-tree.h"
#include "json-writer.h"
#include "rdmactl.h"

/* GetManagedObjects into *ret, made printable unless for JSON; prints the
 * error and returns the exit status for it on failure. */
int load_inventory(sd_bus *bus, const Options *o, Inventory **ret);

/* Flushes stdout: its errors (a full disk, a closed pipe) are failures too,
 * said as "rdmactl: Failed to write the output: <why>" ("JSON output" when
 * json); EXIT_FAILURE_GENERIC then, unless status is already a failure. */
int flush_output(bool json, int status);
int finish_output(int status); /* flush_output(false, status) */

/* The same after a JSON document on stdout: the writer's own error, or the
 * stream's, as "rdmactl: Failed to write JSON output: <why>". */
int finish_json_output(const JsonWriter *w, int status);

/* A field tree or a table as the JSON document on stdout (pretty as
 * --json=pretty asks), then finish_json_output(). */
int print_fields_json(const Field *root, const Options *o, int status);
int print_table_json(const Table *t, const Options *o, int status);

/* Subscribes to rdmad's signals, then reads its objects (nothing falls
 * between the two), and runs the event loop: its exit code, or the exit
 * status of the failure, told as "subscribing" or as verb's. */
int follow_and_run(InventoryFollow *f, sd_bus *bus, sd_event *event, const char *verb);

const char *port_device_name(const Inventory *inv, const RdmaPort *p);

/* The Health of the port's device; NULL from an rdmad without it. */
const char *port_health(const Inventory *inv, const RdmaPort *p);
