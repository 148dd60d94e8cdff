/* SPDX-License-Identifier: MIT */
/* The model without a bus: manager.c reports through ModelEvents, recorded
 * here, while sysfs (umockdev's testbed, under its LD_PRELOAD) changes under
 * it: a replaced snapshot, an identity change, a rename, removals before
 * additions, and that every object is findable while it is reported. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <umockdev.h>

#include "basic/util.h"
#include "bus-objects.h"
#include "manager.h"
#include "pci-function.h"
#include "properties.h"
#include "read-job.h"
#include "port.h"
#include "device.h"
#include "netdev.h"

#define MLX4_SYS "/sys/devices/pci0000:00/0000:00:03.0/0000:03:00.0/infiniband/mlx4_0"
#define HFI1_SYS "/sys/devices/pci0000:80/0000:80:03.0/0000:81:00.0/infiniband/hfi1_0"

typedef enum EventType {
        EVENT_ADDED,
        EVENT_REMOVING,
        EVENT_NETDEV_ADDED,
        EVENT_NETDEV_REMOVING,
        EVENT_CHANGED,
} EventType;

typedef struct Event {
        EventType type;
        ModelObjectKind kind; /* EVENT_CHANGED */
        char name[128];       /* "mlx4_0", "mlx4_0/1", "ib0"; "" for the device set */
        PropertyMask mask;
        bool findable; /* the object was in the manager's table when reported */
} Event;

typedef struct Recorder {
        Manager *manager;
        Event events[64];
        size_t n;
        PendingChanges pending; /* what the bus side would announce */
} Recorder;

static Event *record(Recorder *r, EventType type) {
        assert_true(r->n < ELEMENTSOF(r->events));
        r->events[r->n] = (Event){ .type = type };
        return &r->events[r->n++];
}

static bool device_is_published(Manager *m, const Device *d) {
        return manager_find_device(m, d->name) == d;
}

static bool netdev_is_published(Manager *m, const NetDev *n) {
        Device *d = manager_find_device(m, n->device->name);
        return d == n->device && device_find_netdev(d, n->name) == n;
}

static void on_added(Device *d, void *userdata) {
        Recorder *r = userdata;
        Event *e = record(r, EVENT_ADDED);

        snprintf(e->name, sizeof(e->name), "%s", d->name);
        e->findable = device_is_published(r->manager, d);
}

static void on_removing(Device *d, void *userdata) {
        Recorder *r = userdata;
        Event *e = record(r, EVENT_REMOVING);

        snprintf(e->name, sizeof(e->name), "%s", d->name);
        e->findable = device_is_published(r->manager, d);
}

static void on_netdev_added(NetDev *n, void *userdata) {
        Recorder *r = userdata;
        Event *e = record(r, EVENT_NETDEV_ADDED);

        snprintf(e->name, sizeof(e->name), "%s", n->name);
        e->findable = netdev_is_published(r->manager, n);
}

static void on_netdev_removing(NetDev *n, void *userdata) {
        Recorder *r = userdata;
        Event *e = record(r, EVENT_NETDEV_REMOVING);

        snprintf(e->name, sizeof(e->name), "%s", n->name);
        e->findable = netdev_is_published(r->manager, n);
}

static void on_changed(ModelObjectKind kind, void *object, PropertyMask mask, void *userdata) {
        Recorder *r = userdata;
        Event *e = record(r, EVENT_CHANGED);

        e->kind = kind;
        e->mask = mask;
        switch (kind) {
        case MODEL_DEVICE:
        case MODEL_SRIOV: {
                Device *d = object;
                snprintf(e->name, sizeof(e->name), "%s", d->name);
                e->findable = device_is_published(r->manager, d);
                break;
        }
        case MODEL_PORT: {
                Port *p = object;
                snprintf(e->name, sizeof(e->name), "%s/%u", p->device->name, p->number);
                e->findable = device_is_published(r->manager, p->device) && device_find_port(p->device, p->number) == p;
                break;
        }
        case MODEL_NETDEV: {
                NetDev *n = object;
                snprintf(e->name, sizeof(e->name), "%s", n->name);
                e->findable = netdev_is_published(r->manager, n);
                break;
        }
        case MODEL_DEVICE_SET:
                assert_null(object);
                assert_int_equal(mask, 0);
                e->findable = true;
                break;
        default:
                fail_msg("unknown kind %d", kind);
        }
        pending_changes_add(&r->pending, kind, object, mask);
}

static const ModelEvents recorder_events = {
        .device_added = on_added,
        .device_removing = on_removing,
        .netdev_added = on_netdev_added,
        .netdev_removing = on_netdev_removing,
        .changed = on_changed,
};

typedef struct Host {
        UMockdevTestbed *testbed;
        Manager *manager;
        Recorder recorder;
} Host;

/* readers: the manager reads on a reader pool, as rdmad does, instead of in
 * line. */
static Host *host_new(const char *const *fixtures, bool readers) {
        Host *h = calloc(1, sizeof(Host));
        assert_non_null(h);

        h->testbed = umockdev_testbed_new();
        for (size_t i = 0; fixtures[i]; i++) {
                GError *error = NULL;
                char path[512];

                snprintf(path, sizeof(path), "%s/%s.umockdev", FIXTURE_DIR, fixtures[i]);
                if (!umockdev_testbed_add_from_file(h->testbed, path, &error))
                        fail_msg("Cannot load %s: %s", path, error->message);
        }
        assert_int_equal(manager_new(&h->manager), 0);
        h->recorder.manager = h->manager;
        manager_set_events(h->manager, &recorder_events, &h->recorder);
        if (readers)
                assert_int_equal(manager_start_readers(h->manager, 0), 0);
        assert_int_equal(manager_load(h->manager), 0);
        return h;
}

static void host_free(Host *h) {
        manager_free(h->manager);
        pending_changes_done(&h->recorder.pending);
        g_object_unref(h->testbed);
        free(h);
}

#define HOST(...) host_new((const char *const[]){ __VA_ARGS__, NULL }, false)

/* Rewrites a file of the testbed's sysfs, as the kernel would. */
static void write_sysfs(Host *h, const char *syspath, const char *file, const char *value) {
        char *root = umockdev_testbed_get_root_dir(h->testbed);
        char path[1024];
        FILE *f;

        snprintf(path, sizeof(path), "%s%s/%s", root, syspath, file);
        g_free(root);
        f = fopen(path, "we");
        assert_non_null(f);
        assert_true(fputs(value, f) >= 0);
        assert_int_equal(fclose(f), 0);
}

/* What the kernel does for "rdma dev set OLD name NEW": the directory and
 * its class link move. Returns the new syspath in buf. */
static const char *rename_device(Host *h, const char *syspath, const char *new_name, char *buf, size_t size) {
        char *root = umockdev_testbed_get_root_dir(h->testbed);
        const char *old_name = strrchr(syspath, '/') + 1;
        char from[1024], to[1024], target[1024];
        ssize_t n;

        snprintf(buf, size, "%.*s%s", (int) (old_name - syspath), syspath, new_name);
        snprintf(from, sizeof(from), "%s%s", root, syspath);
        snprintf(to, sizeof(to), "%s%s", root, buf);
        assert_int_equal(rename(from, to), 0);
        snprintf(from, sizeof(from), "%s/sys/class/infiniband/%s", root, old_name);
        n = readlink(from, target, sizeof(target) - 1);
        assert_true(n > (ssize_t) strlen(old_name));
        target[n - (ssize_t) strlen(old_name)] = '\0';
        strncat(target, new_name, sizeof(target) - strlen(target) - 1);
        assert_int_equal(unlink(from), 0);
        snprintf(to, sizeof(to), "%s/sys/class/infiniband/%s", root, new_name);
        assert_int_equal(symlink(target, to), 0);
        g_free(root);
        umockdev_testbed_set_property(h->testbed, buf, "NAME", new_name);
        return buf;
}

static const Event *event_at(const Host *h, size_t i) {
        assert_true(i < h->recorder.n);
        return &h->recorder.events[i];
}

static void assert_event(const Host *h, size_t i, EventType type, const char *name) {
        const Event *e = event_at(h, i);

        if (e->type != type || !streq(e->name, name))
                fail_msg("event %zu: type %d '%s', expected type %d '%s'", i, e->type, e->name, type, name);
        assert_true(e->findable);
}

static void test_load_reports_nothing(void **state) {
        Host *h = HOST("mlx4-vpi", "hfi1");

        /* The first load is published by whoever connects afterwards. */
        assert_int_equal(h->manager->n_devices, 2);
        assert_int_equal(h->recorder.n, 0);
        host_free(h);
}

static void test_reload_unchanged_reports_nothing(void **state) {
        Host *h = HOST("mlx4-vpi");
        Device *before = manager_find_device(h->manager, "mlx4_0");

        assert_int_equal(manager_reload_device(h->manager, NULL, MLX4_SYS, "mlx4_0"), 0);
        /* A new snapshot replaced the old, and nothing differed. */
        assert_ptr_not_equal(manager_find_device(h->manager, "mlx4_0"), NULL);
        (void) before;
        assert_int_equal(h->recorder.n, 0);
        host_free(h);
}

static void test_replace_reports_changed_port_of_new_snapshot(void **state) {
        Host *h = HOST("mlx4-vpi");
        const Event *e;
        Port *p;

        write_sysfs(h, MLX4_SYS, "ports/1/state", "1: DOWN\n");
        assert_int_equal(manager_reload_device(h->manager, NULL, MLX4_SYS, "mlx4_0"), 0);

        /* One change, of port 1, on the snapshot now in the table; no re-announcement. */
        assert_int_equal(h->recorder.n, 1);
        assert_event(h, 0, EVENT_CHANGED, "mlx4_0/1");
        e = event_at(h, 0);
        assert_int_equal(e->kind, MODEL_PORT);
        assert_true(e->mask & PROPERTY_BIT(PORT_PROP_STATE));
        assert_true(e->mask & PROPERTY_BIT(PORT_PROP_STATE_NAME));
        assert_true(e->mask & PROPERTY_BIT(PORT_PROP_STATE_CHANGED_USEC));
        assert_true(e->mask & PROPERTY_BIT(PORT_PROP_STATE_CHANGES));
        assert_false(e->mask & PROPERTY_BIT(PORT_PROP_LID));

        p = (Port *) device_find_port(manager_find_device(h->manager, "mlx4_0"), 1);
        assert_string_equal(p->state_name, "DOWN");
        assert_int_equal(p->state_changes, 1);
        host_free(h);
}

static void test_reread_keeps_addresses(void **state) {
        Host *h = HOST("mlx4-vpi");
        Device *d = manager_find_device(h->manager, "mlx4_0");
        Port *p1 = &d->ports[0], *p2 = &d->ports[1];
        NetDev *n = d->netdevs[0];

        assert_int_equal(d->n_ports, 2);
        assert_true(d->n_netdevs > 0);
        /* Not yet published when the device is read again: still pending after. */
        write_sysfs(h, MLX4_SYS, "ports/1/state", "1: DOWN\n");
        assert_int_equal(manager_reload_device(h->manager, NULL, MLX4_SYS, "mlx4_0"), 0);
        write_sysfs(h, MLX4_SYS, "ports/2/state", "2: INIT\n");
        assert_int_equal(manager_reload_device(h->manager, NULL, MLX4_SYS, "mlx4_0"), 0);

        assert_int_equal(h->recorder.n, 2);
        assert_event(h, 0, EVENT_CHANGED, "mlx4_0/1");
        assert_event(h, 1, EVENT_CHANGED, "mlx4_0/2");
        /* The device, its ports and netdevs are where they were, with the new values. */
        assert_ptr_equal(manager_find_device(h->manager, "mlx4_0"), d);
        assert_ptr_equal(&d->ports[0], p1);
        assert_ptr_equal(d->netdevs[0], n);
        assert_string_equal(p1->state_name, "DOWN");
        assert_string_equal(p2->state_name, "INIT");
        assert_int_equal(p1->state_changes, 1);
        assert_int_equal(p2->state_changes, 1);
        /* The bus side's store, by object: both ports, once each, in port order. */
        pending_changes_sort(&h->recorder.pending);
        assert_int_equal(h->recorder.pending.n, 2);
        assert_ptr_equal(h->recorder.pending.changes[0].object, p1);
        assert_true(h->recorder.pending.changes[0].mask & PROPERTY_BIT(PORT_PROP_STATE));
        assert_ptr_equal(h->recorder.pending.changes[1].object, p2);
        assert_true(h->recorder.pending.changes[1].mask & PROPERTY_BIT(PORT_PROP_STATE));
        /* A device that goes takes its pending changes with it. */
        pending_changes_drop_device(&h->recorder.pending, d);
        pending_changes_sort(&h->recorder.pending);
        assert_null(h->recorder.pending.changes[0].object);
        assert_null(h->recorder.pending.changes[1].object);
        host_free(h);
}

static void test_refresh_port_reports_once(void **state) {
        Host *h = HOST("hfi1");
        Device *d = manager_find_device(h->manager, "hfi1_0");
        Port *p = &d->ports[0];

        assert_int_equal(port_refresh(p), 0);
        assert_int_equal(h->recorder.n, 0);

        write_sysfs(h, HFI1_SYS, "ports/1/state", "2: INIT\n");
        assert_int_equal(port_refresh(p), 0);
        assert_int_equal(h->recorder.n, 1);
        assert_event(h, 0, EVENT_CHANGED, "hfi1_0/1");
        assert_true(event_at(h, 0)->mask & PROPERTY_BIT(PORT_PROP_STATE_NUM));

        /* Read again, nothing new: no second report. */
        assert_int_equal(port_refresh(p), 0);
        assert_int_equal(h->recorder.n, 1);
        host_free(h);
}

static void test_identity_change_is_remove_then_add(void **state) {
        Host *h = HOST("mlx4-vpi");

        /* A constant property differs (another card in the slot): re-announced, not changed. */
        write_sysfs(h, MLX4_SYS, "node_guid", "0002:c903:00a1:ffff\n");
        assert_int_equal(manager_reload_device(h->manager, NULL, MLX4_SYS, "mlx4_0"), 0);

        assert_int_equal(h->recorder.n, 4);
        assert_event(h, 0, EVENT_REMOVING, "mlx4_0");
        assert_event(h, 1, EVENT_CHANGED, "");
        assert_int_equal(event_at(h, 1)->kind, MODEL_DEVICE_SET);
        assert_event(h, 2, EVENT_ADDED, "mlx4_0");
        assert_event(h, 3, EVENT_CHANGED, "");
        assert_string_equal(manager_find_device(h->manager, "mlx4_0")->node_guid, "0002:c903:00a1:ffff");
        host_free(h);
}

static void test_rename_removes_old_before_adding_new(void **state) {
        Host *h = HOST("mlx4-vpi", "hfi1");
        char syspath[512];

        rename_device(h, HFI1_SYS, "opa0", syspath, sizeof(syspath));
        assert_int_equal(manager_rescan(h->manager), 0);

        /* Removals first, while the old objects are findable; then the new name. */
        assert_int_equal(h->recorder.n, 4);
        assert_event(h, 0, EVENT_REMOVING, "hfi1_0");
        assert_event(h, 1, EVENT_CHANGED, "");
        assert_event(h, 2, EVENT_ADDED, "opa0");
        assert_event(h, 3, EVENT_CHANGED, "");
        assert_null(manager_find_device(h->manager, "hfi1_0"));
        assert_non_null(manager_find_device(h->manager, "opa0"));
        assert_non_null(manager_find_device(h->manager, "mlx4_0"));
        host_free(h);
}

static void test_remove_reports_while_findable(void **state) {
        Host *h = HOST("mlx4-vpi", "hfi1");

        manager_remove_device(h->manager, "mlx4_0");
        assert_int_equal(h->recorder.n, 2);
        assert_event(h, 0, EVENT_REMOVING, "mlx4_0");
        assert_event(h, 1, EVENT_CHANGED, "");
        assert_null(manager_find_device(h->manager, "mlx4_0"));

        /* Unknown names change nothing. */
        manager_remove_device(h->manager, "mlx4_0");
        assert_int_equal(h->recorder.n, 2);
        host_free(h);
}

static void test_netdev_changed_and_num_vfs(void **state) {
        Host *h = HOST("mlx4-vpi");
        Device *d = manager_find_device(h->manager, "mlx4_0");
        NetDev *n;

        assert_true(d->n_netdevs > 0);
        n = d->netdevs[0];
        netdev_report_changed(n, 0);
        assert_int_equal(h->recorder.n, 0);
        netdev_report_changed(n, PROPERTY_BIT(NETDEV_PROP_MTU));
        assert_int_equal(h->recorder.n, 1);
        assert_event(h, 0, EVENT_CHANGED, n->name);
        assert_int_equal(event_at(h, 0)->kind, MODEL_NETDEV);
        assert_int_equal(event_at(h, 0)->mask, PROPERTY_BIT(NETDEV_PROP_MTU));

        /* Not SR-IOV capable: a VF count for its function changes nothing. */
        pci_function_set_num_vfs(h->manager, d->device_path, 4);
        assert_int_equal(h->recorder.n, 1);
        host_free(h);
}

/* With a reader pool, each device in the table owns its lane, and no read
 * runs on the loop: a job without a lane is refused, not read in place. */
static bool ran_on_the_loop;

static void run_mark(ReaderLane *lane, void *arg) {
        ran_on_the_loop = true;
}

static void apply_nothing(ReadJob *j, const ReaderResult *res) {
}

static void test_pool_reads_never_on_the_loop(void **state) {
        static const ReadJobKind kind = { .size = sizeof(ReadJob), .run = run_mark, .apply = apply_nothing };
        Host *h = host_new((const char *const[]){ "mlx4-vpi", NULL }, true);
        Device *d;
        ReadJob *j;

        assert_int_equal(h->manager->n_devices, 1);

        d = h->manager->devices[0];
        assert_non_null(d->lane);
        assert_ptr_equal(reader_lane_owner(d->lane), d);

        j = read_job_new(&kind, h->manager, d, NULL, NULL);
        assert_non_null(j);
        assert_int_equal(read_job_submit(j, NULL), -ENOMEM);
        assert_false(ran_on_the_loop);
        host_free(h);
}

static void test_netdev_gone_reported_before_the_swap(void **state) {
        Host *h = HOST("mlx4-vpi");
        Device *d = manager_find_device(h->manager, "mlx4_0");
        const NetDev *kept = device_find_netdev(d, "ens1d1");
        bool device_changed = false;

        assert_non_null(kept);
        umockdev_testbed_remove_device(h->testbed, "/sys/devices/pci0000:00/0000:00:03.0/0000:03:00.0/net/ib0");
        assert_int_equal(manager_reload_device(h->manager, NULL, MLX4_SYS, "mlx4_0"), 0);

        assert_true(h->recorder.n >= 2);
        assert_event(h, 0, EVENT_NETDEV_REMOVING, "ib0");
        for (size_t i = 1; i < h->recorder.n; i++) {
                const Event *e = event_at(h, i);

                assert_int_equal(e->type, EVENT_CHANGED);
                assert_true(e->findable);
                if (e->kind == MODEL_DEVICE && (e->mask & PROPERTY_BIT(DEVICE_PROP_NETDEVS)))
                        device_changed = true;
        }
        assert_true(device_changed);
        assert_null(device_find_netdev(manager_find_device(h->manager, "mlx4_0"), "ib0"));
        /* The netdev that stayed is where it was. */
        assert_ptr_equal(device_find_netdev(d, "ens1d1"), kept);
        host_free(h);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_load_reports_nothing),
                cmocka_unit_test(test_reload_unchanged_reports_nothing),
                cmocka_unit_test(test_replace_reports_changed_port_of_new_snapshot),
                cmocka_unit_test(test_reread_keeps_addresses),
                cmocka_unit_test(test_refresh_port_reports_once),
                cmocka_unit_test(test_identity_change_is_remove_then_add),
                cmocka_unit_test(test_rename_removes_old_before_adding_new),
                cmocka_unit_test(test_remove_reports_while_findable),
                cmocka_unit_test(test_netdev_changed_and_num_vfs),
                cmocka_unit_test(test_netdev_gone_reported_before_the_swap),
                cmocka_unit_test(test_pool_reads_never_on_the_loop),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
