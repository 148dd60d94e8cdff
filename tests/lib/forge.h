/* SPDX-License-Identifier: MIT */
#pragma once

/* A hostile local user's signals: a connection of another uid to the test's
 * bus that sends each signal it is given twice over, as a broadcast and as
 * a unicast to every other connection on the bus (what reaches a client
 * whatever its match rules say). The tests of org.rdmad1(5)'s rule
 * "believe only broadcasts from the sender that may send them". */

#include <stddef.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>

#include "harness.h"

/* The uid of the forger: nobody. */
#define FORGER_UID 65534

/* A connection of uid to the harness's bus (harness_open_bus_as). */
sd_bus *forger_open(Harness *h, uid_t uid);

/* Sends the signal (path, interface, member, its body as
 * sd_bus_message_append() takes it) broadcast and to every unique name but
 * the forger's own, and flushes; returns how many copies the bus took
 * (fails the test when it took none). */
size_t forge(sd_bus *forger, const char *path, const char *interface, const char *member, const char *types, ...);

/* What the forgeries of the tests say. */
/* A port ACTIVE, LinkUp, with 123456789 state changes. */
size_t forge_port_active(sd_bus *forger, const char *port_path);
/* A device "evil0", firmware "6.6.6 evil", with an ACTIVE port 1. */
size_t forge_evil_device(sd_bus *forger);
/* A real device and its port 1 gone. */
size_t forge_device_removed(sd_bus *forger, const char *device_path);
/* The bus driver's word that name left (old_owner → "") and, when
 * new_owner is not NULL, that it came back as new_owner. */
size_t forge_owner_change(sd_bus *forger, const char *name, const char *old_owner, const char *new_owner);

/* The unique name of name's owner on the harness's bus. */
char *bus_name_owner(Harness *h, const char *name);
