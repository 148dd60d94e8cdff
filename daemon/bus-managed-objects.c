/* SPDX-License-Identifier: MIT */
#include "bus-managed-objects.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bus-util.h"
#include "log.h"
#include "util.h"

#define OBJECT_MANAGER_INTERFACE "org.freedesktop.DBus.ObjectManager"

struct ManagedObjectsCaller {
        ManagedObjectsCaller *next;
        char *sender;
        sd_bus_message *calls[MANAGED_OBJECTS_CALLS_MAX]; /* in arrival order */
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
        free(c->sender);
        free(c);
        return NULL;
}

static ManagedObjectsCaller *caller_find(ManagedObjectsQueue *q, const char *sender, ManagedObjectsCaller **ret_prev) {
        ManagedObjectsCaller *prev = NULL;

        for (ManagedObjectsCaller *c = q->callers; c; prev = c, c = c->next)
                if (streq(c->sender, sender)) {
                        if (ret_prev)
                                *ret_prev = prev;
                        return c;
                }
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

static void caller_unlink(ManagedObjectsQueue *q, ManagedObjectsCaller *c, ManagedObjectsCaller *prev) {
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
        r = sd_bus_message_new_method_return(q->callers->calls[0], &q->reply);
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(q->reply, 'a', "{oa{sa{sv}}}");
        if (r < 0)
                return r;
        count_array(q, 8);
        q->build_generation = q->generation;
        return 0;
}

/* The head's first call is answered (with the reply when r >= 0); the
 * caller goes to the back of the queue if it has more. */
static void finish_call(ManagedObjectsQueue *q, int r, const sd_bus_error *error) {
        ManagedObjectsCaller *c = q->callers;
        sd_bus_message *call = c->calls[0];

        if (r >= 0)
                r = sd_bus_send(NULL, q->reply, NULL);
        else if (error && sd_bus_error_is_set(error))
                r = sd_bus_reply_method_error(call, error);
        else
                r = sd_bus_reply_method_errno(call, r, NULL);
        if (r < 0)
                log_debug_errno(r, "Failed to answer GetManagedObjects of %s: %m", c->sender);

        sd_bus_message_unref(call);
        memmove(c->calls, c->calls + 1, --c->n_calls * sizeof(c->calls[0]));
        build_reset(q);
        q->restarts = 0;

        caller_unlink(q, c, NULL);
        if (c->n_calls > 0)
                caller_append(q, c);
        else {
                caller_free(c);
                q->n_callers--;
        }
        if (!q->callers)
                (void) sd_event_source_set_enabled(q->build_event, SD_EVENT_OFF);
}

static bool writes_pending(ManagedObjectsQueue *q) {
        uint64_t n;
        return sd_bus_get_n_queued_write(q->bus, &n) >= 0 && n > 0;
}

/* After every other dispatch while a reply waits: has the bus taken what was queued? */
static int on_flush(sd_event_source *s, void *userdata) {
        ManagedObjectsQueue *q = userdata;

        if (writes_pending(q))
                return 0;
        (void) sd_event_source_set_enabled(s, SD_EVENT_OFF);
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
        if (!q->callers) {
                (void) sd_event_source_set_enabled(s, SD_EVENT_OFF);
                return 0;
        }

        if (q->reply && q->build_generation != q->generation) {
                q->restarts++;
                log_debug("GetManagedObjects of %s: the objects changed after %zu of %zu, building again (%u).",
                          q->callers->sender, q->next_path, q->n_paths, q->restarts);
                build_reset(q);
        }
        if (!q->reply) {
                r = build_start(q);
                if (r < 0) {
                        finish_call(q, r, NULL);
                        return 0;
                }
                log_debug("GetManagedObjects of %s: building %zu objects.", q->callers->sender, q->n_paths);
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
        log_debug("GetManagedObjects of %s: %zu objects, %zu bytes counted, sent.", q->callers->sender, q->n_paths,
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

static int on_message(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        ManagedObjectsQueue *q = userdata;
        ManagedObjectsCaller *c;
        const char *sender;

        if (!sd_bus_message_is_method_call(m, OBJECT_MANAGER_INTERFACE, "GetManagedObjects") ||
            !streq_ptr(sd_bus_message_get_path(m), q->root))
                return 0;
        /* Arguments, or no sender to track (a direct connection): sd-bus answers as it always did. */
        sender = sd_bus_message_get_sender(m);
        if (!sender || !streq(strempty(sd_bus_message_get_signature(m, true)), ""))
                return 0;
        if (!sd_bus_message_get_expect_reply(m))
                return 1; /* nobody waits for it */

        c = caller_find(q, sender, NULL);
        if (!c) {
                if (q->n_callers >= MANAGED_OBJECTS_CALLERS_MAX)
                        return sd_bus_reply_method_errorf(m, RDMAD_ERROR_BUSY,
                                                          "Too many connections wait for GetManagedObjects; try "
                                                          "again later.");
                c = calloc(1, sizeof(ManagedObjectsCaller));
                if (!c)
                        return -ENOMEM;
                c->sender = strdup(sender);
                if (!c->sender) {
                        free(c);
                        return -ENOMEM;
                }
                caller_append(q, c);
                q->n_callers++;
        } else if (c->n_calls >= MANAGED_OBJECTS_CALLS_MAX)
                return sd_bus_reply_method_errorf(m, RDMAD_ERROR_BUSY,
                                                  "This connection has %u GetManagedObjects calls pending already.",
                                                  c->n_calls);

        c->calls[c->n_calls++] = sd_bus_message_ref(m);
        build_wanted(q);
        return 1;
}

/* A connection left the bus: its calls, and the reply being built for it,
 * go with it. */
void bus_managed_objects_drop_sender(ManagedObjectsQueue *q, const char *name) {
        ManagedObjectsCaller *c, *prev;
        bool building;

        assert(q);
        assert(name);

        c = caller_find(q, name, &prev);
        if (!c)
                return;

        building = c == q->callers && q->reply;
        log_debug("GetManagedObjects: %s left the bus; %u call%s dropped%s.", name, c->n_calls,
                  c->n_calls == 1 ? "" : "s", building ? ", with the reply being built" : "");
        if (c == q->callers) {
                build_reset(q);
                q->restarts = 0;
        }
        caller_unlink(q, c, prev);
        caller_free(c);
        q->n_callers--;
        if (!q->callers)
                (void) sd_event_source_set_enabled(q->build_event, SD_EVENT_OFF);
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
                              void *userdata) {
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
                .reply_max = test_knob("RDMAD_TEST_GMO_REPLY_MAX", MANAGED_OBJECTS_REPLY_MAX),
                .slice_objects = test_knob("RDMAD_TEST_GMO_SLICE_OBJECTS", 0),
        };

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
        q->n_callers = 0;
        q->build_event = sd_event_source_disable_unref(q->build_event);
        q->flush_event = sd_event_source_disable_unref(q->flush_event);
        q->starved_event = sd_event_source_disable_unref(q->starved_event);
        q->filter_slot = sd_bus_slot_unref(q->filter_slot);
}
