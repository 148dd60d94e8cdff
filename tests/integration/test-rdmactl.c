/* SPDX-License-Identifier: MIT */
/* rdmactl against the real rdmad on a private bus: the exact list and
 * status output (golden files), the JSON, monitor lines for a hot-add, a
 * link flap, a rename and a removal, wait at once / after a change / on
 * timeout, set-vfs with the real polkitd, exit statuses and messages when
 * rdmad is not there. Set RDMACTL_UPDATE_GOLDEN=1 to rewrite the golden files. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <setjmp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness.h"
#include "rdmactl-run.h"

#define HFI1_SYS    "/sys/devices/pci0000:80/0000:80:03.0/0000:81:00.0/infiniband/hfi1_0"
#define MLX5_PF_SYS "/sys/devices/pci0000:5d/0000:5d:00.0/0000:5e:00.0"
#define MLX4_SYS    "/sys/devices/pci0000:00/0000:00:03.0/0000:03:00.0/infiniband/mlx4_0"
#define RXE0_SYS    "/sys/devices/virtual/infiniband/rxe0"

static const char *const fast_poll[] = { "--poll-interval=50", NULL };
static bool have_polkit = true;

static int host_setup(void **state) {
        *state = harness_start(HARNESS_FIXTURES("mlx4-vpi", "mlx5-roce-sriov", "hfi1", "rxe", "siw"), fast_poll);
        return 0;
}

static int polkit_setup(void **state) {
        Harness *h = harness_start(HARNESS_FIXTURES("mlx5-roce-sriov"), NULL);

        *state = h;
        if (have_polkit)
                have_polkit = harness_start_polkit(h);
        return 0;
}

/* The whole output, to the byte, and the exit status. */
static void assert_output_is(Harness *h, const char *args, int expected_status, const char *expected_output) {
        int status;
        char *out = rdmactl_run(h, &status, "%s", args);

        if (status != expected_status || strcmp(out, expected_output) != 0)
                fail_msg("rdmactl %s: exit %d (expected %d), output:\n%s\n(expected:\n%s)", args, status,
                         expected_status, out, expected_output);
        free(out);
}

static void test_list_is_the_golden_table(void **state) {
        Harness *h = *state;
        char *out, *again;
        int status;

        out = rdmactl_run(h, &status, "list --no-color");
        assert_int_equal(status, 0);
        rdmactl_assert_golden(out, "list.txt");

        /* No command is `list`; without a terminal there is no colour either. */
        again = rdmactl_run(h, &status, "%s", "");
        assert_int_equal(status, 0);
        assert_string_equal(again, out);
        free(again);
        free(out);

        out = rdmactl_run(h, &status, "list --no-legend");
        assert_int_equal(status, 0);
        rdmactl_assert_golden(out, "list-no-legend.txt");
        free(out);
}

/* Runs rdmactl on a pseudo-terminal (script(1)) with the given environment. */
static char *run_on_terminal(Harness *h, const char *env, const char *args) {
        char *command = NULL, *out;
        int status;

        assert_true(asprintf(&command, "script -qec \"env LC_ALL=C.UTF-8 %s %s %s\" /dev/null </dev/null", env,
                             rdmactl_command(), args) > 0);
        out = harness_run_command(h, command, &status);
        free(command);
        assert_int_equal(status, 0);
        return out;
}

static void test_colours_only_on_a_terminal_that_wants_them(void **state) {
        Harness *h = *state;
        char *out;

        out = run_on_terminal(h, "TERM=xterm", "list");
        assert_non_null(strstr(out, "\x1b[0;4mDEVICE"));
        assert_non_null(strstr(out, "\nmlx4_0 2    \x1b[0;31mDOWN\x1b[0m   \x1b[0;31mDisabled\x1b[0m   40 Gb/sec"));
        assert_non_null(strstr(out, "\nhfi1_0 1    \x1b[0;32mACTIVE\x1b[0m \x1b[0;32mLinkUp\x1b[0m     100 Gb/sec"));
        free(out);
        out = run_on_terminal(h, "TERM=xterm", "status mlx4_0");
        assert_non_null(strstr(out, "\x1b[0;33m●\x1b[0m mlx4_0")); /* one port of two is up */
        free(out);

        out = run_on_terminal(h, "TERM=xterm NO_COLOR=1", "list");
        assert_null(strchr(out, '\x1b'));
        free(out);
        out = run_on_terminal(h, "TERM=dumb", "status");
        assert_null(strchr(out, '\x1b'));
        free(out);
        out = run_on_terminal(h, "TERM=xterm", "list --no-color");
        assert_null(strchr(out, '\x1b'));
        free(out);
        out = run_on_terminal(h, "TERM=xterm", "list --json");
        assert_null(strchr(out, '\x1b'));
        free(out);
}

static void test_status_is_the_golden_text(void **state) {
        Harness *h = *state;
        char *out;
        int status;

        out = rdmactl_run(h, &status, "status --no-color");
        assert_int_equal(status, 0);
        rdmactl_assert_golden(out, "status.txt");
        free(out);

        out = rdmactl_run(h, &status, "status mlx5_0 --no-color");
        assert_int_equal(status, 0);
        rdmactl_assert_golden(out, "status-mlx5_0.txt");
        free(out);

        /* An unknown name among known ones: the known are shown, the exit says 4. */
        out = rdmactl_run(h, &status, "status hfi1_0 nosuch0");
        assert_int_equal(status, 4);
        assert_non_null(strstr(out, "rdmactl: No RDMA device or network interface 'nosuch0'.\n"));
        assert_non_null(strstr(out, "● hfi1_0\n"));
        free(out);
}

/* "mlx4_0 1", the `rdma` tool's "mlx4_0/1" and the port's netdev "ib0" name
 * one port: the device with that port and its netdev only. */
static void test_status_of_a_port_named_three_ways(void **state) {
        static const char *const same[] = { "status --no-color mlx4_0 1", "status --no-color mlx4_0/1",
                                            "status --no-color ib0" };
        Harness *h = *state;
        char *out;
        int status;

        for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
                out = rdmactl_run(h, &status, "%s", same[i]);
                if (status != 0)
                        fail_msg("rdmactl %s: exit %d: %s", same[i], status, out);
                rdmactl_assert_golden(out, "status-mlx4_0-port1.txt");
                free(out);
        }

        /* A device and a port of another, in one call; a RoCE netdev. */
        out = rdmactl_run(h, &status, "status --no-color hfi1_0 mlx4_0/2 ens1f0np0");
        assert_int_equal(status, 0);
        assert_non_null(strstr(out, "● hfi1_0\n"));
        assert_non_null(strstr(out, "             Port 2: DOWN (Disabled)"));
        assert_null(strstr(out, "Port 1: ACTIVE (LinkUp), 40 Gb/sec"));
        assert_non_null(strstr(out, "            NetDevs: ens1d1 (port 2)"));
        assert_non_null(strstr(out, "● mlx5_0\n"));
        free(out);

        /* JSON: the device object with the one port. */
        out = rdmactl_run(h, &status, "status --json mlx4_0 2");
        assert_int_equal(status, 0);
        free(harness_python_check(h, out,
                                  "import json, sys\n"
                                  "d, = json.load(open(sys.argv[1]))\n"
                                  "assert [p[\"port\"] for p in d[\"ports\"]] == [2], d\n"
                                  "assert [n[\"name\"] for n in d[\"netdevs\"]] == [\"ens1d1\"], d\n"));
        free(out);

        /* What a script must be able to tell apart; one line for one wrong name ("3" is not a second). */
        assert_output_is(h, "status mlx4_0 3", 4, "rdmactl: mlx4_0 has no port 3.\n");
        assert_output_is(h, "status nosuch0 1", 4, "rdmactl: No RDMA device or network interface 'nosuch0'.\n");
        rdmactl_assert_run(h, "status mlx4_0/3", 4, "rdmactl: mlx4_0 has no port 3.\n");
        rdmactl_assert_run(h, "status nosuch0/1", 4, "rdmactl: No RDMA device 'nosuch0'.\n");
        rdmactl_assert_run(h, "status mlx4_0/x", 2, "rdmactl: 'x' is not a port number.\n");
        rdmactl_assert_run(h, "status mlx4_0/0", 2, "rdmactl: '0' is not a port number; ports count from 1.\n");
        rdmactl_assert_run(h, "status /1", 2, "rdmactl: '/1' names no device before the '/'.\n");
        rdmactl_assert_run(h, "status mlx4_0 99999999999", 2,
                           "rdmactl: port '99999999999' is out of range; the maximum is 4294967295.\n");
}

/* A host without RDMA devices: said, not silence. */
static void test_a_host_without_devices_says_so(void **state) {
        Harness *h = harness_start(NULL, NULL);

        assert_output_is(h, "status", 0, "No RDMA devices.\n");
        assert_output_is(h, "status --json", 0, "[]\n");
        assert_output_is(h, "list", 0,
                         "DEVICE PORT STATE PHYS STATE RATE LINK LAYER NETDEV TRANSPORT\n\n0 ports listed.\n");
        harness_teardown_clean((void **) &h);
}

static void test_list_json_has_the_stable_keys_and_values(void **state) {
        Harness *h = *state;
        char *out, *summary;
        int status;

        out = rdmactl_run(h, &status, "list --json");
        assert_int_equal(status, 0);
        summary = harness_python_check(
                h, out,
                "import json, sys\n"
                "ports = json.load(open(sys.argv[1]))\n"
                "keys = [\"device\", \"port\", \"state\", \"state_num\", \"phys_state\",\n"
                "        \"phys_state_num\", \"rate\", \"link_layer\", \"netdev\", \"transport\"]\n"
                "order = keys[:7] + [\"rate_gbps\"] + keys[7:] + [\"health\", \"health_reason\"]\n"
                "assert all(list(p) == order for p in ports), ports\n"
                /* The rate as a number beside the text: Gb/s, a fraction where the kernel has one. */
                "gbps = [p[\"rate_gbps\"] for p in ports]\n"
                "assert gbps == [100, 40, 40, 25, 25, 10, 2.5], gbps\n"
                "assert all(type(g) in (int, float) for g in gbps), gbps\n"
                "assert all(float(p[\"rate\"].split()[0]) == p[\"rate_gbps\"] for p in ports), ports\n"
                "assert all(p[\"health\"] == \"ok\" and p[\"health_reason\"] == \"\" for p in ports), ports\n"
                "print(\" \".join(\"%s/%d:%s:%d:%s:%d:%s:%s:%s:%s\" % tuple(p[k] for k in keys)\n"
                "                for p in ports))\n");
        assert_string_equal(summary, "hfi1_0/1:ACTIVE:4:LinkUp:5:100 Gb/sec (4X EDR):InfiniBand:None:InfiniBand "
                                     "mlx4_0/1:ACTIVE:4:LinkUp:5:40 Gb/sec (4X QDR):InfiniBand:ib0:InfiniBand "
                                     "mlx4_0/2:DOWN:1:Disabled:3:40 Gb/sec (4X QDR):Ethernet:ens1d1:RoCE "
                                     "mlx5_0/1:ACTIVE:4:LinkUp:5:25 Gb/sec (1X EDR):Ethernet:ens1f0np0:RoCE "
                                     "mlx5_1/1:ACTIVE:4:LinkUp:5:25 Gb/sec (1X EDR):Ethernet:ens1f0v0:RoCE "
                                     "rxe0/1:ACTIVE:4:LinkUp:5:10 Gb/sec (1X FDR10):Ethernet:veth-rdma0:RoCE "
                                     "siw0/1:ACTIVE:4:LinkUp:5:2.5 Gb/sec (1X SDR):Ethernet:dummy-siw0:iWARP");
        free(summary);
        free(out);
}

/* --json=short is one line, --json=pretty the golden indented text, --json=off the table. */
static void test_json_modes_short_pretty_off(void **state) {
        Harness *h = *state;
        char *out, *plain, *table;
        int status;

        plain = rdmactl_run(h, &status, "list --json");
        assert_int_equal(status, 0);
        out = rdmactl_run(h, &status, "list --json=short");
        assert_int_equal(status, 0);
        assert_string_equal(out, plain);
        assert_int_equal(out[0], '[');
        assert_ptr_equal(strchr(out, '\n'), out + strlen(out) - 1); /* one line */
        free(out);
        free(plain);

        out = rdmactl_run(h, &status, "status --json=pretty hfi1_0");
        assert_int_equal(status, 0);
        rdmactl_assert_golden(out, "status-hfi1_0-json-pretty.txt");
        free(out);

        out = rdmactl_run(h, &status, "list --json=off --no-color");
        table = rdmactl_run(h, &status, "list --no-color");
        assert_int_equal(status, 0);
        assert_string_equal(out, table);
        free(out);
        free(table);

        rdmactl_assert_run(h, "list --json=prety", 2, "rdmactl: --json: 'prety' is not one of pretty, short, off.\n");
        rdmactl_assert_run(h, "wait mlx5_0 1 ACTIVE --json=pretty", 2, "rdmactl: 'wait' has no JSON output.\n");
        /* An InfiniBand GID has no type: null, not "". */
        out = rdmactl_run(h, &status, "status --json hfi1_0");
        assert_int_equal(status, 0);
        assert_non_null(strstr(
                out,
                "\"gid\":\"fe80:0000:0000:0000:0011:7501:0165:ab12\",\"type\":null,\"netdev\":null,\"ipv4\":null}"));
        free(out);
}

static void test_status_json_describes_the_device(void **state) {
        Harness *h = *state;
        char *out, *summary;
        int status;

        out = rdmactl_run(h, &status, "status --json mlx5_0 mlx4_0");
        assert_int_equal(status, 0);
        summary = harness_python_check(
                h, out,
                "import json, sys\n"
                "devs = json.load(open(sys.argv[1]))\n"
                "m5, m4 = devs\n"
                "assert m4[\"sriov\"] is None and m4[\"hca_type\"] == \"MT4099\"\n"
                "assert [n[\"name\"] for n in m4[\"netdevs\"]] == [\"ens1d1\", \"ib0\"]\n"
                "assert [(p[\"port\"], p[\"lid\"], p[\"sm_lid\"]) for p in m4[\"ports\"]] == "
                "[(1, 5, 1), (2, 0, 0)]\n"
                "s = m5[\"sriov\"]\n"
                "n = m5[\"netdevs\"][0]\n"
                "p = m5[\"ports\"][0]\n"
                "assert [p[\"transport\"] for p in m4[\"ports\"]] == [\"InfiniBand\", \"RoCE\"]\n"
                "assert m4[\"transport\"] == \"mixed\" and m4[\"virtual_functions\"] == []\n"
                "assert m4[\"physical_function\"] is None and m4[\"ports\"][0][\"gids\"][0][\"netdev\"] is None\n"
                "print(m5[\"device\"], m5[\"firmware_version\"], m5[\"node_guid\"], s[\"num_vfs\"],\n"
                "      s[\"total_vfs\"], n[\"name\"], n[\"port\"], n[\"mtu\"], p[\"netdev\"],\n"
                "      m5[\"pci_address\"], m5[\"numa_node\"], m5[\"virtual_functions\"],\n"
                "      p[\"link_width\"], p[\"link_speed\"], p[\"transport\"],\n"
                "      \",\".join(\"%d=%s/%s/%s/%s\" % (g[\"index\"], g[\"gid\"][-9:], g[\"type\"], "
                "g[\"netdev\"], g[\"ipv4\"]) for g in p[\"gids\"]))\n");
        assert_string_equal(summary, "mlx5_0 14.28.2006 9803:9b03:00aa:bbc0 1 8 ens1f0np0 1 9000 ens1f0np0 "
                                     "0000:5e:00.0 0 ['mlx5_1'] 1X EDR RoCE "
                                     "0=feaa:bbc0/IB/RoCE v1/ens1f0np0/None,1=feaa:bbc0/RoCE v2/ens1f0np0/None,"
                                     "2=c0a8:010a/IB/RoCE v1/ens1f0np0/192.168.1.10,"
                                     "3=c0a8:010a/RoCE v2/ens1f0np0/192.168.1.10");
        free(summary);
        free(out);

        /* The VF names its PF. */
        out = rdmactl_run(h, &status, "status --json mlx5_1");
        assert_int_equal(status, 0);
        assert_non_null(strstr(out, "\"pci_address\":\"0000:5e:00.2\",\"numa_node\":0,\"physical_function\":\"mlx5_0\","
                                    "\"virtual_functions\":[]"));
        free(out);
}

static void test_json_escapes_what_needs_escaping(void **state) {
        Harness *h = *state;
        char *out, *summary, *text;
        int status;

        /* A node description with a quote, a backslash, a tab, an escape and non-ASCII. */
        harness_add_device(h, "P: /devices/virtual/infiniband/odd0\n"
                              "E: SUBSYSTEM=infiniband\n"
                              "E: NAME=odd0\n"
                              "A: node_type=1: CA\\n\n"
                              "A: node_desc=say \\\"hi\\\" \\\\ tab\\there \\033[31m red \xc3\xa9\\n\n"
                              "A: ports/1/state=4: ACTIVE\\n\n"
                              "A: ports/1/link_layer=Ethernet\\n\n");
        rdmactl_assert_run(h, "wait odd0 1 ACTIVE --timeout=10", 0, NULL);
        out = rdmactl_run(h, &status, "status --json odd0");
        assert_int_equal(status, 0);
        assert_non_null(
                strstr(out, "\"node_description\":\"say \\\"hi\\\" \\\\ tab\\there \\u001b[31m red \xc3\xa9\""));
        summary =
                harness_python_check(h, out,
                                     "import json, sys\n"
                                     "d = json.load(open(sys.argv[1]))[0]\n"
                                     "assert d[\"node_description\"] == \"say \\\"hi\\\" \\\\ tab\\there \\x1b[31m red "
                                     "\\u00e9\", repr(d)\n"
                                     "print(\"ok\")\n");
        assert_string_equal(summary, "ok");
        free(summary);
        free(out);

        /* On a terminal-bound text output the escape cannot set colours. */
        text = rdmactl_run(h, &status, "status odd0");
        assert_int_equal(status, 0);
        assert_non_null(strstr(text, "Node description: say \"hi\" \\ tab?here ?[31m red \xc3\xa9\n"));
        free(text);
}

/* ---- monitor ---- */

typedef RdmactlChild Child;

/* Starts rdmactl with the given arguments, stdout and stderr on pipes. */
static Child *child_start(const char *const *args) {
        GString *quoted = g_string_new(NULL);
        Child *c;

        for (size_t i = 0; args[i]; i++)
                g_string_append_printf(quoted, "%s'%s'", i > 0 ? " " : "", args[i]);
        c = rdmactl_child_start(quoted->str);
        g_string_free(quoted, TRUE);
        return c;
}

#define child_wait_for  rdmactl_child_wait_for
#define child_wait_exit rdmactl_child_wait_exit
#define child_free      rdmactl_child_free

static void child_expect(Child *c, const char *needle) {
        if (!child_wait_for(c, needle, false, 10000))
                fail_msg("rdmactl did not print \"%s\"; stdout:\n%s\nstderr:\n%s", needle, c->out->str, c->err->str);
}

/* SIGTERM: monitor must stop with status 0. */
static void child_stop(Child *c) {
        assert_int_equal(kill(c->pid, SIGTERM), 0);
        assert_int_equal(child_wait_exit(c, 10000), 0);
}

static Child *monitor_start_with(const char *const *args) {
        Child *c = child_start(args);

        /* It says so on stderr once it is subscribed and has read the objects. */
        if (!child_wait_for(c, "Monitoring org.rdmad1", true, 10000))
                fail_msg("rdmactl monitor did not start: %s", c->err->str);
        return c;
}

static Child *monitor_start(bool json) {
        return monitor_start_with(json ? (const char *const[]){ "monitor", "--json", NULL }
                                       : (const char *const[]){ "monitor", NULL });
}

static void flap_hfi1(Harness *h, bool up) {
        /* Both files between two poll ticks: one change, as on a real link. */
        harness_pause(h);
        harness_write(h, HFI1_SYS, "ports/1/state", up ? "4: ACTIVE\n" : "1: DOWN\n");
        harness_write(h, HFI1_SYS, "ports/1/phys_state", up ? "5: LinkUp\n" : "3: Disabled\n");
        harness_resume(h);
}

/* "rdma dev set hfi1_0 name opa0": the directory is renamed and only "move" is sent. */
static void rename_hfi1_to_opa0(Harness *h) {
        harness_rename_device(h, HFI1_SYS, "opa0");
}

/* "2026-11-30T04:01:02.123456+00:00 " at the start of every line. */
static void assert_timestamped_lines(const char *text) {
        size_t lines = 0;

        for (const char *l = text; *l; l = strchr(l, '\n') + 1) {
                static const char pattern[] = "dddd-dd-ddTdd:dd:dd.dddddd+00:00 ";

                assert_non_null(strchr(l, '\n'));
                for (size_t i = 0; i < sizeof(pattern) - 1; i++)
                        if (pattern[i] == 'd' ? !(l[i] >= '0' && l[i] <= '9') : l[i] != pattern[i])
                                fail_msg("not a timestamped line: %.*s", (int) strcspn(l, "\n"), l);
                lines++;
        }
        assert_true(lines > 0);
}

/* The lines without their timestamps. */
static char *strip_timestamps(const char *text) {
        GString *s = g_string_new(NULL);

        for (const char *l = text; *l; l = strchr(l, '\n') + 1)
                g_string_append_len(s, l + 33, (gssize) (strchr(l, '\n') - l - 33 + 1));
        return g_string_free(s, FALSE);
}

static void test_monitor_prints_hot_add_flap_rename_and_removal(void **state) {
        Harness *h = *state;
        Child *c = monitor_start(false);
        char *lines;

        harness_add_rxe5(h);
        child_expect(c, "rxe5 port 1: added, ACTIVE (LinkUp)\n");

        flap_hfi1(h, false);
        child_expect(c, "hfi1_0 port 1: ACTIVE -> DOWN (Disabled)\n");
        flap_hfi1(h, true);
        child_expect(c, "hfi1_0 port 1: DOWN -> ACTIVE (LinkUp)\n");

        /* Physical state alone. */
        harness_write(h, HFI1_SYS, "ports/1/phys_state", "6: LinkErrorRecovery\n");
        child_expect(c, "hfi1_0 port 1: ACTIVE (LinkUp -> LinkErrorRecovery)\n");

        rename_hfi1_to_opa0(h);
        child_expect(c, "hfi1_0: renamed to opa0\n");

        umockdev_testbed_uevent(h->testbed, "/sys/devices/virtual/infiniband/rxe5", "remove");
        umockdev_testbed_remove_device(h->testbed, "/sys/devices/virtual/infiniband/rxe5");
        child_expect(c, "rxe5: removed\n");

        harness_write(h, MLX5_PF_SYS, "sriov_numvfs", "3\n");
        umockdev_testbed_uevent(h->testbed, MLX5_PF_SYS, "change");
        child_expect(c, "mlx5_0: SR-IOV 1 -> 3 VFs\n");

        child_stop(c);
        assert_timestamped_lines(c->out->str);
        lines = strip_timestamps(c->out->str);
        /* Exactly these, in this order: a rename is no removal and no addition. */
        assert_string_equal(lines, "rxe5: added, RoCE, 1 port\n"
                                   "rxe5 port 1: added, ACTIVE (LinkUp)\n"
                                   "hfi1_0 port 1: ACTIVE -> DOWN (Disabled)\n"
                                   "hfi1_0 port 1: DOWN -> ACTIVE (LinkUp)\n"
                                   "hfi1_0 port 1: ACTIVE (LinkUp -> LinkErrorRecovery)\n"
                                   "hfi1_0: renamed to opa0\n"
                                   "rxe5: removed\n"
                                   "mlx5_0: SR-IOV 1 -> 3 VFs\n");
        g_free(lines);
        child_free(c);
}

static void test_monitor_json_lines(void **state) {
        Harness *h = *state;
        Child *c = monitor_start(true);
        char *summary;

        harness_add_rxe5(h);
        child_expect(c, "\"event\":\"port-added\"");
        flap_hfi1(h, false);
        child_expect(c, "\"event\":\"port-state\"");
        flap_hfi1(h, true);
        child_expect(c, "\"old_state\":\"DOWN\"");
        child_stop(c);

        /* Nothing but JSON on stdout, one object a line; the greeting went to stderr. */
        assert_non_null(strstr(c->err->str, "Monitoring org.rdmad1"));
        summary = harness_python_check(
                h, c->out->str,
                "import json, sys\n"
                "out = []\n"
                "for line in open(sys.argv[1]):\n"
                "    e = json.loads(line)\n"
                "    assert e[\"time\"].endswith(\"+00:00\") and e[\"usec\"] > 1700000000000000, e\n"
                "    if e[\"event\"] == \"port-state\":\n"
                "        out.append(\"%s/%d:%s>%s:%s>%s\" % (e[\"device\"], e[\"port\"], "
                "e[\"old_state\"], e[\"state\"], e[\"old_phys_state\"], "
                "e[\"phys_state\"]))\n"
                "    elif e[\"event\"] == \"device-added\":\n"
                "        out.append(\"+%s:%s:%s\" % (e[\"device\"], e[\"transport\"], e[\"ports\"]))\n"
                "    else:\n"
                "        out.append(\"%s:%s/%d:%s/%d\" % (e[\"event\"], e[\"device\"], e[\"port\"], "
                "e[\"state\"], e[\"state_num\"]))\n"
                "print(\" \".join(out))\n");
        assert_string_equal(summary, "+rxe5:RoCE:[1] port-added:rxe5/1:ACTIVE/4 hfi1_0/1:ACTIVE>DOWN:LinkUp>Disabled "
                                     "hfi1_0/1:DOWN>ACTIVE:Disabled>LinkUp");
        free(summary);
        child_free(c);
}

/* --json=pretty: each event an indented object, the next after it. */
static void test_monitor_json_pretty(void **state) {
        Harness *h = *state;
        Child *c = child_start((const char *const[]){ "monitor", "--json=pretty", NULL });

        if (!child_wait_for(c, "Monitoring org.rdmad1", true, 10000))
                fail_msg("rdmactl monitor did not start: %s", c->err->str);
        flap_hfi1(h, false);
        /* No rate: the text line has none, and a rate change is its own port-changed event. */
        child_expect(c, "  \"phys_state_num\": 3\n}\n");
        child_stop(c);
        assert_true(g_str_has_prefix(c->out->str, "{\n  \"time\": \""));
        assert_non_null(strstr(c->out->str, ",\n  \"event\": \"port-state\",\n  \"device\": \"hfi1_0\",\n"
                                            "  \"port\": 1,\n  \"old_state\": \"ACTIVE\",\n  \"state\": \"DOWN\",\n"
                                            "  \"state_num\": 1,\n  \"old_phys_state\": \"LinkUp\",\n"
                                            "  \"phys_state\": \"Disabled\",\n  \"phys_state_num\": 3\n}\n"));
        child_free(c);
}

/* A port that stays ACTIVE while its rate, LID or SM LID changes: one line per property, old -> new. */
static void test_monitor_prints_link_property_changes(void **state) {
        Harness *h = *state;
        Child *text = monitor_start(false), *json = monitor_start(true);
        char *lines, *summary;

        /* The link trains down to one lane; the driver's "change" uevent makes rdmad re-read it. */
        harness_write(h, HFI1_SYS, "ports/1/rate", "25 Gb/sec (1X EDR)\n");
        umockdev_testbed_uevent(h->testbed, HFI1_SYS, "change");
        child_expect(text, "hfi1_0 port 1: rate 100 Gb/sec (4X EDR) -> 25 Gb/sec (1X EDR)\n");

        /* The subnet manager moves: two properties in one re-read, two lines. */
        harness_pause(h);
        harness_write(h, HFI1_SYS, "ports/1/lid", "0x7\n");
        harness_write(h, HFI1_SYS, "ports/1/sm_lid", "0x2\n");
        harness_resume(h);
        umockdev_testbed_uevent(h->testbed, HFI1_SYS, "change");
        child_expect(text, "hfi1_0 port 1: SM LID 1 -> 2\n");

        /* Down with a rate change: the state line, then the rate line. */
        harness_pause(h);
        harness_write(h, HFI1_SYS, "ports/1/rate", "100 Gb/sec (4X EDR)\n");
        harness_write(h, HFI1_SYS, "ports/1/phys_state", "3: Disabled\n");
        harness_write(h, HFI1_SYS, "ports/1/state", "1: DOWN\n");
        harness_resume(h);
        child_expect(text, "hfi1_0 port 1: rate 25 Gb/sec (1X EDR) -> 100 Gb/sec (4X EDR)\n");
        child_expect(json, "\"new\":\"100 Gb/sec (4X EDR)\"");

        child_stop(text);
        child_stop(json);
        lines = strip_timestamps(text->out->str);
        assert_string_equal(lines, "hfi1_0 port 1: rate 100 Gb/sec (4X EDR) -> 25 Gb/sec (1X EDR)\n"
                                   "hfi1_0 port 1: LID 1 -> 7\n"
                                   "hfi1_0 port 1: SM LID 1 -> 2\n"
                                   "hfi1_0 port 1: ACTIVE -> DOWN (Disabled)\n"
                                   "hfi1_0 port 1: rate 25 Gb/sec (1X EDR) -> 100 Gb/sec (4X EDR)\n");
        g_free(lines);
        summary = harness_python_check(h, json->out->str,
                                       "import json, sys\n"
                                       "out = []\n"
                                       "for line in open(sys.argv[1]):\n"
                                       "    e = json.loads(line)\n"
                                       "    if e[\"event\"] == \"port-changed\":\n"
                                       "        out.append(\"%s/%d:%s:%r>%r\" % (e[\"device\"], e[\"port\"], "
                                       "e[\"property\"], e[\"old\"], e[\"new\"]))\n"
                                       /* A rate also as numbers, Gb/s; no other property has them. */
                                       "        if e[\"property\"] == \"rate\":\n"
                                       "            out.append(\"gbps:%r>%r\" % (e[\"old_gbps\"], e[\"new_gbps\"]))\n"
                                       "        else:\n"
                                       "            assert \"old_gbps\" not in e and \"new_gbps\" not in e, e\n"
                                       "    else:\n"
                                       "        out.append(e[\"event\"])\n"
                                       "print(\" \".join(out))\n");
        assert_string_equal(summary, "hfi1_0/1:rate:'100 Gb/sec (4X EDR)'>'25 Gb/sec (1X EDR)' gbps:100>25 "
                                     "hfi1_0/1:lid:1>7 hfi1_0/1:sm_lid:1>2 port-state "
                                     "hfi1_0/1:rate:'25 Gb/sec (1X EDR)'>'100 Gb/sec (4X EDR)' gbps:25>100");
        free(summary);
        child_free(text);
        child_free(json);
}

/* rdmad restarts (watchdog, upgrade) while things change: monitor says so,
 * waits, and tells what changed while it was away, then follows the new
 * daemon's signals. */
static void test_monitor_follows_a_restart(void **state) {
        Harness *h = *state;
        Child *text = monitor_start(false), *json = monitor_start(true);
        static const char *const after_restart = "rdmad restarted: 6 devices, 7 ports.\n"
                                                 "rxe0: removed\n"
                                                 "rxe5: added, RoCE, 1 port\n"
                                                 "rxe5 port 1: added, ACTIVE (LinkUp)\n"
                                                 "hfi1_0 port 1: ACTIVE -> DOWN (Disabled)\n"
                                                 "mlx4_0 port 1: rate 40 Gb/sec (4X QDR) -> 10 Gb/sec (1X QDR)\n"
                                                 "mlx4_0 port 1: LID 5 -> 9\n"
                                                 "mlx5_0: SR-IOV 1 -> 3 VFs\n";
        char *lines, *summary;

        harness_stop_daemon(h);
        child_expect(text, "rdmad left the system bus; waiting for it to return.\n");
        child_expect(json, "\"event\":\"daemon-left\"");

        /* While no rdmad runs: a device goes, another comes, a link drops, one slows down, VFs change. */
        umockdev_testbed_remove_device(h->testbed, RXE0_SYS);
        harness_add_rxe5(h);
        harness_write(h, HFI1_SYS, "ports/1/phys_state", "3: Disabled\n");
        harness_write(h, HFI1_SYS, "ports/1/state", "1: DOWN\n");
        harness_write(h, MLX4_SYS, "ports/1/rate", "10 Gb/sec (1X QDR)\n");
        harness_write(h, MLX4_SYS, "ports/1/lid", "0x9\n");
        harness_write(h, MLX5_PF_SYS, "sriov_numvfs", "3\n");

        harness_start_daemon(h, fast_poll);
        child_expect(text, "mlx5_0: SR-IOV 1 -> 3 VFs\n");
        child_expect(json, "\"event\":\"num-vfs\"");

        /* Still following: a change after the restart arrives live. */
        flap_hfi1(h, true);
        child_expect(text, "hfi1_0 port 1: DOWN -> ACTIVE (LinkUp)\n");
        child_expect(json, "\"old_state\":\"DOWN\"");

        child_stop(text);
        child_stop(json);
        assert_timestamped_lines(text->out->str);
        lines = strip_timestamps(text->out->str);
        {
                char *expected = NULL;
                assert_true(asprintf(&expected,
                                     "rdmad left the system bus; waiting for it to return.\n%s"
                                     "hfi1_0 port 1: DOWN -> ACTIVE (LinkUp)\n",
                                     after_restart) > 0);
                assert_string_equal(lines, expected);
                free(expected);
        }
        g_free(lines);
        /* Nothing on stderr but the greeting: the restart is an event, not an error. */
        assert_true(g_str_has_prefix(text->err->str, "Monitoring org.rdmad1"));
        assert_null(strstr(text->err->str, "rdmactl:"));

        summary = harness_python_check(h, json->out->str,
                                       "import json, sys\n"
                                       "out = []\n"
                                       "for line in open(sys.argv[1]):\n"
                                       "    e = json.loads(line)\n"
                                       "    ev = e[\"event\"]\n"
                                       "    if ev == \"daemon-restarted\":\n"
                                       "        ev += \":%d/%d\" % (e[\"devices\"], e[\"ports\"])\n"
                                       "    elif ev == \"port-changed\":\n"
                                       "        ev += \":\" + e[\"property\"]\n"
                                       "    elif \"device\" in e:\n"
                                       "        ev += \":\" + e[\"device\"]\n"
                                       "    out.append(ev)\n"
                                       "print(\" \".join(out))\n");
        assert_string_equal(summary, "daemon-left daemon-restarted:6/7 device-removed:rxe0 device-added:rxe5 "
                                     "port-added:rxe5 port-state:hfi1_0 port-changed:rate port-changed:lid "
                                     "num-vfs:mlx5_0 port-state:hfi1_0");
        free(summary);
        child_free(text);
        child_free(json);
}

/* ---- list and monitor PATTERN... ---- */

/* The ports `list -j ARGS` shows, as "dev/port" words. */
static char *listed_ports(Harness *h, const char *args) {
        char *out, *summary;
        int status;

        out = rdmactl_run(h, &status, "list -j %s", args);
        if (status != 0)
                fail_msg("rdmactl list -j %s: exit %d: %s", args, status, out);
        summary = harness_python_check(h, out,
                                       "import json, sys\n"
                                       "print(\" \".join(\"%s/%d\" % (p[\"device\"], p[\"port\"])\n"
                                       "               for p in json.load(open(sys.argv[1]))))\n");
        free(out);
        return summary;
}

static void assert_lists(Harness *h, const char *args, const char *expected) {
        char *ports = listed_ports(h, args);

        if (strcmp(ports, expected) != 0)
                fail_msg("rdmactl list %s: '%s', expected '%s'", args, ports, expected);
        free(ports);
}

/* As `networkctl list PATTERN`: devices, DEV/PORT, DEV PORT, netdevs and globs; --state. */
static void test_list_keeps_what_the_patterns_name(void **state) {
        Harness *h = *state;

        assert_lists(h, "mlx4_0", "mlx4_0/1 mlx4_0/2");
        assert_lists(h, "mlx4_0/2", "mlx4_0/2");
        assert_lists(h, "mlx4_0 2", "mlx4_0/2");
        assert_lists(h, "ib0", "mlx4_0/1");
        assert_lists(h, "'mlx5_*'", "mlx5_0/1 mlx5_1/1");
        assert_lists(h, "'ens1f0*'", "mlx5_0/1 mlx5_1/1");
        assert_lists(h, "'*/2'", "mlx4_0/2");
        assert_lists(h, "siw0 hfi1_0", "hfi1_0/1 siw0/1"); /* the host's order, each once */
        assert_lists(h, "--state=DOWN", "mlx4_0/2");
        assert_lists(h, "--state=active mlx4_0", "mlx4_0/1");
        assert_lists(h, "--state=4 'mlx5_*' rxe0", "mlx5_0/1 mlx5_1/1 rxe0/1");
        /* In a state no port is in: an empty list, not an error. */
        assert_output_is(h, "list -j --state=INIT", 0, "[]\n");
        rdmactl_assert_run(h, "list mlx4_0", 0, "\n2 ports listed.\n");

        /* A pattern that matches nothing is a mistake, said so; so is a number alone. */
        assert_output_is(h, "list mlx4_0 'nosuch*'", 4,
                         "rdmactl: no device, port or network interface matches "
                         "'nosuch*'.\n");
        assert_output_is(h, "list mlx4_0/3", 4, "rdmactl: no device, port or network interface matches 'mlx4_0/3'.\n");
        rdmactl_assert_run(h, "list 1", 2, "rdmactl: '1' is a port number: name its device first, as in 'mlx5_0 1'.\n");
        rdmactl_assert_run(h, "list --state=UP", 2, "rdmactl: --state: 'UP' is not a port state");
}

/* -j is --json on every verb that has JSON. */
static void test_j_is_json(void **state) {
        Harness *h = *state;
        char *j, *json;
        int status;

        j = rdmactl_run(h, &status, "-j list");
        assert_int_equal(status, 0);
        json = rdmactl_run(h, &status, "list --json");
        assert_int_equal(status, 0);
        assert_string_equal(j, json);
        free(j);
        free(json);
        j = rdmactl_run(h, &status, "status -j siw0");
        assert_int_equal(status, 0);
        json = rdmactl_run(h, &status, "status --json siw0");
        assert_string_equal(j, json);
        assert_non_null(strstr(j, "\"rate\":\"2.5 Gb/sec (1X SDR)\",\"rate_gbps\":2.5,"));
        free(j);
        free(json);
        j = rdmactl_run(h, &status, "counters -j mlx4_0/1");
        assert_int_equal(status, 0);
        assert_int_equal(j[0], '[');
        free(j);
        rdmactl_assert_run(h, "wait mlx5_0 -j", 2, "rdmactl: 'wait' has no JSON output.\n");
        rdmactl_assert_run(h, "set-vfs mlx5_0 1 -j", 2, "rdmactl: 'set-vfs' has no JSON output.\n");
}

/* monitor PATTERN: only what it names; a pattern that names nothing yet is waited for. */
static void test_monitor_tells_only_what_the_patterns_name(void **state) {
        Harness *h = *state;
        Child *hfi1 = monitor_start_with((const char *const[]){ "monitor", "hfi1_0", NULL });
        Child *rxe = monitor_start_with((const char *const[]){ "monitor", "-j", "rxe5", "1", NULL });
        Child *all = monitor_start(false);

        /* Said on stderr right after "Monitoring": waited for, as everything a child prints. */
        if (!child_wait_for(rxe, "Nothing matches 'rxe5/1' yet; its events will be shown when it comes.\n", true,
                            10000))
                fail_msg("monitor rxe5 1 did not say it waits for it: %s", rxe->err->str);

        harness_add_rxe5(h);
        child_expect(rxe, "\"event\":\"port-added\",\"device\":\"rxe5\",\"port\":1");
        child_expect(all, "rxe5 port 1: added, ACTIVE (LinkUp)\n");
        flap_hfi1(h, false);
        child_expect(hfi1, "hfi1_0 port 1: ACTIVE -> DOWN (Disabled)\n");
        child_expect(all, "hfi1_0 port 1: ACTIVE -> DOWN (Disabled)\n");
        harness_write(h, MLX5_PF_SYS, "sriov_numvfs", "3\n");
        umockdev_testbed_uevent(h->testbed, MLX5_PF_SYS, "change");
        child_expect(all, "mlx5_0: SR-IOV 1 -> 3 VFs\n");

        child_stop(hfi1);
        child_stop(rxe);
        child_stop(all);
        assert_null(strstr(hfi1->err->str, "Nothing matches")); /* hfi1_0 was there */
        /* Every one saw what came before its last line: the others' events were left out, not late. */
        {
                char *lines = strip_timestamps(hfi1->out->str);

                assert_string_equal(lines, "hfi1_0 port 1: ACTIVE -> DOWN (Disabled)\n");
                g_free(lines);
        }
        assert_null(strstr(rxe->out->str, "hfi1_0"));
        assert_null(strstr(rxe->out->str, "mlx5_0"));
        assert_non_null(strstr(rxe->out->str, "\"event\":\"device-added\",\"device\":\"rxe5\""));
        child_free(hfi1);
        child_free(rxe);
        child_free(all);
}

/* ---- wait ---- */

static void test_wait_at_once_after_a_change_and_on_timeout(void **state) {
        Harness *h = *state;
        const char *const wait_down[] = { "wait", "hfi1_0", "1", "DOWN", "--timeout=20", NULL };
        uint64_t start;
        Child *c;
        int status;
        char *out;

        /* Already there: at once, silently. */
        start = now_usec();
        out = rdmactl_run(h, &status, "wait hfi1_0 1 ACTIVE --timeout=10");
        assert_int_equal(status, 0);
        assert_string_equal(out, "");
        assert_true(now_usec() - start < 5000000);
        free(out);
        rdmactl_assert_run(h, "wait mlx4_0 2 down --timeout=0", 0, NULL);

        /* Not there: a timeout, exit 5, what is missing. */
        start = now_usec();
        out = rdmactl_run(h, &status, "wait hfi1_0 1 DOWN --timeout=1");
        assert_int_equal(status, 5);
        assert_string_equal(out, "rdmactl: timed out after 1s.\n"
                                 "rdmactl: hfi1_0/1: ACTIVE (LinkUp), waiting for DOWN\n");
        assert_true(now_usec() - start >= 1000000);
        free(out);

        /* Reached after a change: still waiting before it, done after it. */
        c = child_start(wait_down);
        /* A waiting rdmactl says nothing: a window in which it must not exit. */
        harness_observe(h, 500, "rdmactl wait to go on waiting");
        assert_int_equal(child_wait_exit(c, 0), -1);
        flap_hfi1(h, false);
        assert_int_equal(child_wait_exit(c, 10000), 0);
        assert_string_equal(c->out->str, "");
        child_free(c);

        /* status now tells when the state changed. */
        out = rdmactl_run(h, &status, "status hfi1_0");
        assert_int_equal(status, 0);
        assert_non_null(strstr(out, "             Port 1: DOWN (Disabled), 100 Gb/sec (4X EDR), InfiniBand\n"));
        assert_non_null(strstr(out, "\n                     state changed 20"));
        assert_non_null(strstr(out, "+00:00, 1 state change since rdmad started\n                     GID 0: "));
        /* No state directory here: no link history (test-history has it). */
        assert_null(strstr(out, "\n                     link 20"));
        free(out);

        /* What a script must be able to tell apart: what is not there yet is
         * waited for (exit 5 at the timeout), a mistake is exit 2 at once. */
        rdmactl_assert_run(h, "wait hfi1_0 7 ACTIVE --timeout=300ms", 5,
                           "rdmactl: hfi1_0/7: not present (the device has no such port yet), waiting for ACTIVE\n");
        rdmactl_assert_run(h, "wait nosuch0 1 ACTIVE --timeout=300ms", 5,
                           "rdmactl: nosuch0/1: not present, waiting for ACTIVE\n");
        rdmactl_assert_run(h, "wait hfi1_0 1 7", 2,
                           "rdmactl: port state 7 is out of range; the states are 0 (NOP) to 5 (ACTIVE_DEFER).\n");
        rdmactl_assert_run(h, "wait hfi1_0 DOWN --timeout=10", 0, NULL); /* every port of it */
        rdmactl_assert_run(h, "wait ACTIVE hfi1_0", 2, "rdmactl: 'ACTIVE' is a state: name the devices");
        rdmactl_assert_run(h, "wait hfi1_0 1 ACTIVE --state=DOWN", 2,
                           "rdmactl: 'ACTIVE' and --state=DOWN: give the state once.\n");
        rdmactl_assert_run(h, "wait 1 ACTIVE", 2,
                           "rdmactl: '1' is not a device, a port (DEVICE PORT, DEVICE/PORT) or a network interface.\n");
        rdmactl_assert_run(h, "wait hfi1_0 1 ACTIVE --timeout=soon", 2,
                           "rdmactl: --timeout: 'soon' is not a time span (e.g. 30s, 500ms, 2min; a bare number is "
                           "seconds).\n");
        rdmactl_assert_run(
                h, "wait hfi1_0 1 ACTIVE --timeout=400d", 2,
                "rdmactl: --timeout: '400d' is too long; the maximum is 365d ('infinity' waits for ever).\n");
        rdmactl_assert_run(h, "wait hfi1_0 1 ACTIVE --timeout", 2,
                           "rdmactl: option '--timeout' needs a value, as in '--timeout=VALUE'.\n");
}

/* A port named as people name it, a state by its number, a time span with its unit. */
static void test_wait_names_ports_states_and_spans_the_usual_ways(void **state) {
        Harness *h = *state;

        rdmactl_assert_run(h, "wait mlx4_0/1 ACTIVE --timeout=0", 0, NULL);
        rdmactl_assert_run(h, "wait ib0 ACTIVE --timeout=0", 0, NULL);
        rdmactl_assert_run(h, "wait ens1d1 DOWN --timeout=0", 0, NULL);    /* mlx4_0 port 2 */
        rdmactl_assert_run(h, "wait mlx4_0 1 4 --timeout=1s", 0, NULL);    /* 4 is ACTIVE, as sysfs says "4: ACTIVE" */
        rdmactl_assert_run(h, "wait mlx4_0/2 1 --timeout=500ms", 0, NULL); /* 1 is DOWN */
        rdmactl_assert_run(h, "wait ens1f0np0 '4: ACTIVE' --timeout=2min", 0, NULL);
        rdmactl_assert_run(h, "wait mlx4_0/1 --timeout=1s", 0, NULL); /* ACTIVE by default */
        rdmactl_assert_run(h, "wait mlx4_0 1 --timeout=1s", 0, NULL);

        /* The span comes back as it was meant. */
        assert_output_is(h, "wait hfi1_0/1 1 --timeout=300ms", 5,
                         "rdmactl: timed out after 300ms.\nrdmactl: hfi1_0/1: ACTIVE (LinkUp), waiting for DOWN\n");
        assert_output_is(h, "wait ib0 INIT --timeout=300ms", 5,
                         "rdmactl: timed out after 300ms.\nrdmactl: mlx4_0/1 (ib0): ACTIVE (LinkUp), waiting for "
                         "INIT\n");
}

/* rdmactl ARGS as user nobody; its output (caller frees). */
/* Runs a copy nobody can reach: the checkout may sit under a directory of mode 0700. */
static char *run_as_nobody(Harness *h, const char *args, int *ret_status) {
        char *command = NULL, *out, *binary = harness_copy_for_all_users(h, rdmactl_binary());

        assert_true(asprintf(&command, "setpriv --reuid=nobody --regid=nogroup --clear-groups " RDMACTL_ENV "%s %s",
                             rdmactl_wrapped(binary), args) > 0);
        out = harness_run_command(h, command, ret_status);
        free(command);
        free(binary);
        return out;
}

/* ---- set-vfs ---- */

static char *numvfs_file(Harness *h) {
        return harness_read(h, MLX5_PF_SYS, "sriov_numvfs");
}

static void test_set_vfs_as_root_succeeds(void **state) {
        Harness *h = *state;
        char *content;

        HARNESS_REQUIRE_POLKIT(have_polkit);
        assert_output_is(h, "set-vfs mlx5_0 4", 0,
                         "mlx5_0: SR-IOV 1 -> 4 VFs (the 1 existing VF was removed first).\n");
        content = numvfs_file(h);
        assert_string_equal(content, "4\n");
        free(content);

        assert_output_is(h, "set-vfs mlx5_0 0 --no-ask-password", 0, "mlx5_0: SR-IOV 4 -> 0 VFs (of 8).\n");
        content = numvfs_file(h);
        assert_string_equal(content, "0\n");
        free(content);

        /* From none: nothing removed. Named by its netdev. */
        assert_output_is(h, "set-vfs ens1f0np0 2", 0, "mlx5_0: SR-IOV 0 -> 2 VFs (of 8).\n");
        assert_output_is(h, "set-vfs mlx5_0 3", 0,
                         "mlx5_0: SR-IOV 2 -> 3 VFs (the 2 existing VFs were removed first).\n");

        /* The count it already has: said so, not "3 -> 3"; one VF is "VF". */
        assert_output_is(h, "set-vfs mlx5_0 3", 0, "mlx5_0: SR-IOV already has 3 VFs (of 8); nothing changed.\n");
        assert_output_is(h, "set-vfs mlx5_0 1", 0,
                         "mlx5_0: SR-IOV 3 -> 1 VF (the 3 existing VFs were removed first).\n");
        assert_output_is(h, "set-vfs mlx5_0 1", 0, "mlx5_0: SR-IOV already has 1 VF (of 8); nothing changed.\n");
        assert_output_is(h, "set-vfs mlx5_0 0", 0, "mlx5_0: SR-IOV 1 -> 0 VFs (of 8).\n");
        assert_output_is(h, "set-vfs mlx5_0 1", 0, "mlx5_0: SR-IOV 0 -> 1 VF (of 8).\n");
        content = numvfs_file(h);
        assert_string_equal(content, "1\n");
        free(content);
}

static void test_set_vfs_refusals(void **state) {
        Harness *h = *state;
        struct passwd *nobody = getpwnam("nobody");
        char *out, *content;
        int status;

        HARNESS_REQUIRE_POLKIT(have_polkit);
        assert_non_null(nobody);

        /* polkit says no to an unprivileged caller: exit 6, and what to do. */
        out = run_as_nobody(h, "set-vfs mlx5_0 2", &status);
        assert_int_equal(status, 6);
        if (strcmp(out, "rdmactl: not authorized to change the VFs of mlx5_0 (Not authorized for "
                        "org.rdmad1.set-num-vfs.): run as root, or ask an administrator to allow "
                        "org.rdmad1.set-num-vfs in polkit.\n") != 0 &&
            strcmp(out, "rdmactl: not authorized to change the VFs of mlx5_0 without authenticating: run as root, or "
                        "from a terminal without --no-ask-password.\n") != 0)
                fail_msg("unexpected refusal: %s", out);
        free(out);

        /* Reading is still for everyone. */
        out = run_as_nobody(h, "list", &status);
        assert_int_equal(status, 0);
        assert_non_null(strstr(out, "\nmlx5_0 1    ACTIVE LinkUp"));
        free(out);

        /* Checked before polkit: above TotalVfs, not a PF, not a device, not a number. */
        rdmactl_assert_run(h, "set-vfs mlx5_0 9", 2, "rdmactl: mlx5_0 supports at most 8 VFs; 9 requested.\n");
        /* A VF: its PF named, and the command that would do it. */
        rdmactl_assert_run(h, "set-vfs mlx5_1 1", 1,
                           "rdmactl: mlx5_1 is a virtual function of mlx5_0; VFs are set on the physical function: "
                           "rdmactl set-vfs mlx5_0 COUNT\n");
        rdmactl_assert_run(h, "set-vfs nosuch0 1", 4, "rdmactl: No RDMA device or network interface 'nosuch0'.\n");
        rdmactl_assert_run(h, "set-vfs mlx5_0 99999999999", 2,
                           "rdmactl: 99999999999 VFs are out of range; mlx5_0 supports at most 8.\n");
        rdmactl_assert_run(h, "set-vfs mlx5_0 -1", 2, NULL);
        rdmactl_assert_run(h, "set-vfs mlx5_0 many", 2, "rdmactl: 'many' is not a number of VFs.\n");

        content = numvfs_file(h);
        assert_string_equal(content, "1\n"); /* untouched */
        free(content);

        /* Without polkit on the bus: root needs none; anyone else is refused, and told the two ways out. */
        harness_stop_polkit(h);
        out = run_as_nobody(h, "set-vfs mlx5_0 2", &status);
        assert_int_equal(status, 6);
        assert_string_equal(out, "rdmactl: permission denied: polkit is not there to authorize changing the VFs of "
                                 "mlx5_0: run as root, or start polkit (systemctl start polkit).\n");
        free(out);
        assert_output_is(h, "set-vfs mlx5_0 2", 0,
                         "mlx5_0: SR-IOV 1 -> 2 VFs (the 1 existing VF was removed first).\n");
}

/* ---- the bash completion ---- */

/* What the completion offers after the words (the last one being completed),
 * one a line, sorted; rdmactl on the PATH talks to the test's rdmad. */
static char *complete(Harness *h, const char *words) {
        char script[256], *command = NULL, *bindir, *out;
        int status;

        snprintf(script, sizeof(script), "%s/complete.sh", h->tmpdir);
        assert_true(g_file_set_contents(script,
                                        "source \"$1\" || exit 1\n"
                                        "shift\n"
                                        "COMP_WORDS=(\"$@\")\n"
                                        "COMP_CWORD=$(($# - 1))\n"
                                        "_rdmactl\n"
                                        "printf \"%s\\n\" \"${COMPREPLY[@]}\" | sort | tr \"\\n\" \" \"\n",
                                        -1, NULL));
        bindir = g_path_get_dirname(getenv("RDMACTL_BINARY"));
        assert_true(asprintf(&command, "env PATH=%s:\"$PATH\" bash %s %s/../../shell-completion/bash/rdmactl %s",
                             bindir, script, GOLDEN_DIR, words) > 0);
        out = harness_run_command(h, command, &status);
        free(command);
        g_free(bindir);
        if (status != 0)
                fail_msg("completing %s: exit %d: %s", words, status, out);
        return out;
}

static void assert_completes(Harness *h, const char *words, const char *expected) {
        char *out = complete(h, words);

        if (strcmp(out, expected) != 0)
                fail_msg("completing %s: '%s', expected '%s'", words, out, expected);
        free(out);
}

static void test_completion_offers_what_each_word_can_be(void **state) {
        Harness *h = *state;

        assert_completes(h, "rdmactl ''", "counters gids help list monitor route set-vfs status wait ");
        /* gids: names as status; route: an address, nothing to offer. */
        assert_completes(h, "rdmactl gids mlx4", "mlx4_0 mlx4_0/1 mlx4_0/2 ");
        assert_completes(h, "rdmactl route ''", " ");
        /* set-vfs: only the devices with SR-IOV. */
        assert_completes(h, "rdmactl set-vfs ''", "mlx5_0 ");
        assert_completes(h, "rdmactl set-vfs mlx5_0 ''", " ");
        /* wait: names (a device, then maybe its port number; DEVICE/PORT; a
         * netdev), then one state. */
        assert_completes(h, "rdmactl wait mlx4", "mlx4_0 mlx4_0/1 mlx4_0/2 ");
        assert_completes(h, "rdmactl wait e", "ens1d1 ens1f0np0 ens1f0v0 ");
        assert_completes(
                h, "rdmactl wait mlx4_0 ''",
                "1 2 ACTIVE ACTIVE_DEFER ARMED DOWN INIT NOP dummy-siw0 ens1d1 ens1f0np0 ens1f0v0 hfi1_0 hfi1_0/1 ib0 "
                "mlx4_0 mlx4_0/1 mlx4_0/2 mlx5_0 mlx5_0/1 mlx5_1 mlx5_1/1 rxe0 rxe0/1 siw0 siw0/1 veth-rdma0 ");
        assert_completes(h, "rdmactl wait mlx4_0 2 A", "ACTIVE ACTIVE_DEFER ARMED ");
        assert_completes(h, "rdmactl wait mlx4_0/2 D", "DOWN ");
        assert_completes(h, "rdmactl wait ib0 I", "INIT ");
        assert_completes(h, "rdmactl wait ib0 h", "hfi1_0 hfi1_0/1 ");
        assert_completes(h, "rdmactl wait ib0 DOWN ''", " ");
        assert_completes(h, "rdmactl --timeout = 5 wait ib0 I", "INIT ");
        /* status: names, and after a device its ports. */
        assert_completes(h, "rdmactl status mlx4_0 ''",
                         "1 2 dummy-siw0 ens1d1 ens1f0np0 ens1f0v0 hfi1_0 hfi1_0/1 ib0 mlx4_0 mlx4_0/1 mlx4_0/2 "
                         "mlx5_0 mlx5_0/1 mlx5_1 mlx5_1/1 rxe0 rxe0/1 siw0 siw0/1 veth-rdma0 ");
        /* list and monitor: patterns, of which the names are what can be offered. */
        assert_completes(h, "rdmactl list mlx4", "mlx4_0 mlx4_0/1 mlx4_0/2 ");
        assert_completes(h, "rdmactl monitor mlx4_0 ''",
                         "1 2 dummy-siw0 ens1d1 ens1f0np0 ens1f0v0 hfi1_0 hfi1_0/1 ib0 mlx4_0 mlx4_0/1 mlx4_0/2 "
                         "mlx5_0 mlx5_0/1 mlx5_1 mlx5_1/1 rxe0 rxe0/1 siw0 siw0/1 veth-rdma0 ");
        assert_completes(h, "rdmactl list --state=A", "--state=ACTIVE --state=ACTIVE_DEFER --state=ARMED ");
        assert_completes(h, "rdmactl -",
                         "--all --any --exit-on-disconnect --help --ignore= --json --json= --no-ask-password "
                         "--no-color --no-legend --no-pager --quiet --state= --timeout= --version --watch "
                         "--watch= -j ");
        /* Options and the values of --json. */
        assert_completes(h, "rdmactl --no-p", "--no-pager ");
        assert_completes(h, "rdmactl monitor --ex", "--exit-on-disconnect ");
        assert_completes(h, "rdmactl list --json = ''", "off pretty short ");
        assert_completes(h, "rdmactl list --json=p", "--json=pretty ");
}

/* ---- without rdmad ---- */

static void test_clear_message_when_rdmad_is_not_running(void **state) {
        Harness *h = *state;
        Child *monitor = monitor_start_with((const char *const[]){ "monitor", "--exit-on-disconnect", NULL });
        int status;

        /* rdmad stops: monitor --exit-on-disconnect says so and exits 3. */
        assert_int_equal(kill(h->daemon_pid, SIGTERM), 0);
        assert_int_equal(waitpid(h->daemon_pid, &status, 0), h->daemon_pid);
        assert_int_equal(status, 0);
        h->daemon_pid = 0;
        assert_int_equal(child_wait_exit(monitor, 10000), 3);
        assert_string_equal(monitor->out->str, "");
        assert_non_null(strstr(monitor->err->str, "rdmactl: rdmad left the system bus.\n"));
        child_free(monitor);

        /* wait waits for rdmad too, and says at the timeout that it was away. */
        {
                char *out = rdmactl_run(h, &status, "wait mlx5_0 1 ACTIVE --timeout=500ms");

                assert_int_equal(status, 5);
                assert_string_equal(out, "rdmactl: timed out after 500ms.\n"
                                         "rdmactl: rdmad (org.rdmad1) is not on the system bus\n"
                                         "rdmactl: mlx5_0/1: not present, waiting for ACTIVE\n");
                free(out);
        }

        /* A word that is no state is refused at once even so: nothing can be named that. */
        assert_output_is(h, "wait mlx5_0 1 UP --timeout=60s", 2,
                         "rdmactl: 'UP' is not a port state, and no device or network interface has that name; the "
                         "states are ACTIVE, DOWN, INIT, ARMED, ACTIVE_DEFER, NOP (in any case), or their numbers "
                         "0-5.\nTry 'rdmactl --help'.\n");

        /* Every other command: exit 3, one clear line. */
        static const char *const commands[] = { "list",           "list --json",      "list mlx5_0",
                                                "status",         "status mlx5_0",    "monitor",
                                                "monitor mlx5_*", "set-vfs mlx5_0 1", "--list-devices" };
        for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
                char *out = rdmactl_run(h, &status, "%s", commands[i]);

                if (status != 3 || strcmp(out, "rdmactl: rdmad is not running (org.rdmad1 is not on the system "
                                               "bus): systemctl start rdmad; journalctl -u rdmad\n") != 0)
                        fail_msg("rdmactl %s: exit %d: %s", commands[i], status, out);
                free(out);
        }
}

/* Output that cannot be written (a full disk: /dev/full fails the flush
 * with ENOSPC) is a failure said as what it is, JSON or text, exit 1. */
static void test_unwritable_output_is_a_clear_failure(void **state) {
        static const struct {
                const char *args, *message;
        } cases[] = {
                { "list --json", "rdmactl: Failed to write JSON output: No space left on device\n" },
                { "list --json=pretty", "rdmactl: Failed to write JSON output: No space left on device\n" },
                { "status mlx5_0 --json", "rdmactl: Failed to write JSON output: No space left on device\n" },
                { "gids --json", "rdmactl: Failed to write JSON output: No space left on device\n" },
                { "list", "rdmactl: Failed to write the output: No space left on device\n" },
                { "status", "rdmactl: Failed to write the output: No space left on device\n" },
        };
        Harness *h = *state;

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                char *command = NULL, *out;
                int status;

                /* A shell of its own, so that only rdmactl's stdout goes to /dev/full, its stderr to us. */
                assert_true(asprintf(&command, "sh -c '" RDMACTL_ENV "%s %s >/dev/full'", rdmactl_command(),
                                     cases[i].args) >= 0);
                out = harness_run_command(h, command, &status);
                if (status != 1 || strcmp(out, cases[i].message) != 0)
                        fail_msg("rdmactl %s >/dev/full: exit %d (expected 1), output:\n%s\n(expected:\n%s)",
                                 cases[i].args, status, out, cases[i].message);
                free(out);
                free(command);
        }
}

static void test_usage_help_and_version(void **state) {
        Harness *h = *state;
        char *out, *command = NULL;
        int status;

        rdmactl_assert_run(h, "--help", 0, "  0 success, 1 failure, 2 invalid arguments, 3 rdmad not running");
        rdmactl_assert_run(h, "help", 0, "wait [NAME...] [STATE]");
        rdmactl_assert_run(h, "--version", 0, "rdmactl " RDMAD_VERSION "\n");
        rdmactl_assert_run(h, "frobnicate", 2, "rdmactl: unknown command 'frobnicate'.\n");
        /* Unknown, lacking its value, or given one it does not take: three different mistakes. */
        rdmactl_assert_run(h, "--frobnicate", 2, "rdmactl: unknown option '--frobnicate'.\n");
        rdmactl_assert_run(h, "--frobnicate=3", 2, "rdmactl: unknown option '--frobnicate'.\n");
        rdmactl_assert_run(h, "-z", 2, "rdmactl: unknown option '-z'.\n");
        rdmactl_assert_run(h, "list --timeout", 2,
                           "rdmactl: option '--timeout' needs a value, as in '--timeout=VALUE'.\n");
        rdmactl_assert_run(h, "list --no-legend=yes", 2, "rdmactl: option '--no-legend' takes no value.\n");
        rdmactl_assert_run(h, "list --no-pager --no-legend", 0, "\nmlx5_0 1 ACTIVE LinkUp");
        rdmactl_assert_run(h, "help extra", 2, "rdmactl: 'help' takes no arguments.\n");
        rdmactl_assert_run(h, "wait mlx5_0 1 ACTIVE extra", 2,
                           "rdmactl: 'ACTIVE' is a state: name the devices, ports and network interfaces first, then "
                           "one STATE.\n");
        rdmactl_assert_run(h, "set-vfs mlx5_0", 2, "rdmactl: 'set-vfs' needs DEVICE COUNT.\n");
        rdmactl_assert_run(h, "wait mlx5_0 1 ACTIVE --json", 2, "rdmactl: 'wait' has no JSON output.\n");
        rdmactl_assert_run(h, "list --timeout=3", 2, "rdmactl: --timeout is for 'wait' only.\n");
        rdmactl_assert_run(h, "list --exit-on-disconnect", 2, "rdmactl: --exit-on-disconnect is for 'monitor' only.\n");

        /* The completion's source of device names. */
        assert_output_is(h, "--list-devices", 0, "hfi1_0\nmlx4_0\nmlx5_0\nmlx5_1\nrxe0\nsiw0\n");
        assert_output_is(h, "--list=devices", 0, "hfi1_0\nmlx4_0\nmlx5_0\nmlx5_1\nrxe0\nsiw0\n");
        out = rdmactl_run(h, &status, "--list=sriov-devices"); /* what set-vfs can change */
        assert_int_equal(status, 0);
        assert_string_equal(out, "mlx5_0\n");
        free(out);
        assert_output_is(h, "--list=netdevs", 0, "dummy-siw0\nens1d1\nens1f0np0\nens1f0v0\nib0\nveth-rdma0\n");
        assert_output_is(h, "--list=ports", 0, "hfi1_0/1\nmlx4_0/1\nmlx4_0/2\nmlx5_0/1\nmlx5_1/1\nrxe0/1\nsiw0/1\n");

        /* No system bus at all: exit 3 too. */
        assert_true(asprintf(&command, "env DBUS_SYSTEM_BUS_ADDRESS=unix:path=%s/no-such-socket " RDMACTL_ENV "%s list",
                             h->tmpdir, rdmactl_command()) > 0);
        out = harness_run_command(h, command, &status);
        free(command);
        assert_int_equal(status, 3);
        /* Where it looked, and why it failed. */
        {
                char *expected = NULL;

                assert_true(asprintf(&expected,
                                     "rdmactl: Failed to connect to the system bus at unix:path=%s/no-such-socket: No "
                                     "such file or directory.\n",
                                     h->tmpdir) > 0);
                assert_string_equal(out, expected);
                free(expected);
        }
        free(out);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_list_is_the_golden_table, host_setup, harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_status_is_the_golden_text, host_setup, harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_status_of_a_port_named_three_ways, host_setup,
                                                harness_teardown_clean),
                cmocka_unit_test(test_a_host_without_devices_says_so),
                cmocka_unit_test_setup_teardown(test_json_modes_short_pretty_off, host_setup, harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_colours_only_on_a_terminal_that_wants_them, host_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_list_json_has_the_stable_keys_and_values, host_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_status_json_describes_the_device, host_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_json_escapes_what_needs_escaping, host_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_monitor_prints_hot_add_flap_rename_and_removal, host_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_monitor_json_lines, host_setup, harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_monitor_json_pretty, host_setup, harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_monitor_prints_link_property_changes, host_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_monitor_follows_a_restart, host_setup, harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_list_keeps_what_the_patterns_name, host_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_j_is_json, host_setup, harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_monitor_tells_only_what_the_patterns_name, host_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_wait_at_once_after_a_change_and_on_timeout, host_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_wait_names_ports_states_and_spans_the_usual_ways, host_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_set_vfs_as_root_succeeds, polkit_setup, harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_set_vfs_refusals, polkit_setup, harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_completion_offers_what_each_word_can_be, host_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_clear_message_when_rdmad_is_not_running, host_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_usage_help_and_version, host_setup, harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_unwritable_output_is_a_clear_failure, host_setup,
                                                harness_teardown_clean),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
