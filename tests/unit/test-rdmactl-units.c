/* SPDX-License-Identifier: MIT */
/* rdmactl's pure parts: JSON escaping, timestamps, tables, argument
 * parsers, and which bus error becomes which exit status. */
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

#include "bus-errors.h"
#include "format.h"
#include "inventory.h"
#include "rdmactl.h"

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

static void test_parse_seconds(void **state) {
        uint64_t usec = 0;

        assert_int_equal(parse_seconds("0", &usec), 0);
        assert_int_equal(usec, 0);
        assert_int_equal(parse_seconds("30", &usec), 0);
        assert_int_equal(usec, 30000000);
        assert_int_equal(parse_seconds("2.5", &usec), 0);
        assert_int_equal(usec, 2500000);
        assert_int_equal(parse_seconds(".25", &usec), 0);
        assert_int_equal(usec, 250000);
        assert_int_equal(parse_seconds("0.0000019", &usec), 0);
        assert_int_equal(usec, 1);
        assert_int_equal(parse_seconds("infinity", &usec), 0);
        assert_true(usec == UINT64_MAX);
        assert_int_equal(parse_seconds("", &usec), -EINVAL);
        assert_int_equal(parse_seconds(".", &usec), -EINVAL);
        assert_int_equal(parse_seconds("5.", &usec), -EINVAL);
        assert_int_equal(parse_seconds("-1", &usec), -EINVAL);
        assert_int_equal(parse_seconds("1s", &usec), -EINVAL);
        assert_int_equal(parse_seconds(" 1", &usec), -EINVAL);
        assert_int_equal(parse_seconds("99999999999", &usec), -ERANGE);
}

static void test_parse_uint32(void **state) {
        uint32_t v = 7;

        assert_int_equal(parse_uint32("0", &v), 0);
        assert_int_equal(v, 0);
        assert_int_equal(parse_uint32("4294967295", &v), 0);
        assert_true(v == UINT32_MAX);
        assert_int_equal(parse_uint32("4294967296", &v), -ERANGE);
        assert_int_equal(parse_uint32("01", &v), -EINVAL);
        assert_int_equal(parse_uint32("+1", &v), -EINVAL);
        assert_int_equal(parse_uint32("1 ", &v), -EINVAL);
        assert_int_equal(parse_uint32("", &v), -EINVAL);
        assert_int_equal(parse_uint32(NULL, &v), -EINVAL);
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
        assert_int_equal(exit_for(-ENODEV, "org.rdmad1.Error.NoSuchDevice"), 4);
        assert_int_equal(exit_for(-ENXIO, "org.freedesktop.DBus.Error.UnknownObject"), 4);
        assert_int_equal(exit_for(-ETIME, "org.rdmad1.Error.Timeout"), 5);
        assert_int_equal(exit_for(-EACCES, "org.freedesktop.DBus.Error.AccessDenied"), 6);
        assert_int_equal(exit_for(-EACCES, "org.freedesktop.DBus.Error.InteractiveAuthorizationRequired"), 6);
        assert_int_equal(exit_for(-EINVAL, "org.rdmad1.Error.InvalidArgument"), 2);
        assert_int_equal(exit_for(-EBUSY, "org.rdmad1.Error.Busy"), 1);
        assert_int_equal(exit_for(-EIO, "org.rdmad1.Error.Failed"), 1);
        assert_int_equal(exit_for(-EOPNOTSUPP, "org.rdmad1.Error.NotSupported"), 1);
        assert_int_equal(exit_for(-ENOMEM, NULL), 1);
}

static void test_make_printable_neutralises_control_characters(void **state) {
        char s[] = "node\x1b[31m\tdesc\x7f é";

        make_printable(s);
        assert_string_equal(s, "node?[31m?desc? é");
        make_printable(NULL);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_json_string_escapes_quotes_backslashes_and_controls),
                cmocka_unit_test(test_json_fields_are_comma_separated),
                cmocka_unit_test(test_timestamp_is_iso8601_with_the_zone_offset),
                cmocka_unit_test(test_table_pads_by_characters_not_bytes),
                cmocka_unit_test(test_state_colors),
                cmocka_unit_test(test_colors_only_on_a_real_terminal),
                cmocka_unit_test(test_parse_seconds),
                cmocka_unit_test(test_parse_uint32),
                cmocka_unit_test(test_bus_errors_map_to_stable_exit_statuses),
                cmocka_unit_test(test_make_printable_neutralises_control_characters),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
