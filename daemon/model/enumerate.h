/* SPDX-License-Identifier: MIT */
#pragma once

#include <libudev.h>
#include <stddef.h>

#include "model.h"

/* Loads every device of subsystem "infiniband" that udev knows, sorted by
 * name. A device that cannot be loaded is logged and left out; it never
 * stops the others from loading. */
int enumerate_devices(struct udev *udev, Device ***ret, size_t *ret_n);

/* The same without reading them: syspath, name, syspath, name, ...
 * (*ret_n pairs, NULL-terminated), for reads on the reader pool. */
int enumerate_device_paths(struct udev *udev, char ***ret, size_t *ret_n);

void device_array_free(Device **devices, size_t n);
int device_compare_by_name(const void *a, const void *b);
