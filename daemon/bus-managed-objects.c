/* SPDX-License-Identifier: MIT */
#include "bus-managed-objects.h"

#include <errno.h>
#include <linux/sockios.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

#include "bus-util.h"
#include "log.h"
#include "util.h"

#define OBJECT_MANAGER_INTERFACE "org.freedesktop.DBus.ObjectManager"

struct ManagedObjectsCaller {
        ManagedObjectsCaller *next;
        ManagedObjectsQueue *queue;
        char *sender;
        uid_t uid;
        bool uid_known;
        sd_bus_slot *uid_slot; /* GetConnectionUnixUser, asked without waiting */
        sd_bus_message *calls[MANAGED_OBJECTS_CALLS_MAX]; /* in arrival order */
        uint64_t arrived[MANAGED_OBJECTS_CALLS_MAX];
        unsigned n_calls;
};

static uint64_t now_monotonic_usec(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000ULL + (uint64_t) ts.tv_nsec / 1000ULL;
}

/* ---------- the size of the reply, counted as D-Bus marshals it ---------- */

static void count_align(ManagedObjectsQueue *q, size_t alignment) {
        q->reply_size = (q->reply_size + alignment - 1) / alignment * alignment;
}

static void count_string(ManagedObjectsQueue *q, const char *s) {
        count_align(q, 4);
        q->reply_size += 4 + strlen(s) + 1;
}

/* An array's length, then the padding to its first element. */
static void count_array(ManagedObjectsQueue *q, size_t element_alignment) {
        count_align(q, 4);
        q->reply_size += 4;
        count_align(q, element_alignment);
}

static void count_basic(ManagedObjectsQueue *q, char type, const void *value) {
        size_t size;

        switch (type) {
        case 's':
        case 'o':
                count_string(q, value);
                return;
        case 'g':
                q->reply_size += 1 + strlen(value) + 1;
                return;
        case 'y':
                size = 1;
                break;
        case 'n':
        case 'q':
                size = 2;
                break;
        case 'x':
        case 't':
        case 'd':
                size = 8;
                break;
        default: /* b i u h */
                size = 4;
        }
        count_align(q, size);
        q->reply_size += size;
}

/* The attribute maps are most of a reply: counted exactly. What other
 * getters marshal is counted by the type's getters_size_max(), an upper bound. */
static void count_attr_list(ManagedObjectsQueue *q, const AttrList *l) {
        count_array(q, 8);
        for (size_t i = 0; i < l->n; i++) {
                count_align(q, 8);
                count_string(q, l->items[i].name);
                count_string(q, l->items[i].value);
        }
}

/* ---------- one object, as sd-bus serializes it ---------- */

/* A dict entry keyed by a string or path, and the container of its value:
 * a variant of `contents`, or an array of dict entries `contents`. */
static int open_entry(ManagedObjectsQueue *q, const char *entry, char key_type, const char *key, char value_type,
                      const char *contents) {
        int r;

        r = sd_bus_message_open_container(q->reply, 'e', entry);
        if (r < 0)
                return r;
        r = sd_bus_message_append_basic(q->reply, key_type, key);
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(q->reply, value_type, contents);
        if (r < 0)
                return r;
        count_align(q, 8);
        count_string(q, key);
        if (value_type == 'v')
                count_basic(q, 'g', contents);
        else
                count_array(q, 8);
        return 0;
}

static int close_entry(ManagedObjectsQueue *q) {
        int r;

        r = sd_bus_message_close_container(q->reply);
        if (r < 0)
                return r;
        return sd_bus_message_close_container(q->reply);
}

/* A property without a getter: the field at its offset, read by type, as
 * sd-bus does. */
static int append_field(ManagedObjectsQueue *q, const char *signature, void *field) {
        const void *value;

        if (streq(signature, "as")) {
                char **l = *(char ***) field;

                count_array(q, 4);
                for (size_t i = 0; l && l[i]; i++)
                        count_string(q, l[i]);
                return sd_bus_message_append_strv(q->reply, l);
        }

        switch (signature[0]) {
        case 's':
        case 'g':
                value = strempty(*(char **) field);
                break;
        case 'o':
                value = *(char **) field;
                break;
        default:
                value = field;
        }
        count_basic(q, signature[0], value);
        return sd_bus_message_append_basic(q->reply, signature[0], value);
}

static int append_property(ManagedObjectsQueue *q, const char *path, const char *interface, const sd_bus_vtable *v,
                           void *object, sd_bus_error *error) {
        const char *name = v->x.property.member, *signature = v->x.property.signature;
        void *field = (uint8_t *) object + v->x.property.offset;
        int r;

        r = open_entry(q, "sv", 's', name, 'v', signature);
        if (r < 0)
                return r;
        if (v->x.property.get) {
                r = v->x.property.get(q->bus, path, interface, name, q->reply, field, error);
                if (r < 0)
                        return r;
                if (sd_bus_error_is_set(error))
                        return -sd_bus_error_get_errno(error);
                if (v->x.property.get == bus_property_get_attr_list)
                        count_attr_list(q, field);
        } else {
                r = append_field(q, signature, field);
                if (r < 0)
                        return r;
        }
        return close_entry(q);
}

/* Every property of the vtable a generic dump includes (what sd-bus's
 * vtable_append_all_properties() leaves in). */
static int append_interface(ManagedObjectsQueue *q, const char *path, const BusObjectType *t, void *object,
                            sd_bus_error *error) {
        int r;

        assert(t->vtable[0].x.start.element_size == sizeof(sd_bus_vtable));

        r = open_entry(q, "sa{sv}", 's', t->interface, 'a', "{sv}");
        if (r < 0)
                return r;

        if (!(t->vtable[0].flags & SD_BUS_VTABLE_HIDDEN))
                for (const sd_bus_vtable *v = t->vtable + 1; v->type != _SD_BUS_VTABLE_END; v++) {
                        if (v->type != _SD_BUS_VTABLE_PROPERTY && v->type != _SD_BUS_VTABLE_WRITABLE_PROPERTY)
                                continue;
                        if (v->flags & (SD_BUS_VTABLE_HIDDEN | SD_BUS_VTABLE_PROPERTY_EXPLICIT))
                                continue;
                        r = append_property(q, path, t->interface, v, object, error);
                        if (r < 0)
                                return r;
                }
        return close_entry(q);
}

static bool path_under_prefix(const char *path, const char *prefix) {
        size_t n = strlen(prefix);
        return strncmp(path, prefix, n) == 0 && path[n] == '/';
}

/* One dict entry of the reply, or nothing when no vtable finds the object.
 * sd-bus asks the vtables registered at the path first, then the fallbacks
 * of its prefixes; on one node the last registered comes first. Each entry
 * begins with the standard interfaces, with no properties. */
static int append_object(ManagedObjectsQueue *q, const char *path, sd_bus_error *error) {
        static const char *const standard[] = { "org.freedesktop.DBus.Peer", "org.freedesktop.DBus.Introspectable",
                                                "org.freedesktop.DBus.Properties" };
        bool found = false;
        int r;

        for (unsigned fallback = 0; fallback <= 1; fallback++)
                for (size_t k = q->n_types; k > 0; k--) {
                        const BusObjectType *t = &q->types[k - 1];
                        void *object = q->userdata;

                        if (fallback != !!t->find)
                                continue;
                        if (t->find ? !path_under_prefix(path, t->path) : !streq(path, t->path))
                                continue;
                        if (t->find) {
                                r = t->find(q->bus, path, t->interface, q->userdata, &object, error);
                                if (r < 0)
                                        return r;
                                if (sd_bus_error_is_set(error))
                                        return -sd_bus_error_get_errno(error);
                                if (r == 0)
                                        continue;
                        }

                        if (!found) {
                                r = open_entry(q, "oa{sa{sv}}", 'o', path, 'a', "{sa{sv}}");
                                if (r < 0)
                                        return r;
                                for (size_t i = 0; i < ELEMENTSOF(standard); i++) {
                                        r = open_entry(q, "sa{sv}", 's', standard[i], 'a', "{sv}");
                                        if (r < 0)
                                                return r;
                                        r = close_entry(q);
                                        if (r < 0)
                                                return r;
                                }
                                found = true;
                        }

                        r = append_interface(q, path, t, object, error);
                        if (r < 0)
                                return r;
                        if (t->getters_size_max)
                                q->reply_size += t->getters_size_max(object, strlen(path));
                }

        return found ? close_entry(q) : 0;
}

/* ---------- callers ---------- */

static ManagedObjectsCaller *caller_free(ManagedObjectsCaller *c) {
        if (!c)
                return NULL;
        for (unsigned i = 0; i < c->n_calls; i++)
                sd_bus_message_unref(c->calls[i]);
        sd_bus_slot_unref(c->uid_slot);
        free(c->sender);
        free(c);
        return NULL;
}

static ManagedObjectsCaller *caller_find(ManagedObjectsQueue *q, const char *sender) {
        for (ManagedObjectsCaller *c = q->callers; c; c = c->next)
                if (streq(c->sender, sender))
                        return c;
        return NULL;
}

static void caller_append(ManagedObjectsQueue *q, ManagedObjectsCaller *c) {
        c->next = NULL;
        if (q->callers_tail)
                q->callers_tail->next = c;
        else
                q->callers = c;
        q->callers_tail = c;
}

/* The list is at most MANAGED_OBJECTS_CALLERS_MAX long: the walk to the
 * one before is cheap beside a build. */
static void caller_unlink(ManagedObjectsQueue *q, ManagedObjectsCaller *c) {
        ManagedObjectsCaller *prev = NULL;

        for (ManagedObjectsCaller *i = q->callers; i && i != c; i = i->next)
                prev = i;
        if (prev)
                prev->next = c->next;
        else
                q->callers = c->next;
        if (q->callers_tail == c)
                q->callers_tail = prev;
        c->next = NULL;
}

/* ---------- the build ---------- */

static void build_reset(ManagedObjectsQueue *q) {
        q->reply = sd_bus_message_unref(q->reply);
        q->paths = strv_free(q->paths);
        q->n_paths = q->next_path = 0;
        q->reply_size = 0;
        q->complete = false;
}

static int build_start(ManagedObjectsQueue *q) {
        int r;

        build_reset(q);
        r = q->list_paths(q->userdata, &q->paths, &q->n_paths);
        if (r < 0)
                return r;
        r = sd_bus_message_new_method_return(q->serving->calls[0], &q->reply);
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(q->reply, 'a', "{oa{sa{sv}}}");
        if (r < 0)
                return r;
        count_array(q, 8);
        q->build_generation = q->generation;
        return 0;
}

/* ---------- whose turn ---------- */

static bool caller_privileged(const ManagedObjectsCaller *c) {
        return c->uid_known && c->uid == 0;
}

static ManagedObjectsTurn *turn_find(ManagedObjectsQueue *q, uid_t uid) {
        for (size_t i = 0; i < q->n_turns; i++)
                if (q->turns[i].uid == uid)
                        return &q->turns[i];
        return NULL;
}

/* When `uid` was last served: 0 for never, or not since its calls were all answered. */
static uint64_t turn_served(ManagedObjectsQueue *q, uid_t uid) {
        ManagedObjectsTurn *t = turn_find(q, uid);
        return t ? t->served : 0;
}

static void turn_taken(ManagedObjectsQueue *q, uid_t uid) {
        ManagedObjectsTurn *t = turn_find(q, uid);

        if (!t) {
                if (ARRAY_RESERVE(q->turns, q->allocated_turns, q->n_turns + 1) < 0)
                        return; /* it keeps its place: fairness, not correctness */
                t = &q->turns[q->n_turns++];
                t->uid = uid;
        }
        t->served = ++q->turn_counter;
}

/* A user with no calls left starts afresh: the table holds only users that wait. */
static void turn_forget_idle(ManagedObjectsQueue *q) {
        for (size_t i = 0; i < q->n_turns;) {
                bool waits = false;

                for (ManagedObjectsCaller *c = q->callers; c && !waits; c = c->next)
                        waits = c->uid_known && c->uid == q->turns[i].uid;
                if (waits)
                        i++;
                else
                        q->turns[i] = q->turns[--q->n_turns];
        }
}

static bool writes_pending(ManagedObjectsQueue *q) {
        uint64_t n;
        return sd_bus_get_n_queued_write(q->bus, &n) >= 0 && n > 0;
}

static void share_timer_at(ManagedObjectsQueue *q, uint64_t usec) {
        (void) sd_event_source_set_time(q->share_event, usec);
        (void) sd_event_source_set_enabled(q->share_event, SD_EVENT_ONESHOT);
}

/* Root first, in arrival order; then, while the unprivileged share allows,
 * the user served longest ago. NULL: nobody may be served now (a timer or
 * the end of a drain asks again). */
static ManagedObjectsCaller *pick_next(ManagedObjectsQueue *q) {
        ManagedObjectsCaller *best = NULL;
        uint64_t best_served = UINT64_MAX, now;

        for (ManagedObjectsCaller *c = q->callers; c; c = c->next)
                if (caller_privileged(c))
                        return c;
        if (q->draining)
                return NULL; /* what the last one cost is not known yet */
        now = now_monotonic_usec();
        if (now < q->unprivileged_not_before) {
                share_timer_at(q, q->unprivileged_not_before);
                return NULL;
        }
        for (ManagedObjectsCaller *c = q->callers; c; c = c->next) {
                uint64_t served;

                if (!c->uid_known)
                        continue;
                served = turn_served(q, c->uid);
                if (served < best_served) {
                        best = c;
                        best_served = served;
                }
        }
        return best;
}

/* Has the unprivileged reply in flight left the daemon, sd-bus's queue and
 * the socket's? Then its time on the connection is known, and so is when
 * the next unprivileged one may go. */
static bool drain_check(ManagedObjectsQueue *q) {
        int unsent = 0;
        uint64_t now, busy;

        assert(q->draining);

        if (writes_pending(q))
                return false;
        if (ioctl(sd_bus_get_fd(q->bus), SIOCOUTQ, &unsent) >= 0 && unsent > 0)
                return false;
        now = now_monotonic_usec();
        busy = now - q->drain_started_usec;
        q->unprivileged_not_before = now + (q->pause_usec ?: busy * (100 - q->share_percent) / q->share_percent);
        q->draining = false;
        log_debug("GetManagedObjects: an unprivileged reply took %.1f ms to leave; the next in %.1f ms.",
                  (double) busy / 1000, (double) (q->unprivileged_not_before - now) / 1000);
        return true;
}

/* ---------- answering ---------- */

static void caller_unlink_and_free(ManagedObjectsQueue *q, ManagedObjectsCaller *c) {
        caller_unlink(q, c);
        caller_free(c);
        q->n_callers--;
        turn_forget_idle(q);
        if (!q->callers)
                (void) sd_event_source_set_enabled(q->build_event, SD_EVENT_OFF);
}

static void caller_pop_call(ManagedObjectsCaller *c, unsigned i) {
        sd_bus_message_unref(c->calls[i]);
        c->n_calls--;
        memmove(c->calls + i, c->calls + i + 1, (c->n_calls - i) * sizeof(c->calls[0]));
        memmove(c->arrived + i, c->arrived + i + 1, (c->n_calls - i) * sizeof(c->arrived[0]));
}

/* The served caller's first call is answered (with the reply when r >=
 * 0); the caller goes to the back of the queue if it has more. */
static void finish_call(ManagedObjectsQueue *q, int r, const sd_bus_error *error) {
        ManagedObjectsCaller *c = q->serving;
        sd_bus_message *call = c->calls[0];
        bool sent_reply = false;

        if (r >= 0) {
                r = sd_bus_send(NULL, q->reply, NULL);
                sent_reply = r >= 0;
        } else if (error && sd_bus_error_is_set(error))
                r = sd_bus_reply_method_error(call, error);
        else
                r = sd_bus_reply_method_errno(call, r, NULL);
        if (r < 0)
                log_debug_errno(r, "Failed to answer GetManagedObjects of %s: %m", c->sender);

        if (sent_reply) {
                q->trim_after_send = true;
                (void) sd_event_source_set_enabled(q->flush_event, SD_EVENT_ON);
        }
        if (sent_reply && !caller_privileged(c)) {
                q->draining = true;
                q->drain_started_usec = now_monotonic_usec();
        }
        if (!caller_privileged(c))
                turn_taken(q, c->uid);

        caller_pop_call(c, 0);
        build_reset(q);
        q->restarts = 0;
        q->serving = NULL;

        if (c->n_calls > 0) {
                caller_unlink(q, c);
                caller_append(q, c);
        } else
                caller_unlink_and_free(q, c);
}

/* Calls that waited too long are answered Busy, in time for their callers
 * to read why. */
static void expire_calls(ManagedObjectsQueue *q) {
        uint64_t now = now_monotonic_usec();

        for (ManagedObjectsCaller *c = q->callers, *next; c; c = next) {
                next = c->next;
                /* The call being built for is answered by its build. */
                for (unsigned i = c == q->serving ? 1 : 0; i < c->n_calls;) {
                        if (now < c->arrived[i] + q->wait_max_usec) {
                                i++;
                                continue;
                        }
                        (void) sd_bus_reply_method_errorf(
                                c->calls[i], RDMAD_ERROR_BUSY,
                                "GetManagedObjects waited %g s for its turn (%u connection%s waiting; replies to "
                                "callers other than root may keep the daemon's bus connection busy at most %u%% of "
                                "the time). Try again later, or read the objects one by one.",
                                (double) q->wait_max_usec / 1000000, q->n_callers, q->n_callers == 1 ? "" : "s",
                                q->share_percent);
                        log_debug("GetManagedObjects of %s: answered Busy after %.0f s of waiting.", c->sender,
                                  (double) (now - c->arrived[i]) / 1000000);
                        caller_pop_call(c, i);
                }
                if (c->n_calls == 0 && c != q->serving)
                        caller_unlink_and_free(q, c);
        }
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
        if (q->draining && !drain_check(q))
                share_timer_at(q, now_monotonic_usec() + 1000);
        if (q->callers)
                (void) sd_event_source_set_enabled(q->build_event, SD_EVENT_ON);
        return 0;
}

static int on_share_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        ManagedObjectsQueue *q = userdata;

        if (q->draining && !drain_check(q)) {
                share_timer_at(q, now_monotonic_usec() + 1000);
                return 0;
        }
        if (q->callers)
                (void) sd_event_source_set_enabled(q->build_event, SD_EVENT_ON);
        return 0;
}

static void finish_too_large(ManagedObjectsQueue *q) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        /* Where it stopped, the rest extrapolated. */
        double mib = (double) q->reply_size * (double) q->n_paths / (double) q->next_path / (1024 * 1024);

        if (!q->warned_too_large) {
                log_warning("GetManagedObjects refused: the reply would be about %.1f MiB, more than the system bus "
                            "carries; clients must read the objects one by one.",
                            mib);
                q->warned_too_large = true;
        }
        (void) sd_bus_error_setf(&error, SD_BUS_ERROR_LIMITS_EXCEEDED,
                                 "The reply would be about %.1f MiB, more than a message on the system bus may be "
                                 "(%.1f MiB here). Read the objects one by one: org.rdmad1.Manager.Devices, then "
                                 "org.freedesktop.DBus.Properties.GetAll on each device and on the paths in its "
                                 "Ports, NetDevs and Sriov properties.",
                                 mib, (double) q->reply_max / (1024 * 1024));
        finish_call(q, -E2BIG, &error);
}

/* At most MANAGED_OBJECTS_SLICE_USEC of building. */
static int build_slice(ManagedObjectsQueue *q) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_event_source *s = q->build_event;
        uint64_t deadline;
        bool in_one_go;
        int r;

        q->last_slice_usec = now_monotonic_usec();
        if (!q->serving)
                q->serving = pick_next(q);
        if (!q->serving) {
                (void) sd_event_source_set_enabled(s, SD_EVENT_OFF);
                return 0;
        }

        if (q->reply && q->build_generation != q->generation) {
                q->restarts++;
                log_debug("GetManagedObjects of %s: the objects changed after %zu of %zu, building again (%u).",
                          q->serving->sender, q->next_path, q->n_paths, q->restarts);
                build_reset(q);
        }
        if (!q->reply) {
                r = build_start(q);
                if (r < 0) {
                        finish_call(q, r, NULL);
                        return 0;
                }
                log_debug("GetManagedObjects of %s: building %zu objects.", q->serving->sender, q->n_paths);
        }

        /* Changes keep coming: no more slices, or the reply would never be done. */
        in_one_go = q->restarts >= MANAGED_OBJECTS_RESTARTS_MAX;
        deadline = now_monotonic_usec() + MANAGED_OBJECTS_SLICE_USEC;
        for (unsigned done = 0; !q->complete && q->next_path < q->n_paths;) {
                r = append_object(q, q->paths[q->next_path++], &error);
                if (r < 0) {
                        finish_call(q, r, &error);
                        return 0;
                }
                if (q->reply_size > q->reply_max) {
                        finish_too_large(q);
                        return 0;
                }
                done++;
                if (in_one_go)
                        continue;
                if (q->slice_objects > 0 ? done >= q->slice_objects
                                         : done % 16 == 0 && now_monotonic_usec() >= deadline)
                        return 0;
        }

        if (!q->complete) {
                r = sd_bus_message_close_container(q->reply);
                if (r < 0) {
                        finish_call(q, r, NULL);
                        return 0;
                }
                q->complete = true;
        }

        /* The previous reply is still on its way out: wait for it (a change
         * meanwhile starts this one again, above). */
        if (writes_pending(q)) {
                (void) sd_event_source_set_enabled(s, SD_EVENT_OFF);
                (void) sd_event_source_set_enabled(q->flush_event, SD_EVENT_ON);
                return 0;
        }
        log_debug("GetManagedObjects of %s: %zu objects, %zu bytes counted, sent.", q->serving->sender, q->n_paths,
                  q->reply_size);
        finish_call(q, 0, NULL);
        return 0;
}

/* Lowest priority: runs when nothing else of the daemon is pending. */
static int on_build(sd_event_source *s, void *userdata) {
        return build_slice(userdata);
}

/* A storm of events could keep the lowest priority from ever running: a
 * slice at least every MANAGED_OBJECTS_STARVED_USEC while calls wait. */
static int on_starved(sd_event_source *s, uint64_t usec, void *userdata) {
        ManagedObjectsQueue *q = userdata;

        expire_calls(q);
        if (!q->callers)
                return 0;
        if (now_monotonic_usec() >= q->last_slice_usec + MANAGED_OBJECTS_STARVED_USEC &&
            sd_event_source_get_enabled(q->build_event, NULL) > 0)
                (void) build_slice(q);
        if (q->callers) {
                (void) sd_event_source_set_time_relative(s, MANAGED_OBJECTS_STARVED_USEC);
                (void) sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
        }
        return 0;
}

static void build_wanted(ManagedObjectsQueue *q) {
        (void) sd_event_source_set_enabled(q->build_event, SD_EVENT_ON);
        if (sd_event_source_get_enabled(q->starved_event, NULL) == 0) {
                q->last_slice_usec = now_monotonic_usec();
                (void) sd_event_source_set_time_relative(q->starved_event, MANAGED_OBJECTS_STARVED_USEC);
                (void) sd_event_source_set_enabled(q->starved_event, SD_EVENT_ONESHOT);
        }
}

/* ---------- the calls ---------- */

static void drop_caller(ManagedObjectsQueue *q, ManagedObjectsCaller *c, const char *why) {
        bool building = c == q->serving && q->reply;

        log_debug("GetManagedObjects: %s %s; %u call%s dropped%s.", c->sender, why, c->n_calls,
                  c->n_calls == 1 ? "" : "s", building ? ", with the reply being built" : "");
        if (c == q->serving) {
                build_reset(q);
                q->restarts = 0;
                q->serving = NULL;
        }
        caller_unlink_and_free(q, c);
}

/* dbus-daemon says who the caller is. Asked asynchronously: the question
 * leaves after whatever the daemon is sending, and nothing else waits for
 * the answer. */
static int on_caller_uid(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        ManagedObjectsCaller *c = userdata;
        ManagedObjectsQueue *q = c->queue;
        const sd_bus_error *e = sd_bus_message_get_error(reply);
        uint32_t uid;
        int r;

        c->uid_slot = sd_bus_slot_unref(c->uid_slot);
        if (e) {
                if (sd_bus_error_has_name(e, SD_BUS_ERROR_NAME_HAS_NO_OWNER)) {
                        drop_caller(q, c, "left the bus");
                        return 0;
                }
                log_warning("Cannot tell who %s is (%s: %s); its GetManagedObjects calls are refused.", c->sender,
                            e->name, e->message);
                for (unsigned i = 0; i < c->n_calls; i++)
                        (void) sd_bus_reply_method_errorf(c->calls[i], SD_BUS_ERROR_ACCESS_DENIED,
                                                          "Cannot tell who is calling: %s", e->message);
                drop_caller(q, c, "is refused");
                return 0;
        }
        r = sd_bus_message_read(reply, "u", &uid);
        if (r < 0) {
                log_warning_errno(r, "Cannot read the uid of %s: %m", c->sender);
                for (unsigned i = 0; i < c->n_calls; i++)
                        (void) sd_bus_reply_method_errno(c->calls[i], r, NULL);
                drop_caller(q, c, "is refused");
                return 0;
        }
        c->uid = uid;
        c->uid_known = true;
        (void) caller_remember_uid(q->registry, c->sender, c->uid);
        build_wanted(q);
        return 0;
}

static int caller_new(ManagedObjectsQueue *q, const char *sender, ManagedObjectsCaller **ret) {
        ManagedObjectsCaller *c;
        int r;

        c = calloc(1, sizeof(ManagedObjectsCaller));
        if (!c)
                return -ENOMEM;
        c->queue = q;
        c->sender = strdup(sender);
        if (!c->sender) {
                free(c);
                return -ENOMEM;
        }
        if (q->registry && caller_peek_uid(q->registry, sender, &c->uid) >= 0)
                c->uid_known = true;
        else {
                r = sd_bus_call_method_async(q->bus, &c->uid_slot, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                             "org.freedesktop.DBus", "GetConnectionUnixUser", on_caller_uid, c, "s",
                                             sender);
                if (r < 0) {
                        caller_free(c);
                        return r;
                }
        }
        caller_append(q, c);
        q->n_callers++;
        *ret = c;
        return 0;
}

static int on_message(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        ManagedObjectsQueue *q = userdata;
        ManagedObjectsCaller *c;
        const char *sender;
        int r;

        if (!sd_bus_message_is_method_call(m, OBJECT_MANAGER_INTERFACE, "GetManagedObjects") ||
            !streq_ptr(sd_bus_message_get_path(m), q->root))
                return 0;
        /* Arguments, or no sender to track (a direct connection): sd-bus answers as it always did. */
        sender = sd_bus_message_get_sender(m);
        if (!sender || !streq(strempty(sd_bus_message_get_signature(m, true)), ""))
                return 0;
        if (!sd_bus_message_get_expect_reply(m))
                return 1; /* nobody waits for it */

        c = caller_find(q, sender);
        if (!c) {
                if (q->n_callers >= MANAGED_OBJECTS_CALLERS_MAX)
                        return sd_bus_reply_method_errorf(m, RDMAD_ERROR_BUSY,
                                                          "Too many connections wait for GetManagedObjects; try "
                                                          "again later.");
                r = caller_new(q, sender, &c);
                if (r < 0)
                        return sd_bus_reply_method_errnof(m, r, "Cannot queue GetManagedObjects: %m");
        } else if (c->n_calls >= MANAGED_OBJECTS_CALLS_MAX)
                return sd_bus_reply_method_errorf(m, RDMAD_ERROR_BUSY,
                                                  "This connection has %u GetManagedObjects calls pending already.",
                                                  c->n_calls);

        c->arrived[c->n_calls] = now_monotonic_usec();
        c->calls[c->n_calls++] = sd_bus_message_ref(m);
        build_wanted(q);
        return 1;
}

/* A connection left the bus: its calls, and the reply being built for it,
 * go with it. */
void bus_managed_objects_drop_sender(ManagedObjectsQueue *q, const char *name) {
        ManagedObjectsCaller *c;

        assert(q);
        assert(name);

        c = caller_find(q, name);
        if (c)
                drop_caller(q, c, "left the bus");
}

/* Tests lower the size bound to reach it with a small host, and cut
 * slices by objects to spread a small reply over many iterations. */
static unsigned long long test_knob(const char *name, unsigned long long fallback) {
        const char *e = getenv(name);
        char *end;
        unsigned long long v;

        if (!e)
                return fallback;
        errno = 0;
        v = strtoull(e, &end, 10);
        return errno == 0 && end != e && *end == '\0' ? v : fallback;
}

int bus_managed_objects_start(ManagedObjectsQueue *q, sd_bus *bus, sd_event *event, const char *root,
                              const BusObjectType *types, size_t n_types, ManagedObjectsListPaths list_paths,
                              void *userdata, CallerRegistry *registry) {
        int r;

        assert(q);
        assert(bus);
        assert(event);
        assert(root);
        assert(list_paths);

        *q = (ManagedObjectsQueue) {
                .bus = bus,
                .root = root,
                .types = types,
                .n_types = n_types,
                .list_paths = list_paths,
                .userdata = userdata,
                .registry = registry,
                .share_percent = test_knob("RDMAD_TEST_GMO_UNPRIVILEGED_SHARE", MANAGED_OBJECTS_UNPRIVILEGED_SHARE),
                .pause_usec = test_knob("RDMAD_TEST_GMO_UNPRIVILEGED_PAUSE_MSEC", 0) * 1000,
                .wait_max_usec = test_knob("RDMAD_TEST_GMO_WAIT_MAX_MSEC", MANAGED_OBJECTS_WAIT_MAX_USEC / 1000) * 1000,
                .reply_max = test_knob("RDMAD_TEST_GMO_REPLY_MAX", MANAGED_OBJECTS_REPLY_MAX),
                .slice_objects = test_knob("RDMAD_TEST_GMO_SLICE_OBJECTS", 0),
        };
        if (q->share_percent < 1 || q->share_percent > 100)
                q->share_percent = MANAGED_OBJECTS_UNPRIVILEGED_SHARE;

        /* Tests compare the reply with the one sd-bus builds itself. */
        if (getenv("RDMAD_TEST_GMO_BUILTIN"))
                return 0;

        r = sd_event_add_defer(event, &q->build_event, on_build, q);
        if (r < 0)
                return log_error_errno(r, "Failed to add the GetManagedObjects source: %m");
        /* Below everything, the emission of signals (IDLE) included. */
        (void) sd_event_source_set_priority(q->build_event, SD_EVENT_PRIORITY_IDLE + 10);
        (void) sd_event_source_set_enabled(q->build_event, SD_EVENT_OFF);
        (void) sd_event_source_set_description(q->build_event, "get-managed-objects");

        r = sd_event_add_time_relative(event, &q->starved_event, CLOCK_MONOTONIC, MANAGED_OBJECTS_STARVED_USEC, 0,
                                       on_starved, q);
        if (r < 0)
                return log_error_errno(r, "Failed to add the GetManagedObjects timer: %m");
        (void) sd_event_source_set_enabled(q->starved_event, SD_EVENT_OFF);
        (void) sd_event_source_set_description(q->starved_event, "get-managed-objects-starved");

        r = sd_event_add_post(event, &q->flush_event, on_flush, q);
        if (r < 0)
                return log_error_errno(r, "Failed to add the GetManagedObjects flush source: %m");
        (void) sd_event_source_set_enabled(q->flush_event, SD_EVENT_OFF);
        (void) sd_event_source_set_description(q->flush_event, "get-managed-objects-flush");

        r = sd_event_add_time(event, &q->share_event, CLOCK_MONOTONIC, 0, 0, on_share_timer, q);
        if (r < 0)
                return log_error_errno(r, "Failed to add the GetManagedObjects share timer: %m");
        (void) sd_event_source_set_enabled(q->share_event, SD_EVENT_OFF);
        (void) sd_event_source_set_description(q->share_event, "get-managed-objects-share");

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

        build_reset(q);
        while (q->callers) {
                ManagedObjectsCaller *c = q->callers;
                q->callers = c->next;
                caller_free(c);
        }
        q->callers_tail = NULL;
        q->serving = NULL;
        q->n_callers = 0;
        q->turns = mfree(q->turns);
        q->n_turns = q->allocated_turns = 0;
        q->share_event = sd_event_source_disable_unref(q->share_event);
        q->build_event = sd_event_source_disable_unref(q->build_event);
        q->flush_event = sd_event_source_disable_unref(q->flush_event);
        q->starved_event = sd_event_source_disable_unref(q->starved_event);
        q->filter_slot = sd_bus_slot_unref(q->filter_slot);
}
