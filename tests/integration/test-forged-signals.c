/* SPDX-License-Identifier: MIT */
/* Forged signals, sent by another user as broadcasts and as unicasts to
 * every connection on the bus (org.rdmad1(5), "Believing signals"):
 *   - a forged ACTIVE does not end `rdmactl wait` in any form, nor the
 *     rdmad-wait-online unit's own command line;
 *   - monitor prints none of a fake device, a fake removal, a fake state,
 *     a fake departure or return of rdmad, and still prints real changes;
 *   - a forged NameOwnerChanged for root's connection, sent to rdmad, does
 *     not drop root's held WaitForState;
 *   - a real restart of rdmad is still followed, and the new owner's
 *     signals believed. */
#include <errno.h>
#include <fcntl.h>
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

#include "basic/util.h"
#include "forge.h"
#include "harness.h"
#include "rdmactl-run.h"

#define HFI1_SYS   "/sys/devices/pci0000:80/0000:80:03.0/0000:81:00.0/infiniband/hfi1_0"
#define MLX4_SYS   "/sys/devices/pci0000:00/0000:00:03.0/0000:03:00.0/infiniband/mlx4_0"
#define HFI1_DEV   RDMAD_DEVICE_PREFIX "/hfi1_5f0"
#define MLX4_DEV   RDMAD_DEVICE_PREFIX "/mlx4_5f0"
#define HFI1_PORT1 HFI1_DEV "/port/1"
#define MLX4_PORT1 MLX4_DEV "/port/1"
#define MLX4_PORT2 MLX4_DEV "/port/2"

static const char *const fast_poll[] = { "--poll-interval=50", NULL };

static int host_setup(void **state) {
        *state = harness_start(HARNESS_FIXTURES("mlx4-vpi", "hfi1"), fast_poll);
        return 0;
}

static bool port_is(Harness *h, const char *path, const char *state) {
        char *now = harness_get_property(h, path, RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE_NAME, NULL);
        bool is = now && streq(now, state);

        free(now);
        return is;
}

static bool every_port_init(Harness *h, const void *data, FILE *seen) {
        bool hfi1 = port_is(h, HFI1_PORT1, "INIT"), mlx4 = port_is(h, MLX4_PORT1, "INIT");

        fprintf(seen, "hfi1_0/1 %s, mlx4_0/1 %s", hfi1 ? "INIT" : "not INIT", mlx4 ? "INIT" : "not INIT");
        return hfi1 && mlx4;
}

/* Every port with a link INIT (mlx4_0/2 has none: DOWN, Disabled). */
static void bring_links_to_init(Harness *h) {
        harness_write(h, HFI1_SYS, "ports/1/state", "2: INIT\n");
        harness_write(h, MLX4_SYS, "ports/1/state", "2: INIT\n");
        harness_wait_for(h, every_port_init, NULL, 10000, "every port with a link INIT");
}

/* Everything a forger would say to end a wait, every 100 ms for ms. */
static void forge_links_up_for(Harness *h, sd_bus *forger, int ms) {
        _cleanup_free_ char *owner = bus_name_owner(h, RDMAD_BUS_NAME);
        const char *self = NULL;

        assert_true(sd_bus_get_unique_name(forger, &self) >= 0);
        for (int t = 0; t < ms; t += 100) {
                forge_port_active(forger, HFI1_PORT1);
                forge_port_active(forger, MLX4_PORT1);
                forge_port_active(forger, MLX4_PORT2);
                /* "rdmad left, and came back as me": then mine would be believed. */
                if (t % 1000 == 0)
                        forge_owner_change(forger, RDMAD_BUS_NAME, owner, self);
                harness_observe(h, 100, "the forger's pace: every 100 ms");
        }
}

static void test_a_forged_active_does_not_end_a_wait(void **state) {
        Harness *h = *state;
        static const char *const forms[] = {
                "wait --quiet --timeout=3s",
                "wait hfi1_0 --state=ACTIVE --timeout=3s",
                "wait hfi1_0/1 --timeout=3s",
                "wait mlx4_0 1 ACTIVE --timeout=3s",
        };
        RdmactlChild *children[sizeof(forms) / sizeof(forms[0])], *unit;
        sd_bus *forger = forger_open(h, FORGER_UID);

        bring_links_to_init(h);
        for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++)
                children[i] = rdmactl_child_start(forms[i]);
        /* rdmad-wait-online.service's ExecStart, as it is (its timeout is 2min). */
        unit = rdmactl_child_start("wait --quiet --timeout=2min");
        /* A quiet wait says nothing when it has subscribed and read; the forgeries
         * go on for 2.5 s, this only lets them hear all of it. */
        harness_observe(h, 300, "the waits to subscribe and read");

        forge_links_up_for(h, forger, 2500);

        for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
                int status = rdmactl_child_wait_exit(children[i], 5000);

                if (status != 5 || !strstr(children[i]->err->str, "waiting for ACTIVE"))
                        fail_msg("rdmactl %s: exit %d (expected 5 at its timeout); stderr:\n%s", forms[i], status,
                                 children[i]->err->str);
                rdmactl_child_free(children[i]);
        }
        /* Still waiting, a second after the forger's last word. */
        assert_int_equal(rdmactl_child_wait_exit(unit, 1000), -1);
        rdmactl_child_free(unit);
        sd_bus_flush_close_unref(forger);

        /* The real thing still ends it. */
        unit = rdmactl_child_start("wait --quiet --timeout=20s");
        harness_observe(h, 300, "the wait to subscribe and read, so that a change ends it");
        harness_write(h, HFI1_SYS, "ports/1/state", "4: ACTIVE\n");
        harness_write(h, MLX4_SYS, "ports/1/state", "4: ACTIVE\n");
        harness_write(h, MLX4_SYS, "ports/2/state", "4: ACTIVE\n");
        assert_int_equal(rdmactl_child_wait_exit(unit, 15000), 0);
        rdmactl_child_free(unit);
}

static void monitor_expect(RdmactlChild *m, const char *needle) {
        if (!rdmactl_child_wait_for(m, needle, false, 10000))
                fail_msg("monitor did not print \"%s\"; stdout:\n%s\nstderr:\n%s", needle, m->out->str, m->err->str);
}

static void test_monitor_prints_no_forgery(void **state) {
        Harness *h = *state;
        RdmactlChild *m = rdmactl_child_start("monitor");
        sd_bus *forger = forger_open(h, FORGER_UID);
        _cleanup_free_ char *owner = NULL;
        const char *self = NULL;

        if (!rdmactl_child_wait_for(m, "Monitoring " RDMAD_BUS_NAME, true, 10000))
                fail_msg("monitor did not start: %s", m->err->str);
        owner = bus_name_owner(h, RDMAD_BUS_NAME);
        assert_true(sd_bus_get_unique_name(forger, &self) >= 0);

        forge_evil_device(forger);
        forge_device_removed(forger, MLX4_DEV);
        forge_port_active(forger, MLX4_PORT2);
        /* rdmad "leaves" and "comes back" as the forger, who then speaks. */
        forge_owner_change(forger, RDMAD_BUS_NAME, owner, self);
        forge_evil_device(forger);
        forge_port_active(forger, MLX4_PORT2);
        harness_bus_barrier(forger); /* the bus has routed them all, before the real change */

        /* A real change after them all: what monitor prints up to it is all it took in.
         * On mlx4_0's port 1, InfiniBand: with no verbs the poll reads it every tick.
         * Port 2 is RoCE, which rtnetlink covers: a change of its files alone shows
         * only in the slow round, 10 s apart (docs/dbus-api.md, the poll timer). */
        harness_write(h, MLX4_SYS, "ports/1/state", "3: ARMED\n");
        monitor_expect(m, "mlx4_0 port 1: ");
        monitor_expect(m, "ACTIVE -> ARMED");
        (void) rdmactl_child_wait_for(m, "\x01never", false, 200);
        if (strstr(m->out->str, "evil0") || strstr(m->out->str, "removed") || strstr(m->out->str, "hfi1_0") ||
            strstr(m->out->str, "port 2") || strstr(m->out->str, "-> ACTIVE") || strstr(m->out->str, "restarted") ||
            strstr(m->err->str, "left"))
                fail_msg("monitor took in a forgery; stdout:\n%s\nstderr:\n%s", m->out->str, m->err->str);
        assert_non_null(strstr(m->out->str, "ACTIVE -> ARMED"));

        /* A real restart is still followed, and the new owner believed. */
        harness_restart_daemon(h, fast_poll);
        monitor_expect(m, "rdmad restarted: ");
        harness_write(h, MLX4_SYS, "ports/1/state", "4: ACTIVE\n");
        monitor_expect(m, "ARMED -> ACTIVE");

        sd_bus_flush_close_unref(forger);
        kill(m->pid, SIGTERM);
        assert_int_equal(rdmactl_child_wait_exit(m, 10000), 0);
        rdmactl_child_free(m);
}

static void test_a_forged_departure_keeps_roots_wait(void **state) {
        Harness *h = *state;
        sd_bus *forger = forger_open(h, FORGER_UID);
        _cleanup_free_ char *log = NULL;
        const char *root = NULL;
        AsyncReply reply = {};

        bring_links_to_init(h);
        assert_true(sd_bus_call_method_async(h->bus, NULL, RDMAD_BUS_NAME, HFI1_PORT1, RDMAD_PORT_INTERFACE,
                                             RDMAD_METHOD_WAIT_FOR_STATE, harness_on_reply, &reply, "su", "ACTIVE",
                                             (uint32_t) 15000) >= 0);
        harness_ping(h); /* rdmad holds it, or answered before the Ping */
        assert_false(reply.done);

        /* "root's connection left the bus", to rdmad by name and to everyone. */
        assert_true(sd_bus_get_unique_name(h->bus, &root) >= 0);
        for (int i = 0; i < 5; i++)
                forge(forger, DBUS_PATH, DBUS_INTERFACE, "NameOwnerChanged", "sss", root, root, "");
        /* rdmad reads one connection in order: after both round trips it has handled every forgery. */
        harness_bus_barrier(forger);
        harness_ping(h);
        assert_false(reply.done);

        harness_write(h, HFI1_SYS, "ports/1/state", "4: ACTIVE\n");
        harness_wait_reply(h, &reply, 10000, "WaitForState(ACTIVE) after the real change");
        assert_null(reply.error_name);
        log = harness_daemon_log(h);
        assert_null(strstr(log, "left the bus"));
        async_reply_clear(&reply);
        sd_bus_flush_close_unref(forger);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_a_forged_active_does_not_end_a_wait, host_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_monitor_prints_no_forgery, host_setup, harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_a_forged_departure_keeps_roots_wait, host_setup,
                                                harness_teardown_clean),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
