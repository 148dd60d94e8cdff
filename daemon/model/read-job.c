/* SPDX-License-Identifier: MIT */
#include "read-job.h"

#include <stdio.h>

#include "basic/log.h"
#include "basic/util.h"
#include "manager.h"
#include "properties.h"

ReadJob *read_job_new(const ReadJobKind *kind, Manager *m, Device *d, const char *name, const char *sysfs_path) {
        ReadJob *j;

        assert(kind->size >= sizeof(ReadJob));
        j = calloc(1, kind->size);
        if (!j)
                return NULL;
        j->kind = kind;
        j->manager = m;
        j->device = d;
        j->name = strdup(d ? d->name : name);
        j->sysfs_path = strdup(d ? d->sysfs_path : sysfs_path);
        if (!j->name || !j->sysfs_path) {
                read_job_free(j);
                return NULL;
        }
        return j;
}

void read_job_free(ReadJob *j) {
        if (!j)
                return;
        if (j->kind->free)
                j->kind->free(j);
        free(j->name);
        free(j->sysfs_path);
        free(j);
}

static void job_apply(void *arg, const ReaderResult *res, void *userdata) {
        ReadJob *j = arg;
        Manager *m = j->manager;

        if (j->from_poll && m->sources.turn_done)
                m->sources.turn_done(j->device, m->sources_userdata);
        if (j->device && res->stuck)
                return;
        j->kind->apply(j, res);
        /* A load's device is the table's to judge: only a full read says how it answers. */
        if (j->device)
                device_read_health(j->device, res, READ_PARTIAL);
}

static void job_free(void *arg) {
        read_job_free(arg);
}

int read_job_submit(ReadJob *j, ReaderLane *lane) {
        Manager *m = j->manager;
        int r;

        /* No reader pool (a unit test's model): read in place. A pool's
         * reads never run on the loop: no lane is no memory. */
        if (!m->readers) {
                j->kind->run(NULL, j);
                job_apply(j, &(ReaderResult){}, m);
                read_job_free(j);
                return 0;
        }
        if (!lane)
                r = -ENOMEM;
        else if (j->device && !j->from_poll)
                /* An event's read of a published object: not behind a poll's batch. */
                r = reader_pool_submit_first(m->readers, lane, j->kind->run, job_apply, job_free, j, NULL);
        else
                r = reader_pool_submit(m->readers, lane, j->kind->run, job_apply, job_free, j, NULL);
        if (r < 0)
                read_job_free(j);
        return r;
}

void resync_defer(Manager *m, int error, const char *what) {
        assert(m);
        assert(error < 0);
        assert(what);

        if (!m->resync_pending)
                log_error_errno(
                        error,
                        "%s: failed to read sysfs: %m. Keeping the last known state; retrying on the next event.",
                        what);
        m->resync_pending = true;
}

/* ---------- a device's health, from how its reads go ---------- */

const char *device_health_to_string(DeviceHealth h) {
        static const char *const table[_DEVICE_HEALTH_MAX] = {
                [DEVICE_HEALTH_OK] = "ok",
                [DEVICE_HEALTH_ERRORS] = "errors",
                [DEVICE_HEALTH_UNRESPONSIVE] = "unresponsive",
        };
        return h >= 0 && h < _DEVICE_HEALTH_MAX ? table[h] : NULL;
}

/* "journalctl MESSAGE_ID=..." finds every health transition of every device. */
#define RDMAD_MESSAGE_HEALTH "MESSAGE_ID=0b5c3e1f8d2a4f6b9e7c1d3a5b7f9e21"

/* One journal entry per transition, with fields to select by. */
void device_set_health(Device *d, DeviceHealth health, const char *reason) {
        char device[256], field[64];
        PropertyMask mask = 0;

        reason = health == DEVICE_HEALTH_OK ? "" : strempty(reason);
        if (d->health != health)
                mask |= PROPERTY_BIT(DEVICE_PROP_HEALTH);
        if (!streq_ptr(d->health_reason, reason)) {
                if (free_and_strdup(&d->health_reason, reason) < 0) {
                        log_oom();
                        return;
                }
                mask |= PROPERTY_BIT(DEVICE_PROP_HEALTH_REASON);
        }
        if (mask & PROPERTY_BIT(DEVICE_PROP_HEALTH)) {
                DeviceHealth was = d->health;

                d->health = health;
                snprintf(device, sizeof(device), "RDMA_DEVICE=%s", d->name);
                snprintf(field, sizeof(field), "RDMA_HEALTH=%s", device_health_to_string(health));
                if (health == DEVICE_HEALTH_OK)
                        log_struct(LOG_NOTICE, (const char *const[]){ RDMAD_MESSAGE_HEALTH, device, field, NULL },
                                   "%s: answers again (was %s).", d->name, device_health_to_string(was));
                else
                        log_struct(LOG_WARNING, (const char *const[]){ RDMAD_MESSAGE_HEALTH, device, field, NULL },
                                   "%s: %s: %s.", d->name, device_health_to_string(health), reason);
        }
        /* At start-up the bus publishes the table as it is. */
        if (!d->manager->starting)
                model_report(d->manager, MODEL_DEVICE, d, mask);
}

void device_read_health(Device *d, const ReaderResult *res, ReadExtent extent) {
        char reason[512];

        if (res->io_error < 0) {
                if (d->health == DEVICE_HEALTH_UNRESPONSIVE && extent != READ_FULL)
                        return;
                snprintf(reason, sizeof(reason), "%s: %s", res->io_file, strerror(-res->io_error));
                device_set_health(d, DEVICE_HEALTH_ERRORS, reason);
        } else if (extent == READ_FULL)
                device_set_health(d, DEVICE_HEALTH_OK, NULL);
}

bool device_readable(const Device *d) {
        if (d->placeholder || d->health == DEVICE_HEALTH_UNRESPONSIVE)
                return false;
        return !d->lane || !reader_lane_stuck(d->lane);
}
