/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "forward.h"
#include "reader-pool.h"

/* A read of a device's files: run on the device's lane of the reader pool,
 * where it touches no model object (it carries copies of what it needs),
 * and applied on the loop, the only way values enter the model. Each kind
 * embeds one as its first member and says how it runs, applies and frees:
 * a load (manager.c), a port's files (port.c), a netdev's (netdev.c),
 * sriov_numvfs (manager.c). */
typedef struct ReadJob ReadJob;

/* A kind of read: the size of its struct (a ReadJob first), how it runs on
 * the reader thread, how its result is applied on the loop (not for a job
 * of a device whose read hung, res->stuck: its values are old, and the
 * recovery reads it again; then how the read went sets the device's
 * health, but for a load's), and how its own part is freed (may be NULL). */
typedef struct ReadJobKind {
        size_t size;
        ReaderRun run; /* its argument is the job */
        void (*apply)(ReadJob *j, const ReaderResult *res);
        void (*free)(ReadJob *j);
} ReadJobKind;

struct ReadJob {
        const ReadJobKind *kind;
        Manager *manager;
        /* The device read, NULL for a load (which finds or makes its own):
         * valid until the job is applied, as removing a device cancels the
         * jobs of its lane. */
        Device *device;
        char *name; /* the device's */
        char *sysfs_path;
        int error;      /* a lack of resources stopped the read; a load's -errno */
        bool from_poll; /* the poll's turn: it hears when the job is applied */
};

/* A zeroed job of kind, of d or (a load) of the device called name at
 * sysfs_path; NULL without memory. */
ReadJob *read_job_new(const ReadJobKind *kind, Manager *m, Device *d, const char *name, const char *sysfs_path);
void read_job_free(ReadJob *j);
/* Queued on the lane; without readers (tests, --dump) run and applied at
 * once, in line. With readers, never on the loop: no lane is -ENOMEM. A
 * read of a published device that an event asked for (not the poll's, not
 * a load) goes first (reader_pool_submit_first()). The job is the queue's,
 * even on failure. */
int read_job_submit(ReadJob *j, ReaderLane *lane);

/* A sysfs read failed with errno_is_resource(error): what is published is
 * kept, and a full rescan follows on the next event (udev, rtnetlink, or the
 * poll's sweep at the latest; manager_retry_resync()). Logs once per episode. */
void resync_defer(Manager *m, int error, const char *what);

/* A device's health: whether its files answer (rdmad(8), SICK ADAPTERS),
 * from how its reads go. Each transition is logged and reported. */

typedef enum DeviceHealth {
        DEVICE_HEALTH_OK,
        DEVICE_HEALTH_ERRORS,
        DEVICE_HEALTH_UNRESPONSIVE,
        _DEVICE_HEALTH_MAX,
} DeviceHealth;

const char *device_health_to_string(DeviceHealth h);

/* What of a device a read covered: only a full one (a load) says how the
 * whole device answers. */
typedef enum ReadExtent {
        READ_PARTIAL,
        READ_FULL,
} ReadExtent;

void device_set_health(Device *d, DeviceHealth health, const char *reason);
/* How a read went: an I/O error sets errors, a clean full read clears
 * them. Unresponsive ends only by a full read. */
void device_read_health(Device *d, const ReaderResult *res, ReadExtent extent);
/* Whether a device may be read now: not unresponsive, not waiting for its
 * first read, no read of it stuck. */
bool device_readable(const Device *d);
