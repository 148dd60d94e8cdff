/* SPDX-License-Identifier: MIT */
#pragma once

/* Strict parsers for what is typed on rdmactl's command line: a script's
 * typo is an error, never a silently different value. Pure; -EINVAL for
 * what is not of the form, -ERANGE for what is above the maximum. */

#include <stddef.h>
#include <stdint.h>

#include "basic/timespan.h"

/* A decimal number as parse_decimal_u32 reads it (no sign, blanks or
 * leading zeros), and at most `max`. */
int parse_number_arg(const char *s, uint32_t max, uint32_t *ret);

/* A port state by name in any case ("active") or by the kernel's number
 * ("4", "4: ACTIVE", as sysfs writes it) → its kernel name ("ACTIVE").
 * -ERANGE for a number that is no state (above PORT_STATE_MAX). */
#define PORT_STATE_MAX 5
int parse_port_state_arg(const char *s, const char **ret_name);

/* A word that is no port state but looks meant as one: a physical state
 * ("LinkUp"), the start of a state's name ("ACTIV", "activ"), or a word in
 * capitals ("UP"). Kernel device and interface names are lower case, so
 * such a word is a mistake unless it names something after all. */
typedef enum StateLookalike {
        STATE_LOOKALIKE_NONE,
        STATE_LOOKALIKE_PHYS,     /* a physical state's name */
        STATE_LOOKALIKE_PREFIX,   /* the start of a state's name, 3 letters or more */
        STATE_LOOKALIKE_CAPITALS, /* letters, all of them capitals */
} StateLookalike;
StateLookalike port_state_lookalike(const char *s);

/* The port states as the messages list them. */
#define PORT_STATES_TEXT "ACTIVE, DOWN, INIT, ARMED, ACTIVE_DEFER, NOP (in any case), or their numbers 0-5"

/* "mlx5_0/1" (the `rdma` tool's DEV/PORT) → "mlx5_0" (allocated) and 1;
 * -ENOENT when s has no '/', so that the caller tries other readings. */
int parse_device_slash_port(const char *s, char **ret_device, uint32_t *ret_port);

typedef enum JsonMode {
        JSON_OFF,
        JSON_SHORT,  /* a document a line */
        JSON_PRETTY, /* indented */
} JsonMode;

/* "pretty", "short", "off" (the values of systemd's --json=). */
int parse_json_mode(const char *s, JsonMode *ret);

/* What the hidden --list=KIND prints for the shell completion. */
typedef enum NameKind {
        NAMES_DEVICES,       /* "devices" */
        NAMES_SRIOV_DEVICES, /* "sriov-devices": those set-vfs can change */
        NAMES_NETDEVS,       /* "netdevs" */
        NAMES_PORTS,         /* "ports", as DEVICE/PORT */
} NameKind;

/* "devices", "sriov-devices", "netdevs", "ports". */
int parse_name_kind(const char *s, NameKind *ret);
