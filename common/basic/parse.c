/* SPDX-License-Identifier: MIT */
#include "basic/parse.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "basic/util.h"

static const char *const port_state_names[] = {
        [0] = "NOP", [1] = "DOWN", [2] = "INIT", [3] = "ARMED", [4] = "ACTIVE", [5] = "ACTIVE_DEFER",
};

static const char *const port_phys_state_names[] = {
        [1] = "Sleep",  [2] = "Polling",           [3] = "Disabled", [4] = "PortConfigurationTraining",
        [5] = "LinkUp", [6] = "LinkErrorRecovery", [7] = "Phy Test",
};

static const char *const node_type_names[] = {
        [NODE_TYPE_CA] = "CA",
        [NODE_TYPE_SWITCH] = "switch",
        [NODE_TYPE_ROUTER] = "router",
        [NODE_TYPE_RNIC] = "RNIC",
        [NODE_TYPE_USNIC] = "usNIC",
        [NODE_TYPE_USNIC_UDP] = "usNIC UDP",
        [NODE_TYPE_UNSPECIFIED] = "unspecified",
};

static bool is_digit(char c) {
        return c >= '0' && c <= '9';
}

/* Leading decimal digits of s as a uint32; *end after them. */
static int parse_decimal_prefix(const char *s, uint32_t *ret, const char **end) {
        uint64_t v = 0;

        if (!is_digit(*s))
                return -EINVAL;
        for (; is_digit(*s); s++) {
                v = v * 10 + (uint64_t) (*s - '0');
                if (v > UINT32_MAX)
                        return -EINVAL;
        }
        *ret = (uint32_t) v;
        *end = s;
        return 0;
}

int parse_numbered_name(const char *s, const char *const *names, unsigned n_names, uint32_t *ret_num,
                        const char **ret_name) {
        const char *p;
        uint32_t num;

        *ret_num = 0;
        *ret_name = "";

        if (parse_decimal_prefix(s, &num, &p) < 0)
                return -EINVAL;

        if (*p == '\0') {
                *ret_num = num;
                *ret_name = num < n_names && names[num] ? names[num] : "";
                return 0;
        }
        if (*p != ':')
                return -EINVAL;
        p++;
        while (*p == ' ')
                p++;

        *ret_num = num;
        *ret_name = *p ? p : (num < n_names && names[num] ? names[num] : "");
        return 0;
}

int parse_port_state(const char *s, uint32_t *ret_num, const char **ret_name) {
        return parse_numbered_name(s, port_state_names, ELEMENTSOF(port_state_names), ret_num, ret_name);
}

int parse_port_phys_state(const char *s, uint32_t *ret_num, const char **ret_name) {
        return parse_numbered_name(s, port_phys_state_names, ELEMENTSOF(port_phys_state_names), ret_num, ret_name);
}

int parse_node_type(const char *s, uint32_t *ret_num, const char **ret_name) {
        return parse_numbered_name(s, node_type_names, ELEMENTSOF(node_type_names), ret_num, ret_name);
}

uint32_t node_type_from_name(const char *name) {
        for (uint32_t i = 0; name && i < ELEMENTSOF(node_type_names); i++)
                if (node_type_names[i] && streq(node_type_names[i], name))
                        return i;
        return 0;
}

static int copy_field(char *dst, const char *src, size_t len) {
        if (len >= RATE_FIELD_MAX)
                return -EINVAL;
        memcpy(dst, src, len);
        dst[len] = '\0';
        return 0;
}

/* "4X EDR" → "4X", "EDR"; "4X" → "4X", "". The kernel prints the width as
 * "%dX" and a speed name after a space; anything else ("4X ", "4XEDR")
 * leaves both "". */
static void rate_info_split(const char *info, char width[static RATE_FIELD_MAX],
                            char speed_name[static RATE_FIELD_MAX]) {
        const char *p = info;

        width[0] = speed_name[0] = '\0';
        if (!is_digit(*p))
                return;
        while (is_digit(*p))
                p++;
        if (*p != 'X' || (p[1] != '\0' && (p[1] != ' ' || p[2] == '\0')))
                return;
        p++;
        (void) copy_field(width, info, (size_t) (p - info));
        if (*p == ' ')
                (void) copy_field(speed_name, p + 1, strlen(p + 1));
}

int parse_rate(const char *s, RateInfo *ret) {
        RateInfo r = {};
        const char *p = s, *unit, *lparen, *rparen;
        uint32_t whole, frac = 0;
        double scale = 1;

        *ret = r;

        /* Locale-independent: "2.5" must not depend on LC_NUMERIC. */
        if (parse_decimal_prefix(p, &whole, &p) < 0)
                return -EINVAL;
        if (*p == '.') {
                const char *start = ++p;
                if (!is_digit(*p))
                        return -EINVAL;
                for (; is_digit(*p) && p - start < 9; p++) {
                        frac = frac * 10 + (uint32_t) (*p - '0');
                        scale *= 10;
                }
                if (is_digit(*p))
                        return -EINVAL;
        }
        r.speed = whole + frac / scale;

        if (*p != ' ')
                return -EINVAL;
        unit = ++p;
        lparen = strstr(unit, " (");
        if (!lparen) {
                /* A unit with no width in parentheses: accept, as the speed is known. */
                if (!*unit || strchr(unit, '(') || strchr(unit, ')') || copy_field(r.unit, unit, strlen(unit)) < 0)
                        return -EINVAL;
                *ret = r;
                return 0;
        }
        if (lparen == unit || copy_field(r.unit, unit, (size_t) (lparen - unit)) < 0)
                return -EINVAL;

        p = lparen + 2;
        rparen = strchr(p, ')');
        if (!rparen || rparen[1] != '\0' || rparen == p)
                return -EINVAL;
        if (copy_field(r.info, p, (size_t) (rparen - p)) < 0)
                return -EINVAL;
        rate_info_split(r.info, r.width, r.speed_name);

        *ret = r;
        return 0;
}

int parse_decimal_u32(const char *s, uint32_t *ret) {
        const char *end;
        uint32_t v;

        if (s[0] == '0' && s[1])
                return -EINVAL;
        if (parse_decimal_prefix(s, &v, &end) < 0 || *end != '\0')
                return -EINVAL;
        *ret = v;
        return 0;
}

int parse_u32(const char *s, uint32_t *ret) {
        uint64_t v = 0;
        const char *p = s;

        *ret = 0;
        if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
                p += 2;
                if (!*p)
                        return -EINVAL;
                for (; *p; p++) {
                        int d;
                        if (is_digit(*p))
                                d = *p - '0';
                        else if (*p >= 'a' && *p <= 'f')
                                d = *p - 'a' + 10;
                        else if (*p >= 'A' && *p <= 'F')
                                d = *p - 'A' + 10;
                        else
                                return -EINVAL;
                        v = v * 16 + (uint64_t) d;
                        if (v > UINT32_MAX)
                                return -EINVAL;
                }
                *ret = (uint32_t) v;
                return 0;
        }

        uint32_t d;
        if (parse_decimal_prefix(p, &d, &p) < 0 || *p != '\0')
                return -EINVAL;
        *ret = d;
        return 0;
}

bool gid_is_zero(const char *gid) {
        if (!*gid)
                return true;
        for (; *gid; gid++)
                if (*gid != '0' && *gid != ':')
                        return false;
        return true;
}

const char *link_layer_normalize(const char *s) {
        if (s && streq(s, "InfiniBand"))
                return "InfiniBand";
        if (s && streq(s, "Ethernet"))
                return "Ethernet";
        return "Unknown";
}

const char *transport_from(uint32_t node_type, const char *link_layer) {
        if (node_type == NODE_TYPE_RNIC)
                return "iWARP";
        if (link_layer && streq(link_layer, "InfiniBand"))
                return "InfiniBand";
        if (link_layer && streq(link_layer, "Ethernet"))
                return "RoCE";
        return "unknown";
}

const char *port_phys_state_from_name(const char *s) {
        for (size_t i = 0; i < ELEMENTSOF(port_phys_state_names); i++)
                if (port_phys_state_names[i] && strcasecmp(port_phys_state_names[i], s) == 0)
                        return port_phys_state_names[i];
        return NULL;
}

const char *port_state_from_name(const char *s) {
        for (size_t i = 0; i < ELEMENTSOF(port_state_names); i++)
                if (port_state_names[i] && strcasecmp(port_state_names[i], s) == 0)
                        return port_state_names[i];
        return NULL;
}
