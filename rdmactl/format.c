/* SPDX-License-Identifier: MIT */
#include "format.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "basic/utf8.h"
#include "basic/util.h"

bool colors_wanted(int fd) {
        const char *no_color = getenv("NO_COLOR"), *term = getenv("TERM");

        if (no_color && *no_color)
                return false;
        if (!term || !*term || streq(term, "dumb"))
                return false;
        return isatty(fd) == 1;
}

const char *state_color(const char *state_name) {
        if (!state_name)
                return NULL;
        if (streq(state_name, "ACTIVE"))
                return ANSI_GREEN;
        if (streq(state_name, "DOWN"))
                return ANSI_RED;
        if (streq(state_name, "INIT") || streq(state_name, "ARMED") || streq(state_name, "ACTIVE_DEFER"))
                return ANSI_YELLOW;
        return NULL;
}

const char *phys_state_color(const char *phys_state_name) {
        if (!phys_state_name)
                return NULL;
        if (streq(phys_state_name, "LinkUp"))
                return ANSI_GREEN;
        if (streq(phys_state_name, "Disabled") || streq(phys_state_name, "Sleep"))
                return ANSI_RED;
        if (streq(phys_state_name, "Polling") || streq(phys_state_name, "PortConfigurationTraining") ||
            streq(phys_state_name, "LinkErrorRecovery") || streq(phys_state_name, "Phy Test"))
                return ANSI_YELLOW;
        return NULL;
}

const char *health_color(const char *health) {
        if (!health)
                return NULL;
        if (streq(health, "ok"))
                return ANSI_GREEN;
        if (streq(health, "errors"))
                return ANSI_YELLOW;
        if (streq(health, "unresponsive"))
                return ANSI_RED;
        return NULL;
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

Table *table_new_columns(size_t n_columns, const TableColumn *columns) {
        Table *t;

        if (n_columns == 0 || n_columns > TABLE_COLUMNS_MAX) {
                errno = EINVAL;
                return NULL;
        }
        t = calloc(1, sizeof(Table));
        if (!t)
                return NULL;
        t->n_columns = n_columns;
        for (size_t i = 0; i < n_columns; i++) {
                t->columns[i] = columns[i];
                if (table_add(t, columns[i].header, NULL) < 0)
                        return table_free(t);
        }
        return t;
}

Table *table_new(size_t n_columns, const char *const *headers) {
        TableColumn columns[TABLE_COLUMNS_MAX] = {};

        for (size_t i = 0; i < n_columns && i < TABLE_COLUMNS_MAX; i++)
                columns[i].header = headers[i];
        return table_new_columns(n_columns, columns);
}

Table *table_free(Table *t) {
        if (!t)
                return NULL;
        for (size_t i = 0; i < t->n_cells; i++)
                free(t->cells[i].text);
        free(t->cells);
        free(t);
        return NULL;
}

static int add_cell(Table *t, const char *text, const char *color, bool is_number, uint64_t number) {
        char *copy = NULL;
        int r;

        if (text && !(copy = strdup(text)))
                return -ENOMEM;
        r = ARRAY_RESERVE(t->cells, t->allocated, t->n_cells + 1);
        if (r < 0) {
                free(copy);
                return r;
        }
        t->cells[t->n_cells++] = (TableCell){ .text = copy, .color = color, .is_number = is_number, .number = number };
        return 0;
}

int table_add(Table *t, const char *text, const char *color) {
        return add_cell(t, text, color, false, 0);
}

int table_add_uint(Table *t, uint64_t value, const char *color) {
        char digits[24];

        snprintf(digits, sizeof(digits), "%" PRIu64, value);
        return add_cell(t, digits, color, true, value);
}

int table_add_double(Table *t, double value, const char *color) {
        char digits[32];
        int r;

        snprintf(digits, sizeof(digits), "%g", value);
        r = add_cell(t, digits, color, false, 0);
        if (r >= 0) {
                t->cells[t->n_cells - 1].is_real = true;
                t->cells[t->n_cells - 1].real = value;
        }
        return r;
}

void table_hide_column(Table *t, size_t column) {
        if (column < t->n_columns)
                t->columns[column].flags |= TABLE_COLUMN_HIDDEN;
}

size_t table_rows(const Table *t) {
        return t->n_cells / t->n_columns - 1;
}

static bool column_in_text(const Table *t, size_t c) {
        return !(t->columns[c].flags & (TABLE_COLUMN_JSON_ONLY | TABLE_COLUMN_HIDDEN));
}

static const char *cell_text(const TableCell *cell) {
        return cell->text && *cell->text ? cell->text : "-";
}

void table_print(const Table *t, FILE *f, bool header, bool use_color) {
        size_t widths[TABLE_COLUMNS_MAX], last = 0;

        for (size_t c = 0; c < t->n_columns; c++) {
                widths[c] = 0;
                if (column_in_text(t, c))
                        last = c;
                for (size_t i = header ? c : c + t->n_columns; i < t->n_cells; i += t->n_columns) {
                        size_t w = utf8_width(cell_text(&t->cells[i]));
                        if (w > widths[c])
                                widths[c] = w;
                }
        }

        for (size_t i = header ? 0 : t->n_columns; i < t->n_cells; i++) {
                const TableCell *cell = &t->cells[i];
                const char *text = cell_text(cell);
                size_t c = i % t->n_columns;
                bool is_last = c == last, is_header = i < t->n_columns;
                const char *color = is_header ? ANSI_UNDERLINE : cell->color;

                if (!column_in_text(t, c))
                        continue;
                if (use_color && color)
                        fputs(color, f);
                fputs(text, f);
                /* The header is underlined across the gaps too, like networkctl's. */
                if (!is_last && is_header && use_color)
                        fprintf(f, "%*s", (int) (widths[c] - utf8_width(text) + 1), "");
                if (use_color && color)
                        fputs(ANSI_NORMAL, f);
                if (is_last)
                        fputc('\n', f);
                else if (!(is_header && use_color))
                        fprintf(f, "%*s", (int) (widths[c] - utf8_width(text) + 1), "");
        }
}

void table_json(const Table *t, JsonWriter *w) {
        json_writer_begin_array(w);
        for (size_t i = t->n_columns; i < t->n_cells; i++) {
                const TableCell *cell = &t->cells[i];
                size_t c = i % t->n_columns;

                if (c == 0)
                        json_writer_begin_object(w);
                if (t->columns[c].key) {
                        json_writer_key(w, t->columns[c].key);
                        if (cell->is_number)
                                json_writer_uint(w, cell->number);
                        else if (cell->is_real)
                                json_writer_double(w, cell->real);
                        else
                                json_writer_string(w, cell->text);
                }
                if (c == t->n_columns - 1)
                        json_writer_end_object(w);
        }
        json_writer_end_array(w);
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
