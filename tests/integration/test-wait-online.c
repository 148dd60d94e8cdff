/* SPDX-License-Identifier: MIT */
/* rdmactl wait in its boot-time form, against the real rdmad on a private
 * bus: every port with a link, a port that comes up later, a device
 * hot-added and a netdev renamed into place while waited for, rdmad absent
 * at the start or restarted during the wait, --any, --ignore, the timeout's
 * lines, the progress lines and --quiet. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
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

#define HFI1_SYS     "/sys/devices/pci0000:80/0000:80:03.0/0000:81:00.0/infiniband/hfi1_0"
#define MLX4_SYS     "/sys/devices/pci0000:00/0000:00:03.0/0000:03:00.0/infiniband/mlx4_0"
#define MLX5_PF_SYS  "/sys/devices/pci0000:5d/0000:5d:00.0/0000:5e:00.0"
#define MLX5_NET_SYS MLX5_PF_SYS "/net/ens1f0np0"
#define HFI1_PORT    "/org/rdmad1/device/hfi1_5f0/port/1"
#define MLX4_PORT2   "/org/rdmad1/device/mlx4_5f0/port/2"

static const char *const fast_poll[] = { "--poll-interval=50", NULL };

static int host_setup(void **state) {
        *state = harness_start(HARNESS_FIXTURES("mlx4-vpi", "mlx5-roce-sriov", "hfi1", "rxe", "siw"), fast_poll);
        return 0;
}

/* rdmactl in the background, its stderr collected. */
typedef struct Child {
        pid_t pid;
        int err_fd;
        char err[8192];
        size_t n_err;
        uint64_t start_usec;
} Child;

static Child *child_start(const char *args) {
        Child *c = calloc(1, sizeof(Child));
        int err[2];

        assert_non_null(c);
        assert_int_equal(pipe2(err, O_CLOEXEC), 0);
        c->start_usec = now_usec();
        c->pid = rdmactl_spawn(args, err[1], err[1]);
        close(err[1]);
        c->err_fd = err[0];
        return c;
}

static void child_read(Child *c, int timeout_ms) {
        struct pollfd p = { .fd = c->err_fd, .events = POLLIN };

        while (c->err_fd >= 0 && poll(&p, 1, timeout_ms) > 0) {
                ssize_t n = read(c->err_fd, c->err + c->n_err, sizeof(c->err) - 1 - c->n_err);

                if (n <= 0) {
                        close(c->err_fd);
                        c->err_fd = -1;
                        break;
                }
                c->n_err += (size_t) n;
                c->err[c->n_err] = '\0';
                timeout_ms = 0;
        }
}

/* Its exit status, or -1 if it still runs after timeout_ms; the bus of the
 * test is served meanwhile (the harness's signals). */
static int child_wait_exit(Harness *h, Child *c, int timeout_ms) {
        uint64_t deadline = now_usec() + (uint64_t) timeout_ms * 1000;
        int status;

        for (;;) {
                child_read(c, 0);
                if (waitpid(c->pid, &status, WNOHANG) == c->pid) {
                        c->pid = 0;
                        child_read(c, 1000);
                        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
                }
                if (now_usec() > deadline)
                        return -1;
                harness_observe(h, 10, "a polling interval of this bounded loop");
        }
}

static void child_free(Child *c) {
        if (c->pid > 0) {
                kill(c->pid, SIGKILL);
                waitpid(c->pid, NULL, 0);
        }
        if (c->err_fd >= 0)
                close(c->err_fd);
        free(c);
}

/* A port's state and physical state, written between two poll ticks; returns when rdmad published it. */
static void set_port(Harness *h, const char *syspath, const char *dbus_path, int port, const char *state,
                     const char *phys_state) {
        char state_file[64], phys_file[64];
        size_t before = harness_count_signals(h, dbus_path, "PropertiesChanged");

        snprintf(state_file, sizeof(state_file), "ports/%d/state", port);
        snprintf(phys_file, sizeof(phys_file), "ports/%d/phys_state", port);
        harness_pause(h);
        harness_write(h, syspath, state_file, state);
        harness_write(h, syspath, phys_file, phys_state);
        harness_resume(h);
        /* An Ethernet port (mlx4_0/2) follows its netdev's link events and is
         * polled only on the slow period: the device's change uevent stands in
         * for the event the kernel would send. */
        umockdev_testbed_uevent(h->testbed, syspath, "change");
        harness_wait_signals(h, dbus_path, "PropertiesChanged", before + 1);
}

/* ---- no names: every port with a link ---- */

static void test_every_linked_port_already_active_exits_at_once(void **state) {
        Harness *h = *state;
        uint64_t start = now_usec();
        int status;
        char *out;

        /* mlx4_0 port 2 is DOWN (Disabled): no cable, not waited for. */
        out = rdmactl_run(h, &status, "wait --timeout=20s");
        assert_int_equal(status, 0);
        assert_string_equal(out, "");
        free(out);
        assert_true(now_usec() - start < 5000000);

        /* Polling is no cable either; named, though, it is waited for. */
        set_port(h, MLX4_SYS, MLX4_PORT2, 2, "1: DOWN\n", "2: Polling\n");
        rdmactl_assert_run(h, "wait --timeout=20s", 0, NULL);
        rdmactl_assert_run(h, "wait mlx4_0/2 --state=ACTIVE --timeout=300ms", 5,
                           "rdmactl: mlx4_0/2: DOWN (Polling), waiting for ACTIVE\n");

        /* A cable (LinkUp) makes it one of those waited for. */
        set_port(h, MLX4_SYS, MLX4_PORT2, 2, "2: INIT\n", "5: LinkUp\n");
        rdmactl_assert_run(h, "wait --timeout=300ms", 5, "rdmactl: mlx4_0/2: INIT (LinkUp), waiting for ACTIVE\n");
        /* Another state than ACTIVE: every linked port must be in it. */
        rdmactl_assert_run(h, "wait --state=INIT --timeout=300ms", 5, "mlx5_0/1: ACTIVE (LinkUp), waiting for INIT\n");
}

static void test_a_port_that_comes_up_later(void **state) {
        Harness *h = *state;
        uint64_t start;
        Child *c;

        set_port(h, HFI1_SYS, HFI1_PORT, 1, "2: INIT\n", "5: LinkUp\n");

        /* Not in time: exit 5 and the line that names it, with its state and physical state. */
        rdmactl_assert_run(h, "wait --timeout=500ms", 5, "rdmactl: hfi1_0/1: INIT (LinkUp), waiting for ACTIVE\n");

        c = child_start("wait --timeout=30s");
        start = now_usec();
        assert_int_equal(child_wait_exit(h, c, 1000), -1);
        set_port(h, HFI1_SYS, HFI1_PORT, 1, "4: ACTIVE\n", "5: LinkUp\n");
        assert_int_equal(child_wait_exit(h, c, 10000), 0);
        /* "after about 1 s": not before the flip, and not at the timeout. */
        assert_true(now_usec() - start >= 1000000);
        assert_true(now_usec() - start < 15000000);
        assert_string_equal(c->err, "");
        child_free(c);
}

/* ---- names that are not there yet ---- */

static void test_a_named_device_hot_added_later(void **state) {
        Harness *h = *state;
        Child *device = child_start("wait rxe5 --state=ACTIVE --timeout=30s");
        Child *port = child_start("wait rxe5 1 --state=ACTIVE --timeout=30s");

        assert_int_equal(child_wait_exit(h, device, 1000), -1);
        assert_int_equal(child_wait_exit(h, port, 0), -1);
        harness_add_rxe5(h);
        assert_int_equal(child_wait_exit(h, device, 10000), 0);
        assert_int_equal(child_wait_exit(h, port, 10000), 0);
        child_free(device);
        child_free(port);

        /* Not there at the end: said so, in every form of the grammar. */
        rdmactl_assert_run(h, "wait rxe9/1 --state=ACTIVE --timeout=300ms", 5,
                           "rdmactl: rxe9/1: not present, waiting for ACTIVE\n");
        rdmactl_assert_run(h, "wait rxe9/1 --timeout=300ms", 5, "rdmactl: rxe9/1: not present, waiting for ACTIVE\n");
        rdmactl_assert_run(h, "wait rxe9 1 ACTIVE --timeout=300ms", 5,
                           "rdmactl: rxe9/1: not present, waiting for ACTIVE\n");
        rdmactl_assert_run(h, "wait nosuch0 --state=ACTIVE --timeout=300ms", 5,
                           "rdmactl: nosuch0: not present, waiting for ACTIVE\n");
        rdmactl_assert_run(h, "wait mlx4_0/3 ACTIVE --timeout=300ms", 5,
                           "rdmactl: mlx4_0/3: not present (the device has no such port yet), waiting for ACTIVE\n");
}

static void test_a_device_that_goes_away_is_waited_for_again(void **state) {
        Harness *h = *state;
        Child *c;

        set_port(h, HFI1_SYS, HFI1_PORT, 1, "2: INIT\n", "5: LinkUp\n");
        c = child_start("wait hfi1_0 --state=ACTIVE --timeout=30s");
        assert_int_equal(child_wait_exit(h, c, 500), -1);
        /* Gone: still waited for... */
        umockdev_testbed_uevent(h->testbed, HFI1_SYS, "remove");
        umockdev_testbed_remove_device(h->testbed, HFI1_SYS);
        harness_wait_signals(h, RDMAD_ROOT_PATH, "InterfacesRemoved", 2);
        assert_int_equal(child_wait_exit(h, c, 500), -1);
        /* ...and found when it is back, up. */
        harness_add_rxe5(h);
        harness_rename_device(h, "/sys/devices/virtual/infiniband/rxe5", "hfi1_0");
        assert_int_equal(child_wait_exit(h, c, 10000), 0);
        child_free(c);
}

static void test_a_netdev_renamed_into_place(void **state) {
        Harness *h = *state;
        Child *c = child_start("wait rdma-roce0 --state=ACTIVE --timeout=30s");

        assert_int_equal(child_wait_exit(h, c, 1000), -1);
        harness_rename_netdev(h, MLX5_NET_SYS, "rdma-roce0");
        assert_int_equal(child_wait_exit(h, c, 10000), 0);
        child_free(c);
        rdmactl_assert_run(h, "wait rdma-roce0 --state=4 --timeout=5s", 0, NULL);
}

/* ---- rdmad not there, or restarting ---- */

static void test_rdmad_started_after_wait(void **state) {
        Harness *h = *state;
        Child *c;

        harness_stop_daemon(h);
        c = child_start("wait --timeout=30s");
        assert_int_equal(child_wait_exit(h, c, 1000), -1);
        harness_start_daemon(h, fast_poll);
        assert_int_equal(child_wait_exit(h, c, 10000), 0);
        child_free(c);

        /* Not back in time: the line says rdmad is not there. */
        harness_stop_daemon(h);
        rdmactl_assert_run(h, "wait mlx5_0/1 --state=ACTIVE --timeout=300ms", 5,
                           "rdmactl: rdmad (org.rdmad1) is not on the system bus\n");
        harness_start_daemon(h, fast_poll);
}

static void test_rdmad_killed_and_restarted_during_the_wait(void **state) {
        Harness *h = *state;
        int status;
        Child *c;

        set_port(h, HFI1_SYS, HFI1_PORT, 1, "2: INIT\n", "5: LinkUp\n");
        c = child_start("wait hfi1_0/1 --state=ACTIVE --timeout=60s");
        assert_int_equal(child_wait_exit(h, c, 500), -1);

        assert_int_equal(kill(h->daemon_pid, SIGKILL), 0);
        assert_int_equal(waitpid(h->daemon_pid, &status, 0), h->daemon_pid);
        h->daemon_pid = 0;
        assert_int_equal(child_wait_exit(h, c, 500), -1);

        /* Back, the port still INIT: still waiting; then ACTIVE: done. */
        harness_start_daemon(h, fast_poll);
        assert_int_equal(child_wait_exit(h, c, 1000), -1);
        set_port(h, HFI1_SYS, HFI1_PORT, 1, "4: ACTIVE\n", "5: LinkUp\n");
        assert_int_equal(child_wait_exit(h, c, 10000), 0);
        child_free(c);
}

static void test_no_bus_at_all_is_exit_3(void **state) {
        Harness *h = *state;
        char *command = NULL, *out;
        int status;

        assert_true(asprintf(&command, "env DBUS_SYSTEM_BUS_ADDRESS=unix:path=%s/no-such-socket %s wait --timeout=5s",
                             h->tmpdir, rdmactl_binary()) > 0);
        out = harness_run_command(h, command, &status);
        free(command);
        assert_int_equal(status, 3);
        command = NULL;
        assert_true(asprintf(&command,
                             "rdmactl: Failed to connect to the system bus at unix:path=%s/no-such-socket: No such "
                             "file or directory.\n",
                             h->tmpdir) > 0);
        assert_string_equal(out, command); /* where it looked, and why it failed */
        free(command);
        free(out);
}

/* ---- a word meant as a state ---- */

#define STATES_LIST   "ACTIVE, DOWN, INIT, ARMED, ACTIVE_DEFER, NOP (in any case), or their numbers 0-5"
#define STATES_LISTED STATES_LIST ".\n"

/* A word that cannot match is refused at once (exit 2, not 5 after the
 * timeout, which would read as a link fault): each is run with a minute to
 * wait, so that a wait instead of the refusal would show as exit 5. */
static void test_a_word_meant_as_a_state_is_refused_at_once(void **state) {
        Harness *h = *state;

        rdmactl_assert_run(h, "wait mlx5_0 1 UP --timeout=60s", 2,
                           "rdmactl: 'UP' is not a port state, and no device or network interface has that name; the "
                           "states are " STATES_LISTED);
        rdmactl_assert_run(h, "wait mlx5_0 1 LinkUp --timeout=60s", 2,
                           "rdmactl: 'LinkUp' is a physical state; wait takes a port state: " STATES_LISTED);
        rdmactl_assert_run(h, "wait mlx5_0 1 ACTIV --timeout=60s", 2,
                           "rdmactl: 'ACTIV' is not a port state, and no device or network interface has that name");
        rdmactl_assert_run(h, "wait mlx5_0 1 activ --timeout=60s", 2, "rdmactl: 'activ' is not a port state");
        rdmactl_assert_run(h, "wait mlx5_0/1 linkup --timeout=60s", 2, "rdmactl: 'linkup' is a physical state");
        /* Elsewhere than last, and alone. */
        rdmactl_assert_run(h, "wait UP mlx5_0 --timeout=60s", 2, "rdmactl: 'UP' is not a port state");
        rdmactl_assert_run(h, "wait Polling --timeout=60s", 2, "rdmactl: 'Polling' is a physical state");
        rdmactl_assert_run(h, "wait --state=UP --timeout=60s", 2,
                           "rdmactl: --state: 'UP' is not a port state (" STATES_LIST ").\n");
        rdmactl_assert_run(
                h, "wait mlx5_0 --state=LinkUp --timeout=60s", 2,
                "rdmactl: --state: 'LinkUp' is a physical state; --state takes a port state: " STATES_LISTED);

        /* A state in any case is one. */
        rdmactl_assert_run(h, "wait mlx5_0 1 active --timeout=60s", 0, NULL);
        rdmactl_assert_run(h, "wait mlx4_0/2 Down --timeout=60s", 0, NULL);
        /* A name in lower case not there yet is still waited for. */
        rdmactl_assert_run(h, "wait mlx9_0 1 --timeout=300ms", 5,
                           "rdmactl: mlx9_0/1: not present, waiting for ACTIVE\n");
        /* A name in capitals that rdmad knows is a name: a netdev renamed so. */
        harness_rename_netdev(h, MLX5_NET_SYS, "UPLINK0");
        harness_wait_property(h, RDMAD_DEVICE_PREFIX "/mlx5_5f0/netdev/UPLINK0", RDMAD_NETDEV_INTERFACE,
                              RDMAD_NETDEV_PROPERTY_NAME, "UPLINK0", 20000);
        rdmactl_assert_run(h, "wait UPLINK0 --timeout=60s", 0, NULL);
        rdmactl_assert_run(h, "wait UPLINK0 ACTIVE --timeout=60s", 0, NULL);
}

/* ---- --any, --ignore ---- */

static void test_any_and_ignore(void **state) {
        Harness *h = *state;

        /* mlx4_0: port 1 ACTIVE, port 2 DOWN. */
        rdmactl_assert_run(h, "wait mlx4_0/1 mlx4_0/2 --any --timeout=5s", 0, NULL);
        rdmactl_assert_run(h, "wait mlx4_0/1 mlx4_0/2 --state=ACTIVE --timeout=300ms", 5,
                           "rdmactl: mlx4_0/2: DOWN (Disabled), waiting for ACTIVE\n");
        rdmactl_assert_run(h, "wait mlx4_0 --state=ACTIVE --timeout=300ms", 5, "mlx4_0/2: DOWN (Disabled)");
        rdmactl_assert_run(h, "wait mlx4_0 --ignore=mlx4_0/2 --timeout=5s", 0, NULL);
        rdmactl_assert_run(h, "wait mlx4_0 --ignore='ens1d*' --timeout=5s", 0, NULL); /* its netdev */

        /* With a cable, but DOWN: ignored by pattern in the no-name form too. */
        set_port(h, MLX4_SYS, MLX4_PORT2, 2, "1: DOWN\n", "5: LinkUp\n");
        rdmactl_assert_run(h, "wait --timeout=300ms", 5, "rdmactl: mlx4_0/2: DOWN (LinkUp), waiting for ACTIVE\n");
        rdmactl_assert_run(h, "wait --ignore='mlx4_0/*' --timeout=5s", 0, NULL);
        rdmactl_assert_run(h, "wait --ignore=mlx4_0 --timeout=5s", 0, NULL);
        rdmactl_assert_run(h, "wait --any --timeout=5s", 0, NULL);
        /* Everything ignored: nothing to wait for is not success. */
        rdmactl_assert_run(h, "wait --ignore='*' --timeout=300ms", 5,
                           "rdmactl: no port with a physical link yet, waiting for ACTIVE\n");
}

/* ---- what it says while it waits ---- */

static void test_progress_lines_unless_quiet(void **state) {
        Harness *h = *state;
        Child *loud, *quiet;

        set_port(h, HFI1_SYS, HFI1_PORT, 1, "2: INIT\n", "5: LinkUp\n");
        loud = child_start("wait --timeout=7s");
        quiet = child_start("wait -q --timeout=7s");
        assert_int_equal(child_wait_exit(h, loud, 20000), 5);
        assert_int_equal(child_wait_exit(h, quiet, 20000), 5);
        assert_non_null(strstr(loud->err, "rdmactl: still waiting after 5s:\n"
                                          "rdmactl:   hfi1_0/1: INIT (LinkUp), waiting for ACTIVE\n"));
        assert_string_equal(quiet->err, "rdmactl: timed out after 7s.\n"
                                        "rdmactl: hfi1_0/1: INIT (LinkUp), waiting for ACTIVE\n");
        child_free(loud);
        child_free(quiet);
}

static void test_usage(void **state) {
        Harness *h = *state;

        rdmactl_assert_run(h, "wait --state=UPPISH", 2, "rdmactl: --state: 'UPPISH' is not a port state");
        rdmactl_assert_run(h, "wait 1 --state=ACTIVE", 2,
                           "rdmactl: '1' is not a device, a port (DEVICE PORT, DEVICE/PORT) or a network interface.\n");
        rdmactl_assert_run(h, "wait mlx5_0 1 ACTIVE --state=DOWN", 2,
                           "rdmactl: 'ACTIVE' and --state=DOWN: give the state once.\n");
        rdmactl_assert_run(h, "wait mlx5_0 ACTIVE 1", 2, "rdmactl: 'ACTIVE' is a state: name the devices");
        rdmactl_assert_run(h, "list --any", 2, "rdmactl: --any, --ignore and --quiet are for 'wait' only.\n");
        rdmactl_assert_run(h, "status --state=ACTIVE", 2, "rdmactl: --state is for 'wait' and 'list' only.\n");
        rdmactl_assert_run(h, "wait mlx5_0 1 9", 2, "rdmactl: port state 9 is out of range");
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_every_linked_port_already_active_exits_at_once, host_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_a_port_that_comes_up_later, host_setup, harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_a_named_device_hot_added_later, host_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_a_device_that_goes_away_is_waited_for_again, host_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_a_netdev_renamed_into_place, host_setup, harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_rdmad_started_after_wait, host_setup, harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_rdmad_killed_and_restarted_during_the_wait, host_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_no_bus_at_all_is_exit_3, host_setup, harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_any_and_ignore, host_setup, harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_a_word_meant_as_a_state_is_refused_at_once, host_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_progress_lines_unless_quiet, host_setup, harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_usage, host_setup, harness_teardown_clean),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
