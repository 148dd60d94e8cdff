/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <systemd/sd-bus.h>

/* What an error message may say of a caller's argument: its first
 * ARG_QUOTE_PREFIX bytes, escaped (anything but printable ASCII as \xNN,
 * quotes and backslashes too), and "..." if there was more. A reply is then
 * bounded by rdmad, whatever the caller sent. */
#define ARG_QUOTE_PREFIX 32
#define ARG_QUOTE_SIZE   (ARG_QUOTE_PREFIX * 4 + 4)

/* No valid name of D-Bus or of rdmad (an interface, a property, a state)
 * is longer: a longer argument is refused before rdmad works on it. */
#define ARG_NAME_MAX 255

/* Writes the quoted prefix of `s` to `buf`; returns buf. */
const char *arg_quote(const char *s, char buf[static ARG_QUOTE_SIZE]);

/* Properties.Get(ss), Set(ssv) and GetAll(s): a name longer than any valid
 * one is refused (InvalidArgs), quoting none of it. 1: refused; 0: go on. */
int bus_refuse_long_names(sd_bus_message *m);
