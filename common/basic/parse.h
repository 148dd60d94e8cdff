/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* Pure parsers for the formats of drivers/infiniband/core/sysfs.c.
 * None of them allocates; they return 0 or -EINVAL. */

/* "4: ACTIVE" → 4, "ACTIVE" (pointing into s). A bare number gets its name
 * from `names` (n_names entries, NULL holes allowed), else "". */
int parse_numbered_name(const char *s, const char *const *names, unsigned n_names, uint32_t *ret_num,
                        const char **ret_name);

int parse_port_state(const char *s, uint32_t *ret_num, const char **ret_name);
int parse_port_phys_state(const char *s, uint32_t *ret_num, const char **ret_name);
int parse_node_type(const char *s, uint32_t *ret_num, const char **ret_name);
/* A node type's number from its name as Device.NodeType has it ("RNIC" → 4); 0 for none of them. */
uint32_t node_type_from_name(const char *name);

enum {
        NODE_TYPE_CA = 1,
        NODE_TYPE_SWITCH = 2,
        NODE_TYPE_ROUTER = 3,
        NODE_TYPE_RNIC = 4,
        NODE_TYPE_USNIC = 5,
        NODE_TYPE_USNIC_UDP = 6,
        NODE_TYPE_UNSPECIFIED = 7,
};

#define RATE_FIELD_MAX 64

typedef struct RateInfo {
        double speed;                    /* 2.5, 100; 0 when unknown */
        char unit[RATE_FIELD_MAX];       /* "Gb/sec" */
        char info[RATE_FIELD_MAX];       /* "4X EDR", or "4X" on old kernels */
        char width[RATE_FIELD_MAX];      /* "4X": info up to the speed name, "" unless "<n>X" */
        char speed_name[RATE_FIELD_MAX]; /* "EDR": the rest of info, "" on old kernels */
} RateInfo;

/* "%d%s Gb/sec (%dX%s)": "2.5 Gb/sec (1X SDR)", "10 Gb/sec (4X)". */
int parse_rate(const char *s, RateInfo *ret);

/* Decimal only, no sign, no leading zero, no overflow: port numbers and
 * GID indexes as directory names and object path components. */
int parse_decimal_u32(const char *s, uint32_t *ret);

/* Decimal or "0x" hexadecimal, the whole string, no sign, no overflow. */
int parse_u32(const char *s, uint32_t *ret);

/* "0000:0000:...:0000": an unused GID table entry. */
bool gid_is_zero(const char *gid);

/* "InfiniBand", "Ethernet", else "Unknown". */
const char *link_layer_normalize(const char *s);

/* RNIC → "iWARP"; else by link layer: InfiniBand → "InfiniBand",
 * Ethernet → "RoCE"; otherwise "unknown". */
const char *transport_from(uint32_t node_type, const char *link_layer);

/* The kernel's name of a port state, matched case-insensitively ("active"
 * → "ACTIVE"); NULL if it is none of NOP, DOWN, INIT, ARMED, ACTIVE,
 * ACTIVE_DEFER. */
const char *port_state_from_name(const char *s);

/* The same for a physical state ("linkup" → "LinkUp"); NULL if none. */
const char *port_phys_state_from_name(const char *s);
