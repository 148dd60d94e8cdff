/* SPDX-License-Identifier: MIT */
#pragma once

#include <libudev.h>
#include <systemd/sd-event.h>

#include "forward.h"
#include "model.h"
#include "model-events.h"
#include "model-sources.h"

#define POLL_INTERVAL_MS_DEFAULT 1000

/* The model and what feeds it: the device table, read from sysfs, kept
 * current by the event sources (udev-monitor.c, netlink.c, link-poll.c) and
 * reported through ModelEvents. It knows nothing of the bus. */
struct Manager {
        sd_event *event;
        struct udev *udev;

        Device **devices; /* sorted by name */
        size_t n_devices;
        /* Devices with a physfn (VFs). None: no PF has VFs to look for,
         * which spares every VirtualFunctions a walk of all devices. A
         * device keeps its physfn while it is in the array: a change of
         * it is a removal and an insertion. */
        size_t n_virtual_functions;

        ModelEvents events;
        void *events_userdata;
        /* The event sources that follow the table (model-sources.h). */
        ModelSources sources;
        void *sources_userdata;

        uint32_t poll_interval_ms;

        /* The reads of the latest rescan not yet applied; ModelEvents.rescanned
         * when none is left. A new rescan starts a new epoch: it reads
         * everything again, so it also answers for the ones before. */
        unsigned rescan_epoch, rescan_loads;

        /* A read failed for lack of memory or descriptors: a full rescan is owed. */
        bool resync_pending;

        /* Where every read of a device's files runs (reader-pool.h); NULL
         * until manager_start_readers(): then reads run in line (tests, --dump). */
        struct ReaderPool *readers;
        uint64_t read_timeout_usec;
        /* manager_load() waits for the first reads: their results go into
         * the table without events, the bus does not know the objects yet. */
        bool starting;
        unsigned start_pending;
        char **start_stuck; /* name, reason, name, reason, ... reported stuck meanwhile */
        size_t n_start_stuck;

        /* Where the ports' link histories are kept (--state-dir); NULL: in
         * memory only. Set before manager_load(). */
        struct HistoryStore *history;
        bool keep_history; /* a state directory was given (even one that cannot be written): LinkHistory is kept */
};

int manager_new(Manager **ret);
Manager *manager_free(Manager *m);
static inline void manager_freep(Manager **m) {
        manager_free(*m);
}

/* Every read of a device's files from now on runs on a reader pool with
 * this read timeout (0: none); before manager_load(). */
int manager_start_readers(Manager *m, uint64_t read_timeout_usec);

/* Reads the whole model from sysfs; before the bus name is taken. With
 * readers, waits at most the read timeout: a device whose reads hang is
 * published with its name and path, unresponsive. */
int manager_load(Manager *m);

/* Who hears of the model's changes (before manager_load()). */
void manager_set_events(Manager *m, const ModelEvents *events, void *userdata);

/* Which event sources follow the table (before manager_load()). */
void manager_set_sources(Manager *m, const ModelSources *sources, void *userdata);

Device *manager_find_device(Manager *m, const char *name);

/* Re-reads everything and publishes the differences. */
int manager_rescan(Manager *m);

/* A rescan, if a read failed for lack of resources (resync_defer()). */
void manager_retry_resync(Manager *m);

/* Re-reads one device (after an add/change uevent); a device that is gone
 * from sysfs is removed. One renamed from old_name (not NULL): the old
 * objects go when the new ones are read, so that a client sees the removal
 * right before the add. */
int manager_reload_device(Manager *m, const char *old_name, const char *syspath, const char *name);
void manager_remove_device(Manager *m, const char *name);
