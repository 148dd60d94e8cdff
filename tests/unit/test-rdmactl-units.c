/* SPDX-License-Identifier: MIT */
/* rdmactl's pure parts: the JSON writer, the field tree, timestamps, tables, argument
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
#include <math.h>

#include "api/rdmad-api.h"
#include "basic/utf8.h"
#include "basic/util.h"
#include "bus-errors.h"
#include "client/inventory.h"
#include "field-tree.h"
#include "filter.h"
#include "format.h"
#include "json-writer.h"
#include "rdmactl.h"
#include "verbs.h"
#include "client/inventory-decode.h"

/* Runs a writer into memory and returns what it wrote. */
#define CAPTURE(out, stmt)                                                                                             \
        do {                                                                                                           \
                size_t _size = 0;                                                                                      \
                FILE *f = open_memstream(&(out), &_size);                                                              \
                assert_non_null(f);                                                                                    \
                stmt;                                                                                                  \
                assert_int_equal(fclose(f), 0);                                                                        \
        } while (0)

/* One JSON string value, compact, with the newline that ends a document. */
static char *json_string_of(const char *s) {
        char *out = NULL;
        JsonWriter w;

        CAPTURE(out, {
                json_writer_init(&w, f, false);
                json_writer_string(&w, s);
                assert_int_equal(json_writer_finish(&w), 0);
        });
        return out;
}

/* A number: the fewest digits that read back the same, no exponent for a whole rate; null for what JSON lacks. */
static void test_json_writer_doubles(void **state) {
        static const struct {
                double v;
                const char *json;
        } cases[] = {
                { 2.5, "2.5" },           { 100, "100" },    { 53.125, "53.125" }, { 0, "0" },           { 0.1, "0.1" },
                { -14.0625, "-14.0625" }, { 1e20, "1e+20" }, { NAN, "null" },      { INFINITY, "null" },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                char *out = NULL, expected[64];
                JsonWriter w;

                CAPTURE(out, {
                        json_writer_init(&w, f, false);
                        json_writer_double(&w, cases[i].v);
                        assert_int_equal(json_writer_finish(&w), 0);
                });
                snprintf(expected, sizeof(expected), "%s\n", cases[i].json);
                assert_string_equal(out, expected);
                free(out);
        }
}

/* Words meant as a state that are none: refused by `wait` unless they name something. */
static void test_state_lookalikes(void **state) {
        assert_int_equal(port_state_lookalike("UP"), STATE_LOOKALIKE_CAPITALS);
        assert_int_equal(port_state_lookalike("ACTIV"), STATE_LOOKALIKE_PREFIX);
        assert_int_equal(port_state_lookalike("activ"), STATE_LOOKALIKE_PREFIX);
        assert_int_equal(port_state_lookalike("Act"), STATE_LOOKALIKE_PREFIX);
        assert_int_equal(port_state_lookalike("LinkUp"), STATE_LOOKALIKE_PHYS);
        assert_int_equal(port_state_lookalike("linkup"), STATE_LOOKALIKE_PHYS);
        assert_int_equal(port_state_lookalike("Phy Test"), STATE_LOOKALIKE_PHYS);
        assert_int_equal(port_state_lookalike("ACTIVEE"), STATE_LOOKALIKE_CAPITALS);
        assert_int_equal(port_state_lookalike("ENS1"), STATE_LOOKALIKE_CAPITALS);
        /* States, numbers, names: none of it. */
        assert_int_equal(port_state_lookalike("ACTIVE"), STATE_LOOKALIKE_NONE);
        assert_int_equal(port_state_lookalike("active"), STATE_LOOKALIKE_NONE);
        assert_int_equal(port_state_lookalike("4: ACTIVE"), STATE_LOOKALIKE_NONE);
        assert_int_equal(port_state_lookalike("4"), STATE_LOOKALIKE_NONE);
        assert_int_equal(port_state_lookalike("mlx5_0"), STATE_LOOKALIKE_NONE);
        assert_int_equal(port_state_lookalike("mlx5_0/1"), STATE_LOOKALIKE_NONE);
        assert_int_equal(port_state_lookalike("ib0"), STATE_LOOKALIKE_NONE);
        assert_int_equal(port_state_lookalike("ac"), STATE_LOOKALIKE_NONE); /* too short to be meant */
        assert_int_equal(port_state_lookalike("_0-1"), STATE_LOOKALIKE_NONE);
        assert_int_equal(port_state_lookalike(""), STATE_LOOKALIKE_NONE);
}

/* Patterns as list and monitor read them. */
static void test_port_filter_patterns(void **state) {
        char *args[] = { "mlx5_*", "mlx4_0", "2", "ib0", "hfi1_0/[1-2]" };
        char *bad_args[] = { "1", "mlx5_0" };
        char *bad_after_slash[] = { "mlx5_0/1", "2" };
        PortFilter f = {}, none = {};
        const char *bad = NULL;

        assert_int_equal(port_filter_parse(&f, args, 5, &bad), 0);
        assert_int_equal(f.n_patterns, 4);
        assert_string_equal(f.patterns[1], "mlx4_0/2"); /* DEV PORT */
        assert_true(port_filter_names_port(&f, "mlx5_3", 1, NULL));
        assert_true(port_filter_names_port(&f, "mlx4_0", 2, "ens1d1"));
        assert_false(port_filter_names_port(&f, "mlx4_0", 1, "eth9"));
        assert_true(port_filter_names_port(&f, "mlx4_0", 1, "ib0")); /* by its netdev */
        assert_true(port_filter_names_port(&f, "hfi1_0", 2, NULL));
        assert_false(port_filter_names_port(&f, "hfi1_0", 3, NULL));
        assert_false(port_filter_names_port(&f, "rxe0", 1, NULL));
        /* Device-wide events: the device, or the device of a DEV/PORT. */
        assert_true(port_filter_names_device(&f, "mlx4_0"));
        assert_true(port_filter_names_device(&f, "hfi1_0"));
        assert_true(port_filter_names_device(&f, "mlx5_9"));
        assert_false(port_filter_names_device(&f, "rxe0"));
        port_filter_done(&f);

        /* No patterns: everything. */
        assert_true(port_filter_names_port(&none, "rxe0", 1, NULL));
        assert_true(port_filter_names_device(&none, "rxe0"));

        assert_int_equal(port_filter_parse(&f, bad_args, 2, &bad), -EINVAL);
        assert_string_equal(bad, "1");
        port_filter_done(&f);
        assert_int_equal(port_filter_parse(&f, bad_after_slash, 2, &bad), -EINVAL);
        assert_string_equal(bad, "2");
        port_filter_done(&f);
}

/* rdmad's object paths in a message become the names people use. */
static void test_messages_name_objects_not_paths(void **state) {
        static const struct {
                const char *in, *out;
        } cases[] = {
                { "Unknown object '/org/rdmad1/device/mlx5_5f0/port/3'.", "Unknown object 'mlx5_0/3'." },
                { "/org/rdmad1/device/mlx5_5f0 is gone", "mlx5_0 is gone" },
                { "at /org/rdmad1/device/mlx5_5f0/netdev/ens1f0np0.", "at mlx5_0 netdev ens1f0np0." },
                { "no /org/rdmad1/device/mlx5_5f0/sriov/ here", "no mlx5_0 SR-IOV/ here" },
                /* Not one of ours, or not canonical: left as it is. */
                { "/org/rdmad1/device/mlx5_5F0 x", "/org/rdmad1/device/mlx5_5F0 x" },
                { "/org/other/path", "/org/other/path" },
                { "", "" },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                char *out = message_unescape_paths(cases[i].in);

                assert_non_null(out);
                assert_string_equal(out, cases[i].out);
                free(out);
        }
        assert_null(message_unescape_paths(NULL));
}

static void test_json_writer_escapes_quotes_backslashes_and_controls(void **state) {
        char *out;

        out = json_string_of("a\"b\\c/d");
        assert_string_equal(out, "\"a\\\"b\\\\c/d\"\n");
        free(out);

        /* The short escapes where JSON has them, \u00XX for the other control characters and DEL. */
        out = json_string_of("\n\t\r\b\f\x01\x1f\x7f\x1b[0m");
        assert_string_equal(out, "\"\\n\\t\\r\\b\\f\\u0001\\u001f\\u007f\\u001b[0m\"\n");
        free(out);

        /* UTF-8 goes through byte for byte: two, three and four byte sequences. */
        out = json_string_of("é ● 𝄞 ünïcödé");
        assert_string_equal(out, "\"é ● 𝄞 ünïcödé\"\n");
        free(out);

        out = json_string_of(NULL);
        assert_string_equal(out, "null\n");
        free(out);

        out = json_string_of("");
        assert_string_equal(out, "\"\"\n");
        free(out);
}

/* The document test_json_writer_compact_and_pretty writes both ways. */
static void write_sample(JsonWriter *w) {
        json_writer_begin_array(w);
        json_writer_begin_object(w);
        json_writer_field_uint(w, "a", 1);
        json_writer_field_string(w, "s", "x,y:{[\"]}");
        json_writer_key(w, "e");
        json_writer_begin_array(w);
        json_writer_end_array(w);
        json_writer_key(w, "o");
        json_writer_begin_object(w);
        json_writer_end_object(w);
        json_writer_field_null(w, "n");
        json_writer_field_bool(w, "t", true);
        json_writer_field_bool(w, "f", false);
        json_writer_field_int(w, "i", -42);
        json_writer_field_uint(w, "max", UINT64_MAX);
        json_writer_key(w, "deep");
        json_writer_begin_array(w);
        json_writer_uint(w, 1);
        json_writer_begin_array(w);
        json_writer_begin_object(w);
        json_writer_field_string(w, "k", "v");
        json_writer_end_object(w);
        json_writer_end_array(w);
        json_writer_end_array(w);
        json_writer_end_object(w);
        json_writer_uint(w, 2);
        json_writer_end_array(w);
}

static void test_json_writer_compact_and_pretty(void **state) {
        char *out = NULL;
        JsonWriter w;

        CAPTURE(out, {
                json_writer_init(&w, f, false);
                write_sample(&w);
                assert_int_equal(json_writer_finish(&w), 0);
        });
        assert_string_equal(out,
                            "[{\"a\":1,\"s\":\"x,y:{[\\\"]}\",\"e\":[],\"o\":{},\"n\":null,\"t\":true,"
                            "\"f\":false,\"i\":-42,\"max\":18446744073709551615,\"deep\":[1,[{\"k\":\"v\"}]]},2]\n");
        free(out);

        /* Two spaces a level, "key": value, an empty [] or {} on its line. */
        CAPTURE(out, {
                json_writer_init(&w, f, true);
                write_sample(&w);
                assert_int_equal(json_writer_finish(&w), 0);
        });
        assert_string_equal(out, "[\n"
                                 "  {\n"
                                 "    \"a\": 1,\n"
                                 "    \"s\": \"x,y:{[\\\"]}\",\n"
                                 "    \"e\": [],\n"
                                 "    \"o\": {},\n"
                                 "    \"n\": null,\n"
                                 "    \"t\": true,\n"
                                 "    \"f\": false,\n"
                                 "    \"i\": -42,\n"
                                 "    \"max\": 18446744073709551615,\n"
                                 "    \"deep\": [\n"
                                 "      1,\n"
                                 "      [\n"
                                 "        {\n"
                                 "          \"k\": \"v\"\n"
                                 "        }\n"
                                 "      ]\n"
                                 "    ]\n"
                                 "  },\n"
                                 "  2\n"
                                 "]\n");
        free(out);
}

/* An empty object or array, top level, both modes; and JSON lines: a document each. */
static void test_json_writer_empty_containers_and_lines(void **state) {
        for (int pretty = 0; pretty <= 1; pretty++) {
                char *out = NULL;
                JsonWriter w;

                CAPTURE(out, {
                        json_writer_init(&w, f, pretty);
                        json_writer_begin_object(&w);
                        json_writer_end_object(&w);
                        json_writer_begin_array(&w);
                        json_writer_end_array(&w);
                        json_writer_begin_object(&w);
                        json_writer_field_string(&w, "event", "x");
                        json_writer_end_object(&w);
                        assert_int_equal(json_writer_finish(&w), 0);
                });
                assert_string_equal(out, pretty ? "{}\n[]\n{\n  \"event\": \"x\"\n}\n" : "{}\n[]\n{\"event\":\"x\"}\n");
                free(out);
        }
}

/* Misuse is caught, not written: a value without a key, a key in an array,
 * a wrong or missing close, nesting past the limit. */
static void test_json_writer_refuses_misuse(void **state) {
        char *out = NULL;
        JsonWriter w;

        CAPTURE(out, {
                json_writer_init(&w, f, false);
                json_writer_begin_object(&w);
                json_writer_uint(&w, 1);
                assert_int_equal(json_writer_finish(&w), -EINVAL);
        });
        assert_string_equal(out, "{");
        free(out);

        CAPTURE(out, {
                json_writer_init(&w, f, false);
                json_writer_begin_array(&w);
                json_writer_key(&w, "k");
                assert_int_equal(json_writer_finish(&w), -EINVAL);
        });
        free(out);

        CAPTURE(out, {
                json_writer_init(&w, f, false);
                json_writer_begin_array(&w);
                json_writer_end_object(&w);
                assert_int_equal(json_writer_finish(&w), -EINVAL);
        });
        free(out);

        CAPTURE(out, {
                json_writer_init(&w, f, false);
                json_writer_begin_object(&w);
                json_writer_key(&w, "k");
                json_writer_end_object(&w);
                assert_int_equal(json_writer_finish(&w), -EINVAL);
        });
        free(out);

        CAPTURE(out, {
                json_writer_init(&w, f, false);
                json_writer_begin_array(&w);
                assert_int_equal(json_writer_finish(&w), -EINVAL); /* not closed */
        });
        free(out);

        CAPTURE(out, {
                json_writer_init(&w, f, false);
                for (int i = 0; i <= JSON_WRITER_DEPTH_MAX; i++)
                        json_writer_begin_array(&w);
                assert_int_equal(json_writer_finish(&w), -E2BIG);
        });
        free(out);
}

/* One tree, two renderings: labels, affixes, placeholders, continuation
 * lines, joined arrays and fields that only one of them shows. */
static void test_field_tree_renders_text_and_json(void **state) {
        _cleanup_(field_tree_freep) Field *root = field_tree_new();
        Field *dev, *port, *list;
        char *out = NULL;
        JsonWriter w;

        assert_non_null(root);
        dev = field_label(field_object(root, NULL), "dev0");
        field_flags(field_string(dev, "name", "dev0"), FIELD_JSON_ONLY);
        field_label(field_string(dev, "driver", "drv"), "Driver");
        field_label(field_string(dev, "empty", ""), "Empty");
        field_label(field_null(dev, "none"), "None");
        list = field_flags(field_label(field_array(dev, "vfs"), "VFs"), FIELD_TEXT_JOIN);
        field_string(list, NULL, "a");
        field_string(list, NULL, "b");
        port = field_label(field_object(dev, "port"), "Port 1");
        field_empty(field_string(port, "state", ""), "-");
        field_affix(field_uint(port, "mtu", 1500), ", MTU ", NULL);
        field_flags(field_affix(field_uint(port, "cap", 0x2a), "caps 0x", NULL), FIELD_TEXT_LINE | FIELD_TEXT_HEX32);
        field_flags(field_string(port, "note", "text"), FIELD_TEXT_ONLY | FIELD_TEXT_LINE);
        assert_int_equal(field_tree_check(root), 0);

        CAPTURE(out, field_tree_text(root, f, 7, "*", false));
        assert_string_equal(out, "* dev0\n"
                                 " Driver: drv\n"
                                 "    VFs: a, b\n"
                                 " Port 1: -, MTU 1500\n"
                                 "         caps 0x0000002a\n"
                                 "         text\n");
        free(out);

        CAPTURE(out, {
                json_writer_init(&w, f, false);
                field_tree_json(root, &w);
                assert_int_equal(json_writer_finish(&w), 0);
        });
        assert_string_equal(out, "[{\"name\":\"dev0\",\"driver\":\"drv\",\"empty\":\"\",\"none\":null,"
                                 "\"vfs\":[\"a\",\"b\"],\"port\":{\"state\":\"\",\"mtu\":1500,\"cap\":42}}]\n");
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

/* A table is a field tree: its JSON is the tree's, a member per column
 * with a key, JSON-only columns in it, keyless ones and hidden ones only
 * out of the text. */
static void test_table_json_is_the_field_trees(void **state) {
        static const TableColumn columns[] = {
                { "NAME", "name" }, { "N", "n" }, { NULL, "gbps", FIELD_JSON_ONLY }, { "NOTE", NULL }, { "OPT", "opt" },
        };
        _cleanup_(table_freep) Table *t = table_new_columns(ELEMENTSOF(columns), columns);
        char *out = NULL;
        JsonWriter w;

        assert_non_null(t);
        assert_int_equal(table_add(t, "a", NULL), 0);
        assert_int_equal(table_add_uint(t, 7, NULL), 0);
        assert_int_equal(table_add_double(t, 2.5, NULL), 0);
        assert_int_equal(table_add(t, "text only", NULL), 0);
        assert_int_equal(table_add(t, NULL, NULL), 0);
        assert_int_equal(table_rows(t), 1);

        CAPTURE(out, {
                json_writer_init(&w, f, false);
                table_json(t, &w);
                assert_int_equal(json_writer_finish(&w), 0);
        });
        assert_string_equal(out, "[{\"name\":\"a\",\"n\":7,\"gbps\":2.5,\"opt\":null}]\n");
        free(out);

        CAPTURE(out, table_print(t, f, true, false));
        assert_string_equal(out, "NAME N NOTE      OPT\n"
                                 "a    7 text only -\n");
        free(out);

        table_hide_column(t, 4);
        CAPTURE(out, table_print(t, f, true, false));
        assert_string_equal(out, "NAME N NOTE\n"
                                 "a    7 text only\n");
        free(out);
        CAPTURE(out, {
                json_writer_init(&w, f, false);
                table_json(t, &w); /* hidden from the text only */
                assert_int_equal(json_writer_finish(&w), 0);
        });
        assert_string_equal(out, "[{\"name\":\"a\",\"n\":7,\"gbps\":2.5,\"opt\":null}]\n");
        free(out);

        /* No rows: an empty array, and the header alone. */
        table_free(t);
        t = table_new_columns(ELEMENTSOF(columns), columns);
        assert_non_null(t);
        CAPTURE(out, {
                json_writer_init(&w, f, false);
                table_json(t, &w);
        });
        assert_string_equal(out, "[]\n");
        free(out);
        CAPTURE(out, table_print(t, f, true, false));
        assert_string_equal(out, "NAME N NOTE OPT\n");
        free(out);
}

/* One rule for every client (rdmactl's list and status, rdmad-exporter's
 * labels): the port's own Transport, else what rdmad would derive, never
 * the device's "mixed". */
static void test_port_transport_is_one_rule(void **state) {
        RdmaDevice vpi = { .node_type = (char *) "CA", .transport = (char *) "mixed" };
        RdmaDevice rnic = { .node_type = (char *) "RNIC", .transport = (char *) "iWARP" };
        RdmaPort p = { .transport = (char *) "RoCE", .link_layer = (char *) "InfiniBand" };

        assert_string_equal(port_transport(&p, &vpi), "RoCE"); /* rdmad's word, as it is */
        p.transport = (char *) "";                             /* an rdmad older than Port.Transport */
        assert_string_equal(port_transport(&p, &vpi), "InfiniBand");
        p.link_layer = (char *) "Ethernet";
        assert_string_equal(port_transport(&p, &vpi), "RoCE");
        assert_string_equal(port_transport(&p, NULL), "RoCE");
        assert_string_equal(port_transport(&p, &rnic), "iWARP");
        p.link_layer = (char *) "";
        assert_string_equal(port_transport(&p, &vpi), "unknown");
        p.transport = NULL;
        p.link_layer = NULL;
        assert_string_equal(port_transport(&p, NULL), "unknown");
}

/* `monitor` makes printable what a signal brought, not the whole inventory again. */
static void test_make_printable_at_touches_only_that_path(void **state) {
        char path_a[] = "/org/rdmad1/device/a", path_b[] = "/org/rdmad1/device/b";
        char name_a[] = "a\x1b[31m", name_b[] = "b\x1b[31m";
        RdmaDevice a = { .path = path_a, .name = name_a }, b = { .path = path_b, .name = name_b };
        RdmaDevice *devices[] = { &a, &b };
        Inventory inv = { .devices = devices, .n_devices = 2 };

        inventory_make_printable_at(&inv, path_b);
        assert_string_equal(b.name, "b?[31m");
        assert_string_equal(a.name, "a\x1b[31m");
        inventory_make_printable_at(&inv, "/org/rdmad1/device/c"); /* nothing there: nothing done */
        inventory_make_printable_at(&inv, path_a);
        assert_string_equal(a.name, "a?[31m");
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
        assert_string_equal(health_color("unresponsive"), ANSI_RED);
        assert_string_equal(health_color("errors"), ANSI_YELLOW);
        assert_null(health_color(NULL));
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
                { "1", 0, 1000000 }, /* a bare number is seconds, as systemd's parse_sec */
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
                { "0.0000019", 0, 1 }, /* below a microsecond: dropped */
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
                        fail_msg("parse_port_state_arg(\"%s\") = %d, %s", cases[i].in ?: "(null)", r, name ?: "(null)");
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
        /* rdmactl route's: ResolveAddress's errors. */
        assert_int_equal(exit_for(-EINVAL, "org.freedesktop.DBus.Error.InvalidArgs"), 2);
        assert_int_equal(exit_for(-ENETUNREACH, RDMAD_ERROR_NO_ROUTE), 7);
        assert_int_equal(exit_for(-ENXIO, RDMAD_ERROR_NOT_RDMA), 8);
        assert_int_equal(exit_for(-EADDRNOTAVAIL, RDMAD_ERROR_NO_GID), 9);
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

static void test_counter_units_and_rates(void **state) {
        char b[BYTES_STRING_MAX], r[RATE_STRING_MAX];

        assert_string_equal(format_bytes(0, b), "0 B");
        assert_string_equal(format_bytes(1023, b), "1023 B");
        assert_string_equal(format_bytes(1024, b), "1.0 KiB");
        assert_string_equal(format_bytes(121649382712ULL, b), "113.3 GiB");
        assert_string_equal(format_bytes(UINT64_MAX, b), "16.0 EiB");
        assert_string_equal(format_rate(1536, true, r), "1.5 KiB/s");
        assert_string_equal(format_rate(12, false, r), "12/s");
        assert_string_equal(format_rate(0.5, false, r), "0.5/s");

        assert_int_equal(counter_delta(10, 15), 5);
        assert_int_equal(counter_delta(15, 4), 4); /* reset: counts from 0 */
        assert_true(counter_rate(1000, 500000) == 2000.0);
        assert_true(counter_rate(7, 0) == 0.0);

        assert_int_equal(counter_kind("port_rcv_data"), COUNTER_DATA);
        assert_int_equal(counter_kind("port_xmit_data_64"), COUNTER_DATA);
        assert_int_equal(counter_kind("link_downed"), COUNTER_ERROR);
        assert_int_equal(counter_kind("out_of_buffer"), COUNTER_ERROR);
        assert_int_equal(counter_kind("port_xmit_wait"), COUNTER_OTHER); /* congestion, not an error */
        assert_int_equal(counter_kind("np_cnp_sent"), COUNTER_OTHER);
        assert_string_equal(counter_summary_name(0), "port_rcv_data");
        assert_string_equal(counter_summary_label("port_rcv_remote_physical_errors"), "Remote phys. errors");
        assert_null(counter_summary_label("multicast_rcv_packets"));
        for (size_t i = 0; counter_summary_name(i); i++) /* every summary label fits the text's column */
                assert_true(strlen(counter_summary_label(counter_summary_name(i))) <= 26);
}

/* status's "LAST CHANGE" and link lines. */
static void test_ago_says_how_long_ago(void **state) {
        const uint64_t now = UINT64_C(1700000000000000), s = 1000000;
        char buf[AGO_MAX];

        assert_string_equal(format_ago(now, 0, buf), "never");
        assert_string_equal(format_ago(now, now + 1, buf), "just now");
        assert_string_equal(format_ago(now, now, buf), "0 s ago");
        assert_string_equal(format_ago(now, now - 59 * s, buf), "59 s ago");
        assert_string_equal(format_ago(now, now - 60 * s, buf), "1 min ago");
        assert_string_equal(format_ago(now, now - 119 * 60 * s, buf), "119 min ago");
        assert_string_equal(format_ago(now, now - 2 * 3600 * s, buf), "2 h ago");
        assert_string_equal(format_ago(now, now - 47 * 3600 * s, buf), "47 h ago");
        assert_string_equal(format_ago(now, now - 3 * 86400 * s, buf), "3 days ago");
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_json_writer_escapes_quotes_backslashes_and_controls),
                cmocka_unit_test(test_json_writer_doubles),
                cmocka_unit_test(test_state_lookalikes),
                cmocka_unit_test(test_port_filter_patterns),
                cmocka_unit_test(test_messages_name_objects_not_paths),
                cmocka_unit_test(test_json_writer_compact_and_pretty),
                cmocka_unit_test(test_json_writer_empty_containers_and_lines),
                cmocka_unit_test(test_json_writer_refuses_misuse),
                cmocka_unit_test(test_field_tree_renders_text_and_json),
                cmocka_unit_test(test_timestamp_is_iso8601_with_the_zone_offset),
                cmocka_unit_test(test_table_pads_by_characters_not_bytes),
                cmocka_unit_test(test_table_json_is_the_field_trees),
                cmocka_unit_test(test_port_transport_is_one_rule),
                cmocka_unit_test(test_make_printable_at_touches_only_that_path),
                cmocka_unit_test(test_state_colors),
                cmocka_unit_test(test_colors_only_on_a_real_terminal),
                cmocka_unit_test(test_timespan_units_and_bare_seconds),
                cmocka_unit_test(test_timespan_formats_as_it_parses),
                cmocka_unit_test(test_counter_units_and_rates),
                cmocka_unit_test(test_number_arg_is_parse_decimal_u32_with_a_maximum),
                cmocka_unit_test(test_port_states_by_name_and_by_number),
                cmocka_unit_test(test_device_slash_port),
                cmocka_unit_test(test_verbs_are_chosen_and_checked_from_the_table),
                cmocka_unit_test(test_json_modes_and_name_kinds),
                cmocka_unit_test(test_bus_errors_map_to_stable_exit_statuses),
                cmocka_unit_test(test_make_printable_neutralises_control_characters),
                cmocka_unit_test(test_gid_to_ipv4_only_for_mapped_addresses),
                cmocka_unit_test(test_ago_says_how_long_ago),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
