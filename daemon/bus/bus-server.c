/* SPDX-License-Identifier: MIT */
#include "bus-server.h"

#include <malloc.h>

#include "basic/log.h"
#include "basic/time-util.h"
#include "basic/util.h"
#include "bus-util.h"
#include "counters-worker.h"
#include "manager.h"
#include "pci-function.h"

#define TRIM_INTERVAL_USEC (5 * USEC_PER_SEC)
#define STOPPING_MESSAGE   "rdmad is stopping."

static void on_sriov_job_done(const char *device_path, uint32_t num_vfs, void *userdata) {
        BusServer *s = userdata;

        pci_function_set_num_vfs(s->manager, device_path, num_vfs);
}

/* What a caller made us hold goes with it: no one is left to answer. */
static void on_caller_gone(const char *sender, void *userdata) {
        BusServer *s = userdata;

        port_wait_drop_sender(&s->port_waits, sender);
        polkit_drop_sender(&s->polkit, sender);
        bus_managed_objects_drop_sender(&s->managed_objects, sender);
        bus_ration_drop_sender(&s->ration, sender);
        rescan_calls_drop_sender(&s->rescans, sender);
        bus_server_trim_later(s);
}

int bus_server_new(Manager *m, BusServer **ret) {
        _cleanup_(bus_server_freep) BusServer *s = NULL;

        assert(m);
        assert(ret);

        s = calloc(1, sizeof(BusServer));
        if (!s)
                return -ENOMEM;
        s->manager = m;
        s->event = m->event;
        port_wait_registry_init(&s->port_waits, s->event);
        sriov_job_registry_init(&s->sriov_jobs, s->event, on_sriov_job_done, s);
        caller_registry_init(&s->callers, on_caller_gone, s);

        *ret = TAKE_PTR(s);
        return 0;
}

BusServer *bus_server_free(BusServer *s) {
        if (!s)
                return NULL;
        if (s->manager && s->manager->events_userdata == s)
                manager_set_events(s->manager, NULL, NULL);
        sriov_job_registry_clear(&s->sriov_jobs);
        port_wait_registry_clear(&s->port_waits);
        counter_reader_free(s->counter_reader);
        polkit_registry_clear(&s->polkit);
        caller_registry_clear(&s->callers);
        sd_event_source_disable_unref(s->stop_timer);
        sd_event_source_disable_unref(s->stop_post);
        bus_managed_objects_clear(&s->managed_objects);
        bus_ration_clear(&s->ration);
        sd_event_source_disable_unref(s->emit_event);
        rescan_calls_clear(&s->rescans);
        sd_event_source_disable_unref(s->trim_post);
        if (s->bus) {
                sd_bus_flush(s->bus);
                sd_bus_flush_close_unref(s->bus);
        }
        free(s);
        return NULL;
}

/* After the iterations that follow work (never when idle: no timer of its
 * own), until one trims; then off until the next work. */
static int on_trim_post(sd_event_source *source, void *userdata) {
        BusServer *s = userdata;
        uint64_t now;

        if (sd_event_now(s->event, CLOCK_MONOTONIC, &now) < 0 || now < s->last_trim_usec + TRIM_INTERVAL_USEC)
                return 0;
        s->last_trim_usec = now;
        (void) malloc_trim(0);
        return sd_event_source_set_enabled(source, SD_EVENT_OFF);
}

void bus_server_trim_later(BusServer *s) {
        if (s->trim_post)
                (void) sd_event_source_set_enabled(s->trim_post, SD_EVENT_ON);
}

BusServer *bus_server_current(sd_bus_message *call) {
        sd_bus_slot *slot = sd_bus_get_current_slot(sd_bus_message_get_bus(call));

        assert(slot);
        return sd_bus_slot_get_userdata(slot);
}

/* A second rdmad: "File exists" says nothing; name the one that runs. */
static int log_name_owner(sd_bus *bus, int error) {
        _cleanup_(sd_bus_creds_unrefp) sd_bus_creds *creds = NULL;
        pid_t pid;

        if (sd_bus_get_name_creds(bus, RDMAD_BUS_NAME, SD_BUS_CREDS_PID, &creds) >= 0 &&
            sd_bus_creds_get_pid(creds, &pid) >= 0)
                return log_error_errno(error, "%s is already owned by PID %i.", RDMAD_BUS_NAME, (int) pid);
        return log_error_errno(error, "%s is already owned by another process.", RDMAD_BUS_NAME);
}

int bus_server_open(BusServer *s) {
        _cleanup_(sd_bus_creds_unrefp) sd_bus_creds *creds = NULL;
        int r;

        assert(s);
        assert(!s->bus);

        r = sd_bus_open_system_with_description(&s->bus, "rdmad");
        if (r < 0)
                return log_error_errno(r, "Failed to connect to the system bus: %m");
        /* Not the decision (RequestName is, once the model is read): the
         * early word of a second rdmad. */
        if (sd_bus_get_name_creds(s->bus, RDMAD_BUS_NAME, 0, &creds) >= 0)
                return log_name_owner(s->bus, -EEXIST);
        return 0;
}

int bus_server_connect(BusServer *s) {
        int r;

        assert(s);
        assert(s->bus);

        r = caller_registry_start(&s->callers, s->bus, s->event);
        if (r < 0)
                return log_error_errno(r, "Failed to watch callers leaving the bus: %m");

        r = sd_event_add_post(s->event, &s->trim_post, on_trim_post, s);
        if (r < 0)
                return log_error_errno(r, "Failed to add the trim source: %m");
        (void) sd_event_source_set_enabled(s->trim_post, SD_EVENT_OFF);

        r = sd_bus_attach_event(s->bus, s->event, SD_EVENT_PRIORITY_NORMAL);
        if (r < 0)
                return log_error_errno(r, "Failed to attach the bus to the event loop: %m");

        /* Losing the bus ends the loop with a failure, so systemd restarts us. */
        r = sd_bus_set_exit_on_disconnect(s->bus, true);
        if (r < 0)
                return log_error_errno(r, "Failed to set exit on disconnect: %m");

        /* The model is complete: only now may clients find us. */
        r = sd_bus_request_name(s->bus, RDMAD_BUS_NAME, 0);
        if (r == -EEXIST)
                return log_name_owner(s->bus, r);
        if (r < 0)
                return log_error_errno(r, "Failed to acquire the name %s: %m", RDMAD_BUS_NAME);

        return 0;
}

static int on_stop_timeout(sd_event_source *source, uint64_t usec, void *userdata) {
        BusServer *s = userdata;

        sriov_job_registry_abandon(&s->sriov_jobs,
                                   "rdmad is stopping; the VF change may still complete in the kernel.");
        return sd_event_exit(s->event, 0);
}

/* After each event while stopping: the last VF change has been answered. */
static int on_stop_post(sd_event_source *source, void *userdata) {
        BusServer *s = userdata;

        return s->sriov_jobs.jobs ? 0 : sd_event_exit(s->event, 0);
}

int bus_server_stop(BusServer *s) {
        int r;

        assert(s);
        if (s->stopping)
                return 0;
        s->stopping = true;

        port_wait_fail_all(&s->port_waits, STOPPING_MESSAGE);
        polkit_fail_all(&s->polkit, STOPPING_MESSAGE);
        bus_ration_fail_all(&s->ration, STOPPING_MESSAGE);
        /* What they asked for was read, or is being read: nothing more to wait for. */
        rescan_calls_answer(&s->rescans);
        if (!s->sriov_jobs.jobs)
                return sd_event_exit(s->event, 0);

        log_info("Stopping: waiting up to %llu s for VF changes to finish.", SRIOV_STOP_TIMEOUT_USEC / USEC_PER_SEC);
        r = sd_event_add_time_relative(s->event, &s->stop_timer, CLOCK_MONOTONIC, SRIOV_STOP_TIMEOUT_USEC, 0,
                                       on_stop_timeout, s);
        if (r >= 0)
                r = sd_event_add_post(s->event, &s->stop_post, on_stop_post, s);
        if (r < 0) {
                log_error_errno(r, "Failed to wait for the VF changes: %m");
                return on_stop_timeout(NULL, 0, s);
        }
        return 0;
}
