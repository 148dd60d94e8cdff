/* SPDX-License-Identifier: MIT */
/* Floods: what one unprivileged user (or a hundred clients) can throw at
 * rdmad, and what rdmad still promises meanwhile.
 *
 * - The attacks (tests/lib/attack.c), each for a few seconds on a simulated
 *   host of dual-port devices: counters, Introspect of a big node,
 *   hit-and-run calls whose caller must be looked up, GetManagedObjects
 *   with fresh callers, Rescan refused (also with no reply expected), the
 *   share after a slow reply. The bounds are the ones rdmad promises: root's
 *   Get p99 within 25 times its p99 measured just before in the same run
 *   (never an absolute figure: that is bench/'s), rdmad's RSS at most
 *   32 MiB above its baseline at the peak and back within 16 MiB, the event
 *   loop never stopped for 2 s (the gaps between its watchdog pings), the
 *   share recovered within its 2 s (the latency and RSS bounds in the
 *   plain builds: under the sanitizers a slower rdmad is judged on its
 *   memory and its answers). RDMAD_ATTACK_SECONDS (3) and
 *   RDMAD_ATTACK_DEVICES (64) size them; the benchmark runs them longer
 *   (RDMAD_ATTACK_ONLY=test_attack_*). Not under valgrind (the rows say
 *   so): there rdmad is tens of times slower than its attackers, and what
 *   they could find there is memory, which the ASan + UBSan pass checks on
 *   the same rows.
 * - 100 clients calling GetManagedObjects, GetAll and Get while 2000
 *   uevents and port flaps arrive: every call answered, the tree equal to
 *   what a fresh daemon reads, resident memory back to its baseline
 *   (RDMAD_FLOOD_CLIENTS and RDMAD_FLOOD_EVENTS scale it down under
 *   valgrind).
 * - 20000 SetNumVfs calls of nobody, with polkitd running and stopped,
 *   while root's five succeed (a tenth under valgrind). */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <pwd.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "attack.h"
#include "harness.h"
#include "host.h"
#include "stats.h"

#define NOBODY           65534
#define OTHER_UID        1 /* "daemon" on Debian: a second unprivileged user */
#define RSS_PEAK_MAX_KIB (32 * 1024)
#define RSS_AFTER_KIB    (16 * 1024)

#define PF_SYS   "/sys/devices/pci0000:5d/0000:5d:00.0/0000:5e:00.0"
#define SRIOV    "/org/rdmad1/device/mlx5_5f0/sriov"
#define MLX5_SYS PF_SYS "/infiniband/mlx5_0"
#define MLX5_0   "/org/rdmad1/device/mlx5_5f0"
#define HFI1_SYS "/sys/devices/pci0000:80/0000:80:03.0/0000:81:00.0/infiniband/hfi1_0"
#define HFI1_0   "/org/rdmad1/device/hfi1_5f0"
#define N_STORM  100

static const char *const fast_poll[] = { "--poll-interval=50", NULL };
static bool private_network;

static unsigned env_unsigned(const char *name, unsigned fallback) {
        const char *v = getenv(name);
        return v && *v ? (unsigned) strtoul(v, NULL, 10) : fallback;
}

static void prepare_host(Harness *h) {
        char *root = umockdev_testbed_get_root_dir(h->testbed);

        write_host(root, attack_n_devices);
        free(root);
}

static Harness *start_host(unsigned devices, const char *const *args) {
        Harness *h;

        attack_n_devices = devices;
        harness_prepare = prepare_host;
        harness_capture_daemon_log = true;
        h = harness_start(NULL, args);
        harness_capture_daemon_log = false;
        harness_prepare = NULL;
        return h;
}

/* The attack rows: not under valgrind (see the top); state NULL there. */
static int setup(void **state) {
        *state = harness_daemon_wrapped() ? NULL : start_host(env_unsigned("RDMAD_ATTACK_DEVICES", 64), NULL);
        return 0;
}

static int attack_teardown(void **state) {
        return *state ? harness_teardown_clean(state) : 0;
}

#define REQUIRE_ATTACK_HOST(h)                                                                                         \
        do {                                                                                                           \
                if (!(h)) {                                                                                            \
                        fprintf(stderr, "skipping under valgrind: the ASan + UBSan pass runs this attack\n");          \
                        skip();                                                                                        \
                }                                                                                                      \
        } while (0)

/* ---------- what root sees meanwhile ---------- */

typedef struct Measure {
        uint64_t *gets, *controls; /* controls: the bus daemon's own GetId, between two Gets */
        size_t n_gets, failed;
        uint64_t worst;                           /* the slowest Get */
        uint64_t rss_before, rss_peak, rss_after; /* KiB */
        Stats get, control;
} Measure;

static int u64_cmp(const void *a, const void *b) {
        uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
        return x < y ? -1 : x > y;
}

/* Root's Get Port.State in a loop for `seconds`, rdmad's RSS sampled. */
static void measure_root(Harness *h, unsigned seconds, Measure *m) {
        uint64_t deadline = now_usec() + (uint64_t) seconds * 1000000ULL, last_rss = 0;
        size_t allocated = 4096;
        char path[128];

        attack_port_path(attack_n_devices / 2, 1, path, sizeof(path));
        m->gets = calloc(allocated, sizeof(uint64_t));
        m->controls = calloc(allocated, sizeof(uint64_t));
        assert_non_null(m->gets);
        assert_non_null(m->controls);
        while (now_usec() < deadline) {
                uint64_t t = now_usec();

                if (sd_bus_call_method(h->bus, RDMAD_BUS_NAME, path, "org.freedesktop.DBus.Properties", "Get", NULL,
                                       NULL, "ss", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE) < 0)
                        m->failed++;
                if (m->n_gets == allocated) {
                        allocated *= 2;
                        m->gets = reallocarray(m->gets, allocated, sizeof(uint64_t));
                        m->controls = reallocarray(m->controls, allocated, sizeof(uint64_t));
                        assert_non_null(m->gets);
                        assert_non_null(m->controls);
                }
                m->gets[m->n_gets] = now_usec() - t;
                t = now_usec();
                (void) sd_bus_call_method(h->bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                          "org.freedesktop.DBus", "GetId", NULL, NULL, "");
                m->controls[m->n_gets++] = now_usec() - t;
                if (now_usec() - last_rss > 100000) {
                        uint64_t rss = harness_daemon_rss_kib(h);

                        m->rss_peak = rss > m->rss_peak ? rss : m->rss_peak;
                        last_rss = now_usec();
                }
                usleep(2000);
        }
        qsort(m->gets, m->n_gets, sizeof(uint64_t), u64_cmp);
        m->worst = m->n_gets > 0 ? m->gets[m->n_gets - 1] : 0;
        qsort(m->controls, m->n_gets, sizeof(uint64_t), u64_cmp);
        m->get.median = (double) m->gets[m->n_gets / 2];
        m->get.p99 = (double) m->gets[(m->n_gets * 99) / 100];
        m->control.p99 = (double) m->controls[(m->n_gets * 99) / 100];
}

static void prime(Harness *h, const Attack *a) {
        char path[128];

        /* rdmad's baseline with every kind of reply made once. */
        attack_port_path(0, 1, path, sizeof(path));
        assert_true(sd_bus_call_method(h->bus, RDMAD_BUS_NAME, RDMAD_ROOT_PATH, RDMAD_MANAGER_INTERFACE,
                                       RDMAD_METHOD_GET_ALL_COUNTERS, NULL, NULL, "") >= 0);
        assert_true(sd_bus_call_method(h->bus, RDMAD_BUS_NAME, path, RDMAD_PORT_INTERFACE, RDMAD_METHOD_GET_COUNTERS,
                                       NULL, NULL, "") >= 0);
        assert_true(sd_bus_call_method(h->bus, RDMAD_BUS_NAME, RDMAD_DEVICE_PREFIX,
                                       "org.freedesktop.DBus.Introspectable", "Introspect", NULL, NULL, "") >= 0);
}

/* rdmad's RSS once it is at most `target` KiB, pinged meanwhile (it gives
 * back freed heap at most every 5 s, after a call): what it is after 7 s
 * otherwise. */
static uint64_t rss_settling_to(Harness *h, uint64_t target) {
        uint64_t deadline = now_usec() + 7 * 1000000ULL, rss;

        for (;;) {
                assert_true(sd_bus_call_method(h->bus, RDMAD_BUS_NAME, RDMAD_ROOT_PATH, "org.freedesktop.DBus.Peer",
                                               "Ping", NULL, NULL, "") >= 0);
                rss = harness_daemon_rss_kib(h);
                if (rss <= target || now_usec() >= deadline)
                        return rss;
                usleep(200000); /* a poll interval, in a bounded wait */
        }
}

/* Runs `a` for the attack's seconds while root calls; checks root's p99
 * against its baseline of the same run and, when rss, the RSS bounds. */
static void run_attack(Harness *h, const char *name, const Attack *a, bool rss) {
        unsigned seconds = env_unsigned("RDMAD_ATTACK_SECONDS", 3);
        unsigned long answers, errors = 0;
        Attacker at;
        Measure m = {}, base = {};
        double bound;

        REQUIRE_ATTACK_HOST(h);
        /* RSS is a figure in the plain builds only (under the sanitizers
         * memory is theirs to manage, and they check it for leaks), of the
         * rows that judge it: only there is it worth the 5.7 s of settling,
         * twice. */
        rss = rss && !harness_daemon_slowed();
        prime(h, a);
        m.rss_before = rss ? harness_settled_rss_kib(h) : harness_daemon_rss_kib(h);
        /* Root's baseline, in this run, on this machine, as loaded as it is. */
        measure_root(h, 1, &base);
        attacker_start(&at, a, NOBODY);
        measure_root(h, seconds, &m);
        answers = attacker_stop(&at, &errors);
        m.rss_after = rss ? rss_settling_to(h, m.rss_before + RSS_AFTER_KIB) : harness_daemon_rss_kib(h);
        bound = latency_bound(base.get.p99);
        printf("%s: %u processes, %lu calls %s (%lu errors); root's Get: %zu, median %.1f ms, p99 %.1f ms (baseline "
               "%.1f ms: bound %.1f ms), the slowest %.1f ms, %zu failed (the bus's GetId p99 %.1f ms); RSS %.1f MiB "
               "before, %.1f at the peak sampled, %.1f after\n",
               name, a->processes, answers, a->hit_and_run ? "made" : "answered", errors, m.n_gets, m.get.median / 1000,
               m.get.p99 / 1000, base.get.p99 / 1000, bound / 1000, m.worst / 1000.0, m.failed, m.control.p99 / 1000,
               m.rss_before / 1024.0, m.rss_peak / 1024.0, m.rss_after / 1024.0);
        fflush(stdout);
        free(m.gets);
        free(m.controls);
        free(base.gets);
        free(base.controls);
        assert_int_equal(m.failed, 0);
        /* Under valgrind or the sanitizers rdmad runs several to tens of
         * times slower than a plain build, and an attack that a plain rdmad
         * outruns keeps it busy (ASan, 4 hit-and-run SetNumVfs processes:
         * root's Get median 35 ms in one CI run, 0.8 ms on gcc): there the
         * pass is for memory errors, every call still answered. Beside the
         * valgrind pass (dbus-broker in make check VALGRIND=1) the machine
         * is shared by design: root's Get p99 102.7 ms in one CI run. Latency
         * is judged by the plain builds' passes alone. */
        if (harness_latency_judged() && m.get.p99 >= bound)
                fail_msg("%s: root's Get p99 %.1f ms, not under %.1f ms (%u times its %.1f ms without the attack)",
                         name, m.get.p99 / 1000, bound / 1000, LATENCY_RATIO, base.get.p99 / 1000);
        if (rss) {
                if (m.rss_peak > m.rss_before + RSS_PEAK_MAX_KIB)
                        fail_msg("%s: RSS %" PRIu64 " KiB at the peak, %" PRIu64 " KiB before", name, m.rss_peak,
                                 m.rss_before);
                if (m.rss_after > m.rss_before + RSS_AFTER_KIB)
                        fail_msg("%s: RSS %" PRIu64 " KiB after, %" PRIu64 " KiB before", name, m.rss_after,
                                 m.rss_before);
        }
}

/* ---------- the rows ---------- */

static void test_attack_all_counters_16_by_16(void **state) {
        const Attack a = { ATTACK_ALL_COUNTERS, .processes = 1, .connections = harness_load_width(16),
                           .in_flight = 16 };

        run_attack(*state, "GetAllCounters 16 x 16", &a, false);
}

static void test_attack_all_counters_many_connections(void **state) {
        const Attack a = { ATTACK_ALL_COUNTERS, .processes = 1, .connections = harness_load_width(128),
                           .in_flight = 16 };

        run_attack(*state, "GetAllCounters 128 x 16", &a, true);
}

static void test_attack_port_counters_128_by_16(void **state) {
        const Attack a = { ATTACK_PORT_COUNTERS, .processes = 1, .connections = harness_load_width(128),
                           .in_flight = 16 };

        run_attack(*state, "Port.GetCounters 128 x 16", &a, true);
}

static void test_attack_introspect_big_node(void **state) {
        const Attack a = { ATTACK_INTROSPECT, .processes = 1, .connections = harness_load_width(8), .in_flight = 16 };

        run_attack(*state, "Introspect 128 in flight", &a, false);
}

static void test_attack_hit_and_run_wait_for_state(void **state) {
        const Attack a = { ATTACK_WAIT_FOR_STATE, .processes = 4, .hit_and_run = true };

        run_attack(*state, "hit-and-run WaitForState", &a, true);
}

static void test_attack_hit_and_run_get_counters(void **state) {
        const Attack a = { ATTACK_PORT_COUNTERS, .processes = 4, .hit_and_run = true };

        run_attack(*state, "hit-and-run GetCounters", &a, true);
}

/* Rescan is root's: refused to nobody, through the caller registry and
 * never by sd-bus's synchronous check (issue 42: each refusal was a
 * GetConnectionCredentials round trip on the loop, and a no-reply flood
 * held root's calls for seconds and grew rdmad's RSS tenfold). */
static void test_attack_rescan_no_reply(void **state) {
        const Attack a = { ATTACK_RESCAN, .processes = 1, .connections = harness_load_width(4), .in_flight = 64,
                           .no_reply = true };

        run_attack(*state, "Rescan, no reply expected", &a, true);
}

static void test_attack_rescan_16_by_16(void **state) {
        const Attack a = { ATTACK_RESCAN, .processes = 1, .connections = harness_load_width(16), .in_flight = 16 };

        run_attack(*state, "Rescan 16 x 16", &a, true);
}

static void test_attack_hit_and_run_set_num_vfs(void **state) {
        const Attack a = { ATTACK_SET_NUM_VFS, .processes = 4, .hit_and_run = true };

        run_attack(*state, "hit-and-run SetNumVfs", &a, true);
}

/* ---------- the event loop never stops ---------- */

static int watchdog_setup(void **state) {
        /* sd_event pings at a fraction of it: several times a second. */
        setenv("WATCHDOG_USEC", "1000000", 1);
        (void) setup(state);
        unsetenv("WATCHDOG_USEC");
        return 0;
}

/* One GetManagedObjects looper, GetAll load, and a fresh connection's
 * WaitForState every 0.1 s, all of nobody: the largest gap between two
 * WATCHDOG=1 of the loop stays under 2 s. */
static void test_attack_loop_keeps_running(void **state) {
        Harness *h = *state;
        const Attack looper = { ATTACK_MANAGED_OBJECTS, .processes = 1, .connections = 1, .in_flight = 1 };
        const Attack load = { ATTACK_GET_ALL, .processes = 1, .connections = harness_load_width(8), .in_flight = 16 };
        const Attack fresh = { ATTACK_WAIT_FOR_STATE, .processes = 1, .hit_and_run = true, .pause_ms = 100 };
        unsigned seconds = env_unsigned("RDMAD_ATTACK_SECONDS", 3) + 1;
        uint64_t deadline, last = 0, gap = 0;
        unsigned pings = 0;
        Attacker at[3];
        char buf[4096];

        REQUIRE_ATTACK_HOST(h);
        harness_notify_forget(h); /* READY=1 and the pings so far */
        attacker_start(&at[0], &looper, NOBODY);
        attacker_start(&at[1], &load, NOBODY);
        attacker_start(&at[2], &fresh, NOBODY);
        deadline = now_usec() + (uint64_t) seconds * 1000000ULL;
        while (now_usec() < deadline) {
                uint64_t came;

                if (!harness_notify_next(h, 100, buf, sizeof(buf), &came) || !strstr(buf, "WATCHDOG=1"))
                        continue;
                if (last && came - last > gap)
                        gap = came - last;
                last = came;
                pings++;
        }
        if (last && now_usec() - last > gap)
                gap = now_usec() - last; /* a loop frozen at the end */
        for (unsigned i = 0; i < 3; i++)
                (void) attacker_stop(&at[i], NULL);
        printf("watchdog: %u pings in %u s, the largest gap %.0f ms\n", pings, seconds, gap / 1000.0);
        assert_true(pings >= 2);
        if (gap >= harness_time_bound(2 * 1000000ULL))
                fail_msg("the event loop stopped for %.0f ms", gap / 1000.0);
}

/* ---------- the share recovers ---------- */

static uint64_t timed_gmo(sd_bus *bus, const char *who) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        uint64_t t = now_usec();

        if (sd_bus_call_method(bus, RDMAD_BUS_NAME, RDMAD_ROOT_PATH, "org.freedesktop.DBus.ObjectManager",
                               "GetManagedObjects", &error, NULL, "") < 0)
                fail_msg("%s's GetManagedObjects: %s: %s", who, error.name, error.message);
        return now_usec() - t;
}

static int share_setup(void **state) {
        /* Replies to users other than root may keep the bus busy 1% of the
         * time: after a reply that took t to leave, 99 t of pause, but
         * never more than the bound. */
        static const char *const args[] = { "--gmo-unprivileged-share=1", NULL };
        unsigned n = env_unsigned("RDMAD_ATTACK_DEVICES", 64) * 4;

        *state = harness_daemon_wrapped() ? NULL : start_host(n < 512 ? n : 512, args);
        return 0;
}

/* After each unprivileged reply, another user's call is answered within the
 * share's 2 s (plus what its own reply takes, and a second for a loaded
 * machine), never refused. */
static void test_attack_share_recovers(void **state) {
        sd_bus *nobody, *other;
        uint64_t first, worst = 0;

        REQUIRE_ATTACK_HOST(*state);
        nobody = harness_open_bus_as(NOBODY);
        other = harness_open_bus_as(OTHER_UID);
        first = timed_gmo(nobody, "nobody");
        for (unsigned i = 0; i < 3; i++) {
                uint64_t t = timed_gmo(i % 2 ? nobody : other, i % 2 ? "nobody" : "the other user");

                worst = t > worst ? t : worst;
        }
        printf("share: the first unprivileged reply in %.0f ms, the slowest of the next three %.0f ms\n",
               first / 1000.0, worst / 1000.0);
        if (worst > harness_time_bound(3 * 1000000ULL + 2 * first))
                fail_msg("a call waited %.0f ms after an unprivileged reply of %.0f ms", worst / 1000.0,
                         first / 1000.0);
        sd_bus_flush_close_unref(nobody);
        sd_bus_flush_close_unref(other);
}

/* ---------- 100 clients while 2000 uevents arrive ---------- */

static int flood_setup(void **state) {
        *state = harness_start(HARNESS_FIXTURES("mlx5-roce-sriov", "hfi1", "mlx4-vpi"), fast_poll);
        return 0;
}

typedef struct Client {
        pthread_t thread;
        const atomic_bool *stop; /* set by the main thread once the daemon has caught up */
        unsigned index;
        unsigned long calls, failures;
        uint64_t max_latency_usec;
        char first_failure[256];
} Client;

static int call(sd_bus *bus, Client *c, const char *path, const char *interface, const char *member, const char *types,
                ...) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *m = NULL, *reply = NULL;
        va_list ap;
        int r;

        r = sd_bus_message_new_method_call(bus, &m, RDMAD_BUS_NAME, path, interface, member);
        if (r >= 0) {
                va_start(ap, types);
                r = sd_bus_message_appendv(m, types, ap);
                va_end(ap);
        }
        if (r >= 0) {
                uint64_t t = now_usec();
                r = sd_bus_call(bus, m, 60 * 1000000ULL, &error, &reply);
                t = now_usec() - t;
                c->max_latency_usec = t > c->max_latency_usec ? t : c->max_latency_usec;
        }
        c->calls++;
        if (r < 0) {
                if (c->failures++ == 0)
                        snprintf(c->first_failure, sizeof(c->first_failure), "%s.%s on %s: %s: %s", interface, member,
                                 path, error.name ?: "(local)", error.message ?: strerror(-r));
        }
        sd_bus_error_free(&error);
        sd_bus_message_unref(reply);
        sd_bus_message_unref(m);
        return r;
}

/* Objects that exist throughout: the fixtures' devices, whose ports flap. */
static void *client_main(void *userdata) {
        Client *c = userdata;
        sd_bus *bus = NULL;

        if (sd_bus_open_system(&bus) < 0) {
                c->failures++;
                snprintf(c->first_failure, sizeof(c->first_failure), "cannot connect to the bus");
                return NULL;
        }
        do {
                switch (c->index % 3) {
                case 0:
                        (void) call(bus, c, RDMAD_ROOT_PATH, "org.freedesktop.DBus.ObjectManager", "GetManagedObjects",
                                    "");
                        (void) call(bus, c, MLX5_0 "/port/1", "org.freedesktop.DBus.Properties", "GetAll", "s",
                                    RDMAD_PORT_INTERFACE);
                        break;
                case 1:
                        (void) call(bus, c, HFI1_0 "/port/1", "org.freedesktop.DBus.Properties", "GetAll", "s",
                                    RDMAD_PORT_INTERFACE);
                        (void) call(bus, c, MLX5_0, "org.freedesktop.DBus.Properties", "GetAll", "s",
                                    RDMAD_DEVICE_INTERFACE);
                        break;
                default:
                        (void) call(bus, c, HFI1_0 "/port/1", "org.freedesktop.DBus.Properties", "Get", "ss",
                                    RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE_NAME);
                        (void) call(bus, c, RDMAD_ROOT_PATH, "org.freedesktop.DBus.Properties", "Get", "ss",
                                    RDMAD_MANAGER_INTERFACE, RDMAD_MANAGER_PROPERTY_DEVICES);
                        break;
                }
        } while (!atomic_load(c->stop) || c->calls < 20);
        sd_bus_flush_close_unref(bus);
        return NULL;
}

static size_t published_devices(Harness *h) {
        char *devices =
                harness_get_property(h, RDMAD_ROOT_PATH, RDMAD_MANAGER_INTERFACE, RDMAD_MANAGER_PROPERTY_DEVICES, NULL);
        size_t n = 0;

        for (const char *p = devices; p && (p = strstr(p, "\"/org")); p++)
                n++;
        free(devices);
        return n;
}

static bool devices_published(Harness *h, const void *data, FILE *seen) {
        size_t n = published_devices(h);

        fprintf(seen, "%zu devices published", n);
        return n == *(const unsigned *) data;
}

/* GetManagedObjects without the timestamps, counts and history of state
 * changes, which a fresh daemon has not seen. */
static char *tree_snapshot(Harness *h) {
        Objects *o = get_managed_objects(h);
        char *text = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&text, &size);

        assert_non_null(f);
        for (size_t i = 0; i < o->n; i++)
                if (!o->entries[i].name || (strcmp(o->entries[i].name, RDMAD_PORT_PROPERTY_STATE_CHANGED_USEC) != 0 &&
                                            strcmp(o->entries[i].name, RDMAD_PORT_PROPERTY_STATE_CHANGES) != 0 &&
                                            strcmp(o->entries[i].name, RDMAD_PORT_PROPERTY_LINK_HISTORY) != 0))
                        fprintf(f, "%s %s %s=%s\n", o->entries[i].path, o->entries[i].interface,
                                o->entries[i].name ?: "", o->entries[i].value ?: "");
        fclose(f);
        objects_free(o);
        return text;
}

static void storm_record(char *buf, size_t size, unsigned i, const char *state) {
        snprintf(buf, size,
                 "P: /devices/virtual/infiniband/flood%u\nE: SUBSYSTEM=infiniband\nE: NAME=flood%u\n"
                 "A: node_type=1: CA\\n\nA: node_desc=flood %u\\n\nA: ports/1/state=%s\\n\n"
                 "A: ports/1/phys_state=5: LinkUp\\n\nA: ports/1/link_layer=InfiniBand\\n\n"
                 "A: ports/1/gids/0=fe80:0000:0000:0000:0002:c903:00%02x:%04x\\n\n",
                 i, i, i, state, i % 256, i);
}

static void test_clients_and_uevents_at_once(void **state) {
        Harness *h = *state;
        unsigned n_clients = env_unsigned("RDMAD_FLOOD_CLIENTS", 100);
        unsigned n_events = env_unsigned("RDMAD_FLOOD_EVENTS", 2000);
        atomic_bool stop = false;
        Client *clients = calloc(n_clients, sizeof(Client));
        bool present[N_STORM] = {};
        unsigned events = 0, flaps = 0, expected;
        unsigned long calls = 0, failures = 0;
        uint64_t max_latency = 0;
        uint64_t rss_before, rss_peak = 0, rss_after, start;
        char record[1024], devpath[128], *before, *after;

        if (!private_network)
                skip(); /* umockdev drops a storm on a shared host's 10-datagram queue */
        assert_true(n_events >= 4 * N_STORM);
        assert_non_null(clients);

        /* Warm up (one round of every call), then the baseline. */
        for (unsigned i = 0; i < 3; i++) {
                static const atomic_bool once = true;
                Client c = { .stop = &once, .index = i, .calls = 19 };
                client_main(&c);
                assert_int_equal(c.failures, 0);
        }
        rss_before = harness_settled_rss_kib(h);

        for (unsigned i = 0; i < n_clients; i++) {
                clients[i] = (Client){ .stop = &stop, .index = i };
                assert_int_equal(pthread_create(&clients[i].thread, NULL, client_main, &clients[i]), 0);
        }

        /* The events: every storm device added; then rounds of a change
         * uevent on a fixture device, a remove or an add of a storm device,
         * and a port flap; finally every storm device removed. */
        start = now_usec();
        for (unsigned i = 0; i < N_STORM; i++) {
                storm_record(record, sizeof(record), i, "4: ACTIVE");
                harness_add_device(h, record);
                present[i] = true;
                events++;
        }
        for (unsigned k = 0; events < n_events - N_STORM; k++) {
                unsigned i = (k * 37) % N_STORM;
                const char *sys = k % 2 ? MLX5_SYS : HFI1_SYS;

                umockdev_testbed_uevent(h->testbed, sys, "change");
                events++;
                if (events >= n_events - N_STORM)
                        break;
                snprintf(devpath, sizeof(devpath), "/sys/devices/virtual/infiniband/flood%u", i);
                if (present[i]) {
                        umockdev_testbed_uevent(h->testbed, devpath, "remove");
                        umockdev_testbed_remove_device(h->testbed, devpath);
                        present[i] = false;
                } else {
                        storm_record(record, sizeof(record), i, k % 3 ? "4: ACTIVE" : "1: DOWN");
                        harness_add_device(h, record);
                        present[i] = true;
                }
                events++;
                if (k % 4 == 0) {
                        harness_write(h, k % 8 ? MLX5_SYS : HFI1_SYS, "ports/1/state",
                                      k % 16 < 8 ? "1: DOWN\n" : "4: ACTIVE\n");
                        flaps++;
                }
                if (k % 50 == 0) {
                        uint64_t rss = harness_daemon_rss_kib(h);
                        rss_peak = rss > rss_peak ? rss : rss_peak;
                }
        }
        for (unsigned i = 0; i < N_STORM; i++)
                if (present[i]) {
                        snprintf(devpath, sizeof(devpath), "/sys/devices/virtual/infiniband/flood%u", i);
                        umockdev_testbed_uevent(h->testbed, devpath, "remove");
                        umockdev_testbed_remove_device(h->testbed, devpath);
                        present[i] = false;
                        events++;
                }
        /* Every remaining storm device went: top up with change events on the fixtures. */
        for (unsigned k = 0; events < n_events; k++, events++)
                umockdev_testbed_uevent(h->testbed, k % 2 ? MLX5_SYS : HFI1_SYS, "change");
        /* The ports' final state, flapped one last time. */
        harness_write(h, MLX5_SYS, "ports/1/state", "4: ACTIVE\n");
        harness_write(h, HFI1_SYS, "ports/1/state", "1: DOWN\n");
        flaps += 2;

        /* The clients keep calling until the daemon has caught up. */
        expected = 4; /* mlx5_0, mlx5_1, hfi1_0, mlx4_0 */
        harness_wait_for_bound(h, devices_published, &expected, 60000,
                               "the %u devices in sysfs published after the flood", expected);
        atomic_store(&stop, true);
        for (unsigned i = 0; i < n_clients; i++) {
                assert_int_equal(pthread_join(clients[i].thread, NULL), 0);
                calls += clients[i].calls;
                failures += clients[i].failures;
                max_latency = clients[i].max_latency_usec > max_latency ? clients[i].max_latency_usec : max_latency;
                if (clients[i].failures)
                        fprintf(stderr, "client %u: %lu of %lu calls failed, first: %s\n", i, clients[i].failures,
                                clients[i].calls, clients[i].first_failure);
        }
        printf("flood: %u clients, %lu calls answered (slowest %.0f ms), %lu failed; "
               "%u uevents and %u port flaps injected, caught up after %.1f s\n",
               n_clients, calls - failures, max_latency / 1000.0, failures, events, flaps,
               (double) (now_usec() - start) / 1e6);
        assert_int_equal(failures, 0);
        assert_true(calls >= n_clients);
        assert_int_equal(events, n_events);

        /* Let the last flap be polled, then: the tree a fresh daemon reads. */
        harness_wait_property(h, MLX5_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE_NAME, "ACTIVE", 0);
        harness_wait_property(h, HFI1_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE_NAME, "DOWN", 0);
        harness_assert_property(h, MLX5_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE_NAME, "ACTIVE");
        harness_assert_property(h, HFI1_0 "/port/1", RDMAD_PORT_INTERFACE, RDMAD_PORT_PROPERTY_STATE_NAME, "DOWN");
        before = tree_snapshot(h);
        rss_after = harness_settled_rss_kib(h);
        printf("flood: daemon RSS %.1f MiB before, %.1f MiB at the peak sampled, %.1f MiB after\n", rss_before / 1024.0,
               rss_peak / 1024.0, rss_after / 1024.0);

        harness_restart_daemon(h, fast_poll);
        after = tree_snapshot(h);
        if (strcmp(before, after) != 0)
                fail_msg("the tree after the flood differs from a fresh daemon's:\n--- flooded\n%s\n--- fresh\n%s",
                         before, after);
        free(before);
        free(after);
        free(clients);

#ifndef SANITIZED_BUILD
        /* Nothing kept, nothing queued: back to the baseline, give or take
         * heap fragmentation (the allocator keeps some pages of a burst).
         * Under ASan or valgrind, memory is theirs to manage (LSan and
         * memcheck check for leaks there instead). */
        if (!harness_daemon_wrapped() && rss_after > rss_before + rss_before / 10 + 1024)
                fail_msg("RSS %" PRIu64 " KiB after the flood, %" PRIu64 " KiB before", rss_after, rss_before);
#endif
}

static bool have_polkit = true;

static int sriov_setup(void **state) {
        Harness *h = harness_start_logged(HARNESS_FIXTURES("mlx5-roce-sriov"),
                                          (const char *const[]){ "--log-level=debug", NULL });

        *state = h;
        if (have_polkit)
                have_polkit = harness_start_polkit(h);
        return 0;
}

/* ---------- SetNumVfs floods, polkitd running and stopped ---------- */

typedef struct SetFlood {
        unsigned calls;
} SetFlood;

/* nobody: `calls` SetNumVfs calls, at most 64 outstanding (the bus limits
 * a connection's pending calls), counts 1..3 so that some are identical
 * and some collide; reports after 1000 replies, and when all are in. */
static void set_flood(sd_bus *bus, FILE *report, int control, const void *data) {
        const SetFlood *s = data;
        unsigned sent = 0;
        bool told = false;
        Replies r = {};

        while (r.n < s->calls) {
                while (sent < s->calls && sent - r.n < 64) {
                        if (sd_bus_call_method_async(bus, NULL, RDMAD_BUS_NAME, SRIOV, RDMAD_SRIOV_INTERFACE,
                                                     RDMAD_METHOD_SET_NUM_VFS, replies_on_reply, &r, "u",
                                                     1 + sent % 3) < 0)
                                _exit(3);
                        sent++;
                }
                if (sd_bus_process(bus, NULL) < 0)
                        _exit(5);
                (void) sd_bus_wait(bus, UINT64_MAX);
                while (sd_bus_process(bus, NULL) > 0)
                        ;
                if (!told && r.n >= 1000) {
                        fprintf(report, "started\n");
                        told = true;
                }
        }
        replies_print(report, &r);
        replies_clear(&r);
        user_caller_wait_for_parent(control);
}

static char *root_set_num_vfs(Harness *h, uint32_t count) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        char *name = NULL;

        if (sd_bus_call_method(h->bus, RDMAD_BUS_NAME, SRIOV, RDMAD_SRIOV_INTERFACE, RDMAD_METHOD_SET_NUM_VFS, &error,
                               NULL, "u", count) < 0) {
                name = strdup(error.name);
                fprintf(stderr, "root's SetNumVfs(%u): %s: %s\n", count, error.name, error.message);
        }
        sd_bus_error_free(&error);
        return name;
}

static void root_sets_five_times(Harness *h) {
        static const uint32_t counts[] = { 2, 3, 0, 4, 1 };
        char *content, expected[16];

        for (size_t i = 0; i < 5; i++) {
                assert_null(root_set_num_vfs(h, counts[i]));
                content = harness_read(h, PF_SYS, "sriov_numvfs");
                snprintf(expected, sizeof(expected), "%u\n", counts[i]);
                assert_string_equal(content, expected);
                free(content);
        }
}

static void test_set_num_vfs_flood_leaves_root_served(void **state) {
        Harness *h = *state;
        const SetFlood flood = { .calls = harness_daemon_wrapped() ? 2000 : 20000 };
        uint64_t start = now_usec();
        char *line;
        UserCaller n;

        HARNESS_REQUIRE_POLKIT(have_polkit);
        user_caller_start(&n, NOBODY, set_flood, &flood);
        line = user_caller_read_line(&n);
        assert_string_equal(line, "started");
        free(line);
        root_sets_five_times(h);

        /* Every one of nobody's calls is answered, none allowed. */
        line = user_caller_read_line(&n);
        printf("flood: %u SetNumVfs calls of nobody answered in %.1f s: %s\n", flood.calls, (now_usec() - start) / 1e6,
               line);
        assert_non_null(strstr(line, "ok=0 "));
        free(line);
        user_caller_finish(&n);
        harness_wait_log_count(h, "Authorization checks held: ", 0);
}

/* The same while polkitd answers nothing (SIGSTOP): nobody's checks pend
 * within their bound, root needs no polkit; nobody leaves with its checks
 * pending and they go with it. */
static void test_set_num_vfs_flood_with_polkit_stopped_leaves_root_served(void **state) {
        Harness *h = *state;
        const SetFlood flood = { .calls = harness_daemon_wrapped() ? 2000 : 20000 };
        char *line;
        UserCaller n;

        HARNESS_REQUIRE_POLKIT(have_polkit);
        assert_int_equal(kill(h->polkit_pid, SIGSTOP), 0);
        user_caller_start(&n, NOBODY, set_flood, &flood);
        line = user_caller_read_line(&n);
        assert_string_equal(line, "started");
        free(line);
        /* nobody's checks pend (polkit answers nothing), within their bounds. */
        assert_true(harness_log_count(h, "Authorization checks held: ") <= 8);

        root_sets_five_times(h);

        /* nobody leaves with its checks still pending: they go with it. */
        user_caller_kill(&n);
        harness_wait_log_count(h, "Authorization checks held: ", 0);
        assert_int_equal(kill(h->polkit_pid, SIGCONT), 0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_attack_all_counters_16_by_16, setup, attack_teardown),
                cmocka_unit_test_setup_teardown(test_attack_all_counters_many_connections, setup, attack_teardown),
                cmocka_unit_test_setup_teardown(test_attack_port_counters_128_by_16, setup, attack_teardown),
                cmocka_unit_test_setup_teardown(test_attack_introspect_big_node, setup, attack_teardown),
                cmocka_unit_test_setup_teardown(test_attack_hit_and_run_wait_for_state, setup, attack_teardown),
                cmocka_unit_test_setup_teardown(test_attack_hit_and_run_get_counters, setup, attack_teardown),
                cmocka_unit_test_setup_teardown(test_attack_rescan_no_reply, setup, attack_teardown),
                cmocka_unit_test_setup_teardown(test_attack_rescan_16_by_16, setup, attack_teardown),
                cmocka_unit_test_setup_teardown(test_attack_hit_and_run_set_num_vfs, setup, attack_teardown),
                cmocka_unit_test_setup_teardown(test_attack_loop_keeps_running, watchdog_setup, attack_teardown),
                cmocka_unit_test_setup_teardown(test_attack_share_recovers, share_setup, attack_teardown),
                cmocka_unit_test_setup_teardown(test_clients_and_uevents_at_once, flood_setup, harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_set_num_vfs_flood_leaves_root_served, sriov_setup,
                                                harness_teardown_clean),
                cmocka_unit_test_setup_teardown(test_set_num_vfs_flood_with_polkit_stopped_leaves_root_served,
                                                sriov_setup, harness_teardown_clean),
        };

        if (getenv("RDMAD_ATTACK_ONLY"))
                cmocka_set_test_filter(getenv("RDMAD_ATTACK_ONLY"));
        if (geteuid() != 0) {
                fprintf(stderr, "skipping: needs root to call as nobody and as another user\n");
                return 77;
        }
        private_network = harness_private_network();
        return cmocka_run_group_tests(tests, NULL, NULL);
}
