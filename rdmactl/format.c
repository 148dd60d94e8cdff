/* SPDX-License-Identifier: MIT */
#include "format.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "basic/util.h"

bool colors_wanted(int fd) {
        const char *no_color = getenv("NO_COLOR"), *term = getenv("TERM");

        if (no_color && *no_color)
                return false;
        if (!term || !*term || streq(term, "dumb"))
                return false;
        return isatty(fd) == 1;
}

typedef struct NameColor {
        const char *name;
        const char *color;
} NameColor;

/* The color of name in colors (ended by an empty row); NULL for a name it does not have. */
static const char *color_of(const NameColor *colors, const char *name) {
        for (const NameColor *c = colors; name && c->name; c++)
                if (streq(c->name, name))
                        return c->color;
        return NULL;
}

const char *state_color(const char *state_name) {
        static const NameColor colors[] = { { "ACTIVE", ANSI_GREEN },        { "DOWN", ANSI_RED },
                                            { "INIT", ANSI_YELLOW },         { "ARMED", ANSI_YELLOW },
                                            { "ACTIVE_DEFER", ANSI_YELLOW }, {} };

        return color_of(colors, state_name);
}

const char *phys_state_color(const char *phys_state_name) {
        static const NameColor colors[] = { { "LinkUp", ANSI_GREEN },
                                            { "Disabled", ANSI_RED },
                                            { "Sleep", ANSI_RED },
                                            { "Polling", ANSI_YELLOW },
                                            { "PortConfigurationTraining", ANSI_YELLOW },
                                            { "LinkErrorRecovery", ANSI_YELLOW },
                                            { "Phy Test", ANSI_YELLOW },
                                            {} };

        return color_of(colors, phys_state_name);
}

const char *health_color(const char *health) {
        static const NameColor colors[] = {
                { "ok", ANSI_GREEN }, { "errors", ANSI_YELLOW }, { "unresponsive", ANSI_RED }, {}
        };

        return color_of(colors, health);
}

char *format_timestamp(uint64_t realtime_usec, char buf[static TIMESTAMP_MAX]) {
        time_t sec = (time_t) (realtime_usec / 1000000);
        struct tm tm;
        char date[32], zone[8];

        if (!localtime_r(&sec, &tm) || strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm) == 0 ||
            strftime(zone, sizeof(zone), "%z", &tm) != 5) {
                snprintf(buf, TIMESTAMP_MAX, "@%" PRIu64, realtime_usec);
                return buf;
        }
        /* ISO 8601 wants "+01:00"; strftime gives "+0100". */
        snprintf(buf, TIMESTAMP_MAX, "%s.%06u%.3s:%s", date, (unsigned) (realtime_usec % 1000000), zone, zone + 3);
        return buf;
}

char *format_ago(uint64_t now, uint64_t then, char buf[static AGO_MAX]) {
        uint64_t s;

        if (then == 0)
                snprintf(buf, AGO_MAX, "never");
        else if (then > now)
                snprintf(buf, AGO_MAX, "just now");
        else if ((s = (now - then) / 1000000) < 60)
                snprintf(buf, AGO_MAX, "%" PRIu64 " s ago", s);
        else if (s < 2 * 3600)
                snprintf(buf, AGO_MAX, "%" PRIu64 " min ago", s / 60);
        else if (s < 2 * 86400)
                snprintf(buf, AGO_MAX, "%" PRIu64 " h ago", s / 3600);
        else
                snprintf(buf, AGO_MAX, "%" PRIu64 " days ago", s / 86400);
        return buf;
}

void print_colored(bool color_on, const char *text, const char *color) {
        if (color_on && color)
                printf("%s%s%s", color, text, ANSI_NORMAL);
        else
                fputs(text, stdout);
}

char *gid_to_ipv4(const char *gid, char buf[static GID_IPV4_MAX]) {
        uint16_t group[8];
        const char *p = gid;

        /* Eight groups of four hex digits, as drivers/infiniband/core/sysfs.c prints them (%pI6). */
        for (size_t i = 0; i < 8; i++) {
                unsigned v = 0;

                for (size_t k = 0; k < 4; k++, p++) {
                        int d = *p >= '0' && *p <= '9'   ? *p - '0'
                                : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10
                                : *p >= 'A' && *p <= 'F' ? *p - 'A' + 10
                                                         : -1;
                        if (d < 0)
                                return NULL;
                        v = v * 16 + (unsigned) d;
                }
                group[i] = (uint16_t) v;
                if (*p != (i < 7 ? ':' : '\0'))
                        return NULL;
                p++;
        }
        for (size_t i = 0; i < 5; i++)
                if (group[i] != 0)
                        return NULL;
        if (group[5] != 0xffff)
                return NULL;
        snprintf(buf, GID_IPV4_MAX, "%u.%u.%u.%u", group[6] >> 8, group[6] & 0xffu, group[7] >> 8, group[7] & 0xffu);
        return buf;
}

char *format_bytes(uint64_t bytes, char buf[static BYTES_STRING_MAX]) {
        static const char *const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
        double v = (double) bytes;
        size_t u = 0;

        if (bytes < 1024) {
                snprintf(buf, BYTES_STRING_MAX, "%" PRIu64 " B", bytes);
                return buf;
        }
        for (v /= 1024; v >= 1024 && u + 1 < ELEMENTSOF(units); u++)
                v /= 1024;
        snprintf(buf, BYTES_STRING_MAX, "%.1f %s", v, units[u]);
        return buf;
}

char *format_rate(double per_sec, bool bytes, char buf[static RATE_STRING_MAX]) {
        if (bytes) {
                char b[BYTES_STRING_MAX];

                /* A whole byte count keeps format_bytes' rounding in one place. */
                snprintf(buf, RATE_STRING_MAX, "%s/s", format_bytes(per_sec > 0 ? (uint64_t) per_sec : 0, b));
        } else if (per_sec == (double) (uint64_t) per_sec)
                snprintf(buf, RATE_STRING_MAX, "%" PRIu64 "/s", (uint64_t) per_sec);
        else
                snprintf(buf, RATE_STRING_MAX, "%.1f/s", per_sec);
        return buf;
}

typedef struct CounterName {
        const char *name;
        const char *label; /* NULL: not in the summary */
        CounterKind kind;
} CounterName;

/* The summary first, in its order (what ibqueryerrors and `rdma statistic`
 * users look at), then the other errors. hw_counters keep their file names
 * as labels: that is how the drivers' documentation names them. */
static const CounterName counter_names[] = {
        { "port_rcv_data", "Data received", COUNTER_DATA },
        { "port_xmit_data", "Data transmitted", COUNTER_DATA },
        { "port_rcv_packets", "Packets received", COUNTER_PACKETS },
        { "port_xmit_packets", "Packets transmitted", COUNTER_PACKETS },
        { "symbol_error", "Symbol errors", COUNTER_ERROR },
        { "link_downed", "Link downed", COUNTER_ERROR },
        { "link_error_recovery", "Link error recovery", COUNTER_ERROR },
        { "port_rcv_errors", "Receive errors", COUNTER_ERROR },
        { "port_rcv_remote_physical_errors", "Remote phys. errors", COUNTER_ERROR },
        { "port_xmit_discards", "Transmit discards", COUNTER_ERROR },
        { "excessive_buffer_overrun_errors", "Buffer overruns", COUNTER_ERROR },
        { "out_of_buffer", "out_of_buffer", COUNTER_ERROR },
        { "out_of_sequence", "out_of_sequence", COUNTER_ERROR },
        { "packet_seq_err", "packet_seq_err", COUNTER_ERROR },
        { "rnr_nak_retry_err", "rnr_nak_retry_err", COUNTER_ERROR },
        { "local_ack_timeout_err", "local_ack_timeout_err", COUNTER_ERROR },
        { "implied_nak_seq_err", "implied_nak_seq_err", COUNTER_ERROR },
        { "np_cnp_sent", "np_cnp_sent", COUNTER_OTHER },
        { "np_ecn_marked_roce_packets", "np_ecn_marked_roce_packets", COUNTER_OTHER },
        { "rp_cnp_handled", "rp_cnp_handled", COUNTER_OTHER },
        { "rp_cnp_ignored", "rp_cnp_ignored", COUNTER_OTHER },
        /* Not in the summary. */
        { "port_rcv_data_64", NULL, COUNTER_DATA },
        { "port_xmit_data_64", NULL, COUNTER_DATA },
        { "port_rcv_packets_64", NULL, COUNTER_PACKETS },
        { "port_xmit_packets_64", NULL, COUNTER_PACKETS },
        { "local_link_integrity_errors", NULL, COUNTER_ERROR },
        { "port_rcv_constraint_errors", NULL, COUNTER_ERROR },
        { "port_xmit_constraint_errors", NULL, COUNTER_ERROR },
        { "port_rcv_switch_relay_errors", NULL, COUNTER_ERROR },
        { "VL15_dropped", NULL, COUNTER_ERROR },
        { "req_cqe_error", NULL, COUNTER_ERROR },
        { "resp_cqe_error", NULL, COUNTER_ERROR },
        { "req_remote_access_errors", NULL, COUNTER_ERROR },
        { "resp_remote_access_errors", NULL, COUNTER_ERROR },
        { "req_remote_invalid_request", NULL, COUNTER_ERROR },
        { "resp_local_length_error", NULL, COUNTER_ERROR },
};

static const CounterName *find_counter_name(const char *name) {
        for (size_t i = 0; i < ELEMENTSOF(counter_names); i++)
                if (streq(counter_names[i].name, name))
                        return &counter_names[i];
        return NULL;
}

CounterKind counter_kind(const char *name) {
        const CounterName *c = find_counter_name(name);
        return c ? c->kind : COUNTER_OTHER;
}

const char *counter_summary_name(size_t i) {
        if (i >= ELEMENTSOF(counter_names) || !counter_names[i].label)
                return NULL;
        return counter_names[i].name;
}

const char *counter_summary_label(const char *name) {
        const CounterName *c = find_counter_name(name);
        return c ? c->label : NULL;
}

uint64_t counter_delta(uint64_t prev, uint64_t cur) {
        return cur >= prev ? cur - prev : cur;
}

double counter_rate(uint64_t delta, uint64_t interval_usec) {
        if (interval_usec == 0)
                return 0;
        return (double) delta * 1e6 / (double) interval_usec;
}
