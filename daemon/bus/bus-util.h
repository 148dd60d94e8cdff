/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <systemd/sd-bus.h>

#include "api/bus-path.h"
#include "api/rdmad-api.h"
#include "forward.h"
#include "properties.h"
#include "sysfs.h"

extern const sd_bus_error_map rdmad_error_map[];

/* A device whose reads hang: the call fails now rather than wait for it
 * (org.rdmad1.Error.Unresponsive, with the reason its health gives). */
int bus_error_unresponsive(const Device *d, sd_bus_error *error);

/* Property getter for an AttrList field: use with offsetof() in the vtable
 * (sd-bus passes the object plus the offset as userdata). */
int bus_property_get_attr_list(sd_bus *bus, const char *path, const char *interface, const char *property,
                               sd_bus_message *reply, void *userdata, sd_bus_error *error);

/* Calls held for a later answer or a second dispatch, each a reference. */
typedef struct HeldCalls {
        sd_bus_message **calls;
        size_t n, allocated;
} HeldCalls;

int held_calls_add(HeldCalls *h, sd_bus_message *call);
/* Whether call was held; it is let go of then. */
bool held_calls_remove(HeldCalls *h, sd_bus_message *call);
void held_calls_clear(HeldCalls *h);
/* sd_bus_message_unref() as the free callback of a call held as a void * (CallScheduler's). */
void bus_call_unref(void *call);

/* Appends an "ao" of n object paths, the i-th built by path_at(object, i). */
typedef int (*ObjectPathAt)(const void *object, size_t i, char **ret);
int bus_append_object_paths(sd_bus_message *m, const void *object, size_t n, ObjectPathAt path_at);

/* ---------- the vtable rows of a property list (properties.h) ---------- */

#define BUS_PROPERTY_FLAGS_CHANGE SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE
#define BUS_PROPERTY_FLAGS_CONST  SD_BUS_VTABLE_PROPERTY_CONST

/* FIELD: sd-bus reads the field itself, or an AttrList through its getter.
 * A bool has no FIELD (sd-bus would read an int for "b"), nor has a CUSTOM
 * or PARENT comparison: those rows name a getter, or do not compile. */
#define BUS_PROPERTY_READER_STRING    NULL
#define BUS_PROPERTY_READER_U32       NULL
#define BUS_PROPERTY_READER_I32       NULL
#define BUS_PROPERTY_READER_U64       NULL
#define BUS_PROPERTY_READER_DOUBLE    NULL
#define BUS_PROPERTY_READER_RELATED   NULL
#define BUS_PROPERTY_READER_ATTR_LIST bus_property_get_attr_list

#define BUS_PROPERTY_GETTER_FIELD(compare, getter)     BUS_PROPERTY_READER_##compare
#define BUS_PROPERTY_GETTER_GET(compare, getter)       bus_property_get_##getter
#define BUS_PROPERTY_GETTER_GET_FIELD(compare, getter) bus_property_get_##getter
#define BUS_PROPERTY_OFFSET_FIELD(Object, field)       offsetof(Object, field)
#define BUS_PROPERTY_OFFSET_GET(Object, field)         0
#define BUS_PROPERTY_OFFSET_GET_FIELD(Object, field)   offsetof(Object, field)

/* A vtable's property rows: { ..., LIST(BUS_<KIND>_PROPERTY) ... } with
 * #define BUS_<KIND>_PROPERTY(...) BUS_PROPERTY(Object, RDMAD_<KIND>_PROPERTY_, __VA_ARGS__):
 * the row's id names its name in api/rdmad-api.h. */
#define BUS_PROPERTY(Object, prefix, id, signature, emits, compare, field, bus, getter)                                \
        SD_BUS_PROPERTY(prefix##id, signature, BUS_PROPERTY_GETTER_##bus(compare, getter),                             \
                        BUS_PROPERTY_OFFSET_##bus(Object, field), BUS_PROPERTY_FLAGS_##emits),

/* ---------- what the getters marshal, at most (BusObjectType) ---------- */

/* A string or path of len bytes: its length field, its NUL and up to 7
 * bytes of padding before it. */
#define BUS_STRING_SIZE_MAX(len) (4 + (len) + 1 + 7)
/* A path a getter gives is the object's own, or a sibling's or child's: at
 * most an escaped interface name (3 × 15) and a "/netdev/" longer. */
#define BUS_PATH_SIZE_MAX(path_len) BUS_STRING_SIZE_MAX((path_len) + 8 + 45)
/* An array's length and the padding to its first element. */
#define BUS_ARRAY_SIZE_MAX 12

/* Sums the bounds of a list's getters:
 *   return 0 LIST(BUS_PROPERTY_SIZE);
 * in a function of (const void *object, size_t path_len). */
#define BUS_PROPERTY_SIZE(id, signature, emits, compare, field, bus, getter) BUS_PROPERTY_SIZE_##bus(getter)

#define BUS_PROPERTY_SIZE_FIELD(getter)
#define BUS_PROPERTY_SIZE_GET(getter)       +bus_property_size_##getter(object, path_len)
#define BUS_PROPERTY_SIZE_GET_FIELD(getter) +bus_property_size_##getter(object, path_len)

/* Defines the getter of an "o" property that names one other object:
 * path_of(userdata, &p) makes its path, or leaves p NULL for none ("/").
 * systemd's BUS_DEFINE_PROPERTY_GET shape: static BUS_DEFINE_...(...); */
#define BUS_DEFINE_PROPERTY_GET_PATH(function, path_of)                                                                \
        int function(sd_bus *bus, const char *path, const char *interface, const char *property,                       \
                     sd_bus_message *reply, void *userdata, sd_bus_error *error) {                                     \
                _cleanup_free_ char *p = NULL;                                                                         \
                int r = path_of(userdata, &p);                                                                         \
                                                                                                                       \
                return r < 0 ? r : sd_bus_message_append(reply, "o", p ?: "/");                                        \
        }

/* Defines what such a getter marshals at most when the path is the object's
 * device's, a sibling's or a child's (BUS_PATH_SIZE_MAX bounds them). */
#define BUS_DEFINE_PROPERTY_SIZE_PATH(function)                                                                        \
        size_t function(const void *object, size_t path_len) {                                                         \
                return BUS_PATH_SIZE_MAX(path_len);                                                                    \
        }

/* Defines the getter of an "ao" property: the paths path_at(userdata, i)
 * makes for i below userdata's (an Object's) count. */
#define BUS_DEFINE_PROPERTY_GET_PATHS(function, Object, count, path_at)                                                \
        int function(sd_bus *bus, const char *path, const char *interface, const char *property,                       \
                     sd_bus_message *reply, void *userdata, sd_bus_error *error) {                                     \
                const Object *o = userdata;                                                                            \
                return bus_append_object_paths(reply, o, o->count, path_at);                                           \
        }

/* Property getter for the path of the Device a field points to: GET_FIELD
 * of a Port's or NetDev's device (properties.h); and what it marshals at
 * most for an object at a path of path_len. */
int bus_property_get_device_of(sd_bus *bus, const char *path, const char *interface, const char *property,
                               sd_bus_message *reply, void *userdata, sd_bus_error *error);
size_t bus_property_size_device_of(const void *object, size_t path_len);

/* Is there an object of rdmad, of any kind, at path? */
bool bus_path_is_object(Manager *m, const char *path);

/* The find callback of every fallback under RDMAD_DEVICE_PREFIX (userdata:
 * the BusServer): 1 and *found, the object path names, when it is in the
 * table and of the kind that serves interface; else 0. */
int bus_object_find(sd_bus *bus, const char *path, const char *interface, void *userdata, void **found,
                    sd_bus_error *error);
