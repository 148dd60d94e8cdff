/* SPDX-License-Identifier: MIT */
#pragma once

/* The one rule for believing a signal, in rdmad and in every client
 * (org.rdmad1(5), "Believing signals"): it was broadcast (it has no
 * destination) and its sender is the one that may send it, the bus driver
 * (org.freedesktop.DBus) for NameOwnerChanged, the current unique owner of
 * org.rdmad1 for rdmad's own signals. A match rule's sender= does not ensure
 * it: the bus hands a signal that names a destination to that destination
 * whatever its match rules say, and sd-bus takes a signal from any unique
 * name for a match on a well-known sender. */

#include <stdbool.h>
#include <systemd/sd-bus.h>

/* Whether m is a broadcast signal from sender (a unique name, or
 * org.freedesktop.DBus); false for a NULL sender: an owner not known yet
 * vouches for nothing. Signals it refuses are logged at debug level, a few
 * per ten seconds. */
bool bus_signal_is_from(sd_bus_message *m, const char *sender);
