/* SPDX-License-Identifier: MIT */
/* Sick adapters (rdmad(8), SICK ADAPTERS): a FUSE fault file system (fault-fs.h)
 * over devices' sysfs directories in the testbed makes their reads hang,
 * fail with EIO or take long, as a wedged firmware command does; the real
 * daemon on the real bus keeps answering for the others, publishes Health
 * and recovers. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "fault-fs.h"
#include "harness.h"
#include "rdmactl-run.h"
#include "stats.h"

#define N_DEVICES       16
#define READ_TIMEOUT    "2s"
#define READ_TIMEOUT_MS 2000
#define MAX_SICK        12

/* What the daemon had before the reader pool: its main thread. */
#define THREADS_BEFORE 1
#define POOL_THREADS   8

static FaultFs *mounts[MAX_SICK];
static unsigned n_mounts;

/* rdmactl monitor and wait in the background, killed in teardown. */
#define MAX_CHILDREN 4
static RdmactlChild *children[MAX_CHILDREN];
static unsigned n_children;

static void device_record(char *buf, size_t size, unsigned i) {
        snprintf(buf, size,
                 "P: /devices/virtual/infiniband/sick%u\nE: SUBSYSTEM=infiniband\nE: NAME=sick%u\n"
                 "A: node_type=1: CA\\n\nA: node_desc=sick %u\\n\nA: ports/1/state=4: ACTIVE\\n\n"
                 "A: ports/1/phys_state=5: LinkUp\\n\nA: ports/1/rate=100 Gb/sec (4X EDR)\\n\n"
                 "A: ports/1/link_layer=InfiniBand\\n\nA: ports/1/lid=0x%x\\n\n"
                 "A: ports/1/counters/symbol_error=%u\\n\nA: ports/1/counters/port_rcv_data=1000\\n\n"
                 "A: ports/1/gids/0=fe80:0000:0000:0000:0002:c903:00%02x:%04x\\n\n",
                 i, i, i, i + 1, i, i % 256, i);
}

static void add_devices(Harness *h) {
        char record[1024];

        for (unsigned i = 0; i < N_DEVICES; i++) {
                GError *error = NULL;

                device_record(record, sizeof(record), i);
                if (!umockdev_testbed_add_from_string(h->testbed, record, &error))
                        fail_msg("cannot add sick%u: %s", i, error->message);
        }
}

static void device_dir(Harness *h, const char *name, char *buf, size_t size) {
        char *root = umockdev_testbed_get_root_dir(h->testbed);

        snprintf(buf, size, "%s/sys/devices/virtual/infiniband/%s", root, name);
        g_free(root);
}

static FaultFs *mount_over(Harness *h, const char *name) {
        char dir[4096];
        FaultFs *f;

        device_dir(h, name, dir, sizeof(dir));
        f = fault_fs_mount(dir);
        if (!f)
                fail_msg("cannot mount the fault file system over %s", dir);
        assert_true(n_mounts < MAX_SICK);
        mounts[n_mounts++] = f;
        return f;
}

/* Where the start-up test blocks its device, before the daemon reads it. */
static const char *prepare_block;

static void prepare(Harness *h) {
        add_devices(h);
        if (prepare_block)
                fault_fs_set(mount_over(h, prepare_block), "*", FAULT_BLOCK, 0);
}

static int setup_with(void **state, const char *const *fixtures, bool watchdog) {
        static const char *const args[] = { "--poll-interval=200", "--read-timeout=" READ_TIMEOUT, NULL };

        if (!fault_fs_available()) {
                fprintf(stderr, "Skipping: the sick-adapter tests need FUSE (/dev/fuse, fusermount3).\n");
                skip();
        }
        n_mounts = 0;
        /* sd_event pings at a fraction of it: several times a second
         * (measure() reads them). */
        if (watchdog)
                setenv("WATCHDOG_USEC", "1000000", 1);
        harness_prepare = prepare;
        *state = harness_start(fixtures, args);
        harness_prepare = NULL;
        unsetenv("WATCHDOG_USEC");
        return 0;
}

static int setup(void **state) {
        static const char *const fixtures[] = { NULL };
        return setup_with(state, fixtures, false);
}

/* LeakSanitizer's check at exit stops every thread of the process, and a
 * thread stuck in the kernel never stops: the exit would wait for it for
 * good. The one test that exits with a read stuck goes without it; the
 * others check for leaks as usual. */
static int setup_sigterm(void **state) {
        int r;

#ifdef SANITIZED_BUILD
        const char *options = getenv("ASAN_OPTIONS");
        char *with = NULL;

        assert_true(asprintf(&with, "%s%sdetect_leaks=0", options ?: "", options ? ":" : "") > 0);
        setenv("ASAN_OPTIONS", with, 1);
        free(with);
        r = setup(state);
        if (options)
                setenv("ASAN_OPTIONS", options, 1);
        else
                unsetenv("ASAN_OPTIONS");
#else
        r = setup(state);
#endif
        return r;
}

static int setup_watchdog(void **state) {
        static const char *const fixtures[] = { NULL };
        return setup_with(state, fixtures, true);
}

static int setup_sriov(void **state) {
        static const char *const fixtures[] = { "mlx5-roce-sriov", NULL };

        return setup_with(state, fixtures, false);
}

/* Every blocked read let go before the daemon is stopped (a reader blocked
 * in FUSE cannot be killed), every mount gone after it (nothing holds a
 * file of them then) and before the testbed is removed. Also after a
 * failure: cmocka comes here. */
static int teardown(void **state) {
        Harness *h = *state;
        int status = 0;

        for (unsigned i = 0; i < n_children; i++)
                rdmactl_child_free(children[i]);
        n_children = 0;
        for (unsigned i = 0; i < n_mounts; i++)
                fault_fs_release(mounts[i]);
        if (h && h->daemon_pid > 0) {
                status = harness_stop_process(h->daemon_pid, 30000);
                h->daemon_pid = 0;
        }
        for (unsigned i = 0; i < n_mounts; i++)
                fault_fs_unmount(mounts[i]);
        n_mounts = 0;
        prepare_block = NULL;
        harness_stop(h);
        if (status != 0)
                fail_msg("rdmad did not exit cleanly on SIGTERM: wait status 0x%x", status);
        return 0;
}

typedef struct Expect {
        const char *path;
        const char *needle;
} Expect;

static bool has_change(Harness *h, const void *data, FILE *seen) {
        const Expect *e = data;
        const Signal *last = NULL;

        for (size_t i = 0; i < h->n_signals; i++)
                if (strcmp(h->signals[i].member, "PropertiesChanged") == 0 &&
                    strcmp(h->signals[i].path, e->path) == 0) {
                        if (strstr(h->signals[i].body, e->needle))
                                return true;
                        last = &h->signals[i];
                }
        if (seen) /* NULL: a look outside a wait */
                fprintf(seen, "%s", last ? last->body : "no PropertiesChanged on it");
        return false;
}

static void wait_health(Harness *h, const char *device, const char *health, int timeout_ms) {
        char path[256], needle[128];
        Expect e = { path, needle };

        snprintf(path, sizeof(path), "/org/rdmad1/device/%s", device);
        snprintf(needle, sizeof(needle), "\"Health\": \"%s\"", health);
        harness_wait_for_bound(h, has_change, &e, (uint64_t) timeout_ms, "a PropertiesChanged of %s to Health %s",
                               device, health);
}

static char *device_property(Harness *h, const char *device, const char *name) {
        char path[256];

        snprintf(path, sizeof(path), "/org/rdmad1/device/%s", device);
        return harness_get_property(h, path, RDMAD_DEVICE_INTERFACE, name, NULL);
}

static unsigned daemon_threads(Harness *h) {
        char path[64], line[256];
        unsigned n = 0;
        FILE *f;

        snprintf(path, sizeof(path), "/proc/%d/status", (int) h->daemon_pid);
        f = fopen(path, "re");
        assert_non_null(f);
        while (fgets(line, sizeof(line), f))
                if (sscanf(line, "Threads: %u", &n) == 1)
                        break;
        fclose(f);
        return n;
}

static int compare_u64(const void *a, const void *b) {
        uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
        return x < y ? -1 : x > y;
}

/* Root's Get of a healthy port's State every 10 ms for ms (every one must
 * succeed), and the largest gap between two WATCHDOG=1; check() every
 * 100 ms meanwhile. */
typedef struct Load {
        uint64_t p99, max, gap;
        unsigned calls, pings;
} Load;

static void measure(Harness *h, const char *healthy, int ms, Load *ret, void (*check)(Harness *h, void *data),
                    void *data) {
        uint64_t *lat = calloc((size_t) ms / 5 + 16, sizeof(uint64_t));
        uint64_t deadline = now_usec() + (uint64_t) ms * 1000, last_ping, next_check = 0;
        char path[256], buf[4096];
        Load l = {};

        assert_non_null(lat);
        snprintf(path, sizeof(path), "/org/rdmad1/device/%s/port/1", healthy);
        last_ping = now_usec();
        harness_notify_forget(h); /* what is kept came after last_ping */
        while (now_usec() < deadline) {
                sd_bus_error error = SD_BUS_ERROR_NULL;
                char *value = NULL;
                uint64_t t = now_usec();
                uint64_t came;

                if (sd_bus_get_property_string(h->bus, RDMAD_BUS_NAME, path, RDMAD_PORT_INTERFACE,
                                               RDMAD_PORT_PROPERTY_STATE, &error, &value) < 0)
                        fail_msg("root's Get of %s State failed: %s: %s", healthy, error.name, error.message);
                lat[l.calls++] = now_usec() - t;
                free(value);
                while (harness_notify_next(h, 0, buf, sizeof(buf), &came)) {
                        if (!strstr(buf, "WATCHDOG=1"))
                                continue;
                        if (came - last_ping > l.gap)
                                l.gap = came - last_ping;
                        last_ping = came;
                        l.pings++;
                }
                if (check && now_usec() >= next_check) {
                        check(h, data);
                        next_check = now_usec() + 100000;
                }
                /* The signals the daemon sends meanwhile are recorded. */
                harness_observe(h, 10, "the measurement's pace");
        }
        if (now_usec() - last_ping > l.gap)
                l.gap = now_usec() - last_ping;
        qsort(lat, l.calls, sizeof(uint64_t), compare_u64);
        l.p99 = lat[(l.calls * 99) / 100];
        l.max = lat[l.calls - 1];
        free(lat);
        *ret = l;
}

/* ---------- one device hangs ---------- */

typedef struct HangCheck {
        const char *device;
        bool seen;
        uint64_t unresponsive_usec;
} HangCheck;

static void hang_check(Harness *h, void *data) {
        HangCheck *c = data;
        char path[256];
        Expect e = { path, "\"Health\": \"unresponsive\"" };

        snprintf(path, sizeof(path), "/org/rdmad1/device/%s", c->device);
        if (!c->seen && has_change(h, &e, NULL)) {
                c->seen = true;
                c->unresponsive_usec = now_usec();
        }
}

static void test_one_device_hangs(void **state) {
        Harness *h = *state;
        FaultFs *f = mount_over(h, "sick3");
        HangCheck c = { .device = "sick3" };
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        char *s, *out, *error_name;
        uint64_t blocked_usec;
        int status;
        Load l, base;

        /* Root's Gets before the hang: the baseline of this run. */
        measure(h, "sick7", 1000, &base, NULL, NULL);
        harness_clear_signals(h);
        fault_fs_set(f, "*", FAULT_BLOCK, 0);
        /* The poll reads its state within a tick or two. */
        assert_true(fault_fs_wait_blocked(f, 1, (int) (harness_time_bound(3000000) / 1000)));
        blocked_usec = now_usec();

        measure(h, "sick7", 12000, &l, hang_check, &c);
        printf("one device hung 12 s: %u Gets of another device, p99 %.2f ms, max %.2f ms; watchdog: %u pings, "
               "largest gap %.0f ms; unresponsive after %.2f s\n",
               l.calls, l.p99 / 1000.0, l.max / 1000.0, l.pings, l.gap / 1000.0,
               c.seen ? (double) (c.unresponsive_usec - blocked_usec) / 1e6 : -1.0);
        assert_true(c.seen);
        if (c.unresponsive_usec - blocked_usec > harness_time_bound((READ_TIMEOUT_MS + 2000) * 1000ULL))
                fail_msg("Health unresponsive only after %.2f s", (double) (c.unresponsive_usec - blocked_usec) / 1e6);
        if ((double) l.p99 >= latency_bound((double) base.p99))
                fail_msg("root's Get p99 %.2f ms during the hang, %.2f ms before it", l.p99 / 1000.0,
                         base.p99 / 1000.0);
        assert_true(l.pings >= 2);
        if (l.gap >= harness_time_bound(2000000))
                fail_msg("the watchdog was not fed for %.0f ms", l.gap / 1000.0);
        /* One read stuck, nothing more queued behind it. */
        assert_int_equal(fault_fs_blocked(f), 1);

        s = device_property(h, "sick3", RDMAD_DEVICE_PROPERTY_HEALTH_REASON);
        assert_non_null(s);
        if (!strstr(s, "ports/1/state: no answer for"))
                fail_msg("HealthReason %s", s);
        free(s);
        s = device_property(h, "sick3", RDMAD_DEVICE_PROPERTY_HEALTH);
        assert_string_equal(s, "unresponsive");
        free(s);
        s = device_property(h, "sick7", RDMAD_DEVICE_PROPERTY_HEALTH);
        assert_string_equal(s, "ok");
        free(s);

        /* The objects stay, with their last values. */
        assert_true(sd_bus_call_method(h->bus, RDMAD_BUS_NAME, RDMAD_ROOT_PATH, "org.freedesktop.DBus.ObjectManager",
                                       "GetManagedObjects", &error, &reply, "") >= 0);
        s = format_message_body(reply);
        assert_non_null(strstr(s, "/org/rdmad1/device/sick3/port/1"));
        assert_non_null(strstr(s, "\"unresponsive\""));
        free(s);
        reply = sd_bus_message_unref(reply);
        harness_assert_property(h, "/org/rdmad1/device/sick3/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE,
                                "4: ACTIVE");

        /* Counters: the sick device's fail at once, the others' come. */
        error_name = harness_call_error(h, "/org/rdmad1/device/sick3/port/1", RDMAD_PORT_INTERFACE,
                                        RDMAD_METHOD_GET_COUNTERS, "");
        assert_non_null(error_name);
        assert_string_equal(error_name, RDMAD_ERROR_UNRESPONSIVE);
        free(error_name);
        assert_true(sd_bus_call_method(h->bus, RDMAD_BUS_NAME, RDMAD_ROOT_PATH, RDMAD_MANAGER_INTERFACE,
                                       RDMAD_METHOD_GET_ALL_COUNTERS, &error, &reply, "") >= 0);
        s = format_message_body(reply);
        assert_null(strstr(s, "\"sick3\""));
        assert_non_null(strstr(s, "\"sick7\""));
        free(s);
        reply = sd_bus_message_unref(reply);

        /* rdmactl answers. */
        out = rdmactl_run(h, &status, "list");
        assert_int_equal(status, 0);
        assert_non_null(strstr(out, "sick3"));
        assert_non_null(strstr(out, "sick7"));
        free(out);
        out = rdmactl_run(h, &status, "status sick3");
        assert_int_equal(status, 0);
        assert_non_null(strstr(out, "sick3"));
        free(out);

        /* Recovery: what the driver changed meanwhile is published, Health back to ok. */
        harness_clear_signals(h);
        fault_fs_write(f, "ports/1/state", "1: DOWN\n");
        fault_fs_write(f, "ports/1/phys_state", "3: Disabled\n");
        fault_fs_release(f);
        wait_health(h, "sick3", "ok", (int) (harness_time_bound(5000000) / 1000));
        {
                Expect e = { "/org/rdmad1/device/sick3/port/1", "\"State\": \"1: DOWN\"" };
                harness_wait_for(h, has_change, &e, 20000, "a PropertiesChanged of %s with %s", e.path, e.needle);
        }
        harness_assert_property(h, "/org/rdmad1/device/sick3/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE,
                                "1: DOWN");
        harness_assert_property(h, "/org/rdmad1/device/sick3", RDMAD_DEVICE_INTERFACE,
                                RDMAD_DEVICE_PROPERTY_HEALTH_REASON, "");
        error_name = harness_call_error(h, "/org/rdmad1/device/sick3/port/1", RDMAD_PORT_INTERFACE,
                                        RDMAD_METHOD_GET_COUNTERS, "");
        assert_null(error_name);
}

/* ---------- what the clients show of a sick device ---------- */

static RdmactlChild *child_start(const char *args) {
        RdmactlChild *c = rdmactl_child_start(args);

        assert_true(n_children < MAX_CHILDREN);
        children[n_children++] = c;
        return c;
}

static void child_expect(RdmactlChild *c, const char *needle, bool in_stderr, int timeout_ms) {
        if (!rdmactl_child_wait_for(c, needle, in_stderr, timeout_ms))
                fail_msg("rdmactl did not print \"%s\" within %d ms; stdout:\n%s\nstderr:\n%s", needle, timeout_ms,
                         c->out->str, c->err->str);
}

/* rdmactl monitor, text and JSON, subscribed and with the objects read. */
static void monitors_start(RdmactlChild **text, RdmactlChild **json) {
        *text = child_start("monitor");
        *json = child_start("monitor --json");
        child_expect(*text, "Monitoring org.rdmad1", true, 10000);
        child_expect(*json, "Monitoring org.rdmad1", true, 10000);
}

/* The line of text that starts with prefix, without its newline (caller frees). */
static char *line_starting(const char *text, const char *prefix) {
        for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
                if (strncmp(l, prefix, strlen(prefix)) == 0)
                        return strndup(l, strcspn(l, "\n"));
        fail_msg("no line starting with \"%s\" in:\n%s", prefix, text);
        return NULL;
}

static void assert_ends_with(const char *s, const char *suffix) {
        size_t n = strlen(s), k = strlen(suffix);

        if (n < k || strcmp(s + n - k, suffix) != 0)
                fail_msg("\"%s\" does not end with \"%s\"", s, suffix);
}

static void assert_contains(const char *text, const char *needle) {
        if (!strstr(text, needle))
                fail_msg("not found:\n%s\nin:\n%s", needle, text);
}

/* `rdmactl list`: the HEALTH column (only while a device is not ok), the
 * sick one's row and its line under the table. note NULL: a healthy host. */
static void assert_list_health(Harness *h, const char *sick, const char *health, const char *note) {
        char *out = rdmactl_run_ok(h, "list"), *line;
        char prefix[64];

        line = line_starting(out, "DEVICE ");
        if (!note) {
                assert_ends_with(line, " TRANSPORT");
                assert_null(strstr(out, "HEALTH"));
        } else {
                assert_ends_with(line, " TRANSPORT  HEALTH");
                free(line);
                snprintf(prefix, sizeof(prefix), "%s ", sick);
                line = line_starting(out, prefix);
                assert_ends_with(line, health);
                free(line);
                line = line_starting(out, "sick7 ");
                assert_ends_with(line, " InfiniBand ok");
                assert_contains(out, note);
        }
        free(line);
        assert_contains(out, "16 ports listed.\n");
        free(out);
}

typedef struct HealthJson {
        char *list, *status; /* "device:health:reason" of every port, of the device */
} HealthJson;

static void health_json(Harness *h, const char *device, HealthJson *ret) {
        char *out;

        out = rdmactl_run_ok(h, "list --json");
        ret->list =
                harness_python_check(h, out,
                                     "import json, sys\n"
                                     "ports = json.load(open(sys.argv[1]))\n"
                                     "assert len(ports) == 16, ports\n"
                                     "sick = [p for p in ports if p[\"health\"] != \"ok\"]\n"
                                     "assert all(p[\"health_reason\"] == \"\" for p in ports if p not in sick)\n"
                                     "print(\" \".join(\"%s/%d:%s:%s\" % (p[\"device\"], p[\"port\"], p[\"health\"],\n"
                                     "                p[\"health_reason\"]) for p in sick))\n");
        free(out);
        out = rdmactl_run(h, &(int){ 0 }, "status --json %s", device);
        ret->status =
                harness_python_check(h, out,
                                     "import json, sys\n"
                                     "d, = json.load(open(sys.argv[1]))\n"
                                     "print(\"%s:%s:%s\" % (d[\"device\"], d[\"health\"], d[\"health_reason\"]))\n");
        free(out);
}

static void health_json_clear(HealthJson *j) {
        free(j->list);
        free(j->status);
}

/* The monitor's JSON lines of device-health events, "device:old>new:reason" joined by spaces. */
static char *json_health_events(Harness *h, const char *lines) {
        return harness_python_check(h, lines,
                                    "import json, sys\n"
                                    "out = []\n"
                                    "for line in open(sys.argv[1]):\n"
                                    "    e = json.loads(line)\n"
                                    "    if e[\"event\"] == \"device-health\":\n"
                                    "        out.append(\"%s:%s>%s:%s\" % (e[\"device\"], e[\"old_health\"], "
                                    "e[\"health\"], e[\"health_reason\"]))\n"
                                    "print(\" \".join(out))\n");
}

/* One device hangs: list marks its ports, status says why, wait does not
 * take its last known ACTIVE for the truth until it answers again, monitor
 * tells both transitions. */
static void test_clients_show_a_hung_device(void **state) {
        Harness *h = *state;
        FaultFs *f = mount_over(h, "sick3");
        RdmactlChild *text, *json, *waiter;
        char *reason, expected[1024], *out, *events;
        HealthJson j;
        int status;

        monitors_start(&text, &json);
        assert_list_health(h, NULL, NULL, NULL);
        harness_clear_signals(h);
        fault_fs_set(f, "*", FAULT_BLOCK, 0);
        wait_health(h, "sick3", "unresponsive", (int) (harness_time_bound((READ_TIMEOUT_MS + 3000) * 1000ULL) / 1000));
        reason = device_property(h, "sick3", RDMAD_DEVICE_PROPERTY_HEALTH_REASON);
        /* The file and how long it has hung when rdmad gave up on it. */
        if (!reason || strncmp(reason, "ports/1/", 8) != 0 || !strstr(reason, ": no answer for "))
                fail_msg("HealthReason %s", reason);

        /* list: the column, the row, the line under the table; JSON on every port. */
        snprintf(expected, sizeof(expected), "\nsick3: unresponsive (%s); its ports show their last known state.\n",
                 reason);
        assert_list_health(h, "sick3", " InfiniBand unresponsive", expected);
        health_json(h, "sick3", &j);
        snprintf(expected, sizeof(expected), "sick3/1:unresponsive:%s", reason);
        assert_string_equal(j.list, expected);
        snprintf(expected, sizeof(expected), "sick3:unresponsive:%s", reason);
        assert_string_equal(j.status, expected);
        health_json_clear(&j);

        /* status: the Health line first, why, and that the rest is old; none for a healthy device. */
        out = rdmactl_run_ok(h, "status sick3");
        snprintf(expected, sizeof(expected),
                 "● sick3\n             Health: unresponsive (%s), last known values shown\n", reason);
        assert_contains(out, expected);
        assert_contains(out, "             Port 1: ACTIVE (LinkUp), 100 Gb/sec (4X EDR), InfiniBand\n");
        free(out);
        out = rdmactl_run_ok(h, "status sick7");
        assert_null(strstr(out, "Health:"));
        free(out);

        /* counters: every port's in one call, the sick one's block says why it is empty; asked for, an error. */
        out = rdmactl_run_ok(h, "counters");
        snprintf(expected, sizeof(expected), " sick3/1\n             Health: unresponsive (%s), no counters\n\n",
                 reason);
        assert_contains(out, expected);
        assert_contains(out, " sick7/1\n      Data received: 3.9 KiB (4000 bytes)\n");
        free(out);
        snprintf(expected, sizeof(expected), "rdmactl: GetCounters failed: sick3 does not answer: %s. %s\n", reason,
                 RDMAD_ERROR_UNRESPONSIVE);
        rdmactl_assert_run(h, "counters sick3", 1, expected);

        /* wait: its last known ACTIVE does not count, named or not; the others do. */
        snprintf(expected, sizeof(expected),
                 "rdmactl: timed out after 1s.\n"
                 "rdmactl: sick3/1: unresponsive (%s), last known ACTIVE (LinkUp), waiting for ACTIVE\n",
                 reason);
        out = rdmactl_run(h, &status, "wait sick3/1 --timeout=1s");
        assert_int_equal(status, 5);
        assert_string_equal(out, expected);
        free(out);
        out = rdmactl_run(h, &status, "wait --timeout=1s");
        assert_int_equal(status, 5);
        assert_string_equal(out, expected);
        free(out);
        rdmactl_assert_run(h, "wait sick7/1 --timeout=10s", 0, NULL);
        rdmactl_assert_run(h, "wait --ignore=sick3 --timeout=10s", 0, NULL);
        rdmactl_assert_run(h, "wait sick3 sick7 --any --timeout=10s", 0, NULL);

        /* A wait that started during the hang ends when the device answers again. */
        waiter = child_start("wait sick3/1 --timeout=60s");
        snprintf(expected, sizeof(expected), "rdmactl:   sick3/1: unresponsive (%s), last known ACTIVE (LinkUp)",
                 reason);
        child_expect(waiter, expected, true,
                     (int) (harness_time_bound(15000000) / 1000)); /* its first progress report */
        assert_int_equal(rdmactl_child_wait_exit(waiter, 0), -1);

        /* monitor: the transition, with its reason. */
        snprintf(expected, sizeof(expected), "sick3: health ok -> unresponsive (%s)\n", reason);
        child_expect(text, expected, false, 10000);
        child_expect(json, "\"event\":\"device-health\"", false, 10000);

        harness_clear_signals(h);
        fault_fs_release(f);
        wait_health(h, "sick3", "ok", (int) (harness_time_bound(5000000) / 1000));
        assert_int_equal(rdmactl_child_wait_exit(waiter, (int) (harness_time_bound(10000000) / 1000)), 0);
        child_expect(text, "sick3: health unresponsive -> ok\n", false, 10000);
        child_expect(json, "\"old_health\":\"unresponsive\"", false, 10000);
        assert_list_health(h, NULL, NULL, NULL);
        rdmactl_assert_run(h, "wait sick3/1 --timeout=10s", 0, NULL);

        /* Only the two transitions, nothing else about sick3 (its values did not change). */
        assert_int_equal(kill(text->pid, SIGTERM), 0);
        assert_int_equal(rdmactl_child_wait_exit(text, 10000), 0);
        assert_int_equal(kill(json->pid, SIGTERM), 0);
        assert_int_equal(rdmactl_child_wait_exit(json, 10000), 0);
        out = g_strdup(text->out->str);
        for (char *l = out; *l; l = strchr(l, '\n') + 1)
                if (strlen(l) > 33 && strncmp(l + 33, "sick3", 5) == 0 && !strstr(l, ": health "))
                        fail_msg("monitor: %.*s", (int) strcspn(l, "\n"), l);
        g_free(out);
        events = json_health_events(h, json->out->str);
        snprintf(expected, sizeof(expected), "sick3:ok>unresponsive:%s sick3:unresponsive>ok:", reason);
        assert_string_equal(events, expected);
        free(events);
        free(reason);
}

/* An I/O error: errors with the file, in list, status, wait and monitor; a clean read clears it. */
static void test_clients_show_io_errors(void **state) {
        Harness *h = *state;
        FaultFs *f = mount_over(h, "sick5");
        const char *reason = "ports/1/state: Input/output error";
        RdmactlChild *text, *json;
        char expected[512], *out, *events;
        HealthJson j;

        monitors_start(&text, &json);
        fault_fs_set(f, "ports/1/state", FAULT_EIO, 0);
        wait_health(h, "sick5", "errors", (int) (harness_time_bound(5000000) / 1000));
        harness_assert_property(h, "/org/rdmad1/device/sick5", RDMAD_DEVICE_INTERFACE,
                                RDMAD_DEVICE_PROPERTY_HEALTH_REASON, reason);

        assert_list_health(h, "sick5", " InfiniBand errors", "\nsick5: errors (ports/1/state: Input/output error).\n");
        health_json(h, "sick5", &j);
        assert_string_equal(j.list, "sick5/1:errors:ports/1/state: Input/output error");
        assert_string_equal(j.status, "sick5:errors:ports/1/state: Input/output error");
        health_json_clear(&j);
        out = rdmactl_run_ok(h, "status sick5");
        assert_contains(out, "● sick5\n             Health: errors (ports/1/state: Input/output error)\n");
        free(out);
        /* The state could not be read: wait says so, and why. */
        rdmactl_assert_run(h, "wait sick5/1 --timeout=500ms", 5,
                           "rdmactl: sick5/1: unknown (LinkUp), errors (ports/1/state: Input/output error), waiting "
                           "for ACTIVE\n");
        snprintf(expected, sizeof(expected), "sick5: health ok -> errors (%s)\n", reason);
        child_expect(text, expected, false, 10000);

        /* A clean full read clears it. */
        fault_fs_set(f, "ports/1/state", FAULT_NONE, 0);
        harness_clear_signals(h);
        assert_true(sd_bus_call_method(h->bus, RDMAD_BUS_NAME, RDMAD_ROOT_PATH, RDMAD_MANAGER_INTERFACE,
                                       RDMAD_METHOD_RESCAN, NULL, NULL, "") >= 0);
        wait_health(h, "sick5", "ok", (int) (harness_time_bound(5000000) / 1000));
        child_expect(text, "sick5: health errors -> ok\n", false, 10000);
        assert_list_health(h, NULL, NULL, NULL);
        rdmactl_assert_run(h, "wait sick5/1 --timeout=10s", 0, NULL);
        out = rdmactl_run_ok(h, "status sick5");
        assert_null(strstr(out, "Health:"));
        free(out);

        assert_int_equal(kill(json->pid, SIGTERM), 0);
        assert_int_equal(rdmactl_child_wait_exit(json, 10000), 0);
        events = json_health_events(h, json->out->str);
        assert_string_equal(events, "sick5:ok>errors:ports/1/state: Input/output error sick5:errors>ok:");
        free(events);
}

/* ---------- 12 of 16 devices hang: the pool's bound ---------- */

static void test_twelve_devices_hang(void **state) {
        Harness *h = *state;
        unsigned before = daemon_threads(h), during, blocked = 0;
        uint64_t deadline;
        char name[32];
        Load l, base;

        if (harness_daemon_wrapped()) {
                /* Under valgrind the test's own FUSE server and rdmad's eight
                 * blocked readers crawl past every bound; memory is checked on
                 * the same paths by test_one_device_hangs here and by the
                 * ASan pass, which runs this test. */
                fprintf(stderr, "Skipping under valgrind: twelve hung devices take it past any bound.\n");
                skip();
        }

        measure(h, "sick0", 1000, &base, NULL, NULL);
        for (unsigned i = 0; i < 12; i++) {
                snprintf(name, sizeof(name), "sick%u", i + 4);
                fault_fs_set(mount_over(h, name), "*", FAULT_BLOCK, 0);
        }
        /* Every thread of the pool stuck in one of them, and no more. */
        deadline = now_usec() + harness_time_bound(6000000);
        while (now_usec() < deadline) {
                blocked = 0;
                for (unsigned i = 0; i < n_mounts; i++)
                        blocked += fault_fs_blocked(mounts[i]);
                if (blocked >= POOL_THREADS)
                        break;
                harness_observe(h, 50, "a polling interval of this bounded loop");
        }
        assert_int_equal(blocked, POOL_THREADS);
        measure(h, "sick0", 4000, &l, NULL, NULL);
        during = daemon_threads(h);
        blocked = 0;
        for (unsigned i = 0; i < n_mounts; i++)
                blocked += fault_fs_blocked(mounts[i]);
        printf("12 of 16 devices hung: %u threads (%u before), %u reads stuck; root's Get p99 %.2f ms, max %.2f ms "
               "(%u calls); watchdog gap %.0f ms\n",
               during, before, blocked, l.p99 / 1000.0, l.max / 1000.0, l.calls, l.gap / 1000.0);
        assert_true(during <= THREADS_BEFORE + POOL_THREADS);
        assert_int_equal(blocked, POOL_THREADS);
        if ((double) l.p99 >= latency_bound((double) base.p99))
                fail_msg("root's Get p99 %.2f ms during the hang, %.2f ms before it", l.p99 / 1000.0,
                         base.p99 / 1000.0);
        if (l.gap >= harness_time_bound(2000000))
                fail_msg("the watchdog was not fed for %.0f ms", l.gap / 1000.0);
        /* The stuck ones are unresponsive; the healthy ones are not. */
        {
                unsigned unresponsive = 0;

                for (unsigned i = 4; i < 16; i++) {
                        char *s;

                        snprintf(name, sizeof(name), "sick%u", i);
                        s = device_property(h, name, RDMAD_DEVICE_PROPERTY_HEALTH);
                        unresponsive += strcmp(s, "unresponsive") == 0;
                        free(s);
                }
                assert_int_equal(unresponsive, POOL_THREADS);
        }
        {
                char *s = device_property(h, "sick0", RDMAD_DEVICE_PROPERTY_HEALTH);
                assert_string_equal(s, "ok");
                free(s);
        }
        /* Released: everything answers again, the threads are not left behind. */
        for (unsigned i = 0; i < n_mounts; i++)
                fault_fs_release(mounts[i]);
        for (unsigned i = 4; i < 16; i++) {
                snprintf(name, sizeof(name), "sick%u", i);
                deadline = now_usec() + harness_time_bound(10000000);
                for (;;) {
                        char *s = device_property(h, name, RDMAD_DEVICE_PROPERTY_HEALTH);
                        bool ok = s && strcmp(s, "ok") == 0;

                        free(s);
                        if (ok)
                                break;
                        if (now_usec() > deadline)
                                fail_msg("%s still not ok after the release", name);
                        harness_observe(h, 100, "a polling interval of this bounded loop");
                }
        }
        assert_true(daemon_threads(h) <= THREADS_BEFORE + POOL_THREADS);
}

/* ---------- I/O errors ---------- */

static void test_eio(void **state) {
        Harness *h = *state;
        FaultFs *f = mount_over(h, "sick5");
        char *s;

        harness_clear_signals(h);
        fault_fs_set(f, "ports/1/state", FAULT_EIO, 0);
        wait_health(h, "sick5", "errors", (int) (harness_time_bound(5000000) / 1000));
        s = device_property(h, "sick5", RDMAD_DEVICE_PROPERTY_HEALTH_REASON);
        if (!s || !strstr(s, "ports/1/state: Input/output error"))
                fail_msg("HealthReason %s", s);
        free(s);
        /* The value is "" as for any unreadable file (rdmad(8), SICK ADAPTERS); the device says why. */
        harness_assert_property(h, "/org/rdmad1/device/sick5/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE,
                                "");

        /* A clean full read clears it. */
        fault_fs_set(f, "ports/1/state", FAULT_NONE, 0);
        harness_clear_signals(h);
        assert_true(sd_bus_call_method(h->bus, RDMAD_BUS_NAME, RDMAD_ROOT_PATH, RDMAD_MANAGER_INTERFACE,
                                       RDMAD_METHOD_RESCAN, NULL, NULL, "") >= 0);
        wait_health(h, "sick5", "ok", (int) (harness_time_bound(5000000) / 1000));
        harness_assert_property(h, "/org/rdmad1/device/sick5", RDMAD_DEVICE_INTERFACE,
                                RDMAD_DEVICE_PROPERTY_HEALTH_REASON, "");

        /* A counter file that fails: GetCounters answers with what it could read, errors says which. */
        harness_clear_signals(h);
        fault_fs_set(f, "ports/1/counters/symbol_error", FAULT_EIO, 0);
        free(harness_call_error(h, "/org/rdmad1/device/sick5/port/1", RDMAD_PORT_INTERFACE, RDMAD_METHOD_GET_COUNTERS,
                                ""));
        wait_health(h, "sick5", "errors", (int) (harness_time_bound(5000000) / 1000));
        s = device_property(h, "sick5", RDMAD_DEVICE_PROPERTY_HEALTH_REASON);
        if (!s || !strstr(s, "ports/1/counters/symbol_error: Input/output error"))
                fail_msg("HealthReason %s", s);
        free(s);
}

/* ---------- a slow device holds up only itself ---------- */

static void test_slow_device(void **state) {
        Harness *h = *state;
        FaultFs *f = mount_over(h, "sick9");
        Load l, base;
        char *s;

        measure(h, "sick1", 1000, &base, NULL, NULL);
        /* Every read 300 ms: slow, but within the read timeout. */
        fault_fs_set(f, "*", FAULT_DELAY, 300);
        measure(h, "sick1", 3000, &l, NULL, NULL);
        printf("one device slow (300 ms a read): root's Get p99 %.2f ms\n", l.p99 / 1000.0);
        /* Not a speed figure (BENCHMARKS.md has those): a loop that waited
         * for the slow reads would answer after 300 ms, far above its own
         * baseline in this run. */
        if ((double) l.p99 >= latency_bound((double) base.p99))
                fail_msg("root's Get p99 %.2f ms with a slow device (%.2f ms before): the calls waited for its reads",
                         l.p99 / 1000.0, base.p99 / 1000.0);
        s = device_property(h, "sick9", RDMAD_DEVICE_PROPERTY_HEALTH);
        assert_string_equal(s, "ok");
        free(s);
        /* Its poll turns do not pile up: at most one read of it at a time. */
        assert_true(fault_fs_blocked(f) == 0);
}

/* ---------- a slow adapter that answers stays ok ---------- */

/* A busy firmware answers every read, slowly: 100 ms a file, 40 counter
 * files (4 s a GetCounters, twice the read timeout), then 1.5 s a file
 * under the 2 s timeout. The timeout times a read, not the job: the device
 * stays ok however many files a call reads and however many callers ask,
 * and its counters come (issue 42; the job's clock made it unresponsive
 * after one unprivileged GetAllCounters). */
static void test_slow_answering_device_stays_ok(void **state) {
        Harness *h = *state;
        struct passwd *nobody = getpwnam("nobody");
        const char *port = "/org/rdmad1/device/sick8/port/1";
        char *s, *error_name;
        FaultFs *f;

        for (unsigned i = 0; i < 38; i++) {
                char name[32];

                snprintf(name, sizeof(name), "extra_counter_%02u", i);
                {
                        char rel[64];

                        snprintf(rel, sizeof(rel), "ports/1/counters/%s", name);
                        harness_write(h, "/sys/devices/virtual/infiniband/sick8", rel, "7\n");
                }
        }
        f = mount_over(h, "sick8");
        fault_fs_set(f, "*", FAULT_DELAY, 100);

        /* As an unprivileged user where the test may, and as root, at once. */
        if (geteuid() == 0 && nobody) {
                error_name = harness_call_as(h, nobody->pw_uid, nobody->pw_gid, RDMAD_BUS_NAME, RDMAD_ROOT_PATH,
                                             RDMAD_MANAGER_INTERFACE, RDMAD_METHOD_GET_ALL_COUNTERS, "");
                assert_null(error_name);
        }
        {
                sd_bus_error error = SD_BUS_ERROR_NULL;
                sd_bus_message *reply = NULL;
                bool whole;

                if (sd_bus_call_method(h->bus, RDMAD_BUS_NAME, port, RDMAD_PORT_INTERFACE, RDMAD_METHOD_GET_COUNTERS,
                                       &error, &reply, "") < 0)
                        fail_msg("GetCounters on a slow device: %s: %s", error.name, error.message);
                s = format_message_body(reply);
                sd_bus_message_unref(reply);
                whole = strstr(s, "\"extra_counter_37\"") && strstr(s, "\"symbol_error\"");
                if (!whole)
                        fprintf(stderr, "GetCounters on a slow device: %s\n", s);
                free(s);
                assert_true(whole);
        }
        s = device_property(h, "sick8", RDMAD_DEVICE_PROPERTY_HEALTH);
        assert_string_equal(s, "ok");
        free(s);
        harness_assert_property(h, "/org/rdmad1/device/sick8", RDMAD_DEVICE_INTERFACE,
                                RDMAD_DEVICE_PROPERTY_HEALTH_REASON, "");

        /* 1.5 s a read, three reads a call: 4.5 s in all, each under the 2 s timeout. */
        fault_fs_set(f, "*", FAULT_NONE, 0);
        fault_fs_set(f, "ports/1/counters/symbol_error", FAULT_DELAY, 1500);
        fault_fs_set(f, "ports/1/counters/port_rcv_data", FAULT_DELAY, 1500);
        fault_fs_set(f, "ports/1/counters/extra_counter_00", FAULT_DELAY, 1500);
        error_name = harness_call_error(h, port, RDMAD_PORT_INTERFACE, RDMAD_METHOD_GET_COUNTERS, "");
        if (error_name)
                fail_msg("GetCounters with 1.5 s reads under a 2 s timeout: %s", error_name);
        s = device_property(h, "sick8", RDMAD_DEVICE_PROPERTY_HEALTH);
        assert_string_equal(s, "ok");
        free(s);
        assert_int_equal(fault_fs_blocked(f), 0);
}

/* ---------- start-up with a device that hangs ---------- */

static int setup_startup(void **state) {
        prepare_block = "sick2";
        return setup(state);
}

static void test_startup_with_a_hung_device(void **state) {
        Harness *h = *state;
        uint64_t ready = h->ready_usec - h->spawn_usec;
        char *s;

        printf("start-up with a hung device: READY=1 after %.2f s\n", (double) ready / 1e6);
        if (ready > harness_time_bound((READ_TIMEOUT_MS + 2000) * 1000ULL))
                fail_msg("READY=1 only after %.2f s", (double) ready / 1e6);
        /* Published with its name and path, unresponsive. */
        s = device_property(h, "sick2", RDMAD_DEVICE_PROPERTY_HEALTH);
        assert_string_equal(s, "unresponsive");
        free(s);
        s = device_property(h, "sick2", RDMAD_DEVICE_PROPERTY_NAME);
        assert_string_equal(s, "sick2");
        free(s);
        /* The others complete. */
        for (unsigned i = 0; i < N_DEVICES; i++) {
                char path[128];

                if (i == 2)
                        continue;
                snprintf(path, sizeof(path), "/org/rdmad1/device/sick%u/port/1", i);
                harness_assert_property(h, path, RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE, "4: ACTIVE");
        }
        /* Released: read in full, its objects announced again, with their port. */
        harness_clear_signals(h);
        fault_fs_release(mounts[0]);
        harness_wait_signals(h, RDMAD_ROOT_PATH, "InterfacesAdded", 2);
        s = device_property(h, "sick2", RDMAD_DEVICE_PROPERTY_HEALTH);
        assert_string_equal(s, "ok");
        free(s);
        harness_wait_property(h, "/org/rdmad1/device/sick2/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE,
                              "4: ACTIVE", 20000);
        s = device_property(h, "sick2", RDMAD_DEVICE_PROPERTY_NODE_DESCRIPTION);
        assert_string_equal(s, "sick 2");
        free(s);
}

/* ---------- SIGTERM with a read stuck ---------- */

static char proc_state(pid_t pid) {
        char path[64], buf[512], *p;
        FILE *f;
        size_t n;

        snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int) pid, (int) pid);
        f = fopen(path, "re");
        if (!f)
                return 0; /* gone */
        n = fread(buf, 1, sizeof(buf) - 1, f);
        fclose(f);
        buf[n] = '\0';
        p = strrchr(buf, ')');
        return p && p[1] == ' ' ? p[2] : '?';
}

static void test_sigterm_with_a_stuck_read(void **state) {
        Harness *h = *state;
        FaultFs *f;
        uint64_t start;
        int status;
        char st;

        if (harness_daemon_wrapped()) {
                /* valgrind ends a process by ending each of its threads, and a
                 * thread stuck in the kernel never ends: it would wait for good,
                 * as LeakSanitizer would (setup_sigterm). The gcc and ASan
                 * passes run this test. */
                fprintf(stderr, "Skipping under valgrind: it cannot exit with a thread stuck in the kernel.\n");
                skip();
        }
        f = mount_over(h, "sick11");
        fault_fs_set(f, "*", FAULT_BLOCK, 0);
        assert_true(fault_fs_wait_blocked(f, 1, (int) (harness_time_bound(3000000) / 1000)));
        start = now_usec();
        assert_int_equal(kill(h->daemon_pid, SIGTERM), 0);
        for (;;) {
                st = proc_state(h->daemon_pid);
                /* The main thread has exited: a zombie leader, or gone. */
                if (st == 0 || st == 'Z' || st == 'X')
                        break;
                if (now_usec() - start > harness_time_bound(2000000))
                        fail_msg("rdmad's main thread still there (%c) %.1f s after SIGTERM", st,
                                 (double) (now_usec() - start) / 1e6);
                usleep(20000);
        }
        printf("SIGTERM with a read stuck: the main thread gone after %.0f ms\n", (now_usec() - start) / 1000.0);
        /* The process stays until the stuck read returns, then is reaped. */
        assert_int_equal(waitpid(h->daemon_pid, &status, WNOHANG), 0);
        fault_fs_release(f);
        start = now_usec();
        while (waitpid(h->daemon_pid, &status, WNOHANG) == 0) {
                if (now_usec() - start > harness_time_bound(5000000))
                        fail_msg("rdmad not reaped 5 s after the read was released");
                usleep(20000);
        }
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 0);
        h->daemon_pid = 0;
}

/* ---------- SetNumVfs on an unresponsive device ---------- */

static void test_set_num_vfs_unresponsive(void **state) {
        Harness *h = *state;
        char dir[4096], *error_name, *root;
        FaultFs *f;

        root = umockdev_testbed_get_root_dir(h->testbed);
        snprintf(dir, sizeof(dir), "%s/sys/devices/pci0000:5d/0000:5d:00.0/0000:5e:00.0/infiniband/mlx5_0", root);
        g_free(root);
        f = fault_fs_mount(dir);
        assert_non_null(f);
        mounts[n_mounts++] = f;
        harness_clear_signals(h);
        fault_fs_set(f, "*", FAULT_BLOCK, 0);
        /* A RoCE port's state follows rtnetlink: a change uevent makes the daemon read the device. */
        umockdev_testbed_uevent(h->testbed, "/sys/devices/pci0000:5d/0000:5d:00.0/0000:5e:00.0/infiniband/mlx5_0",
                                "change");
        wait_health(h, "mlx5_5f0", "unresponsive",
                    (int) (harness_time_bound((READ_TIMEOUT_MS + 3000) * 1000ULL) / 1000));
        error_name = harness_call_error(h, "/org/rdmad1/device/mlx5_5f0/sriov", RDMAD_SRIOV_INTERFACE,
                                        RDMAD_METHOD_SET_NUM_VFS, "u", 2);
        assert_non_null(error_name);
        assert_string_equal(error_name, RDMAD_ERROR_UNRESPONSIVE);
        free(error_name);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_one_device_hangs, setup_watchdog, teardown),
                cmocka_unit_test_setup_teardown(test_twelve_devices_hang, setup_watchdog, teardown),
                cmocka_unit_test_setup_teardown(test_eio, setup, teardown),
                cmocka_unit_test_setup_teardown(test_clients_show_a_hung_device, setup, teardown),
                cmocka_unit_test_setup_teardown(test_clients_show_io_errors, setup, teardown),
                cmocka_unit_test_setup_teardown(test_slow_answering_device_stays_ok, setup, teardown),
                cmocka_unit_test_setup_teardown(test_slow_device, setup, teardown),
                cmocka_unit_test_setup_teardown(test_startup_with_a_hung_device, setup_startup, teardown),
                cmocka_unit_test_setup_teardown(test_sigterm_with_a_stuck_read, setup_sigterm, teardown),
                cmocka_unit_test_setup_teardown(test_set_num_vfs_unresponsive, setup_sriov, teardown),
        };

        /* RDMAD_TEST_FILTER=test_eio: one test (cmocka's pattern). */
        if (getenv("RDMAD_TEST_FILTER"))
                cmocka_set_test_filter(getenv("RDMAD_TEST_FILTER"));
        return cmocka_run_group_tests(tests, NULL, NULL);
}
