/* SPDX-License-Identifier: MIT */
/* The rules of `rdmactl wait` (wait-check.c) on made-up inventories: which
 * ports are waited for without names, what a name stands for, --any,
 * --ignore, and the line each missing thing gets. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "basic/util.h"
#include "wait-check.h"

#define MLX5 "/org/rdmad1/device/mlx5_5f0"
#define HFI1 "/org/rdmad1/device/hfi1_5f0"

static RdmaDevice mlx5 = { .path = (char *) MLX5, .name = (char *) "mlx5_0" };
static RdmaDevice hfi1 = { .path = (char *) HFI1, .name = (char *) "hfi1_0" };

/* The kernel's phys_state numbers, as rdmad publishes them beside the names. */
static uint32_t phys_state_num(const char *name) {
        static const char *const names[] = {
                "", "Sleep", "Polling", "Disabled", "PortConfigurationTraining", "LinkUp", "LinkErrorRecovery"
        };
        for (uint32_t i = 0; i < ELEMENTSOF(names); i++)
                if (streq(names[i], name))
                        return i;
        fail_msg("no phys_state %s", name);
        return 0;
}

static char port_paths[8][128];
static size_t n_port_paths;

static RdmaPort port(const char *device, uint32_t number, const char *state, const char *phys, const char *netdev) {
        char *path = port_paths[n_port_paths++ % ELEMENTSOF(port_paths)];

        snprintf(path, sizeof(port_paths[0]), "%s/port/%u", device, number);
        return (RdmaPort){ .path = path,
                           .device = (char *) device,
                           .number = number,
                           .state_name = (char *) state,
                           .phys_state_name = (char *) phys,
                           .phys_state_num = phys_state_num(phys),
                           .netdev = (char *) netdev };
}

static void set_phys(RdmaPort *p, const char *phys) {
        p->phys_state_name = (char *) phys;
        p->phys_state_num = phys_state_num(phys);
}

typedef struct Host {
        RdmaPort ports[4];
        RdmaPort *port_ptrs[4];
        RdmaDevice *device_ptrs[2];
        RdmaNetDev netdev;
        RdmaNetDev *netdev_ptrs[1];
        Inventory inv;
} Host;

/* mlx5_0/1 ACTIVE (LinkUp, netdev ens1), mlx5_0/2 DOWN (Polling: no cable),
 * hfi1_0/1 INIT (LinkUp). */
static void host_init(Host *h) {
        *h = (Host){};
        h->ports[0] = port(MLX5, 1, "ACTIVE", "LinkUp", MLX5 "/netdev/ens1");
        h->ports[1] = port(MLX5, 2, "DOWN", "Polling", "/");
        h->ports[2] = port(HFI1, 1, "INIT", "LinkUp", "/");
        for (size_t i = 0; i < 3; i++)
                h->port_ptrs[i] = &h->ports[i];
        h->device_ptrs[0] = &mlx5;
        h->device_ptrs[1] = &hfi1;
        h->netdev = (RdmaNetDev){ .path = (char *) MLX5 "/netdev/ens1",
                                  .name = (char *) "ens1",
                                  .device = (char *) MLX5,
                                  .port = (char *) MLX5 "/port/1" };
        h->netdev_ptrs[0] = &h->netdev;
        h->inv = (Inventory){ .devices = h->device_ptrs,
                              .n_devices = 2,
                              .ports = h->port_ptrs,
                              .n_ports = 3,
                              .netdevs = h->netdev_ptrs,
                              .n_netdevs = 1 };
}

/* Checks spec against the host: done or not, and the pending lines joined
 * by '|' (NULL: not compared). */
static void check(const Host *h, const WaitSpec *spec, bool done, const char *pending) {
        WaitCheck c = {};
        char joined[1024] = "";

        assert_int_equal(wait_check(spec, &h->inv, &c), 0);
        for (size_t i = 0; i < c.n_pending; i++) {
                if (i > 0)
                        strncat(joined, "|", sizeof(joined) - strlen(joined) - 1);
                strncat(joined, c.pending[i], sizeof(joined) - strlen(joined) - 1);
        }
        if (c.done != done || (pending && !streq(joined, pending)))
                fail_msg("done %d, pending \"%s\"; expected done %d, \"%s\"", c.done, joined, done, pending);
        wait_check_done(&c);
}

static void test_no_names_waits_for_every_linked_port(void **state) {
        Host h;
        WaitSpec spec = { .state = "ACTIVE" };

        host_init(&h);
        /* hfi1_0/1 has a link and is INIT; mlx5_0/2 has no cable and is not waited for. */
        check(&h, &spec, false, "hfi1_0/1: INIT (LinkUp), waiting for ACTIVE");
        h.ports[2].state_name = (char *) "ACTIVE";
        check(&h, &spec, true, "");
}

static void test_no_names_needs_one_port_in_the_state(void **state) {
        Host h;
        WaitSpec spec = { .state = "ACTIVE" };

        host_init(&h);
        h.inv.n_ports = 0;
        h.inv.n_devices = 0;
        check(&h, &spec, false, "no port with a physical link yet, waiting for ACTIVE");

        /* Ports, but none with a cable: still waiting. */
        h.inv.n_ports = 3;
        h.inv.n_devices = 2;
        set_phys(&h.ports[0], "Disabled");
        set_phys(&h.ports[2], "Polling");
        check(&h, &spec, false, "no port with a physical link yet, waiting for ACTIVE");
}

static void test_any_one_port_suffices(void **state) {
        Host h;
        WaitSpec spec = { .state = "ACTIVE", .any = true };

        host_init(&h);
        check(&h, &spec, true, NULL);
        h.ports[0].state_name = (char *) "DOWN";
        check(&h, &spec, false,
              "mlx5_0/1: DOWN (LinkUp), waiting for ACTIVE|hfi1_0/1: INIT (LinkUp), waiting for ACTIVE");
}

static void test_ignore_leaves_out_device_port_or_netdev(void **state) {
        Host h;
        char *ignore_dev[] = { (char *) "hfi1_*" };
        char *ignore_port[] = { (char *) "hfi1_0/1" };
        WaitSpec spec = { .state = "ACTIVE", .ignore = ignore_dev, .n_ignore = 1 };

        host_init(&h);
        check(&h, &spec, true, "");
        spec.ignore = ignore_port;
        check(&h, &spec, true, "");
}

static void test_named_port_device_and_netdev(void **state) {
        Host h;
        char *dev_port[] = { (char *) "hfi1_0/1" };
        char *device[] = { (char *) "mlx5_0" };
        char *netdev[] = { (char *) "ens1" };
        WaitSpec spec = { .state = "ACTIVE", .names = dev_port, .n_names = 1 };

        host_init(&h);
        check(&h, &spec, false, "hfi1_0/1: INIT (LinkUp), waiting for ACTIVE");

        /* A bare device stands for all its ports, the one without a cable too. */
        spec.names = device;
        check(&h, &spec, false, "mlx5_0/2: DOWN (Polling), waiting for ACTIVE");

        /* A netdev stands for its port. */
        spec.names = netdev;
        check(&h, &spec, true, "");
}

static void test_named_but_absent_is_pending(void **state) {
        Host h;
        char *names[] = { (char *) "rxe1/1", (char *) "mlx5_0/9" };
        WaitSpec spec = { .state = "ACTIVE", .names = names, .n_names = 2 };
        WaitCheck c = {};

        host_init(&h);
        assert_int_equal(wait_check(&spec, &h.inv, &c), 0);
        assert_false(c.done);
        assert_int_equal(c.n_pending, 2);
        assert_non_null(strstr(c.pending[0], "rxe1"));
        assert_non_null(strstr(c.pending[1], "mlx5_0/9"));
        wait_check_done(&c);
}

static void set_health(RdmaDevice *d, const char *health, const char *reason) {
        d->health = (char *) health;
        d->health_reason = (char *) reason;
}

/* A device whose reads hang publishes its last known state: its ports are
 * not there yet, named or not, until it answers again. */
static void test_unresponsive_device_is_not_there_yet(void **state) {
        Host h;
        char *named[] = { (char *) "hfi1_0/1" };
        WaitSpec spec = { .state = "ACTIVE" };

        host_init(&h);
        h.ports[2].state_name = (char *) "ACTIVE";
        check(&h, &spec, true, "");
        set_health(&hfi1, "unresponsive", "ports/1/state: no answer for 5.0 s");
        check(&h, &spec, false,
              "hfi1_0/1: unresponsive (ports/1/state: no answer for 5.0 s), last known ACTIVE (LinkUp), waiting for "
              "ACTIVE");
        spec.names = named;
        spec.n_names = 1;
        check(&h, &spec, false,
              "hfi1_0/1: unresponsive (ports/1/state: no answer for 5.0 s), last known ACTIVE (LinkUp), waiting for "
              "ACTIVE");
        /* Whatever the state waited for: DOWN is not known either. */
        spec.state = "DOWN";
        h.ports[2].state_name = (char *) "DOWN";
        check(&h, &spec, false, NULL);

        /* --any: a healthy port in the state suffices. */
        spec = (WaitSpec){ .state = "ACTIVE", .any = true };
        check(&h, &spec, true, NULL);

        /* Back: the state it reads now decides. */
        set_health(&hfi1, "ok", "");
        spec = (WaitSpec){ .state = "DOWN", .names = named, .n_names = 1 };
        check(&h, &spec, true, "");
        set_health(&hfi1, NULL, NULL);
}

/* Without names, a sick device's port is waited for unless it was last
 * known to have no cable; one never read (at start-up) is. */
static void test_unresponsive_ports_waited_for_without_names(void **state) {
        Host h;
        WaitSpec spec = { .state = "ACTIVE" };

        host_init(&h);
        h.ports[2].state_name = (char *) "ACTIVE";
        set_health(&mlx5, "unresponsive", "");
        /* mlx5_0/2 was Polling: left out; mlx5_0/1 was ACTIVE, and no reason is given. */
        check(&h, &spec, false, "mlx5_0/1: unresponsive, last known ACTIVE (LinkUp), waiting for ACTIVE");

        /* Published after the read timeout at start-up: nothing read but the name. */
        h.ports[0].state_name = (char *) "";
        h.ports[0].phys_state_name = (char *) "";
        h.ports[0].phys_state_num = 0;
        check(&h, &spec, false, "mlx5_0/1: unresponsive, last known unknown, waiting for ACTIVE");

        /* --ignore leaves it out like any other. */
        {
                char *ignore[] = { (char *) "mlx5_0" };

                spec.ignore = ignore;
                spec.n_ignore = 1;
                check(&h, &spec, true, "");
        }
        set_health(&mlx5, NULL, NULL);
}

/* An I/O error: the values read still count; a state that could not be read says why. */
static void test_errors_explain_an_unknown_state(void **state) {
        Host h;
        char *named[] = { (char *) "hfi1_0/1", (char *) "mlx5_0/1" };
        WaitSpec spec = { .state = "ACTIVE", .names = named, .n_names = 2 };

        host_init(&h);
        set_health(&hfi1, "errors", "ports/1/state: Input/output error");
        set_health(&mlx5, "errors", "ports/1/counters/symbol_error: Input/output error");
        h.ports[2].state_name = (char *) "";
        check(&h, &spec, false,
              "hfi1_0/1: unknown (LinkUp), errors (ports/1/state: Input/output error), waiting for ACTIVE");
        h.ports[2].state_name = (char *) "ACTIVE";
        check(&h, &spec, true, "");
        set_health(&hfi1, NULL, NULL);
        set_health(&mlx5, NULL, NULL);
}

static void test_names_from_args(void **state) {
        char *args[] = { (char *) "mlx5_0", (char *) "1", (char *) "hfi1_0", (char *) "ens1" };
        char *bad_args[] = { (char *) "7" };
        char **names = NULL;
        size_t n = 0;
        const char *bad = NULL;

        assert_int_equal(wait_names_from_args(args, 4, &names, &n, &bad), 0);
        assert_int_equal(n, 3);
        assert_string_equal(names[0], "mlx5_0/1");
        assert_string_equal(names[1], "hfi1_0");
        assert_string_equal(names[2], "ens1");
        strv_free(names);

        assert_int_equal(wait_names_from_args(bad_args, 1, &names, &n, &bad), -EINVAL);
        assert_string_equal(bad, "7");
}

static void test_physical_link_states(void **state) {
        RdmaPort p = port(MLX5, 1, "INIT", "LinkUp", "/");

        assert_true(port_has_physical_link(&p));
        set_phys(&p, "PortConfigurationTraining");
        assert_true(port_has_physical_link(&p));
        set_phys(&p, "LinkErrorRecovery");
        assert_true(port_has_physical_link(&p));
        set_phys(&p, "Polling");
        assert_false(port_has_physical_link(&p));
        set_phys(&p, "Disabled");
        assert_false(port_has_physical_link(&p));
        set_phys(&p, "Sleep");
        assert_false(port_has_physical_link(&p));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_no_names_waits_for_every_linked_port),
                cmocka_unit_test(test_no_names_needs_one_port_in_the_state),
                cmocka_unit_test(test_any_one_port_suffices),
                cmocka_unit_test(test_ignore_leaves_out_device_port_or_netdev),
                cmocka_unit_test(test_named_port_device_and_netdev),
                cmocka_unit_test(test_named_but_absent_is_pending),
                cmocka_unit_test(test_unresponsive_device_is_not_there_yet),
                cmocka_unit_test(test_unresponsive_ports_waited_for_without_names),
                cmocka_unit_test(test_errors_explain_an_unknown_state),
                cmocka_unit_test(test_names_from_args),
                cmocka_unit_test(test_physical_link_states),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
