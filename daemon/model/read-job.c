/* SPDX-License-Identifier: MIT */
#include "read-job.h"

#include "basic/log.h"
#include "basic/util.h"
#include "manager.h"

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
}

static void job_free(void *arg) {
        read_job_free(arg);
}

int read_job_submit(ReadJob *j, ReaderLane *lane) {
        Manager *m = j->manager;
        int r;

        if (!m->readers || !lane) {
                j->kind->run(NULL, j);
                job_apply(j, &(ReaderResult){}, m);
                read_job_free(j);
                return 0;
        }
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
