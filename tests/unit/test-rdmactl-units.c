/* SPDX-License-Identifier: MIT */
/* rdmactl's pure parts: JSON escaping, timestamps, tables, argument
 * parsers (numbers, time spans, port states, DEV/PORT, --json=), the verb
 * table's checks, and which bus error becomes which exit status. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "rdmad-api.h"
#include "bus-errors.h"
#include "format.h"
#include "inventory.h"
#include "rdmactl.h"
#include "verbs.h"

/* Runs a writer into memory and returns what it wrote. */
#define CAPTURE(out, stmt)                                    \
        do {                                                  \
                size_t _size = 0;                             \
                FILE *f = open_memstream(&(out), &_size);     \
                assert_non_null(f);                           \
                stmt;                                         \
                assert_int_equal(fclose(f), 0);               \
        } while (0)

static void test_json_string_escapes_quotes_backslashes_and_controls(void **state) {
        char *out = NULL;

        CAPTURE(out, json_write_string(f, "a\"b\\c/d\n\t\r\b\f\x01\x1f\x7f é ●"));
        assert_string_equal(out, "\"a\\\"b\\\\c/d\\n\\t\\r\\b\\f\\u0001\\u001f\\u007f é ●\"");
        free(out);

        CAPTURE(out, json_write_string(f, NULL));
        assert_string_equal(out, "null");
        free(out);

        CAPTURE(out, json_write_string(f, ""));
        assert_string_equal(out, "\"\"");
        free(out);
}

static void test_json_fields_are_comma_separated(void **state) {
        char *out = NULL;

        CAPTURE(out, {
                bool first = true;
                fputc('{', f);
                json_field_string(f, &first, "device", "mlx5_0");
                json_field_uint(f, &first, "port", 1);
                json_field_bool(f, &first, "up", true);
                json_field_string(f, &first, "netdev", NULL);
                json_field_uint(f, &first, "usec", UINT64_MAX);
                fputc('}', f);
        });
        assert_string_equal(out, "{\"device\":\"mlx5_0\",\"port\":1,\"up\":true,\"netdev\":null,"
                                 "\"usec\":18446744073709551615}");
        free(out);
}

static void test_timestamp_is_iso8601_with_the_zone_offset(void **state) {
        char buf[TIMESTAMP_MAX];

        setenv("TZ", "UTC", 1);
        tzset();
        assert_string_equal(format_timestamp(1795665662123456ULL, buf), "2026-11-26T04:01:02.123456+00:00");
        assert_string_equal(format_timestamp(0, buf), "1970-01-01T00:00:00.000000+00:00");

        setenv("TZ", "Asia/Kolkata", 1); /* +05:30: the colon goes between hours and minutes */
        tzset();
        if (strcmp(format_timestamp(0, buf), "1970-01-01T00:00:00.000000+00:00") != 0) /* no tzdata: UTC */
                assert_string_equal(buf, "1970-01-01T05:30:00.000000+05:30");
        setenv("TZ", "UTC", 1);
        tzset();
}

static void test_table_pads_by_characters_not_bytes(void **state) {
        static const char *const headers[] = { "NAME", "STATE", "NOTE" };
        Table *t = table_new(3, headers);
        char *out = NULL;

        assert_non_null(t);
        assert_int_equal(table_add(t, "é●x", NULL), 0);
        assert_int_equal(table_add(t, "ACTIVE", ANSI_GREEN), 0);
        assert_int_equal(table_add(t, "", NULL), 0);
        assert_int_equal(table_add(t, "longer-name", NULL), 0);
        assert_int_equal(table_add(t, NULL, ANSI_RED), 0);
        assert_int_equal(table_add(t, "last", NULL), 0);
        assert_int_equal(table_rows(t), 2);

        CAPTURE(out, table_print(t, f, true, false));
        assert_string_equal(out, "NAME        STATE  NOTE\n"
                                 "é●x         ACTIVE -\n"
                                 "longer-name -      last\n");
        free(out);

        CAPTURE(out, table_print(t, f, false, false));
        assert_string_equal(out, "é●x         ACTIVE -\n"
                                 "longer-name -      last\n");
        free(out);

        /* Colour around the text; the padding stays outside it. */
        CAPTURE(out, table_print(t, f, false, true));
        assert_string_equal(out, "é●x         " ANSI_GREEN "ACTIVE" ANSI_NORMAL " -\n"
                                 "longer-name " ANSI_RED "-" ANSI_NORMAL "      last\n");
        free(out);
        table_free(t);

        assert_null(table_new(0, headers));
        assert_int_equal(utf8_width("●x"), 2);
}

static void test_state_colors(void **state) {
        assert_string_equal(state_color("ACTIVE"), ANSI_GREEN);
        assert_string_equal(state_color("DOWN"), ANSI_RED);
        assert_string_equal(state_color("ARMED"), ANSI_YELLOW);
        assert_null(state_color("FUTURE"));
        assert_null(state_color(NULL));
        assert_string_equal(phys_state_color("LinkUp"), ANSI_GREEN);
        assert_string_equal(phys_state_color("Polling"), ANSI_YELLOW);
        assert_string_equal(phys_state_color("Disabled"), ANSI_RED);
        assert_null(phys_state_color(""));
}

static void test_colors_only_on_a_real_terminal(void **state) {
        setenv("TERM", "xterm", 1);
        unsetenv("NO_COLOR");
        /* A pipe or a file is no terminal (meson test gives one, never a terminal). */
        if (!isatty(STDOUT_FILENO))
                assert_false(colors_wanted(STDOUT_FILENO));
        setenv("NO_COLOR", "1", 1);
        assert_false(colors_wanted(STDOUT_FILENO));
        unsetenv("NO_COLOR");
        setenv("TERM", "dumb", 1);
        assert_false(colors_wanted(STDOUT_FILENO));
        unsetenv("TERM");
        assert_false(colors_wanted(STDOUT_FILENO));
}

static void test_timespan_units_and_bare_seconds(void **state) {
        static const struct {
                const char *in;
                int ret;
                uint64_t usec;
        } cases[] = {
                { "0", 0, 0 },
                { "1", 0, 1000000 },       /* a bare number is seconds, as systemd's parse_sec */
                { "30", 0, 30000000 },
                { "2.5", 0, 2500000 },
                { ".25", 0, 250000 },
                { "1s", 0, 1000000 },
                { "1 s", 0, 1000000 },
                { "500ms", 0, 500000 },
                { "1.5ms", 0, 1500 },
                { "250us", 0, 250 },
                { "250µs", 0, 250 },
                { "2min", 0, 120000000 },
                { "2m", 0, 120000000 },
                { "1.5min", 0, 90000000 },
                { "1min 30s", 0, 90000000 },
                { "1min30s", 0, 90000000 },
                { "1h", 0, 3600000000ULL },
                { "2 hours", 0, 7200000000ULL },
                { "1d", 0, 86400000000ULL },
                { "1w", 0, 604800000000ULL },
                { "365d", 0, 365ULL * 86400000000ULL },
                { "0.0000019", 0, 1 },     /* below a microsecond: dropped */
                { "infinity", 0, UINT64_MAX },
                { "366d", -ERANGE, 0 },
                { "53w", -ERANGE, 0 },
                { "99999999999", -ERANGE, 0 },
                { "99999999999999999999999ms", -ERANGE, 0 },
                { "", -EINVAL, 0 },
                { ".", -EINVAL, 0 },
                { "5.", -EINVAL, 0 },
                { "-1", -EINVAL, 0 },
                { " 1", -EINVAL, 0 },
                { "1x", -EINVAL, 0 },
                { "s", -EINVAL, 0 },
                { "1mins", -EINVAL, 0 },
                { "1min 30", -EINVAL, 0 }, /* only a lone number goes without a unit */
                { "soon", -EINVAL, 0 },
                { "Infinity", -EINVAL, 0 },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                uint64_t usec = 7;
                int r = parse_timespan(cases[i].in, &usec);

                if (r != cases[i].ret || (r == 0 && usec != cases[i].usec))
                        fail_msg("parse_timespan(\"%s\") = %d, %llu; expected %d, %llu", cases[i].in, r,
                                 (unsigned long long) usec, cases[i].ret, (unsigned long long) cases[i].usec);
        }
        assert_int_equal(parse_timespan(NULL, &(uint64_t){ 0 }), -EINVAL);
}

static void test_timespan_formats_as_it_parses(void **state) {
        char buf[TIMESPAN_STRING_MAX];

        assert_string_equal(format_timespan(0, buf), "0");
        assert_string_equal(format_timespan(1000000, buf), "1s");
        assert_string_equal(format_timespan(500000, buf), "500ms");
        assert_string_equal(format_timespan(90000000, buf), "1min 30s");
        assert_string_equal(format_timespan(1500, buf), "1ms 500us");
        assert_string_equal(format_timespan(TIMESPAN_MAX_USEC, buf), "365d");
        assert_string_equal(format_timespan(UINT64_MAX, buf), "infinity");
        assert_string_equal(format_timespan(UINT64_MAX - 1, buf), "213503982d 8h 1min 49s 551ms 614us");
}

static void test_number_arg_is_parse_decimal_u32_with_a_maximum(void **state) {
        uint32_t v = 7;

        assert_int_equal(parse_number_arg("0", UINT32_MAX, &v), 0);
        assert_int_equal(v, 0);
        assert_int_equal(parse_number_arg("4294967295", UINT32_MAX, &v), 0);
        assert_true(v == UINT32_MAX);
        assert_int_equal(parse_number_arg("4294967296", UINT32_MAX, &v), -ERANGE);
        assert_int_equal(parse_number_arg("99999999999999999999", UINT32_MAX, &v), -ERANGE);
        assert_int_equal(parse_number_arg("9", 8, &v), -ERANGE);
        assert_int_equal(parse_number_arg("8", 8, &v), 0);
        assert_int_equal(v, 8);
        assert_int_equal(parse_number_arg("01", UINT32_MAX, &v), -EINVAL);
        assert_int_equal(parse_number_arg("+1", UINT32_MAX, &v), -EINVAL);
        assert_int_equal(parse_number_arg("-1", UINT32_MAX, &v), -EINVAL);
        assert_int_equal(parse_number_arg("1 ", UINT32_MAX, &v), -EINVAL);
        assert_int_equal(parse_number_arg("0x10", UINT32_MAX, &v), -EINVAL);
        assert_int_equal(parse_number_arg("", UINT32_MAX, &v), -EINVAL);
        assert_int_equal(parse_number_arg(NULL, UINT32_MAX, &v), -EINVAL);
        assert_int_equal(v, 8); /* untouched by failures */
}

static void test_port_states_by_name_and_by_number(void **state) {
        static const struct {
                const char *in;
                int ret;
                const char *name;
        } cases[] = {
                { "ACTIVE", 0, "ACTIVE" },
                { "active", 0, "ACTIVE" },
                { "Active_Defer", 0, "ACTIVE_DEFER" },
                { "nop", 0, "NOP" },
                { "4", 0, "ACTIVE" }, /* the kernel's numbers, as sysfs writes "4: ACTIVE" */
                { "1", 0, "DOWN" },
                { "0", 0, "NOP" },
                { "5", 0, "ACTIVE_DEFER" },
                { "4: ACTIVE", 0, "ACTIVE" },
                { "2:INIT", 0, "INIT" },
                { "6", -ERANGE, NULL },
                { "4294967296", -ERANGE, NULL },
                { "4: DOWN", -EINVAL, NULL }, /* number and name disagree */
                { "UPPISH", -EINVAL, NULL },
                { "4x", -EINVAL, NULL },
                { "", -EINVAL, NULL },
                { NULL, -EINVAL, NULL },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                const char *name = NULL;
                int r = parse_port_state_arg(cases[i].in, &name);

                if (r != cases[i].ret || (r == 0 && strcmp(name, cases[i].name) != 0))
                        fail_msg("parse_port_state_arg(\"%s\") = %d, %s", cases[i].in ?: "(null)", r,
                                 name ?: "(null)");
        }
}

static void test_device_slash_port(void **state) {
        char *device = NULL;
        uint32_t port = 0;

        assert_int_equal(parse_device_slash_port("mlx5_0/1", &device, &port), 0);
        assert_string_equal(device, "mlx5_0");
        assert_int_equal(port, 1);
        free(device);
        assert_int_equal(parse_device_slash_port("mlx4_0/12", &device, &port), 0);
        assert_string_equal(device, "mlx4_0");
        assert_int_equal(port, 12);
        free(device);

        assert_int_equal(parse_device_slash_port("mlx5_0", &device, &port), -ENOENT); /* no port: not this form */
        assert_int_equal(parse_device_slash_port("ib0", &device, &port), -ENOENT);
        assert_int_equal(parse_device_slash_port("mlx5_0/", &device, &port), -EINVAL);
        assert_int_equal(parse_device_slash_port("mlx5_0/0", &device, &port), -EINVAL);
        assert_int_equal(parse_device_slash_port("mlx5_0/01", &device, &port), -EINVAL);
        assert_int_equal(parse_device_slash_port("mlx5_0/x", &device, &port), -EINVAL);
        assert_int_equal(parse_device_slash_port("/1", &device, &port), -EINVAL);
        assert_int_equal(parse_device_slash_port("mlx5_0/99999999999", &device, &port), -ERANGE);
}

static void test_json_print_short_and_pretty(void **state) {
        static const char doc[] = "[{\"a\":1,\"s\":\"x,y:{[\\\"]}\",\"e\":[],\"o\":{},\"n\":null}]";
        char *out = NULL;

        CAPTURE(out, json_print(f, doc, strlen(doc), false));
        assert_string_equal(out, "[{\"a\":1,\"s\":\"x,y:{[\\\"]}\",\"e\":[],\"o\":{},\"n\":null}]\n");
        free(out);

        /* Commas, colons and brackets inside strings (and an escaped quote) stay as they are. */
        CAPTURE(out, json_print(f, doc, strlen(doc), true));
        assert_string_equal(out, "[\n"
                                 "  {\n"
                                 "    \"a\": 1,\n"
                                 "    \"s\": \"x,y:{[\\\"]}\",\n"
                                 "    \"e\": [],\n"
                                 "    \"o\": {},\n"
                                 "    \"n\": null\n"
                                 "  }\n"
                                 "]\n");
        free(out);

        /* Only `size` bytes count: the monitor's reused buffer has an old tail past them. */
        CAPTURE(out, json_print(f, "{}OLD TAIL", 2, true));
        assert_string_equal(out, "{}\n");
        free(out);
        CAPTURE(out, json_print(f, "[]", 2, true));
        assert_string_equal(out, "[]\n");
        free(out);
}

/* The words of --json= and of the completion's hidden --list=, to the letter. */
static void test_json_modes_and_name_kinds(void **state) {
        static const struct {
                const char *in;
                int json, kind; /* -1: not one */
        } cases[] = {
                { "off", JSON_OFF, -1 },
                { "short", JSON_SHORT, -1 },
                { "pretty", JSON_PRETTY, -1 },
                { "Pretty", -1, -1 },
                { "", -1, -1 },
                { "devices", -1, NAMES_DEVICES },
                { "sriov-devices", -1, NAMES_SRIOV_DEVICES },
                { "netdevs", -1, NAMES_NETDEVS },
                { "ports", -1, NAMES_PORTS },
                { "device", -1, -1 },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                JsonMode m = JSON_SHORT;
                NameKind k = NAMES_NETDEVS;
                int r;

                r = parse_json_mode(cases[i].in, &m);
                if (cases[i].json < 0 ? r != -EINVAL || m != JSON_SHORT : r != 0 || (int) m != cases[i].json)
                        fail_msg("parse_json_mode(\"%s\") = %d, %d", cases[i].in, r, m);
                r = parse_name_kind(cases[i].in, &k);
                if (cases[i].kind < 0 ? r != -EINVAL || k != NAMES_NETDEVS : r != 0 || (int) k != cases[i].kind)
                        fail_msg("parse_name_kind(\"%s\") = %d, %d", cases[i].in, r, k);
        }
        assert_int_equal(parse_json_mode(NULL, &(JsonMode){ JSON_OFF }), -EINVAL);
        assert_int_equal(parse_name_kind(NULL, &(NameKind){ NAMES_PORTS }), -EINVAL);
}

static int fake_run(sd_bus *bus, const Options *o, char **args, size_t n_args) {
        return 0;
}

static void test_verbs_are_chosen_and_checked_from_the_table(void **state) {
        static const Verb table[] = {
                { "list", 0, 0, VERB_DEFAULT | VERB_JSON, NULL, fake_run },
                { "status", 0, SIZE_MAX, VERB_JSON, "DEVICE...", fake_run },
                { "wait", 2, 3, VERB_TIMEOUT, "DEVICE PORT STATE", fake_run },
                { "monitor", 0, 0, VERB_JSON | VERB_FOLLOWS, NULL, fake_run },
        };
        char *none[] = { NULL };
        char *monitor[] = { "monitor", NULL };
        char *status[] = { "status", "a", "b", "c", NULL };
        char *wait_short[] = { "wait", "mlx5_0", NULL };
        char *wait_long[] = { "wait", "a", "b", "c", "d", NULL };
        char *list_extra[] = { "list", "x", NULL };
        char *unknown[] = { "frob", NULL };
        Options o = { .json = JSON_OFF };
        const Verb *verb = NULL;
        char **args = NULL;
        size_t n = 99;

        assert_int_equal(verb_select(table, 3, none, 0, &o, &verb, &args, &n), EXIT_OK);
        assert_string_equal(verb->name, "list");
        assert_int_equal(n, 0);
        assert_int_equal(verb_select(table, 3, status, 4, &o, &verb, &args, &n), EXIT_OK);
        assert_string_equal(verb->name, "status");
        assert_int_equal(n, 3);
        assert_string_equal(args[0], "a");

        assert_int_equal(verb_select(table, 3, wait_short, 2, &o, &verb, &args, &n), EXIT_USAGE);
        assert_int_equal(verb_select(table, 3, wait_long, 5, &o, &verb, &args, &n), EXIT_USAGE);
        assert_int_equal(verb_select(table, 3, list_extra, 2, &o, &verb, &args, &n), EXIT_USAGE);
        assert_int_equal(verb_select(table, 3, unknown, 1, &o, &verb, &args, &n), EXIT_USAGE);

        /* The options a verb does not take. */
        o.json = JSON_PRETTY;
        assert_int_equal(verb_select(table, 3, status, 4, &o, &verb, &args, &n), EXIT_OK);
        assert_int_equal(verb_select(table, 3, wait_long, 4, &o, &verb, &args, &n), EXIT_USAGE);
        o.json = JSON_OFF;
        o.timeout_set = true;
        assert_int_equal(verb_select(table, 3, wait_long, 4, &o, &verb, &args, &n), EXIT_OK);
        assert_string_equal(verb->name, "wait");
        assert_int_equal(verb_select(table, 3, none, 0, &o, &verb, &args, &n), EXIT_USAGE);
        o.timeout_set = false;
        /* --exit-on-disconnect: only a verb that follows rdmad over time. */
        o.exit_on_disconnect = true;
        assert_int_equal(verb_select(table, 4, monitor, 1, &o, &verb, &args, &n), EXIT_OK);
        assert_string_equal(verb->name, "monitor");
        assert_int_equal(verb_select(table, 4, none, 0, &o, &verb, &args, &n), EXIT_USAGE);
        assert_int_equal(verb_select(table, 4, status, 4, &o, &verb, &args, &n), EXIT_USAGE);
}

static int exit_for(int r, const char *name) {
        sd_bus_error e = SD_BUS_ERROR_MAKE_CONST(name, "message");
        return exit_status_for(classify_bus_error(r, name ? &e : NULL));
}

static void test_bus_errors_map_to_stable_exit_statuses(void **state) {
        assert_int_equal(exit_for(-ENOENT, NULL), 3); /* no socket */
        assert_int_equal(exit_for(-ECONNREFUSED, "System.Error.ECONNREFUSED"), 3);
        assert_int_equal(exit_for(-EIO, "org.freedesktop.DBus.Error.ServiceUnknown"), 3);
        assert_int_equal(exit_for(-EIO, "org.freedesktop.DBus.Error.NameHasNoOwner"), 3);
        assert_int_equal(exit_for(-EIO, "org.freedesktop.DBus.Error.Spawn.ChildExited"), 3);
        assert_int_equal(exit_for(-EIO, "org.freedesktop.DBus.Error.NoReply"), 3);
        /* sd-bus's own call timeout: rdmad is slow, not gone. */
        assert_int_equal(exit_for(-ETIMEDOUT, "org.freedesktop.DBus.Error.NoReply"), 5);
        assert_int_equal(exit_for(-ENODEV, RDMAD_ERROR_NO_SUCH_DEVICE), 4);
        assert_int_equal(exit_for(-ENXIO, "org.freedesktop.DBus.Error.UnknownObject"), 4);
        assert_int_equal(exit_for(-ETIME, RDMAD_ERROR_TIMEOUT), 5);
        assert_int_equal(exit_for(-EACCES, "org.freedesktop.DBus.Error.AccessDenied"), 6);
        assert_int_equal(exit_for(-EACCES, "org.freedesktop.DBus.Error.InteractiveAuthorizationRequired"), 6);
        assert_int_equal(exit_for(-EINVAL, RDMAD_ERROR_INVALID_ARGUMENT), 2);
        assert_int_equal(exit_for(-EBUSY, RDMAD_ERROR_BUSY), 1);
        assert_int_equal(exit_for(-EIO, RDMAD_ERROR_FAILED), 1);
        assert_int_equal(exit_for(-EOPNOTSUPP, RDMAD_ERROR_NOT_SUPPORTED), 1);
        assert_int_equal(exit_for(-ENOMEM, NULL), 1);
}

static void test_make_printable_neutralises_control_characters(void **state) {
        char s[] = "node\x1b[31m\tdesc\x7f é";

        make_printable(s);
        assert_string_equal(s, "node?[31m?desc? é");
        make_printable(NULL);
}

static void test_gid_to_ipv4_only_for_mapped_addresses(void **state) {
        char buf[GID_IPV4_MAX];

        assert_string_equal(gid_to_ipv4("0000:0000:0000:0000:0000:ffff:c0a8:010a", buf), "192.168.1.10");
        assert_string_equal(gid_to_ipv4("0000:0000:0000:0000:0000:FFFF:FFFF:FFFF", buf), "255.255.255.255");
        assert_string_equal(gid_to_ipv4("0000:0000:0000:0000:0000:ffff:0000:0000", buf), "0.0.0.0");
        /* Link-local, IB, IPv6: no IPv4 form. */
        assert_null(gid_to_ipv4("fe80:0000:0000:0000:9a03:9bff:feaa:bbc0", buf));
        assert_null(gid_to_ipv4("0000:0000:0000:0000:0000:0000:c0a8:010a", buf)); /* IPv4-compatible, not mapped */
        assert_null(gid_to_ipv4("0000:0000:0000:0000:0001:ffff:c0a8:010a", buf));
        assert_null(gid_to_ipv4("2001:0db8:0000:0000:0000:ffff:c0a8:010a", buf));
        /* Not the kernel's spelling. */
        assert_null(gid_to_ipv4("::ffff:192.168.1.10", buf));
        assert_null(gid_to_ipv4("0000:0000:0000:0000:0000:ffff:c0a8:010a:", buf));
        assert_null(gid_to_ipv4("0000:0000:0000:0000:0000:ffff:c0a8:010", buf));
        assert_null(gid_to_ipv4("0000:0000:0000:0000:0000:ffff:c0a8:010g", buf));
        assert_null(gid_to_ipv4("", buf));
        assert_null(gid_to_ipv4("not-a-gid", buf));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_json_string_escapes_quotes_backslashes_and_controls),
                cmocka_unit_test(test_json_fields_are_comma_separated),
                cmocka_unit_test(test_timestamp_is_iso8601_with_the_zone_offset),
                cmocka_unit_test(test_table_pads_by_characters_not_bytes),
                cmocka_unit_test(test_state_colors),
                cmocka_unit_test(test_colors_only_on_a_real_terminal),
                cmocka_unit_test(test_timespan_units_and_bare_seconds),
                cmocka_unit_test(test_timespan_formats_as_it_parses),
                cmocka_unit_test(test_number_arg_is_parse_decimal_u32_with_a_maximum),
                cmocka_unit_test(test_port_states_by_name_and_by_number),
                cmocka_unit_test(test_device_slash_port),
                cmocka_unit_test(test_verbs_are_chosen_and_checked_from_the_table),
                cmocka_unit_test(test_json_print_short_and_pretty),
                cmocka_unit_test(test_json_modes_and_name_kinds),
                cmocka_unit_test(test_bus_errors_map_to_stable_exit_statuses),
                cmocka_unit_test(test_make_printable_neutralises_control_characters),
                cmocka_unit_test(test_gid_to_ipv4_only_for_mapped_addresses),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
