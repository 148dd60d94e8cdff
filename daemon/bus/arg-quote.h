/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>

/* What an error message may say of a caller's argument: its first
 * ARG_QUOTE_PREFIX bytes, escaped (anything but printable ASCII as \xNN,
 * quotes and backslashes too), and "..." if there was more. A reply is then
 * bounded by rdmad, whatever the caller sent. */
#define ARG_QUOTE_PREFIX 32
#define ARG_QUOTE_SIZE   (ARG_QUOTE_PREFIX * 4 + 4)

/* No valid name of D-Bus or of rdmad (an interface, a property, a state)
 * is longer: a longer argument is refused before any work. */
#define ARG_NAME_MAX 255

/* Writes the quoted prefix of `s` to `buf`; returns buf. */
const char *arg_quote(const char *s, char buf[static ARG_QUOTE_SIZE]);
