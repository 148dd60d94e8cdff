/* SPDX-License-Identifier: MIT */
/* rtnetlink, rdmad's second source of link events (with --poll-interval=0
 * nothing else tells it): a link change re-reads the port and its netdev;
 * a lost message (ENOBUFS, injected by tests/integration/fault-inject.c)
 * re-reads every netdev; a message not from the kernel is ignored; the
 * receive buffer is large enough for a burst. Each needs a network
 * namespace of the test's own (root) to create interfaces. */
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness.h"

#define MLX5_PF_SYS  "/sys/devices/pci0000:5d/0000:5d:00.0/0000:5e:00.0"
#define MLX5_SYS     MLX5_PF_SYS "/infiniband/mlx5_0"
#define MLX5_NET_SYS MLX5_PF_SYS "/net/ens1f0np0"
#define MLX5_0       "/org/rdmad1/device/mlx5_5f0"
#define MLX5_NETDEV  MLX5_0 "/netdev/ens1f0np0"

static bool private_network;

/* No poll: what rdmad learns of a link, it learns from rtnetlink. */
static int no_poll_setup(void **state) {
        *state = harness_start_logged(HARNESS_FIXTURES("mlx5-roce-sriov", "hfi1"),
                                      (const char *const[]){ "--log-level=debug", "--poll-interval=0", NULL });
        return 0;
}

static void test_rtnetlink_link_change_rereads_the_port(void **state) {
        Harness *h = *state;
        char *names;
        int status;
        char *out;

        if (!private_network)
                skip(); /* needs its own network namespace to create interfaces */

        harness_assert_property(h, RDMAD_ROOT_PATH, RDMAD_MANAGER_INTERFACE, RDMAD_MANAGER_PROPERTY_POLL_INTERVAL_MS,
                                "0");
        out = harness_run_command(h, "ip link add ens1f0np0 type veth peer name ens1f0np0p", &status);
        assert_int_equal(status, 0);
        free(out);
        /* Whatever the daemon makes of the new link goes before the clear; it says nothing when it is done. */
        harness_observe(h, 200, "the daemon's answer to the new link");
        harness_clear_signals(h);

        harness_write(h, MLX5_SYS, "ports/1/state", "1: DOWN\n");
        harness_write(h, MLX5_SYS, "ports/1/phys_state", "3: Disabled\n");
        harness_write(h, MLX5_NET_SYS, "operstate", "down\n");
        harness_observe(h, 300, "a change in sysfs alone, which must not show");
        assert_int_equal(h->n_signals, 0); /* no poll, no event: nothing seen yet */

        out = harness_run_command(h, "ip link set ens1f0np0 mtu 1400", &status);
        assert_int_equal(status, 0);
        free(out);
        harness_wait_signals(h, MLX5_0 "/port/1", "PropertiesChanged", 1);
        harness_wait_signals(h, MLX5_0 "/netdev/ens1f0np0", "PropertiesChanged", 1);
        names = signal_changed_names(harness_find_signal(h, MLX5_0 "/port/1", "PropertiesChanged"));
        assert_string_equal(names, "State StateNum StateName PhysState PhysStateNum PhysStateName Attributes "
                                   "StateChangedUsec StateChanges");
        free(names);
        names = signal_changed_names(harness_find_signal(h, MLX5_0 "/netdev/ens1f0np0", "PropertiesChanged"));
        assert_string_equal(names, "OperState Attributes");
        free(names);
        harness_assert_property(h, MLX5_0 "/netdev/ens1f0np0", RDMAD_NETDEV_INTERFACE, RDMAD_NETDEV_PROPERTY_OPER_STATE,
                                "down");
}

static char enobufs_trigger[128];

static int rtnl_fault_setup(void **state) {
        snprintf(enobufs_trigger, sizeof(enobufs_trigger), "/tmp/rdmad-rtnetlink-enobufs-%d", (int) getpid());
        setenv("RDMAD_FAULT_RTNL_ENOBUFS", enobufs_trigger, 1);
        harness_daemon_preload = FAULT_INJECT;
        no_poll_setup(state);
        harness_daemon_preload = NULL;
        unsetenv("RDMAD_FAULT_RTNL_ENOBUFS");
        return 0;
}

static void test_rtnetlink_overflow_rereads_netdevs(void **state) {
        Harness *h = *state;
        char *out;
        int fd, status;

        if (!private_network)
                skip(); /* needs its own network namespace to create interfaces */

        /* Behind the daemon's back: the netdev went down, its MTU changed. */
        harness_write(h, MLX5_NET_SYS, "operstate", "down\n");
        harness_write(h, MLX5_NET_SYS, "mtu", "1400\n");
        harness_clear_signals(h);

        /* The next rtnetlink message is lost to ENOBUFS: all links are re-read. */
        fd = open(enobufs_trigger, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
        assert_true(fd >= 0);
        close(fd);
        harness_give_to_daemon(enobufs_trigger); /* /tmp is sticky: only its owner removes it */
        out = harness_run_command(h, "ip link add rdmad-lim0 type veth peer name rdmad-lim1", &status);
        assert_int_equal(status, 0);
        free(out);

        harness_wait_log(h, "rtnetlink overflowed; re-reading all netdevs and ports.");
        harness_wait_signals(h, MLX5_NETDEV, "PropertiesChanged", 1);
        harness_assert_property(h, MLX5_NETDEV, RDMAD_NETDEV_INTERFACE, RDMAD_NETDEV_PROPERTY_OPER_STATE, "down");
        harness_assert_property(h, MLX5_NETDEV, RDMAD_NETDEV_INTERFACE, RDMAD_NETDEV_PROPERTY_MTU, "1400");
        unlink(enobufs_trigger);
}

/* Any process may send to the daemon's rtnetlink socket (root to its
 * multicast group): such a message names a netdev, but comes from a port
 * that is not the kernel's (0). */
static void send_forged_link_message(const char *ifname) {
        struct {
                struct nlmsghdr h;
                struct ifinfomsg ifi;
                struct rtattr a;
                char name[IF_NAMESIZE];
        } __attribute__((packed, aligned(NLMSG_ALIGNTO))) msg = {};
        struct sockaddr_nl to = { .nl_family = AF_NETLINK, .nl_groups = RTMGRP_LINK };
        int fd;

        msg.h.nlmsg_len = sizeof(msg);
        msg.h.nlmsg_type = RTM_NEWLINK; /* no NLM_F_REQUEST: the kernel ignores it, listeners get it */
        msg.ifi.ifi_family = AF_UNSPEC;
        msg.a.rta_type = IFLA_IFNAME;
        msg.a.rta_len = RTA_LENGTH(IF_NAMESIZE);
        strncpy(msg.name, ifname, sizeof(msg.name) - 1);

        fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
        assert_true(fd >= 0);
        assert_int_equal(sendto(fd, &msg, sizeof(msg), 0, (struct sockaddr *) &to, sizeof(to)), (ssize_t) sizeof(msg));
        close(fd);
}

static void test_rtnetlink_messages_not_from_the_kernel_are_ignored(void **state) {
        Harness *h = *state;

        if (!private_network)
                skip(); /* needs root for the multicast send, and its own network namespace */

        harness_write(h, MLX5_NET_SYS, "operstate", "down\n");
        send_forged_link_message("ens1f0np0");
        harness_wait_log(h, "Ignoring an rtnetlink message from port");
        /* A re-read would come from the reader threads after the log line: a window. */
        harness_observe(h, 200, "a re-read, which must not come");
        /* Not re-read: what it said is still published. */
        harness_assert_property(h, MLX5_NETDEV, RDMAD_NETDEV_INTERFACE, RDMAD_NETDEV_PROPERTY_OPER_STATE, "up");
}

/* A burst of link messages needs room: 8 MiB, which the kernel doubles. */
static void test_rtnetlink_receive_buffer_is_large(void **state) {
        Harness *h = *state;
        char needle[32], forced[32], capped[32], *out, *line, *rmem_max;
        unsigned long long max = 0;
        int status;

        if (!private_network)
                skip(); /* SO_RCVBUFFORCE needs CAP_NET_ADMIN; ss sees the test's own namespace */

        /* "rtnl:rdmad/PORT * skmem:(r0,rb...)": the first netlink socket's port is the pid. */
        snprintf(needle, sizeof(needle), "/%d ", (int) h->daemon_pid);
        out = harness_run_command(h, "ss -f netlink -a -m", &status);
        assert_int_equal(status, 0);
        line = strstr(out, needle);
        if (!line)
                fail_msg("no rtnetlink socket of pid %d in:\n%s", (int) h->daemon_pid, out);
        *strchrnul(line, '\n') = '\0';
        /* 8 MiB asked, doubled by the kernel: forced with CAP_NET_ADMIN; as the
         * unprivileged rdmad user, capped by net.core.rmem_max (also doubled). */
        rmem_max = harness_run_command(h, "cat /proc/sys/net/core/rmem_max", &status);
        assert_int_equal(status, 0);
        assert_int_equal(sscanf(rmem_max, "%llu", &max), 1);
        free(rmem_max);
        snprintf(forced, sizeof(forced), "rb%d,", 16777216);
        snprintf(capped, sizeof(capped), "rb%llu,", 2 * (max < 8388608ULL ? max : 8388608ULL));
        if (!strstr(line, forced) && !strstr(line, capped))
                fail_msg("rtnetlink buffer neither %s nor %s: %s", forced, capped, line);
        free(out);
}

int main(void) {
        private_network = harness_private_network();
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_rtnetlink_link_change_rereads_the_port, no_poll_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_rtnetlink_overflow_rereads_netdevs, rtnl_fault_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_rtnetlink_messages_not_from_the_kernel_are_ignored, no_poll_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_rtnetlink_receive_buffer_is_large, no_poll_setup,
                                                harness_teardown_clean),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
