/* SPDX-License-Identifier: MIT */
#include "sriov-worker.h"

#include <stdio.h>

#include "basic/list.h"
#include "basic/log.h"
#include "basic/util.h"
#include "bus-util.h"
#include "sriov-intent.h"
#include "worker.h"

struct SriovJob {
        LIST_FIELDS(SriovJob, jobs);
        SriovJobRegistry *registry;
        const SriovIo *io; /* the thread's copy: it may outlive the registry at exit */
        sd_bus_message *call;
        char *device;      /* for messages: the ibdev name at the start */
        char *device_path; /* the PF: what makes two jobs collide */
        char *numvfs_path;
        char *caller;
        uint32_t count;
        int state_fd; /* the registry's, for the thread */
        uint64_t start_usec;
        Worker *worker; /* NULL before the start and once abandoned */
        SriovResult result;
};

void sriov_job_registry_init(SriovJobRegistry *registry, sd_event *event, SriovJobDone done, void *userdata) {
        assert(registry);
        assert(event);
        assert(done);

        *registry = (SriovJobRegistry){
                .event = event, .io = &sriov_sysfs_io, .done = done, .userdata = userdata, .state_fd = -EBADF
        };
}

/* What the thread also uses; the rest is the loop's. Also the worker's
 * release after an abandonment, possibly on the thread. */
static void job_free_data(void *userdata) {
        SriovJob *j = userdata;

        sd_bus_message_unref(j->call); /* NULL once abandoned: the loop dropped it */
        free(j->device);
        free(j->device_path);
        free(j->numvfs_path);
        free(j->caller);
        free(j);
}

static void job_free(SriovJob *j) {
        LIST_REMOVE(jobs, j->registry->jobs, j);
        worker_free(j->worker); /* waits for a write in progress */
        job_free_data(j);
}

bool sriov_job_running(SriovJobRegistry *registry, const char *device_path) {
        assert(registry);
        assert(device_path);

        LIST_FOREACH(jobs, j, registry->jobs)
                if (streq(j->device_path, device_path))
                        return true;
        return false;
}

static void job_run(void *userdata) {
        SriovJob *j = userdata;
        SriovIntent intent = { .count = j->count, .usec = j->start_usec };
        int r;

        /* A rdmad killed between the writes leaves the function at 0 VFs:
         * the next one finds this record and says so. */
        snprintf(intent.device, sizeof(intent.device), "%s", j->device);
        snprintf(intent.pci_path, sizeof(intent.pci_path), "%s", j->device_path);
        r = sriov_intent_record(j->state_fd, &intent);
        if (r < 0)
                log_warning_errno(r, "Failed to record the VF change of %s in the state directory: %m", j->device);
        sriov_set_num_vfs(j->io, j->numvfs_path, j->count, &j->result);
        r = sriov_intent_clear(j->state_fd, j->device_path);
        if (r < 0)
                log_warning_errno(r, "Failed to remove the record of the VF change of %s: %m", j->device);
}

static void on_job_done(Worker *w, void *userdata) {
        SriovJob *j = userdata;
        SriovJobRegistry *registry = j->registry;
        const SriovResult *r = &j->result;
        char message[1024];
        int k;

        /* Publish what the hardware has now, whatever happened. */
        if (r->after_known)
                registry->done(j->device_path, r->after, registry->userdata);

        sriov_result_message(r, j->device, j->count, message, sizeof(message));
        if (r->failed_step == SRIOV_STEP_NONE) {
                log_notice("SetNumVfs by %s: %s %u → %u VFs: done%s.", j->caller, j->device, r->before, j->count,
                           r->wrote ? "" : " (nothing to change)");
                k = sd_bus_reply_method_return(j->call, NULL);
        } else {
                log_notice("SetNumVfs by %s: %s %u → %u VFs: failed: %s", j->caller, j->device, r->before, j->count,
                           message);
                k = sd_bus_reply_method_errorf(j->call, RDMAD_ERROR_FAILED, "%s", message);
        }
        if (k < 0)
                log_warning_errno(k, "Failed to answer SetNumVfs: %m");
        job_free(j);
}

int sriov_job_start(SriovJobRegistry *registry, sd_bus_message *call, const char *caller, const char *device,
                    const char *device_path, uint32_t count) {
        SriovJob *j;
        int r;

        assert(registry);
        assert(registry->event);
        assert(call);
        assert(device);
        assert(device_path);

        if (sriov_job_running(registry, device_path))
                return -EBUSY;

        j = calloc(1, sizeof(SriovJob));
        if (!j)
                return -ENOMEM;
        j->registry = registry;
        j->io = registry->io;
        LIST_PREPEND(jobs, registry->jobs, j);
        j->call = sd_bus_message_ref(call);
        j->count = count;
        j->state_fd = registry->state_fd;
        j->start_usec = now_usec(CLOCK_REALTIME);
        j->device = strdup(device);
        j->device_path = strdup(device_path);
        j->caller = strdup(caller ?: strempty(sd_bus_message_get_sender(call)));
        if (!j->device || !j->device_path || !j->caller ||
            asprintf(&j->numvfs_path, "%s/sriov_numvfs", device_path) < 0) {
                j->numvfs_path = NULL;
                job_free(j);
                return -ENOMEM;
        }

        r = worker_start(registry->event, job_run, on_job_done, j, &j->worker);
        if (r < 0) {
                job_free(j);
                return r;
        }
        log_info("SetNumVfs by %s: %s → %u VFs: started.", j->caller, j->device, count);
        return 0;
}

void sriov_job_registry_abandon(SriovJobRegistry *registry, const char *reason) {
        assert(registry);
        assert(reason);

        LIST_FOREACH_SAFE(jobs, j, next, registry->jobs) {
                int k;

                LIST_REMOVE(jobs, registry->jobs, j);
                log_warning("SetNumVfs by %s: %s → %u VFs: abandoned, the write has not returned.", j->caller,
                            j->device, j->count);
                k = sd_bus_reply_method_errorf(j->call, RDMAD_ERROR_FAILED, "%s", reason);
                if (k < 0)
                        log_warning_errno(k, "Failed to answer SetNumVfs: %m");
                /* The thread still uses j and its path: the call goes here, the
                 * rest when (if) its write returns, unless it already has. */
                j->call = sd_bus_message_unref(j->call);
                worker_abandon(TAKE_PTR(j->worker), job_free_data);
        }
}

void sriov_job_registry_clear(SriovJobRegistry *registry) {
        assert(registry);
        while (registry->jobs)
                job_free(registry->jobs);
}
