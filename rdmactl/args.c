/* SPDX-License-Identifier: MIT */
/* Strict parsers for command-line arguments: numbers, time spans, port
 * states and port names. Numbers are read by the daemon's own
 * parse_decimal_u32, so that rdmactl and rdmad agree on what one is. */
#include "args.h"

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "basic/parse.h"
#include "basic/util.h"

static bool all_digits(const char *s) {
        return *s && s[strspn(s, "0123456789")] == '\0';
}

int parse_number_arg(const char *s, uint32_t max, uint32_t *ret) {
        uint32_t v;

        assert(ret);

        if (!s)
                return -EINVAL;
        if (parse_decimal_u32(s, &v) < 0)
                /* Digits that do not fit in 32 bits are too many, not a typo. */
                return all_digits(s) && s[0] != '0' ? -ERANGE : -EINVAL;
        if (v > max)
                return -ERANGE;
        *ret = v;
        return 0;
}

int parse_port_state_arg(const char *s, const char **ret_name) {
        const char *name, *canonical;
        char number[16];
        uint32_t num;

        assert(ret_name);

        if (!s || !*s)
                return -EINVAL;
        if (s[0] < '0' || s[0] > '9') {
                canonical = port_state_from_name(s);
                if (!canonical)
                        return -EINVAL;
                *ret_name = canonical;
                return 0;
        }

        /* "4", or sysfs's "4: ACTIVE", whose name must then be that of the number. */
        if (parse_port_state(s, &num, &name) < 0)
                return all_digits(s) ? -ERANGE : -EINVAL;
        if (num > PORT_STATE_MAX)
                return -ERANGE;
        snprintf(number, sizeof(number), "%" PRIu32, num);
        if (parse_port_state(number, &num, &canonical) < 0 || !*canonical)
                return -EINVAL;
        if (strcasecmp(name, canonical) != 0)
                return -EINVAL; /* "4: DOWN" */
        *ret_name = canonical;
        return 0;
}

StateLookalike port_state_lookalike(const char *s) {
        static const char *const states[] = { "NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER" };
        const char *ignored;
        size_t len;
        bool letter = false;

        assert(s);

        if (!*s || strchr(s, '/') || all_digits(s) || parse_port_state_arg(s, &ignored) != -EINVAL)
                return STATE_LOOKALIKE_NONE;
        if (port_phys_state_from_name(s))
                return STATE_LOOKALIKE_PHYS;
        len = strlen(s);
        for (size_t i = 0; len >= 3 && i < ELEMENTSOF(states); i++)
                if (strncasecmp(states[i], s, len) == 0)
                        return STATE_LOOKALIKE_PREFIX;
        for (const char *c = s; *c; c++) {
                if (*c >= 'a' && *c <= 'z')
                        return STATE_LOOKALIKE_NONE;
                letter = letter || (*c >= 'A' && *c <= 'Z');
        }
        return letter ? STATE_LOOKALIKE_CAPITALS : STATE_LOOKALIKE_NONE;
}

int parse_device_slash_port(const char *s, char **ret_device, uint32_t *ret_port) {
        const char *slash;
        uint32_t port;
        char *device;
        int r;

        assert(s);
        assert(ret_device);
        assert(ret_port);

        slash = strrchr(s, '/');
        if (!slash)
                return -ENOENT;
        if (slash == s)
                return -EINVAL;
        r = parse_number_arg(slash + 1, UINT32_MAX, &port);
        if (r < 0)
                return r;
        if (port == 0)
                return -EINVAL; /* ports count from 1 */
        device = strndup(s, (size_t) (slash - s));
        if (!device)
                return -ENOMEM;
        *ret_device = device;
        *ret_port = port;
        return 0;
}

/* The index of s in a table of names (NULL holes allowed); -EINVAL if none. */
static int string_table_lookup(const char *const *table, size_t n, const char *s) {
        for (size_t i = 0; s && i < n; i++)
                if (table[i] && streq(table[i], s))
                        return (int) i;
        return -EINVAL;
}

/* A parser from a string table, as systemd's DEFINE_STRING_TABLE_LOOKUP makes them. */
#define DEFINE_STRING_TABLE_PARSER(name, type, table)                                                                  \
        int name(const char *s, type *ret) {                                                                           \
                int i = string_table_lookup(table, ELEMENTSOF(table), s);                                              \
                                                                                                                       \
                assert(ret);                                                                                           \
                if (i < 0)                                                                                             \
                        return i;                                                                                      \
                *ret = (type) i;                                                                                       \
                return 0;                                                                                              \
        }

static const char *const json_modes[] = {
        [JSON_OFF] = "off",
        [JSON_SHORT] = "short",
        [JSON_PRETTY] = "pretty",
};

DEFINE_STRING_TABLE_PARSER(parse_json_mode, JsonMode, json_modes)

static const char *const name_kinds[] = {
        [NAMES_DEVICES] = "devices",
        [NAMES_SRIOV_DEVICES] = "sriov-devices",
        [NAMES_NETDEVS] = "netdevs",
        [NAMES_PORTS] = "ports",
};

DEFINE_STRING_TABLE_PARSER(parse_name_kind, NameKind, name_kinds)
