/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "model.h"
#include "properties.h"

/* Pure comparisons of two snapshots of the same object, so that only what
 * really changed is published. They return masks of properties.h bits. */

/* A property published as constant differs (name, paths, driver, GUIDs,
 * firmware, the set of ports, SR-IOV capability): the objects must be
 * re-announced, removed and added, not changed in place. */
bool device_identity_changed(const Device *a, const Device *b);

uint32_t device_changed_mask(const Device *a, const Device *b);
uint32_t port_changed_mask(const Port *a, const Port *b);
uint32_t netdev_changed_mask(const NetDev *a, const NetDev *b);
uint32_t sriov_changed_mask(const Device *a, const Device *b);
