/* SPDX-License-Identifier: MIT */
/* Manager.ResolveAddress on a big simulated host, and how soon Gids follows
 * an address change. Prints Markdown; never fails on a time.
 *
 *   bench-resolve [N]      (default 2048 devices; needs root: a network
 *                           namespace of its own, where a veth stands in
 *                           for the last RoCE device's netdev)
 *
 * 1000 ResolveAddress calls back to back as root (median, p99), beside a
 * Properties.Get of Manager.Version in the same run; then ten address
 * changes, each followed by its GID entry in the testbed at once and one
 * second later (as a slow kernel would), timed from `ip addr add`
 * returning to the port's Gids PropertiesChanged. rdmad runs with the poll
 * off: only the address message makes it read the GID table again. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "bench-util.h"
#include "harness.h"

#define CALLS 1000
#define FLIPS 10

static char port_dir[1024]; /* the testbed's ports/1 of the device under test */

/* A GID entry as the kernel makes it appear: whole, type and netdev before the GID. */
static void put_gid(unsigned index, const char *gid, const char *ndev) {
        char name[64], tmp[1200], path[1200];

        snprintf(name, sizeof(name), "gid_attrs/types/%u", index);
        put(port_dir, name, "RoCE v2\n");
        snprintf(name, sizeof(name), "gid_attrs/ndevs/%u", index);
        put(port_dir, name, "%s\n", ndev);
        snprintf(name, sizeof(name), "gids/.new%u", index);
        put(port_dir, name, "%s\n", gid);
        snprintf(tmp, sizeof(tmp), "%s/%s", port_dir, name);
        snprintf(path, sizeof(path), "%s/gids/%u", port_dir, index);
        assert_int_equal(rename(tmp, path), 0);
}

static void run(const char *command) {
        if (system(command) != 0) {
                fprintf(stderr, "bench-resolve: '%s' failed\n", command);
                exit(1);
        }
}

static uint64_t call_usec(Harness *h, const char *member, const char *types, ...) {
        sd_bus_message *m = NULL, *reply = NULL;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        const char *iface = strcmp(member, "Get") == 0 ? DBUS_PROPERTIES_INTERFACE : RDMAD_MANAGER_INTERFACE;
        uint64_t t0, t;
        va_list ap;

        assert_true(sd_bus_message_new_method_call(h->bus, &m, RDMAD_BUS_NAME, RDMAD_ROOT_PATH, iface, member) >= 0);
        va_start(ap, types);
        assert_true(sd_bus_message_appendv(m, types, ap) >= 0);
        va_end(ap);
        t0 = now_usec();
        if (sd_bus_call(h->bus, m, 0, &error, &reply) < 0) {
                fprintf(stderr, "bench-resolve: %s failed: %s: %s\n", member, error.name, error.message);
                exit(1);
        }
        t = now_usec() - t0;
        sd_bus_message_unref(m);
        sd_bus_message_unref(reply);
        return t;
}

typedef struct SignalQuery {
        const char *path;
        size_t count;
} SignalQuery;

static bool signals_reached(Harness *h, const void *data, FILE *seen) {
        const SignalQuery *q = data;
        size_t n = harness_count_signals(h, q->path, "PropertiesChanged");

        fprintf(seen, "%zu PropertiesChanged on %s", n, q->path);
        return n >= q->count;
}

/* From `ip addr add` returning to the Gids signal, the entry written after delay_ms. */
static Stats address_to_signal(Harness *h, const char *ifname, const char *port_path, unsigned first_slot,
                               unsigned delay_ms) {
        uint64_t took[FLIPS];

        for (unsigned k = 0; k < FLIPS; k++) {
                char command[256], gid[64];
                unsigned third = first_slot + k; /* 10.<third>.0.1: one address per run */
                uint64_t t0;
                SignalQuery q = { port_path, 1 };

                harness_observe(h, 100, "the last run's re-reads end");
                harness_clear_signals(h);
                snprintf(command, sizeof(command), "ip addr add 10.%u.0.1/24 dev %s", third, ifname);
                run(command);
                t0 = now_usec();
                if (delay_ms > 0)
                        usleep(delay_ms * 1000);
                snprintf(gid, sizeof(gid), "0000:0000:0000:0000:0000:ffff:0a%02x:0001", third);
                put_gid(first_slot + k, gid, ifname);
                harness_wait_for(h, signals_reached, &q, 20000, "the Gids signal of %s", port_path);
                took[k] = harness_find_signal(h, port_path, "PropertiesChanged")->usec - t0;
        }
        return stats(took, FLIPS);
}

int main(int argc, char *argv[]) {
        unsigned n = argc > 1 ? (unsigned) strtoul(argv[1], NULL, 10) : 2048;
        /* The last RoCE device (even numbers are RoCE in host.c), port 1. */
        unsigned dev = n >= 2 ? (n - 1) & ~1u : 0;
        char root[512], pci[256], ifname[32], command[256], port_path[128], text[2][32];
        uint64_t resolve[CALLS], get[CALLS];
        Stats s, g, now, late;
        Harness *h;

        if (n == 0 || !harness_private_network()) {
                fprintf(stderr, "bench-resolve: needs root (a network namespace of its own) and N > 0\n");
                return 77;
        }
        h = harness_start(NULL, NULL);
        snprintf(root, sizeof(root), "%s", umockdev_testbed_get_root_dir(h->testbed));
        write_host(root, n);
        host_pci_path(dev, pci, sizeof(pci));
        snprintf(port_dir, sizeof(port_dir), "%s/sys/%s/infiniband/mlx5_%u/ports/1", root, pci, dev);
        snprintf(ifname, sizeof(ifname), "eth%up1", dev);
        snprintf(port_path, sizeof(port_path), RDMAD_DEVICE_PREFIX "/mlx5_5f%u/port/1", dev);
        snprintf(command, sizeof(command),
                 "ip link add %s type veth peer name peer0 && ip link set %s up && "
                 "ip link set peer0 up && ip addr add 192.0.2.1/24 dev %s",
                 ifname, ifname, ifname);
        run(command);
        put_gid(4, "0000:0000:0000:0000:0000:ffff:c000:0201", ifname);
        harness_restart_daemon(h, (const char *const[]){ "--poll-interval=0", NULL });

        for (size_t i = 0; i < CALLS; i++) {
                resolve[i] = call_usec(h, RDMAD_METHOD_RESOLVE_ADDRESS, "s", "192.0.2.2");
                get[i] = call_usec(h, "Get", "ss", RDMAD_MANAGER_INTERFACE, RDMAD_MANAGER_PROPERTY_VERSION);
        }
        s = stats(resolve, CALLS);
        g = stats(get, CALLS);
        now = address_to_signal(h, ifname, port_path, 5, 0);
        late = address_to_signal(h, ifname, port_path, 5 + FLIPS, 1000);

        printf("## ResolveAddress (bus: %s, %u devices, %u ports)\n\n", harness_bus_name(), n, 2 * n);
        printf("| measure | median | p99 |\n| --- | --- | --- |\n");
        printf("| ResolveAddress, %d calls as root | %s | %s |\n", CALLS, fmt_usec(s.median, text[0], sizeof(text[0])),
               fmt_usec(s.p99, text[1], sizeof(text[1])));
        printf("| Get Manager.Version, the same run | %s | %s |\n", fmt_usec(g.median, text[0], sizeof(text[0])),
               fmt_usec(g.p99, text[1], sizeof(text[1])));
        printf("| address added → Gids signal, entry written at once (%d runs) | %s | %s |\n", FLIPS,
               fmt_usec(now.median, text[0], sizeof(text[0])), fmt_usec(now.p99, text[1], sizeof(text[1])));
        printf("| address added → Gids signal, entry written 1 s later (%d runs) | %s | %s |\n", FLIPS,
               fmt_usec(late.median, text[0], sizeof(text[0])), fmt_usec(late.p99, text[1], sizeof(text[1])));
        fflush(stdout);
        return harness_stop(h) == 0 ? 0 : 1;
}
