/* SPDX-License-Identifier: MIT */
#include "bus-managed-objects-reply.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "basic/util.h"
#include "bus-util.h"

/* ---------- the size of the reply, counted as D-Bus marshals it ---------- */

static void count_align(ManagedObjectsReply *r, size_t alignment) {
        r->size = (r->size + alignment - 1) / alignment * alignment;
}

static void count_string(ManagedObjectsReply *r, const char *s) {
        count_align(r, 4);
        r->size += 4 + strlen(s) + 1;
}

/* An array's length, then the padding to its first element. */
static void count_array(ManagedObjectsReply *r, size_t element_alignment) {
        count_align(r, 4);
        r->size += 4;
        count_align(r, element_alignment);
}

static void count_basic(ManagedObjectsReply *r, char type, const void *value) {
        size_t size;

        switch (type) {
        case 's':
        case 'o':
                count_string(r, value);
                return;
        case 'g':
                r->size += 1 + strlen(value) + 1;
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
        count_align(r, size);
        r->size += size;
}

/* The attribute maps are most of a reply: counted exactly. What other
 * getters marshal is counted by the type's getters_size_max(), an upper bound. */
static void count_attr_list(ManagedObjectsReply *r, const AttrList *l) {
        count_array(r, 8);
        for (size_t i = 0; i < l->n; i++) {
                count_align(r, 8);
                count_string(r, l->items[i].name);
                count_string(r, l->items[i].value);
        }
}

/* ---------- one object ---------- */

/* A dict entry keyed by a string or path, and the container of its value:
 * a variant of `contents`, or an array of dict entries `contents`. */
static int open_entry(ManagedObjectsReply *r, const char *entry, char key_type, const char *key, char value_type,
                      const char *contents) {
        int k;

        k = sd_bus_message_open_container(r->message, 'e', entry);
        if (k >= 0)
                k = sd_bus_message_append_basic(r->message, key_type, key);
        if (k >= 0)
                k = sd_bus_message_open_container(r->message, value_type, contents);
        if (k < 0)
                return k;
        count_align(r, 8);
        count_string(r, key);
        if (value_type == 'v')
                count_basic(r, 'g', contents);
        else
                count_array(r, 8);
        return 0;
}

static int close_entry(ManagedObjectsReply *r) {
        int k = sd_bus_message_close_container(r->message);

        return k < 0 ? k : sd_bus_message_close_container(r->message);
}

/* A property without a getter is the vtable's field at its offset in the
 * object, of the property's type: what Get would return for it. */
static int append_field(ManagedObjectsReply *r, const char *signature, void *field) {
        const void *value;

        if (streq(signature, "as")) {
                char **l = *(char ***) field;

                count_array(r, 4);
                for (size_t i = 0; l && l[i]; i++)
                        count_string(r, l[i]);
                return sd_bus_message_append_strv(r->message, l);
        }

        switch (signature[0]) {
        case 's':
        case 'g':
                value = strempty(*(char **) field); /* a NULL string reads as "" */
                break;
        case 'o':
                value = *(char **) field;
                break;
        default:
                value = field;
        }
        count_basic(r, signature[0], value);
        return sd_bus_message_append_basic(r->message, signature[0], value);
}

static int append_property(ManagedObjectsReply *r, const char *path, const char *interface, const sd_bus_vtable *v,
                           void *object, sd_bus_error *error) {
        const char *name = v->x.property.member, *signature = v->x.property.signature;
        void *field = (uint8_t *) object + v->x.property.offset;
        int k;

        k = open_entry(r, "sv", 's', name, 'v', signature);
        if (k < 0)
                return k;
        if (v->x.property.get) {
                k = v->x.property.get(r->bus, path, interface, name, r->message, field, error);
                if (k < 0)
                        return k;
                if (sd_bus_error_is_set(error))
                        return -sd_bus_error_get_errno(error);
                if (v->x.property.get == bus_property_get_attr_list)
                        count_attr_list(r, field);
        } else {
                k = append_field(r, signature, field);
                if (k < 0)
                        return k;
        }
        return close_entry(r);
}

/* The properties GetAll returns, in vtable order: GetAll leaves out those of
 * a hidden interface, and hidden or explicit properties (SD_BUS_VTABLE_HIDDEN,
 * SD_BUS_VTABLE_PROPERTY_EXPLICIT), which are read by name only. */
static int append_interface(ManagedObjectsReply *r, const char *path, const BusObjectType *t, void *object,
                            sd_bus_error *error) {
        int k;

        assert(t->vtable[0].x.start.element_size == sizeof(sd_bus_vtable));

        k = open_entry(r, "sa{sv}", 's', t->interface, 'a', "{sv}");
        if (k < 0)
                return k;

        if (!(t->vtable[0].flags & SD_BUS_VTABLE_HIDDEN))
                for (const sd_bus_vtable *v = t->vtable + 1; v->type != _SD_BUS_VTABLE_END; v++) {
                        if (v->type != _SD_BUS_VTABLE_PROPERTY && v->type != _SD_BUS_VTABLE_WRITABLE_PROPERTY)
                                continue;
                        if (v->flags & (SD_BUS_VTABLE_HIDDEN | SD_BUS_VTABLE_PROPERTY_EXPLICIT))
                                continue;
                        k = append_property(r, path, t->interface, v, object, error);
                        if (k < 0)
                                return k;
                }
        return close_entry(r);
}

static bool path_under_prefix(const char *path, const char *prefix) {
        size_t n = strlen(prefix);
        return strncmp(path, prefix, n) == 0 && path[n] == '/';
}

/* One dict entry, or nothing when no type serves the path. Interfaces in
 * sd-bus's order: those registered at the path, then the fallbacks that find
 * it; within each, the last registered first (bus_objects_register()'s). */
static int append_object(ManagedObjectsReply *r, const char *path, sd_bus_error *error) {
        static const char *const standard[] = { DBUS_PEER_INTERFACE, DBUS_INTROSPECTABLE_INTERFACE,
                                                DBUS_PROPERTIES_INTERFACE };
        bool found = false;
        int k;

        for (unsigned fallback = 0; fallback <= 1; fallback++)
                for (size_t i = r->n_types; i > 0; i--) {
                        const BusObjectType *t = r->types[i - 1];
                        void *object = r->userdata;

                        if (fallback != !!t->find)
                                continue;
                        if (t->find ? !path_under_prefix(path, t->path) : !streq(path, t->path))
                                continue;
                        if (t->find) {
                                k = t->find(r->bus, path, t->interface, r->userdata, &object, error);
                                if (k < 0)
                                        return k;
                                if (sd_bus_error_is_set(error))
                                        return -sd_bus_error_get_errno(error);
                                if (k == 0)
                                        continue;
                        }

                        if (!found) {
                                k = open_entry(r, "oa{sa{sv}}", 'o', path, 'a', "{sa{sv}}");
                                if (k < 0)
                                        return k;
                                for (size_t j = 0; j < ELEMENTSOF(standard); j++) {
                                        k = open_entry(r, "sa{sv}", 's', standard[j], 'a', "{sv}");
                                        if (k >= 0)
                                                k = close_entry(r);
                                        if (k < 0)
                                                return k;
                                }
                                found = true;
                        }

                        k = append_interface(r, path, t, object, error);
                        if (k < 0)
                                return k;
                        if (t->getters_size_max)
                                r->size += t->getters_size_max(object, strlen(path));
                }

        return found ? close_entry(r) : 0;
}

/* ---------- the reply ---------- */

int managed_objects_reply_new(sd_bus *bus, sd_bus_message *call, const BusObjectType *const *types, size_t n_types,
                              void *userdata, char **paths, size_t n_paths, ManagedObjectsReply **ret) {
        _cleanup_(managed_objects_reply_freep) ManagedObjectsReply *r = NULL;
        int k;

        assert(bus);
        assert(call);
        assert(ret);

        r = calloc(1, sizeof(ManagedObjectsReply));
        if (!r) {
                strv_free(paths);
                return -ENOMEM;
        }
        *r = (ManagedObjectsReply){
                .bus = bus, .types = types, .n_types = n_types, .userdata = userdata, .paths = paths, .n_paths = n_paths
        };
        k = sd_bus_message_new_method_return(call, &r->message);
        if (k >= 0)
                k = sd_bus_message_open_container(r->message, 'a', "{oa{sa{sv}}}");
        if (k < 0)
                return k;
        count_array(r, 8);
        *ret = TAKE_PTR(r);
        return 0;
}

ManagedObjectsReply *managed_objects_reply_free(ManagedObjectsReply *r) {
        if (!r)
                return NULL;
        sd_bus_message_unref(r->message);
        strv_free(r->paths);
        free(r);
        return NULL;
}

bool managed_objects_reply_has_more(const ManagedObjectsReply *r) {
        assert(r);
        return !r->complete && r->next_path < r->n_paths;
}

int managed_objects_reply_append_next(ManagedObjectsReply *r, sd_bus_error *error) {
        assert(r);
        assert(managed_objects_reply_has_more(r));

        return append_object(r, r->paths[r->next_path++], error);
}

int managed_objects_reply_close(ManagedObjectsReply *r) {
        int k;

        assert(r);

        if (r->complete)
                return 0;
        k = sd_bus_message_close_container(r->message);
        if (k < 0)
                return k;
        r->complete = true;
        return 0;
}
