/* SPDX-License-Identifier: MIT */
#include "manager.h"

#include <systemd/sd-id128.h>

#include <malloc.h>
#include <stdio.h>
#include <time.h>

#include "basic/log.h"
#include "basic/time-util.h"
#include "basic/util.h"
#include "device.h"
#include "enumerate.h"
#include "pci-function.h"
#include "port.h"
#include "properties.h"
#include "read-job.h"
#include "reader-pool.h"

int manager_new(Manager **ret) {
        _cleanup_(manager_freep) Manager *m = NULL;
        int r;

        m = calloc(1, sizeof(Manager));
        if (!m)
                return -ENOMEM;
        m->poll_interval_ms = POLL_INTERVAL_MS_DEFAULT;
        m->read_timeout_usec = READ_TIMEOUT_USEC_DEFAULT;

        r = sd_event_default(&m->event);
        if (r < 0)
                return r;
        /* WATCHDOG=1 from the loop itself, at half of WatchdogSec=, when systemd asks for it. */
        r = sd_event_set_watchdog(m->event, true);
        if (r < 0)
                return r;
        /* sd-event spreads timers by the boot ID, read from /proc when the first
         * timer is armed. Read it now, at start: later, the loop would open a
         * file while a worker may be stuck in a driver's write, and under an
         * LD_PRELOAD that serialises open() (umockdev's) it would wait for it. */
        (void) sd_id128_get_boot(&(sd_id128_t){});
        m->udev = udev_new();
        if (!m->udev)
                return -ENOMEM;

        *ret = TAKE_PTR(m);
        return 0;
}

Manager *manager_free(Manager *m) {
        if (!m)
                return NULL;
        if (m->sources.detach)
                m->sources.detach(m->sources_userdata);
        for (size_t i = 0; i < m->n_devices; i++)
                device_set_lane(m->devices[i], NULL);
        /* Reads still running are left to their threads. */
        reader_pool_free(m->readers);
        history_store_free(m->history);
        strv_free(m->start_stuck);
        device_array_free(m->devices, m->n_devices);
        udev_unref(m->udev);
        sd_event_unref(m->event);
        free(m);
        return NULL;
}

void manager_set_events(Manager *m, const ModelEvents *events, void *userdata) {
        assert(m);
        m->events = events ? *events : (ModelEvents){};
        m->events_userdata = userdata;
}

static int manager_submit_load(Manager *m, ReaderLane *lane, const char *name, const char *syspath,
                               const char *old_name, unsigned rescan);

/* Where name is or would go in a sorted device array. */
static size_t devices_lower_bound(Device *const *devices, size_t n, const char *name) {
        size_t lo = 0, hi = n;

        while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                if (strcmp(devices[mid]->name, name) < 0)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return lo;
}

/* d into the table at i, where its name goes. */
static int devices_insert_at(Manager *m, size_t i, Device *d) {
        Device **devices = reallocarray(m->devices, m->n_devices + 1, sizeof(Device *));

        if (!devices)
                return -ENOMEM;
        m->devices = devices;
        memmove(m->devices + i + 1, m->devices + i, (m->n_devices - i) * sizeof(Device *));
        m->devices[i] = d;
        m->n_devices++;
        return 0;
}

/* With readers: every device read on its lane, at most the read timeout
 * waited for; what has not answered by then is published as a stand-in. */
static int manager_load_on_readers(Manager *m) {
        _cleanup_strv_free_ char **paths = NULL;
        uint64_t until;
        size_t n;
        int r;

        r = enumerate_device_paths(m->udev, &paths, &n);
        if (r < 0)
                return r;

        m->starting = true;
        for (size_t i = 0; i < n; i++) {
                ReaderLane *lane = reader_pool_lane(m->readers, paths[2 * i + 1]);

                r = lane ? manager_submit_load(m, lane, paths[2 * i + 1], paths[2 * i], NULL, 0) : -ENOMEM;
                reader_lane_unref(lane);
                if (r < 0) {
                        m->starting = false;
                        return r;
                }
                m->start_pending++;
        }

        until = m->read_timeout_usec > 0 ? now_usec(CLOCK_MONOTONIC) + m->read_timeout_usec : UINT64_MAX;
        while (m->start_pending > 0)
                if (reader_pool_wait(m->readers, until) == -ETIME)
                        break;
        m->starting = false;

        /* Sick devices delay READY=1 by the read timeout at most: published
         * with what is known, their name and path, and read again once the
         * stuck read returns. */
        for (size_t i = 0; i < n; i++) {
                const char *name = paths[2 * i + 1], *reason = NULL;
                _cleanup_(device_freep) Device *d = NULL;
                ReaderLane *lane;
                char buf[512];
                size_t j;

                lane = reader_pool_lane(m->readers, name);
                if (!lane)
                        return -ENOMEM;
                /* Loaded (its lane has its device), or gone meanwhile. */
                if (reader_lane_owner(lane) || reader_lane_pending(lane) == 0) {
                        reader_lane_unref(lane);
                        continue;
                }
                for (j = 0; j + 1 < m->n_start_stuck; j += 2)
                        if (streq(m->start_stuck[j], name))
                                reason = m->start_stuck[j + 1];
                if (!reason) {
                        /* Queued behind stuck reads: no thread took it yet. */
                        snprintf(buf, sizeof(buf), "no answer for %.1f s",
                                 (double) m->read_timeout_usec / USEC_PER_SEC);
                        reason = buf;
                }
                r = device_new_placeholder(paths[2 * i], name, &d);
                if (r >= 0)
                        r = free_and_strdup(&d->health_reason, reason);
                if (r < 0) {
                        reader_lane_unref(lane);
                        return r;
                }
                d->health = DEVICE_HEALTH_UNRESPONSIVE;
                device_set_lane(d, lane);
                d->manager = m;
                log_struct(LOG_WARNING, (const char *const[]){ "RDMA_HEALTH=unresponsive", NULL },
                           "%s: unresponsive: %s. Publishing its name and path for now.", name, reason);
                r = devices_insert_at(m, devices_lower_bound(m->devices, m->n_devices, name), d);
                if (r < 0)
                        return r;
                TAKE_PTR(d);
        }
        m->start_stuck = strv_free(m->start_stuck);
        m->n_start_stuck = 0;
        return 0;
}

int manager_load(Manager *m) {
        int r;

        assert(m);
        assert(m->n_devices == 0);

        if (m->readers)
                r = manager_load_on_readers(m);
        else
                r = enumerate_devices(m->udev, &m->devices, &m->n_devices);
        if (r < 0)
                return r;
        for (size_t i = 0; i < m->n_devices; i++) {
                Device *d = m->devices[i];

                d->manager = m;
                device_history_load(m->history, d);
                if (!*d->physfn_path)
                        continue;
                m->n_virtual_functions++;
                d->physical_function = pci_function_first_device(m, d->physfn_path);
        }
        log_info("Found %zu RDMA device%s.", m->n_devices, m->n_devices == 1 ? "" : "s");
        /* The enumeration's temporaries are gone: give their pages back. */
        (void) malloc_trim(0);
        return 0;
}

/* The index of the device called name in a sorted array, or n. */
static size_t devices_index(Device *const *devices, size_t n, const char *name) {
        size_t i = devices_lower_bound(devices, n, name);
        return i < n && streq(devices[i]->name, name) ? i : n;
}

Device *manager_find_device(Manager *m, const char *name) {
        size_t i;

        assert(m);
        assert(name);
        i = devices_index(m->devices, m->n_devices, name);
        return i < m->n_devices ? m->devices[i] : NULL;
}

void manager_set_sources(Manager *m, const ModelSources *sources, void *userdata) {
        assert(m);
        m->sources = sources ? *sources : (ModelSources){};
        m->sources_userdata = userdata;
}

static int manager_table_changed(Manager *m) {
        return m->sources.table_changed ? m->sources.table_changed(m->sources_userdata) : 0;
}

/* With a reader pool, a device in the table has its lane: none of its
 * reads runs on the loop. */
static int device_take_lane(Manager *m, Device *d) {
        if (m->readers && !d->lane) {
                ReaderLane *lane = reader_pool_lane(m->readers, d->name);

                if (!lane)
                        return -ENOMEM;
                device_set_lane(d, lane);
        }
        return 0;
}

static int manager_insert_device(Manager *m, Device *d) {
        int r = device_take_lane(m, d);

        if (r >= 0)
                r = devices_insert_at(m, devices_lower_bound(m->devices, m->n_devices, d->name), d);
        if (r < 0)
                return r;
        d->manager = m;
        device_history_load(m->history, d);

        log_info("%s: added (%zu port%s, %s).", d->name, d->n_ports, d->n_ports == 1 ? "" : "s", d->transport);
        if (m->events.device_added)
                m->events.device_added(d, m->events_userdata);
        pci_function_relate(m, d, true);
        model_report(m, MODEL_DEVICE_SET, NULL, 0);
        if (m->sources.device_added)
                m->sources.device_added(d, m->sources_userdata);
        return 0;
}

static void manager_remove_device_at(Manager *m, size_t i) {
        Device *d = m->devices[i];

        log_info("%s: removed.", d->name);
        /* First: a context held open would stall the kernel's unregistration. */
        if (m->sources.device_removing)
                m->sources.device_removing(d, m->sources_userdata);
        if (m->events.device_removing)
                m->events.device_removing(d, m->events_userdata);
        memmove(m->devices + i, m->devices + i + 1, (m->n_devices - i - 1) * sizeof(Device *));
        m->n_devices--;
        pci_function_relate(m, d, false);
        /* What is still being read of it would bring it back. */
        if (d->lane)
                reader_lane_cancel(d->lane, NULL, NULL);
        device_free(d);
        model_report(m, MODEL_DEVICE_SET, NULL, 0);
}

void manager_remove_device(Manager *m, const char *name) {
        size_t i;

        assert(m);
        assert(name);
        i = devices_index(m->devices, m->n_devices, name);
        if (i < m->n_devices) {
                manager_remove_device_at(m, i);
                (void) manager_table_changed(m);
        }
}

/* A full read of a device, as the udev monitor, a rescan, a recovery or the
 * start-up asks for it: applied as the device's addition, update or removal. */
typedef struct LoadJob {
        ReadJob job;
        Device *device;  /* as read */
        char *old_name;  /* a renamed device: the name it replaces */
        unsigned rescan; /* a rescan's: its Manager.rescan_epoch; 0 for none */
} LoadJob;

static void load_job_free(ReadJob *j) {
        LoadJob *lj = (LoadJob *) j;

        device_free(lj->device);
        free(lj->old_name);
}

static void load_job_run(ReaderLane *lane, void *arg) {
        LoadJob *lj = arg;
        ReadJob *j = &lj->job;

        j->error = device_load(j->sysfs_path, j->name, &lj->device);
}

/* A new read of a device that is already published: whose identity
 * changed is another device, removed and added; else the new values move
 * into the objects, which keep their addresses (device_update()). The
 * device in the table now, NULL without memory. */
static Device *manager_update_device_at(Manager *m, size_t index, Device *fresh) {
        Device *d = m->devices[index];

        if (!device_identity_changed(d, fresh)) {
                device_update(d, fresh);
                return d;
        }
        manager_remove_device_at(m, index);
        if (manager_insert_device(m, fresh) < 0) {
                resync_defer(m, -ENOMEM, fresh->name);
                device_free(fresh);
                return NULL;
        }
        return fresh;
}

/* A full read's result: the device as read, or gone. */
static void manager_apply_load(Manager *m, LoadJob *lj, const ReaderResult *res) {
        ReadJob *j = &lj->job;
        Device *d;
        size_t i;

        /* A rename: the old name's objects go right before the new ones come. */
        if (lj->old_name && !m->starting)
                manager_remove_device(m, lj->old_name);
        if (errno_is_resource(j->error)) {
                resync_defer(m, j->error, j->name);
                return;
        }
        if (j->error < 0) {
                /* Gone again before we could read it: the remove event follows, or it never existed. */
                log_debug_errno(j->error, "%s: failed to load %s: %m", j->name, j->sysfs_path);
                if (!m->starting)
                        manager_remove_device(m, j->name);
                return;
        }

        d = TAKE_PTR(lj->device);
        d->manager = m;
        i = devices_lower_bound(m->devices, m->n_devices, d->name);
        if (m->starting) {
                /* Into the table without events: the bus publishes the table when it starts. */
                if (i < m->n_devices && streq(m->devices[i]->name, d->name)) {
                        device_free(d);
                        return;
                }
                if (device_take_lane(m, d) < 0 || devices_insert_at(m, i, d) < 0) {
                        resync_defer(m, -ENOMEM, d->name);
                        device_free(d);
                        return;
                }
                device_read_health(d, res, READ_FULL);
                return;
        }

        if (i < m->n_devices && streq(m->devices[i]->name, d->name))
                d = manager_update_device_at(m, i, d);
        else if (manager_insert_device(m, d) < 0) {
                resync_defer(m, -ENOMEM, d->name);
                device_free(d);
                return;
        }
        if (d)
                device_read_health(d, res, READ_FULL);
        (void) manager_table_changed(m);
}

static void load_job_apply(ReadJob *j, const ReaderResult *res) {
        LoadJob *lj = (LoadJob *) j;
        Manager *m = j->manager;

        if (m->starting && m->start_pending > 0)
                m->start_pending--;
        /* A full read that hung: its values are old; the recovery reads again. */
        if (!res->stuck)
                manager_apply_load(m, lj, res);
        if (lj->rescan != 0 && lj->rescan == m->rescan_epoch && m->rescan_loads > 0 && --m->rescan_loads == 0 &&
            m->events.rescanned)
                m->events.rescanned(m->events_userdata);
}

static int manager_submit_load(Manager *m, ReaderLane *lane, const char *name, const char *syspath,
                               const char *old_name, unsigned rescan) {
        static const ReadJobKind load_job_kind = {
                .size = sizeof(LoadJob),
                .run = load_job_run,
                .apply = load_job_apply,
                .free = load_job_free,
        };
        LoadJob *lj = (LoadJob *) read_job_new(&load_job_kind, m, NULL, name, syspath);

        if (!lj || (old_name && !(lj->old_name = strdup(old_name)))) {
                read_job_free((ReadJob *) lj);
                return -ENOMEM;
        }
        lj->rescan = rescan;
        return read_job_submit(&lj->job, lane);
}

static void manager_on_stuck(ReaderLane *lane, const char *reason, void *userdata) {
        Manager *m = userdata;
        Device *d = reader_lane_owner(lane);

        if (m->starting) {
                (void) strv_push_take(&m->start_stuck, &m->n_start_stuck, &(size_t){ m->n_start_stuck },
                                      strdup(reader_lane_name(lane)));
                (void) strv_push_take(&m->start_stuck, &m->n_start_stuck, &(size_t){ m->n_start_stuck },
                                      strdup(reason));
        }
        if (d)
                device_set_health(d, DEVICE_HEALTH_UNRESPONSIVE, reason);
}

/* The stuck read returned: the device is read again in full, which sets
 * its health back and publishes what changed meanwhile. */
static void manager_on_unstuck(ReaderLane *lane, void *userdata) {
        Manager *m = userdata;
        Device *d = reader_lane_owner(lane);

        log_info("%s: the stuck read returned; reading the device again.", reader_lane_name(lane));
        if (d && manager_submit_load(m, d->lane, d->name, d->sysfs_path, NULL, 0) < 0)
                resync_defer(m, -ENOMEM, d->name);
}

int manager_start_readers(Manager *m, uint64_t read_timeout_usec) {
        static const ReaderPoolEvents events = {
                .stuck = manager_on_stuck,
                .unstuck = manager_on_unstuck,
        };

        assert(m);
        assert(!m->readers);
        m->read_timeout_usec = read_timeout_usec;
        return reader_pool_new(m->event, read_timeout_usec, &events, m, &m->readers);
}

static int manager_read_device(Manager *m, const char *old_name, const char *syspath, const char *name,
                               bool from_rescan) {
        bool counted = from_rescan && m->readers; /* a rescan's, answered later */
        ReaderLane *lane;
        int k;

        assert(m);
        assert(syspath);
        assert(name);

        lane = m->readers ? reader_pool_lane(m->readers, name) : NULL;
        if (m->readers && !lane) {
                resync_defer(m, -ENOMEM, name);
                return -ENOMEM;
        }
        /* Stuck: the recovery reads its device in full anyway. */
        if (!old_name && lane && reader_lane_owner(lane) && reader_lane_stuck(lane)) {
                reader_lane_unref(lane);
                return 0;
        }
        m->rescan_loads += counted;
        k = manager_submit_load(m, lane, name, syspath, old_name, counted ? m->rescan_epoch : 0);
        reader_lane_unref(lane);
        if (k < 0) {
                m->rescan_loads -= counted;
                resync_defer(m, k, name);
        }
        return k;
}

int manager_reload_device(Manager *m, const char *old_name, const char *syspath, const char *name) {
        return manager_read_device(m, old_name, syspath, name, false);
}

int manager_rescan(Manager *m) {
        _cleanup_strv_free_ char **paths = NULL;
        size_t n;
        int r;

        assert(m);

        r = enumerate_device_paths(m->udev, &paths, &n);
        if (errno_is_resource(r))
                resync_defer(m, r, "Rescan");
        if (r < 0)
                return r;

        /* Removals first, while the old objects can be found; then the
         * re-reads, whose results replace or add devices as they come. */
        for (size_t i = 0; i < m->n_devices;) {
                bool found = false;

                for (size_t j = 0; j < n && !found; j++)
                        found = streq(paths[2 * j + 1], m->devices[i]->name);
                if (found)
                        i++;
                else
                        manager_remove_device(m, m->devices[i]->name);
        }

        if (m->resync_pending) {
                m->resync_pending = false;
                log_info("Resynchronised with sysfs.");
        }
        /* 0 is no rescan's. */
        m->rescan_epoch = m->rescan_epoch + 1 ?: 1;
        m->rescan_loads = 0;
        for (size_t i = 0; i < n; i++)
                (void) manager_read_device(m, NULL, paths[2 * i], paths[2 * i + 1], true);
        (void) malloc_trim(0);
        /* Read in line, or nothing to read: done already. */
        if (m->rescan_loads == 0 && m->events.rescanned)
                m->events.rescanned(m->events_userdata);
        return manager_table_changed(m);
}

void manager_retry_resync(Manager *m) {
        if (m->resync_pending)
                (void) manager_rescan(m); /* clears it, or fails quietly: the episode is logged */
}
