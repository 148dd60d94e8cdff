/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "basic/time-util.h"
#include "sriov.h"

/* SetNumVfs jobs: the sysfs writes of sriov.c in a thread (a driver can take
 * seconds to create VFs, and the bus must be answered meanwhile), one job
 * per PF, on a worker (worker.h) whose end the event loop hears; the
 * method call is answered from there. What the PF has afterwards goes to
 * the owner through the completion callback. */

typedef struct SriovJob SriovJob;

/* After a job: device_path (the PF) now has `num_vfs` VFs. Called before the
 * reply, so that the new count is published when the caller hears back. */
typedef void (*SriovJobDone)(const char *device_path, uint32_t num_vfs, void *userdata);

typedef struct SriovJobRegistry {
        SriovJob *jobs;
        sd_event *event;   /* not owned */
        const SriovIo *io; /* sriov_sysfs_io; tests inject their own */
        SriovJobDone done;
        void *userdata;
        int state_fd; /* the state directory (not owned), or -1: where a change in flight is recorded */
} SriovJobRegistry;

void sriov_job_registry_init(SriovJobRegistry *registry, sd_event *event, SriovJobDone done, void *userdata);

/* Starts setting the VFs of the PF at device_path (sysfs directory) to
 * count, answering `call` when done; `caller` (NULL: the sender's name) and
 * `device` name them in messages. -EBUSY if a job for that PF is running. */
int sriov_job_start(SriovJobRegistry *registry, sd_bus_message *call, const char *caller, const char *device,
                    const char *device_path, uint32_t count);

bool sriov_job_running(SriovJobRegistry *registry, const char *device_path);

/* On SIGTERM, running jobs get this long to finish and be answered as
 * usual; then they are abandoned. */
#define SRIOV_STOP_TIMEOUT_USEC (10 * USEC_PER_SEC)

/* Answers every running job with org.rdmad1.Error.Failed and `reason`, and
 * leaves its thread to the kernel: a driver write that never returns must not
 * keep the daemon from exiting. A thread whose write does return frees its
 * job itself. */
void sriov_job_registry_abandon(SriovJobRegistry *registry, const char *reason);

/* At exit: a write in progress is waited for (the kernel finishes it anyway). */
void sriov_job_registry_clear(SriovJobRegistry *registry);
