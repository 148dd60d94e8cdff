/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>

#include "model.h"

/* Pure comparisons of two snapshots of the same object, so that only what
 * really changed is published. */

#define PROPERTY_NAMES_MAX 32

typedef struct PropertyNames {
        const char *names[PROPERTY_NAMES_MAX + 1]; /* NULL-terminated, for sd_bus_emit_properties_changed_strv */
        unsigned n;
} PropertyNames;

/* A property published as constant differs (name, paths, driver, GUIDs,
 * firmware, the set of ports, SR-IOV capability): the objects must be
 * re-announced, removed and added, not changed in place. */
bool device_identity_changed(const Device *a, const Device *b);

void device_changed_properties(const Device *a, const Device *b, PropertyNames *ret);
void port_changed_properties(const Port *a, const Port *b, PropertyNames *ret);
void netdev_changed_properties(const NetDev *a, const NetDev *b, PropertyNames *ret);
void sriov_changed_properties(const Device *a, const Device *b, PropertyNames *ret);
