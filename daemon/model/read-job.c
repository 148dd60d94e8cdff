/* SPDX-License-Identifier: MIT */
#include "read-job.h"

#include "basic/log.h"
#include "basic/util.h"
#include "manager.h"

int read_job_init(ReadJob *j, Manager *m, Device *d, const char *name, const char *sysfs_path) {
        j->manager = m;
        j->device = d;
        j->name = strdup(d ? d->name : name);
        j->sysfs_path = strdup(d ? d->sysfs_path : sysfs_path);
        return j->name && j->sysfs_path ? 0 : -ENOMEM;
}

void read_job_free(ReadJob *j) {
        if (!j)
                return;
        if (j->free)
                j->free(j);
        free(j->name);
        free(j->sysfs_path);
        free(j);
}

static void job_run(ReaderLane *lane, void *arg) {
        ReadJob *j = arg;
        j->run(lane, j);
}

static void job_apply(void *arg, const ReaderResult *res, void *userdata) {
        ReadJob *j = arg;
        Manager *m = j->manager;

        if (j->from_poll && m->sources.turn_done)
                m->sources.turn_done(j->device, m->sources_userdata);
        if (j->device && res->stuck)
                return;
        j->apply(j, res);
}

static void job_free(void *arg) {
        read_job_free(arg);
}

int read_job_submit(ReadJob *j, ReaderLane *lane) {
        Manager *m = j->manager;
        int r;

        if (!m->readers || !lane) {
                j->run(NULL, j);
                job_apply(j, &(ReaderResult){}, m);
                read_job_free(j);
                return 0;
        }
        r = reader_pool_submit(m->readers, lane, job_run, job_apply, job_free, j, NULL);
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
