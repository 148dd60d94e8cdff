/* SPDX-License-Identifier: MIT */
#pragma once

/* D-Bus messages as text: values and bodies formatted, a flat view of
 * GetManagedObjects, the marshalled size of a body. */

#include <stddef.h>
#include <systemd/sd-bus.h>

typedef struct Harness Harness;
typedef struct Signal Signal;

/* Formats the rest of a message like "[1, 2]", "(0, \"fe80::\", \"\")",
 * "{\"k\": \"v\"}"; top-level strings unquoted. */
char *format_message_body(sd_bus_message *m);

/* Formats the next value of m (strings unquoted at the top level). */
char *format_next_value(sd_bus_message *m);

/* A flat view of GetManagedObjects: one entry per (path, interface,
 * property), plus one with name NULL per (path, interface). */
typedef struct ObjectEntry {
        char *path, *interface, *name, *value;
} ObjectEntry;

typedef struct Objects {
        ObjectEntry *entries;
        size_t n;
} Objects;

/* The same view of a GetManagedObjects reply already received. */
Objects *objects_from_reply(sd_bus_message *reply);
void objects_free(Objects *o);
const char *objects_get(const Objects *o, const char *path, const char *interface, const char *name);
/* Sorted, newline-separated "path interface" lines. */
char *objects_interfaces(const Objects *o);

/* The size of m's body as D-Bus marshals it (sd-bus tells no size). */
size_t message_body_size(sd_bus_message *m);

/* The property names in a PropertiesChanged signal's body, in order:
 * "State StateNum ..." (caller frees). */
char *signal_changed_names(const Signal *s);
