/* SPDX-License-Identifier: MIT */
/* InfiniBand link changes from verbs async events, against the real daemon
 * and bus: the test verbs library (tests/lib/verbs-stub.c) preloaded into rdmad
 * lists the testbed's uverbs nodes, hands out contexts whose async_fd is a
 * FIFO this test writes events into, refuses opens on request and logs every
 * open, close and port re-read. The last test runs the real libibverbs. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <infiniband/verbs.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness.h"
#include "verbs-stub.h"
#ifdef HAVE_FAULT_FS
#include "fault-fs.h"
#endif

#define MLX4_PCI    "/sys/devices/pci0000:00/0000:00:03.0/0000:03:00.0"
#define MLX4_SYS    MLX4_PCI "/infiniband/mlx4_0"
#define MLX4_UVERBS MLX4_PCI "/infiniband_verbs/uverbs0"
#define MLX4_PORT1  "/org/rdmad1/device/mlx4_5f0/port/1"
#define MLX4_PORT2  "/org/rdmad1/device/mlx4_5f0/port/2"
#define HFI1_PCI    "/sys/devices/pci0000:80/0000:80:03.0/0000:81:00.0"
#define HFI1_SYS    HFI1_PCI "/infiniband/hfi1_0"
#define HFI1_UVERBS HFI1_PCI "/infiniband_verbs/uverbs1"
#define HFI1_PORT1  "/org/rdmad1/device/hfi1_5f0/port/1"
#define OPA0_PORT1  "/org/rdmad1/device/opa0/port/1"

static char stub_dir[64];

static const char *const poll_hourly[] = { "--poll-interval=3600000", NULL };

/* The uverbs nodes of the fixtures, as the kernel names them: what the stub lists. */
static void add_uverbs_nodes(Harness *h) {
        static const char *const nodes[][2] = {
                { MLX4_UVERBS, "mlx4_0" },
                { HFI1_UVERBS, "hfi1_0" },
                { "/sys/devices/virtual/infiniband_verbs/uverbs2", "rxe0" },
                { "/sys/devices/virtual/infiniband_verbs/uverbs3", "siw0" },
                { "/sys/devices/pci0000:5d/0000:5d:00.0/0000:5e:00.0/infiniband_verbs/uverbs4", "mlx5_0" },
        };

        for (size_t i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++) {
                char parent[256], *record = NULL, *root = umockdev_testbed_get_root_dir(h->testbed);
                struct stat st;
                GError *error = NULL;

                /* Only where the fixture has the device. */
                snprintf(parent, sizeof(parent), "%s%s", root, nodes[i][0]);
                g_free(root);
                *strstr(parent, "/infiniband_verbs/") = '\0';
                if (strstr(nodes[i][0], "virtual")) {
                        char soft[300];
                        snprintf(soft, sizeof(soft), "%s/infiniband/%s", parent, nodes[i][1]);
                        if (stat(soft, &st) < 0)
                                continue;
                } else if (stat(parent, &st) < 0)
                        continue;
                assert_true(asprintf(&record, "P: %s\nE: SUBSYSTEM=infiniband_verbs\nA: ibdev=%s\\n\n",
                                     nodes[i][0] + strlen("/sys"), nodes[i][1]) > 0);
                if (!umockdev_testbed_add_from_string(h->testbed, record, &error))
                        fail_msg("uverbs node %s: %s", nodes[i][0], error->message);
                free(record);
        }
}

static void stub_file(const char *name, const char *contents) {
        char path[256];
        FILE *f;

        snprintf(path, sizeof(path), "%s/%s", stub_dir, name);
        if (!contents) {
                (void) unlink(path);
                return;
        }
        f = fopen(path, "we");
        assert_non_null(f);
        fputs(contents, f);
        assert_int_equal(fclose(f), 0);
        assert_int_equal(chmod(path, 0666), 0);
}

static char *stub_log(void) {
        char path[256], *text = NULL;
        size_t size = 0;
        FILE *f, *out = open_memstream(&text, &size);
        int c;

        assert_non_null(out);
        snprintf(path, sizeof(path), "%s/log", stub_dir);
        f = fopen(path, "re");
        while (f && (c = fgetc(f)) != EOF)
                fputc(c, out);
        if (f)
                fclose(f);
        assert_int_equal(fclose(out), 0);
        return text;
}

/* Lines of the stub's log that start with prefix and end the line or a word there. */
static unsigned count_lines(const char *text, const char *prefix) {
        unsigned n = 0;
        size_t l = strlen(prefix);

        for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
                if (strncmp(p, prefix, l) == 0 && (p[l] == '\n' || p[l] == ' ' || p[l] == '\0'))
                        n++;
        return n;
}

static unsigned stub_count(const char *prefix) {
        char *text = stub_log();
        unsigned n = count_lines(text, prefix);

        free(text);
        return n;
}

typedef struct LogWait {
        const char *prefix;
        unsigned count;
} LogWait;

static bool log_reached(Harness *h, const void *data, FILE *seen) {
        const LogWait *w = data;
        char *text = stub_log();
        unsigned n = count_lines(text, w->prefix);

        fprintf(seen, "%u times in the stub's log:\n%s", n, text);
        free(text);
        return n >= w->count;
}

static void wait_stub(Harness *h, const char *prefix, unsigned count) {
        LogWait w = { prefix, count };

        harness_wait_for(h, log_reached, &w, 20000, "\"%s\" %u times in the stub's log", prefix, count);
}

static void send_events(const char *device, uint32_t type, uint32_t port, unsigned n) {
        char path[256];
        StubEvent ev = { .type = type, .port = port };
        int fd;

        snprintf(path, sizeof(path), "%s/%s.events", stub_dir, device);
        /* O_RDWR: never blocks for want of a reader, never raises SIGPIPE. */
        fd = open(path, O_RDWR | O_CLOEXEC);
        assert_true(fd >= 0);
        /* The stub asked for room for a storm, but as rdmad's user it gets a
         * page when that user's pipes are over the soft limit (other tests'
         * daemons): a storm sent while rdmad is stopped would then block here
         * for good. Root is not held to the limit. */
        if (geteuid() == 0)
                (void) fcntl(fd, F_SETPIPE_SZ, 1024 * 1024);
        assert_true((size_t) fcntl(fd, F_GETPIPE_SZ) >= n * sizeof(ev) || n * sizeof(ev) <= 65536);
        for (unsigned i = 0; i < n; i++)
                assert_int_equal(write(fd, &ev, sizeof(ev)), (ssize_t) sizeof(ev));
        close(fd);
}

/* Bytes the daemon has not read yet from the device's FIFO. */
static int fifo_unread(const char *device) {
        char path[256];
        int fd, n = 0;

        snprintf(path, sizeof(path), "%s/%s.events", stub_dir, device);
        fd = open(path, O_RDWR | O_CLOEXEC);
        assert_true(fd >= 0);
        assert_int_equal(ioctl(fd, FIONREAD, &n), 0);
        close(fd);
        return n;
}

static bool fifo_drained(Harness *h, const void *data, FILE *seen) {
        int n = fifo_unread(data);

        fprintf(seen, "%d bytes unread", n);
        return n == 0;
}

static void prepare(Harness *h) {
        add_uverbs_nodes(h);
}

static Harness *start(const char *const *fixtures, const char *const *args) {
        harness_daemon_preload = VERBS_STUB;
        harness_prepare = prepare;
        harness_capture_daemon_log = true;
        return harness_start(fixtures, args);
}

static int stub_setup(void **state) {
        strcpy(stub_dir, "/tmp/rdmad-verbs-XXXXXX");
        assert_non_null(mkdtemp(stub_dir));
        /* The daemon may run as its own user: it writes the log and makes the FIFOs. */
        assert_int_equal(chmod(stub_dir, 0777), 0);
        setenv("RDMAD_VERBS_STUB_DIR", stub_dir, 1);
        *state = NULL;
        return 0;
}

static int stub_teardown(void **state) {
        int r = *state ? harness_teardown_clean(state) : 0;
        char cmd[128];

        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", stub_dir);
        (void) !system(cmd);
        unsetenv("RDMAD_VERBS_STUB_DIR");
        harness_daemon_preload = NULL;
        harness_prepare = NULL;
        return r;
}

static bool port_state_is(Harness *h, const void *data, FILE *seen) {
        const char *const *want = data; /* path, state */
        char *s = harness_get_property(h, want[0], RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE, NULL);
        bool ok = s && strcmp(s, want[1]) == 0;

        fprintf(seen, "%s", s ?: "(no value)");
        free(s);
        return ok;
}

/* With the poll an hour apart, a port flapped in sysfs changes on the bus
 * after the event and not before: the event path, end to end. */
static void test_event_path(void **state) {
        Harness *h = *state = start(HARNESS_FIXTURES("mlx4-vpi", "hfi1"), poll_hourly);
        const char *const down[] = { MLX4_PORT1, "1: DOWN" };

        wait_stub(h, "open mlx4_0", 1);
        wait_stub(h, "open hfi1_0", 1);
        harness_wait_property(h, MLX4_PORT1, RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_LINK_EVENTS, "verbs", 20000);
        harness_assert_property(h, MLX4_PORT2, RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_LINK_EVENTS, "rtnetlink");
        harness_wait_property(h, HFI1_PORT1, RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_LINK_EVENTS, "verbs", 20000);

        /* The re-reads after the opens (the second of each port: the first is the
         * start-up's), and what they have to say: they run on the reader threads
         * and say nothing when they are done, so a window after their start. */
        wait_stub(h, "reread mlx4_0 1", 2);
        wait_stub(h, "reread hfi1_0 1", 2);
        harness_observe(h, 300, "the re-reads under way to finish");
        harness_clear_signals(h);
        harness_write(h, MLX4_SYS, "ports/1/state", "1: DOWN\n");
        harness_write(h, MLX4_SYS, "ports/1/phys_state", "2: Polling\n");
        /* No poll for an hour and no event: nothing can show it, and no barrier can prove that. */
        harness_observe(h, 1500, "a change in sysfs alone, which must not show");
        assert_int_equal(harness_count_signals(h, MLX4_PORT1, "PropertiesChanged"), 0);
        harness_assert_property(h, MLX4_PORT1, RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE, "4: ACTIVE");

        send_events("mlx4_0", IBV_EVENT_PORT_ERR, 1, 1);
        harness_wait_signals(h, MLX4_PORT1, "PropertiesChanged", 1);
        harness_wait_for(h, port_state_is, down, 1000, "%s State to read %s", down[0], down[1]);
        assert_non_null(strstr(harness_find_signal(h, MLX4_PORT1, "PropertiesChanged")->body, "\"1: DOWN\""));

        harness_clear_signals(h);
        harness_write(h, MLX4_SYS, "ports/1/state", "4: ACTIVE\n");
        harness_write(h, MLX4_SYS, "ports/1/phys_state", "5: LinkUp\n");
        harness_observe(h, 1000, "a change in sysfs alone, which must not show");
        assert_int_equal(harness_count_signals(h, MLX4_PORT1, "PropertiesChanged"), 0);
        send_events("mlx4_0", IBV_EVENT_PORT_ACTIVE, 1, 1);
        harness_wait_signals(h, MLX4_PORT1, "PropertiesChanged", 1);
        harness_assert_property(h, MLX4_PORT1, RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE, "4: ACTIVE");
        /* Nothing else was touched. */
        assert_int_equal(harness_count_signals(h, HFI1_PORT1, "PropertiesChanged"), 0);
}

/* LID_CHANGE, SM_CHANGE, GID_CHANGE re-read that port and no other;
 * DEVICE_FATAL closes the context, and the device falls back to the poll. */
static void test_port_events_and_fatal(void **state) {
        Harness *h = *state = start(HARNESS_FIXTURES("mlx4-vpi", "hfi1"), poll_hourly);
        static const uint32_t events[] = { IBV_EVENT_LID_CHANGE, IBV_EVENT_SM_CHANGE, IBV_EVENT_GID_CHANGE };
        unsigned port1, port2, hfi1;
        char *log;

        wait_stub(h, "open mlx4_0", 1);
        wait_stub(h, "open hfi1_0", 1);
        /* The re-read after each open. */
        wait_stub(h, "reread mlx4_0 1", 2); /* the first is the start-up's */
        wait_stub(h, "reread hfi1_0 1", 2);
        harness_observe(h, 300, "the re-reads under way to finish");

        harness_clear_signals(h);
        harness_write(h, MLX4_SYS, "ports/1/lid", "0x9\n");
        for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
                port1 = stub_count("reread mlx4_0 1");
                port2 = stub_count("reread mlx4_0 2");
                hfi1 = stub_count("reread hfi1_0 1");
                send_events("mlx4_0", events[i], 1, 1);
                wait_stub(h, "reread mlx4_0 1", port1 + 1);
                /* A re-read of another port, or a second one, would come on the reader threads: a window. */
                harness_observe(h, 300, "re-reads the event must not cause");
                assert_int_equal(stub_count("reread mlx4_0 1"), port1 + 1);
                assert_int_equal(stub_count("reread mlx4_0 2"), port2);
                assert_int_equal(stub_count("reread hfi1_0 1"), hfi1);
        }
        /* The first re-read found the new LID. */
        harness_assert_property(h, MLX4_PORT1, RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_LID, "9");
        assert_int_equal(harness_count_signals(h, MLX4_PORT1, "PropertiesChanged"), 1);

        send_events("mlx4_0", IBV_EVENT_DEVICE_FATAL, 0, 1);
        wait_stub(h, "close mlx4_0", 1);
        log = stub_log();
        assert_non_null(strstr(log, "close mlx4_0 got=4 acked=4\n"));
        free(log);
        harness_wait_property(h, MLX4_PORT1, RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_LINK_EVENTS, "poll", 0);
        harness_assert_property(h, MLX4_PORT1, RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_LINK_EVENTS, "poll");
        harness_assert_property(h, HFI1_PORT1, RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_LINK_EVENTS, "verbs");
        /* Not reopened while the device is dead. */
        harness_observe(h, 1500, "a reopen, which must not come");
        assert_int_equal(stub_count("open mlx4_0"), 1);
}

/* GID_CHANGE re-reads the port's GID table as well: with the poll an hour
 * apart, a new GID shows in Gids after the event, and not before it. */
static void test_gid_change(void **state) {
        Harness *h = *state = start(HARNESS_FIXTURES("mlx4-vpi"), poll_hourly);
        static const char gid[] = "fe80:0000:0000:0000:0002:c903:00a1:b2c2";
        char *before, *still, *after;

        wait_stub(h, "open mlx4_0", 1);
        wait_stub(h, "reread mlx4_0 1", 2); /* the first is the start-up's */
        harness_observe(h, 300, "the re-read under way to finish");
        before = harness_get_property(h, MLX4_PORT1, RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_GIDS, NULL);
        assert_non_null(before);
        assert_null(strstr(before, gid));

        harness_clear_signals(h);
        harness_write(h, MLX4_SYS, "ports/1/gids/1", "fe80:0000:0000:0000:0002:c903:00a1:b2c2\n");
        harness_observe(h, 500, "a change in sysfs alone, which must not show");
        still = harness_get_property(h, MLX4_PORT1, RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_GIDS, NULL);
        assert_string_equal(still, before);
        assert_int_equal(harness_count_signals(h, MLX4_PORT1, "PropertiesChanged"), 0);

        send_events("mlx4_0", IBV_EVENT_GID_CHANGE, 1, 1);
        harness_wait_signals(h, MLX4_PORT1, "PropertiesChanged", 1);
        after = harness_get_property(h, MLX4_PORT1, RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_GIDS, NULL);
        assert_non_null(strstr(after, gid));
        /* The signal carries the new table. */
        assert_non_null(strstr(harness_find_signal(h, MLX4_PORT1, "PropertiesChanged")->body, gid));
        /* Port 2 (Ethernet) was not re-read. */
        assert_int_equal(harness_count_signals(h, MLX4_PORT2, "PropertiesChanged"), 0);
        free(before);
        free(still);
        free(after);
}

static bool has_object(Harness *h, const void *path) {
        char *name = harness_get_property(h, path, RDMAD_DEVICE_INTERFACE, RDMAD_DEVICE_PROPERTY_NAME, NULL);
        bool ok = name != NULL;

        free(name);
        return ok;
}

/* The uverbs node's remove closes the context while the device is still
 * there; its add, the device's re-add and a rename open it again; SIGTERM
 * closes every context. */
static void test_close_and_reopen(void **state) {
        Harness *h = *state = start(HARNESS_FIXTURES("mlx4-vpi", "hfi1"), poll_hourly);
        char *log;

        wait_stub(h, "open mlx4_0", 1);
        wait_stub(h, "open hfi1_0", 1);

        umockdev_testbed_uevent(h->testbed, MLX4_UVERBS, "remove");
        wait_stub(h, "close mlx4_0", 1);
        /* Closed before the device's own removal, which has not even begun. */
        assert_true(has_object(h, "/org/rdmad1/device/mlx4_5f0"));
        harness_wait_property(h, MLX4_PORT1, RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_LINK_EVENTS, "poll", 0);
        harness_assert_property(h, MLX4_PORT1, RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_LINK_EVENTS, "poll");
        assert_int_equal(stub_count("open mlx4_0"), 1);

        /* ib_uverbs back: the node's add. */
        umockdev_testbed_uevent(h->testbed, MLX4_UVERBS, "add");
        wait_stub(h, "open mlx4_0", 2);
        harness_wait_property(h, MLX4_PORT1, RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_LINK_EVENTS, "verbs", 20000);

        /* The device removed and added again. */
        umockdev_testbed_uevent(h->testbed, MLX4_SYS, "remove");
        wait_stub(h, "close mlx4_0", 2);
        umockdev_testbed_uevent(h->testbed, MLX4_SYS, "add");
        wait_stub(h, "open mlx4_0", 3);

        /* "rdma dev set hfi1_0 name opa0": the node names the new name. */
        harness_write(h, HFI1_UVERBS, "ibdev", "opa0\n");
        harness_rename_device(h, HFI1_SYS, "opa0");
        wait_stub(h, "close hfi1_0", 1);
        wait_stub(h, "open opa0", 1);
        harness_wait_property(h, OPA0_PORT1, RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_LINK_EVENTS, "verbs", 20000);
        /* The re-read after the open done: a stopping rdmad closes the
         * contexts of idle devices and leaves busy ones to the kernel. */
        wait_stub(h, "reread opa0 1", 2); /* the move's read, then the open's */
        harness_observe(h, 200, "the re-read under way to finish");

        harness_stop_daemon(h);
        log = stub_log();
        assert_int_equal(count_lines(log, "close mlx4_0"), 3);
        assert_int_equal(count_lines(log, "close opa0"), 1);
        assert_int_equal(
                count_lines(log, "open mlx4_0") + count_lines(log, "open hfi1_0") + count_lines(log, "open opa0"),
                count_lines(log, "close mlx4_0") + count_lines(log, "close hfi1_0") + count_lines(log, "close opa0"));
        free(log);
        harness_start_daemon(h, poll_hourly);
}

/* The node's remove comes while its open runs, before rdmad knows which
 * node the open is on: the context is closed as soon as the open answers,
 * not kept on a node the kernel waits to see closed; if the node came back
 * meanwhile, the device is opened again. */
static void test_node_removed_while_opening(void **state) {
        static const char *const args[] = { "--poll-interval=3600000", "--log-level=debug", NULL };
        Harness *h;

        stub_file("hold-mlx4_0", "");
        h = *state = start(HARNESS_FIXTURES("mlx4-vpi"), args);
        wait_stub(h, "opening mlx4_0", 1);
        umockdev_testbed_uevent(h->testbed, MLX4_UVERBS, "remove");
        harness_wait_log(h, "mlx4_0: uverbs node uverbs0 removed while it opens");
        stub_file("hold-mlx4_0", NULL);

        wait_stub(h, "close mlx4_0", 1);
        harness_wait_log(h, "mlx4_0: its open was on uverbs0, removed meanwhile: closed.");
        harness_wait_property(h, MLX4_PORT1, RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_LINK_EVENTS, "poll", 0);
        assert_int_equal(stub_count("open mlx4_0"), 1);
        harness_assert_property(h, MLX4_PORT1, RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_LINK_EVENTS, "poll");

        /* The node back: opened, and kept. */
        umockdev_testbed_uevent(h->testbed, MLX4_UVERBS, "add");
        wait_stub(h, "open mlx4_0", 2);
        harness_wait_property(h, MLX4_PORT1, RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_LINK_EVENTS, "verbs", 20000);
        assert_int_equal(stub_count("close mlx4_0"), 1);

        /* Removed and added again while the next open runs: that open is
         * closed, and the node added since is opened and kept. */
        umockdev_testbed_uevent(h->testbed, MLX4_UVERBS, "remove");
        wait_stub(h, "close mlx4_0", 2);
        stub_file("hold-mlx4_0", "");
        umockdev_testbed_uevent(h->testbed, MLX4_UVERBS, "add");
        wait_stub(h, "opening mlx4_0", 2);
        umockdev_testbed_uevent(h->testbed, MLX4_UVERBS, "remove");
        umockdev_testbed_uevent(h->testbed, MLX4_UVERBS, "add");
        harness_wait_log(h, "mlx4_0: uverbs node uverbs0 added again while it opens");
        stub_file("hold-mlx4_0", NULL);
        wait_stub(h, "open mlx4_0", 4);
        harness_wait_property(h, MLX4_PORT1, RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_LINK_EVENTS, "verbs", 20000);
        harness_ping(h);
        assert_int_equal(stub_count("close mlx4_0"), 3);
        assert_int_equal(stub_count("open mlx4_0"), 4);
        harness_assert_property(h, MLX4_PORT1, RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_LINK_EVENTS, "verbs");
}

static bool signal_on(Harness *h, const void *path, FILE *seen) {
        size_t n = harness_count_signals(h, path, "PropertiesChanged");

        fprintf(seen, "%zu PropertiesChanged on it, %zu signals in all", n, h->n_signals);
        return n > 0;
}

/* A refused open: that device is polled at the normal period, the device
 * whose context is open only on the slow one; RoCE and soft devices are
 * never opened. */
static void test_open_refused(void **state) {
        Harness *h;
        char *log;

        stub_file("fail-mlx4_0", "EACCES\n");
        h = *state = start(HARNESS_FIXTURES("mlx4-vpi", "hfi1", "rxe", "siw", "mlx5-roce-sriov"), NULL);
        wait_stub(h, "open-failed mlx4_0", 1);
        wait_stub(h, "open hfi1_0", 1);
        harness_wait_property(h, MLX4_PORT1, RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_LINK_EVENTS, "poll", 0);
        harness_assert_property(h, MLX4_PORT1, RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_LINK_EVENTS, "poll");
        harness_wait_property(h, HFI1_PORT1, RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_LINK_EVENTS, "verbs", 20000);
        harness_assert_property(h, "/org/rdmad1/device/rxe0/port/1", RDMAD_PORT_INTERFACE,
                                RDMAD_PORT_PROPERTY_LINK_EVENTS, "rtnetlink");
        log = stub_log();
        assert_null(strstr(log, "open rxe0"));
        assert_null(strstr(log, "open siw0"));
        assert_null(strstr(log, "open mlx5_0"));
        assert_null(strstr(log, "open-failed rxe0"));
        free(log);
        log = harness_daemon_log(h);
        assert_non_null(strstr(log, "mlx4_0: no verbs events (cannot open its uverbs node: Permission denied)"));
        assert_null(strstr(strstr(log, "mlx4_0: no verbs events") + 1, "mlx4_0: no verbs events"));
        free(log);

        /* The default period is 1 s: the refused device's change shows within 3. */
        harness_clear_signals(h);
        harness_write(h, MLX4_SYS, "ports/1/state", "1: DOWN\n");
        harness_wait_for(h, signal_on, MLX4_PORT1, 3000, "a PropertiesChanged on %s", MLX4_PORT1);

        /* The open one's, with no event, not within 3 s; on the slow period (10 s). */
        harness_clear_signals(h);
        harness_write(h, HFI1_SYS, "ports/1/state", "1: DOWN\n");
        harness_assert_never(h, signal_on, HFI1_PORT1, 3000, "a PropertiesChanged on %s, polled on the slow period",
                             HFI1_PORT1);
        harness_wait_for(h, signal_on, HFI1_PORT1, 15000, "a PropertiesChanged on %s", HFI1_PORT1);

        /* ENODEV: the same fallback, said with its reason. */
        stub_file("fail-mlx4_0", "ENODEV\n");
        harness_restart_daemon(h, NULL);
        wait_stub(h, "open-failed mlx4_0", 2);
        harness_wait_property(h, MLX4_PORT1, RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_LINK_EVENTS, "poll", 0);
        harness_assert_property(h, MLX4_PORT1, RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_LINK_EVENTS, "poll");
        log = harness_daemon_log(h);
        assert_non_null(strstr(log, "mlx4_0: no verbs events (cannot open its uverbs node: No such device)"));
        free(log);
}

/* A context whose event read fails is closed and retried with back-off. */
static void test_read_failure_backs_off(void **state) {
        Harness *h;
        unsigned opens;

        stub_file("broken-hfi1_0", "yes\n");
        h = *state = start(HARNESS_FIXTURES("hfi1"), poll_hourly);
        wait_stub(h, "open hfi1_0", 1);
        wait_stub(h, "close hfi1_0", 1);
        /* Retries 1 s, then 2 s, 4 s later: 3 opens in 4 s, not a busy loop. */
        harness_observe(h, 4000, "the retries of 4 s of back-off");
        opens = stub_count("open hfi1_0");
        assert_true(opens >= 2);
        assert_true(opens <= 4);

        /* Healed: the next retry keeps its context. */
        stub_file("broken-hfi1_0", NULL);
        wait_stub(h, "open hfi1_0", opens + 1);
        harness_observe(h, 500, "a close, which must not come now that reads succeed");
        assert_int_equal(stub_count("close hfi1_0"), opens);
        harness_wait_property(h, HFI1_PORT1, RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_LINK_EVENTS, "verbs", 20000);
}

#define STORM 10000

/* 10 000 events: each acknowledged, the port re-read far fewer times, the
 * memory back where it was, calls answered all along. */
static void test_storm(void **state) {
        Harness *h = *state = start(HARNESS_FIXTURES("mlx4-vpi", "hfi1"), poll_hourly);
        uint64_t rss_before, rss_after;
        unsigned before, rereads, port2;
        char *log, close_line[64];

        wait_stub(h, "open mlx4_0", 1);
        wait_stub(h, "reread mlx4_0 1", 1);
        rss_before = harness_settled_rss_kib(h);

        /* All at once: queued while the daemon is stopped. */
        before = stub_count("reread mlx4_0 1");
        port2 = stub_count("reread mlx4_0 2");
        harness_pause(h);
        send_events("mlx4_0", IBV_EVENT_LID_CHANGE, 1, STORM);
        harness_resume(h);
        harness_wait_for(h, fifo_drained, "mlx4_0", 20000, "rdmad to read every event of mlx4_0's FIFO");
        harness_observe(h, 200, "the re-reads the last events cause");
        rereads = stub_count("reread mlx4_0 1") - before;
        print_message("queued storm: %u events, %u re-reads\n", STORM, rereads);
        assert_true(rereads >= 1);
        assert_true(rereads <= STORM / 100);

        /* Over a second, with calls in between: every one answered. */
        before = stub_count("reread mlx4_0 1");
        for (unsigned i = 0; i < 100; i++) {
                char *v;

                send_events("mlx4_0", IBV_EVENT_SM_CHANGE, 1, STORM / 100);
                v = harness_get_property(h, HFI1_PORT1, RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE, NULL);
                assert_non_null(v);
                free(v);
                usleep(10000); /* not a wait: the storm's pace, 100 rounds over a second */
        }
        harness_wait_for(h, fifo_drained, "mlx4_0", 20000, "rdmad to read every event of mlx4_0's FIFO");
        rereads = stub_count("reread mlx4_0 1") - before;
        print_message("live storm: %u events, %u re-reads\n", STORM, rereads);
        assert_true(rereads >= 1);
        assert_true(rereads <= STORM);
        assert_int_equal(stub_count("reread mlx4_0 2"), port2);

        rss_after = harness_settled_rss_kib(h);
        print_message("RSS %" PRIu64 " -> %" PRIu64 " KiB\n", rss_before, rss_after);
        /* Under valgrind the RSS is mostly valgrind's own (its translations
         * grow with every new code path); its leak check stands in there. */
        if (!harness_daemon_wrapped())
                assert_true(rss_after <= rss_before + 1024);

        harness_stop_daemon(h);
        snprintf(close_line, sizeof(close_line), "close mlx4_0 got=%u acked=%u\n", 2 * STORM, 2 * STORM);
        log = stub_log();
        assert_non_null(strstr(log, close_line));
        free(log);
        harness_start_daemon(h, poll_hourly);
}

/* The real libibverbs, linked as shipped: no RDMA hardware here, no uverbs
 * node in the testbed. rdmad starts, finds no verbs devices, polls, says so once. */
static void test_real_libibverbs(void **state) {
        Harness *h;
        char *log, *first;

        unsetenv("RDMAD_VERBS_STUB_DIR");
        harness_daemon_preload = NULL;
        harness_prepare = NULL;
        harness_capture_daemon_log = true;
        h = *state = harness_start(HARNESS_FIXTURES("mlx4-vpi"), NULL);
        harness_assert_property(h, MLX4_PORT1, RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_LINK_EVENTS, "poll");

        harness_clear_signals(h);
        harness_write(h, MLX4_SYS, "ports/1/state", "1: DOWN\n");
        harness_wait_signals(h, MLX4_PORT1, "PropertiesChanged", 1);

        /* Another look at the device list: said once, still. */
        umockdev_testbed_uevent(h->testbed, MLX4_SYS, "remove");
        umockdev_testbed_uevent(h->testbed, MLX4_SYS, "add");
        harness_wait_signals(h, RDMAD_ROOT_PATH, "InterfacesAdded", 1);
        harness_observe(h, 300, "a second \"No verbs devices\", which must not come");
        log = harness_daemon_log(h);
        first = strstr(log, "No verbs devices");
        if (!first)
                fail_msg("no \"No verbs devices\" in the log:\n%s", log);
        assert_null(strstr(first + 1, "No verbs devices"));
        assert_null(strstr(log, "mlx4_0: no verbs events"));
        free(log);
}

#ifdef HAVE_FAULT_FS
static FaultFs *list_block;

static int hang_teardown(void **state) {
        if (list_block)
                fault_fs_release(list_block);
        if (*state) {
                Harness *h = *state;
                int status = harness_stop_process(h->daemon_pid, 30000);

                h->daemon_pid = 0;
                if (list_block)
                        fault_fs_unmount(list_block);
                list_block = NULL;
                harness_stop(h);
                *state = NULL;
                if (status != 0)
                        fail_msg("rdmad did not exit cleanly on SIGTERM: wait status 0x%x", status);
        }
        return stub_teardown(state);
}

/* libibverbs reads every listed device's sysfs (node_type) to list them: a
 * sick device's hangs the list. The list is made on a reader thread: rdmad
 * goes on answering, and the opens that wait for the list follow when it
 * returns. */
static void test_a_hanging_list(void **state) {
        Harness *h;
        char dir[4096], *root;

        if (!fault_fs_available()) {
                fprintf(stderr, "Skipping: this test needs FUSE (/dev/fuse, fusermount3).\n");
                skip();
        }
        h = *state = start(HARNESS_FIXTURES("mlx4-vpi", "hfi1"), poll_hourly);
        wait_stub(h, "open mlx4_0", 1);
        wait_stub(h, "open hfi1_0", 1);

        root = umockdev_testbed_get_root_dir(h->testbed);
        snprintf(dir, sizeof(dir), "%s%s", root, MLX4_SYS);
        g_free(root);
        list_block = fault_fs_mount(dir);
        assert_non_null(list_block);
        fault_fs_set(list_block, "node_type", FAULT_BLOCK, 0);

        /* hfi1_0's node goes and comes back: its context is opened from a new list. */
        umockdev_testbed_uevent(h->testbed, HFI1_UVERBS, "remove");
        wait_stub(h, "close hfi1_0", 1);
        umockdev_testbed_uevent(h->testbed, HFI1_UVERBS, "add");
        assert_true(fault_fs_wait_blocked(list_block, 1, 10000));
        /* Meanwhile rdmad answers, about either device. */
        for (int i = 0; i < 5; i++) {
                harness_assert_property(h, HFI1_PORT1, RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE, "4: ACTIVE");
                harness_assert_property(h, MLX4_PORT1, RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_LINK_EVENTS, "verbs");
                harness_observe(h, 100, "time for the list to stay blocked");
        }
        harness_assert_property(h, HFI1_PORT1, RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_LINK_EVENTS, "poll");
        assert_int_equal(stub_count("open hfi1_0"), 1);

        fault_fs_release(list_block);
        wait_stub(h, "open hfi1_0", 2);
        harness_wait_property(h, HFI1_PORT1, RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_LINK_EVENTS, "verbs", 20000);
}
#endif

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_event_path, stub_setup, stub_teardown),
                cmocka_unit_test_setup_teardown(test_port_events_and_fatal, stub_setup, stub_teardown),
                cmocka_unit_test_setup_teardown(test_gid_change, stub_setup, stub_teardown),
                cmocka_unit_test_setup_teardown(test_close_and_reopen, stub_setup, stub_teardown),
                cmocka_unit_test_setup_teardown(test_node_removed_while_opening, stub_setup, stub_teardown),
                cmocka_unit_test_setup_teardown(test_open_refused, stub_setup, stub_teardown),
                cmocka_unit_test_setup_teardown(test_read_failure_backs_off, stub_setup, stub_teardown),
                cmocka_unit_test_setup_teardown(test_storm, stub_setup, stub_teardown),
                cmocka_unit_test_setup_teardown(test_real_libibverbs, stub_setup, stub_teardown),
#ifdef HAVE_FAULT_FS
                cmocka_unit_test_setup_teardown(test_a_hanging_list, stub_setup, hang_teardown),
#endif
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
