/* SPDX-License-Identifier: MIT */
#pragma once

/* What several verbs do the same way: read the inventory, end the output,
 * name a port's device and transport. */

#include <systemd/sd-bus.h>

#include "client/inventory.h"
#include "rdmactl.h"

/* GetManagedObjects into *ret, made printable unless for JSON; prints the
 * error and returns the exit status for it on failure. */
int load_inventory(sd_bus *bus, const Options *o, Inventory **ret);

/* Flushes stdout: its errors (a full disk, a closed pipe) are failures too. */
int finish_output(int status);

const char *port_device_name(const Inventory *inv, const RdmaPort *p);

/* The port's own transport (a VPI card's ports differ); a daemon from
 * before Port.Transport gives only the device's. */
const char *port_transport(const Inventory *inv, const RdmaPort *p);

/* The Health of the port's device; NULL from an rdmad without it. */
const char *port_health(const Inventory *inv, const RdmaPort *p);
