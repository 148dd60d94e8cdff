/* SPDX-License-Identifier: MIT */
#pragma once

#include <libudev.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "model.h"

#define POLL_INTERVAL_MS_DEFAULT 1000

/* Owns everything: the event loop, the bus, udev and the device table. */
typedef struct Manager {
        sd_event *event;
        sd_bus *bus;
        struct udev *udev;

        Device **devices; /* sorted by name */
        size_t n_devices;

        uint32_t poll_interval_ms;
} Manager;

int manager_new(Manager **ret);
Manager *manager_free(Manager *m);
static inline void manager_freep(Manager **m) {
        manager_free(*m);
}

/* Reads the whole model from sysfs; before the bus name is taken. */
int manager_load(Manager *m);

/* Connects to the system bus, publishes the objects, takes the name. */
int manager_connect_bus(Manager *m);

Device *manager_find_device(Manager *m, const char *name);

/* Re-reads everything and publishes the differences. */
int manager_rescan(Manager *m);

/* Publication of model changes on the bus (no-ops before the bus is up). */
void manager_publish_device_added(Manager *m, const Device *d);
void manager_publish_device_removed(Manager *m, const Device *d);
void manager_publish_devices_changed(Manager *m);
