/* SPDX-License-Identifier: MIT */
#include "bus-managed-objects.h"

#include <errno.h>
#include <linux/sockios.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "api/rdmad-api.h"
#include "basic/log.h"
#include "basic/time-util.h"
#include "basic/util.h"
#include "bus-managed-objects-reply.h"
#include "bus-util.h"

static bool writes_pending(ManagedObjectsQueue *q) {
        uint64_t n;
        return sd_bus_get_n_queued_write(q->bus, &n) >= 0 && n > 0;
}

static void share_timer_at(ManagedObjectsQueue *q, uint64_t usec) {
        (void) sd_event_source_set_time(q->share_event, usec);
        (void) sd_event_source_set_enabled(q->share_event, SD_EVENT_ONESHOT);
}

static void build_off_when_idle(ManagedObjectsQueue *q) {
        if (call_scheduler_n_callers(&q->scheduler) == 0)
                (void) sd_event_source_set_enabled(q->build_event, SD_EVENT_OFF);
}

/* ---------- the build ---------- */

static int build_start(ManagedObjectsQueue *q, sd_bus_message *call) {
        char **paths = NULL;
        size_t n_paths = 0;
        int r;

        q->build = managed_objects_reply_free(q->build);
        r = q->list_paths(q->userdata, &paths, &n_paths);
        if (r < 0) {
                strv_free(paths);
                return r;
        }
        r = managed_objects_reply_new(q->bus, call, q->types, q->n_types, q->userdata, paths, n_paths, &q->build);
        if (r < 0)
                return r;
        q->build_generation = q->generation;
        return 0;
}

/* ---------- answering ---------- */

/* Has the unprivileged reply in flight left the daemon, sd-bus's queue and
 * the socket's? Then its time on the connection is known, and so is when
 * the next unprivileged one may go; if not, it is looked at again in 1 ms. */
static bool drain_check(ManagedObjectsQueue *q) {
        uint64_t busy, pause;
        int unsent = 0;

        assert(call_scheduler_draining(&q->scheduler));

        if (writes_pending(q) || (ioctl(sd_bus_get_fd(q->bus), SIOCOUTQ, &unsent) >= 0 && unsent > 0)) {
                share_timer_at(q, now_usec(CLOCK_MONOTONIC) + USEC_PER_MSEC);
                return false;
        }
        pause = call_scheduler_drained(&q->scheduler, &busy);
        log_debug("GetManagedObjects: an unprivileged reply took %.1f ms to leave; the next in %.1f ms.",
                  (double) busy / 1000, (double) pause / 1000);
        return true;
}

/* The served call is answered (with the reply when r >= 0); its connection
 * goes to the back of the queue if it has more. */
static void finish_call(ManagedObjectsQueue *q, int r, const sd_bus_error *error) {
        sd_bus_message *call = call_scheduler_current(&q->scheduler);
        bool sent_reply = false;

        assert(call);

        if (r >= 0) {
                r = sd_bus_send(NULL, q->build->message, NULL);
                sent_reply = r >= 0;
        } else if (error && sd_bus_error_is_set(error))
                r = sd_bus_reply_method_error(call, error);
        else
                r = sd_bus_reply_method_errno(call, r, NULL);
        if (r < 0)
                log_debug_errno(r, "Failed to answer GetManagedObjects of %s: %m",
                                call_scheduler_current_sender(&q->scheduler));

        if (sent_reply) {
                q->trim_after_send = true;
                (void) sd_event_source_set_enabled(q->flush_event, SD_EVENT_ON);
        }
        q->build = managed_objects_reply_free(q->build);
        q->restarts = 0;
        call_scheduler_done(&q->scheduler, sent_reply);
        build_off_when_idle(q);
}

static void finish_too_large(ManagedObjectsQueue *q) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        /* Where it stopped, the rest extrapolated. */
        double mib =
                (double) q->build->size * (double) q->build->n_paths / (double) q->build->next_path / (1024 * 1024);

        if (!q->warned_too_large) {
                log_warning("GetManagedObjects refused: the reply would be about %.1f MiB, more than the system bus "
                            "carries; clients must read the objects one by one.",
                            mib);
                q->warned_too_large = true;
        }
        (void) sd_bus_error_setf(&error, SD_BUS_ERROR_LIMITS_EXCEEDED,
                                 "The reply would be about %.1f MiB, more than a message on the system bus may be "
                                 "(%.1f MiB here). Read the objects one by one: " RDMAD_MANAGER_INTERFACE
                                 ".Devices, then org.freedesktop.DBus.Properties.GetAll on each device and on the "
                                 "paths in its Ports, NetDevs and Sriov properties.",
                                 mib, (double) q->reply_max / (1024 * 1024));
        finish_call(q, -E2BIG, &error);
}

/* Answered Busy, in time for the caller to read why. */
static void on_expired(void *call, const char *sender, uint64_t arrived_usec, void *userdata) {
        ManagedObjectsQueue *q = userdata;
        unsigned n = call_scheduler_n_callers(&q->scheduler);

        (void) sd_bus_reply_method_errorf(call, RDMAD_ERROR_BUSY,
                                          "GetManagedObjects waited %g s for its turn (%u connection%s waiting; "
                                          "replies to callers other than root may keep the daemon's bus connection "
                                          "busy at most %u%% of the time). Try again later, or read the objects one "
                                          "by one.",
                                          (double) q->scheduler.limits.wait_max_usec / USEC_PER_SEC, n,
                                          n == 1 ? "" : "s", q->scheduler.limits.share_percent);
        log_debug("GetManagedObjects of %s: answered Busy after %.0f s of waiting.", sender,
                  (double) (now_usec(CLOCK_MONOTONIC) - arrived_usec) / USEC_PER_SEC);
}

/* After every other dispatch while a reply waits or an unprivileged one
 * leaves: has the bus taken what was queued? The socket's own buffer
 * empties without waking the loop: a timer looks at it then. */
static int on_flush(sd_event_source *s, void *userdata) {
        ManagedObjectsQueue *q = userdata;

        if (writes_pending(q))
                return 0;
        (void) sd_event_source_set_enabled(s, SD_EVENT_OFF);
        /* sd-bus freed the reply once it was written. Grown in place at the
         * heap's top, its pages stay resident behind what was allocated
         * after it until trimmed: megabytes on a big host. */
        if (q->trim_after_send) {
                q->trim_after_send = false;
                (void) malloc_trim(0);
        }
        if (call_scheduler_draining(&q->scheduler))
                (void) drain_check(q);
        if (call_scheduler_n_callers(&q->scheduler) > 0)
                (void) sd_event_source_set_enabled(q->build_event, SD_EVENT_ON);
        return 0;
}

static int on_share_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        ManagedObjectsQueue *q = userdata;

        if (call_scheduler_draining(&q->scheduler) && !drain_check(q))
                return 0;
        if (call_scheduler_n_callers(&q->scheduler) > 0)
                (void) sd_event_source_set_enabled(q->build_event, SD_EVENT_ON);
        return 0;
}

/* At most MANAGED_OBJECTS_SLICE_USEC of building. Lowest priority: runs
 * when nothing else of the daemon is pending. */
static int build_slice(sd_event_source *s, void *userdata) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        ManagedObjectsQueue *q = userdata;
        const char *sender;
        sd_bus_message *call;
        uint64_t deadline, wake;
        bool in_one_go;
        int r;

        q->last_slice_usec = now_usec(CLOCK_MONOTONIC);
        call = call_scheduler_next(&q->scheduler, &wake);
        if (!call) {
                /* Nobody may be served now: the share timer or the end of a drain asks again. */
                if (wake > 0)
                        share_timer_at(q, wake);
                (void) sd_event_source_set_enabled(s, SD_EVENT_OFF);
                return 0;
        }
        sender = call_scheduler_current_sender(&q->scheduler);

        if (q->build && q->build_generation != q->generation) {
                q->restarts++;
                log_debug("GetManagedObjects of %s: the objects changed after %zu of %zu, building again (%u).", sender,
                          q->build->next_path, q->build->n_paths, q->restarts);
                q->build = managed_objects_reply_free(q->build);
        }
        if (!q->build) {
                r = build_start(q, call);
                if (r < 0) {
                        finish_call(q, r, NULL);
                        return 0;
                }
                log_debug("GetManagedObjects of %s: building %zu objects.", sender, q->build->n_paths);
        }

        /* Changes keep coming: no more slices, or the reply would never be done. */
        in_one_go = q->restarts >= MANAGED_OBJECTS_RESTARTS_MAX;
        deadline = now_usec(CLOCK_MONOTONIC) + MANAGED_OBJECTS_SLICE_USEC;
        for (unsigned done = 0; managed_objects_reply_has_more(q->build);) {
                r = managed_objects_reply_append_next(q->build, &error);
                if (r < 0) {
                        finish_call(q, r, &error);
                        return 0;
                }
                if (q->build->size > q->reply_max) {
                        finish_too_large(q);
                        return 0;
                }
                done++;
                if (in_one_go)
                        continue;
                if (q->slice_objects > 0 ? done >= q->slice_objects
                                         : done % 16 == 0 && now_usec(CLOCK_MONOTONIC) >= deadline)
                        return 0;
        }

        r = managed_objects_reply_close(q->build);
        if (r < 0) {
                finish_call(q, r, NULL);
                return 0;
        }

        /* The previous reply is still on its way out: wait for it (a change
         * meanwhile starts this one again, above). */
        if (writes_pending(q)) {
                (void) sd_event_source_set_enabled(s, SD_EVENT_OFF);
                (void) sd_event_source_set_enabled(q->flush_event, SD_EVENT_ON);
                return 0;
        }
        log_debug("GetManagedObjects of %s: %zu objects, %zu bytes counted, sent.", sender, q->build->n_paths,
                  q->build->size);
        finish_call(q, 0, NULL);
        return 0;
}

/* A storm of events could keep the lowest priority from ever running: a
 * slice at least every MANAGED_OBJECTS_STARVED_USEC while calls wait. */
static int on_starved(sd_event_source *s, uint64_t usec, void *userdata) {
        ManagedObjectsQueue *q = userdata;

        if (call_scheduler_expire(&q->scheduler, on_expired, q) > 0)
                build_off_when_idle(q);
        if (call_scheduler_n_callers(&q->scheduler) == 0)
                return 0;
        if (now_usec(CLOCK_MONOTONIC) >= q->last_slice_usec + MANAGED_OBJECTS_STARVED_USEC &&
            sd_event_source_get_enabled(q->build_event, NULL) > 0)
                (void) build_slice(q->build_event, q);
        if (call_scheduler_n_callers(&q->scheduler) > 0) {
                (void) sd_event_source_set_time_relative(s, MANAGED_OBJECTS_STARVED_USEC);
                (void) sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
        }
        return 0;
}

static void build_wanted(ManagedObjectsQueue *q) {
        (void) sd_event_source_set_enabled(q->build_event, SD_EVENT_ON);
        if (sd_event_source_get_enabled(q->starved_event, NULL) == 0) {
                q->last_slice_usec = now_usec(CLOCK_MONOTONIC);
                (void) sd_event_source_set_time_relative(q->starved_event, MANAGED_OBJECTS_STARVED_USEC);
                (void) sd_event_source_set_enabled(q->starved_event, SD_EVENT_ONESHOT);
        }
}

/* ---------- the calls ---------- */

static int on_message(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        ManagedObjectsQueue *q = userdata;
        uid_t uid = UID_UNKNOWN;
        const char *sender;
        int r;

        if (!sd_bus_message_is_method_call(m, DBUS_OBJECT_MANAGER_INTERFACE, "GetManagedObjects") ||
            !streq_ptr(sd_bus_message_get_path(m), q->root))
                return 0;
        /* Arguments, or no sender to track (a direct connection): sd-bus answers as it always did. */
        sender = sd_bus_message_get_sender(m);
        if (!sender || !streq(strempty(sd_bus_message_get_signature(m, true)), ""))
                return 0;
        if (!sd_bus_message_get_expect_reply(m))
                return 1; /* nobody waits for it */

        /* Who calls decides the turn: asked of the bus daemon without waiting,
         * the call comes through here again once the answer is in. */
        if (!call_scheduler_has_sender(&q->scheduler, sender)) {
                _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;

                r = caller_resolve_uid(q->registry, m, &uid, &error);
                if (r < 0)
                        return sd_bus_reply_method_error(m, &error);
                if (r == 0)
                        return 1;
        }
        r = call_scheduler_enqueue(&q->scheduler, m, sender, uid);
        if (r == -EUSERS)
                return sd_bus_reply_method_errorf(m, RDMAD_ERROR_BUSY,
                                                  "Too many connections wait for GetManagedObjects; try again "
                                                  "later.");
        if (r == -EBUSY)
                return sd_bus_reply_method_errorf(m, RDMAD_ERROR_BUSY,
                                                  "This connection has %u GetManagedObjects calls pending already.",
                                                  q->scheduler.limits.calls_max);
        if (r < 0)
                return sd_bus_reply_method_errnof(m, r, "Cannot queue GetManagedObjects: %m");
        sd_bus_message_ref(m);
        build_wanted(q);
        return 1;
}

void bus_managed_objects_drop_sender(ManagedObjectsQueue *q, const char *name) {
        bool was_current;
        unsigned n;

        assert(q);
        assert(name);

        if (!call_scheduler_has_sender(&q->scheduler, name))
                return;
        n = call_scheduler_drop_sender(&q->scheduler, name, NULL, NULL, &was_current);
        log_debug("GetManagedObjects: %s left the bus; %u call%s dropped%s.", name, n, n == 1 ? "" : "s",
                  was_current && q->build ? ", with the reply being built" : "");
        if (was_current) {
                q->build = managed_objects_reply_free(q->build);
                q->restarts = 0;
        }
        build_off_when_idle(q);
}

int bus_managed_objects_start(ManagedObjectsQueue *q, sd_bus *bus, sd_event *event, const char *root,
                              const BusObjectType *const *types, size_t n_types, ManagedObjectsListPaths list_paths,
                              void *userdata, CallerRegistry *registry) {
        const ManagedObjectsTuning tuning = q->tuning;
        CallSchedulerLimits limits = {
                .calls_max = MANAGED_OBJECTS_CALLS_MAX,
                .callers_max = MANAGED_OBJECTS_CALLERS_MAX,
                .share_percent = tuning.unprivileged_share ?: MANAGED_OBJECTS_UNPRIVILEGED_SHARE,
                .pause_usec = tuning.unprivileged_pause_usec,
                .pause_max_usec = MANAGED_OBJECTS_PAUSE_MAX_USEC,
                .wait_max_usec = tuning.wait_max_usec ?: MANAGED_OBJECTS_WAIT_MAX_USEC,
        };
        int r;

        assert(q);
        assert(bus);
        assert(event);
        assert(root);
        assert(list_paths);

        if (limits.share_percent < 1 || limits.share_percent > 100)
                limits.share_percent = MANAGED_OBJECTS_UNPRIVILEGED_SHARE;
        *q = (ManagedObjectsQueue){
                .tuning = tuning,
                .bus = bus,
                .root = root,
                .types = types,
                .n_types = n_types,
                .list_paths = list_paths,
                .userdata = userdata,
                .registry = registry,
                .reply_max = tuning.reply_max ?: MANAGED_OBJECTS_REPLY_MAX,
                .slice_objects = tuning.slice_objects,
        };
        call_scheduler_init(&q->scheduler, &limits, NULL, NULL, bus_call_unref);

        if (tuning.builtin)
                return 0;

        r = sd_event_add_defer(event, &q->build_event, build_slice, q);
        if (r >= 0)
                r = sd_event_add_time_relative(event, &q->starved_event, CLOCK_MONOTONIC, MANAGED_OBJECTS_STARVED_USEC,
                                               0, on_starved, q);
        if (r >= 0)
                r = sd_event_add_post(event, &q->flush_event, on_flush, q);
        if (r >= 0)
                r = sd_event_add_time(event, &q->share_event, CLOCK_MONOTONIC, 0, 0, on_share_timer, q);
        if (r < 0)
                return log_error_errno(r, "Failed to add the GetManagedObjects sources: %m");
        /* Below everything, the emission of signals (IDLE) included. */
        (void) sd_event_source_set_priority(q->build_event, SD_EVENT_PRIORITY_IDLE + 10);
        /* All off until a call comes. */
        const struct {
                sd_event_source *source;
                const char *description;
        } sources[] = {
                { q->build_event, "get-managed-objects" },
                { q->starved_event, "get-managed-objects-starved" },
                { q->flush_event, "get-managed-objects-flush" },
                { q->share_event, "get-managed-objects-share" },
        };
        for (size_t i = 0; i < ELEMENTSOF(sources); i++) {
                (void) sd_event_source_set_enabled(sources[i].source, SD_EVENT_OFF);
                (void) sd_event_source_set_description(sources[i].source, sources[i].description);
        }

        r = sd_bus_add_filter(bus, &q->filter_slot, on_message, q);
        if (r < 0)
                return log_error_errno(r, "Failed to add the GetManagedObjects filter: %m");
        return 0;
}

void bus_managed_objects_changed(ManagedObjectsQueue *q) {
        assert(q);
        q->generation++;
}

void bus_managed_objects_clear(ManagedObjectsQueue *q) {
        assert(q);

        q->build = managed_objects_reply_free(q->build);
        call_scheduler_clear(&q->scheduler);
        q->share_event = sd_event_source_disable_unref(q->share_event);
        q->build_event = sd_event_source_disable_unref(q->build_event);
        q->flush_event = sd_event_source_disable_unref(q->flush_event);
        q->starved_event = sd_event_source_disable_unref(q->starved_event);
        q->filter_slot = sd_bus_slot_unref(q->filter_slot);
}
