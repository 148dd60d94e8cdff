/* SPDX-License-Identifier: MIT */
#pragma once

#include <systemd/sd-bus.h>

/* Reads one entry of an array, entered: all its members, so that it can be
 * left. >= 0 on success, -errno to stop the array there. */
typedef int (*BusEntryReader)(sd_bus_message *m, void *userdata);

/* Reads the array m is at, of dictionary entries (type 'e', "a{contents}")
 * or structs ('r', "a(contents)"), calling entry for each with it entered;
 * enters and leaves the array and every entry. */
int bus_message_read_entries(sd_bus_message *m, char type, const char *contents, BusEntryReader entry, void *userdata);
