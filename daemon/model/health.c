/* SPDX-License-Identifier: MIT */
#include "health.h"

#include <stdio.h>

#include "basic/log.h"
#include "basic/util.h"
#include "manager.h"
#include "properties.h"

const char *device_health_to_string(DeviceHealth h) {
        static const char *const table[_DEVICE_HEALTH_MAX] = {
                [DEVICE_HEALTH_OK] = "ok",
                [DEVICE_HEALTH_ERRORS] = "errors",
                [DEVICE_HEALTH_UNRESPONSIVE] = "unresponsive",
        };
        return h >= 0 && h < _DEVICE_HEALTH_MAX ? table[h] : NULL;
}

/* "journalctl MESSAGE_ID=..." finds every health transition of every device. */
#define RDMAD_MESSAGE_HEALTH "MESSAGE_ID=0b5c3e1f8d2a4f6b9e7c1d3a5b7f9e21"

/* One journal entry per transition, with fields to select by. */
void device_set_health(Device *d, DeviceHealth health, const char *reason) {
        char device[256], field[64];
        PropertyMask mask = 0;

        reason = health == DEVICE_HEALTH_OK ? "" : strempty(reason);
        if (d->health != health)
                mask |= PROPERTY_BIT(DEVICE_PROP_HEALTH);
        if (!streq_ptr(d->health_reason, reason)) {
                if (free_and_strdup(&d->health_reason, reason) < 0) {
                        log_oom();
                        return;
                }
                mask |= PROPERTY_BIT(DEVICE_PROP_HEALTH_REASON);
        }
        if (mask & PROPERTY_BIT(DEVICE_PROP_HEALTH)) {
                DeviceHealth was = d->health;

                d->health = health;
                snprintf(device, sizeof(device), "RDMA_DEVICE=%s", d->name);
                snprintf(field, sizeof(field), "RDMA_HEALTH=%s", device_health_to_string(health));
                if (health == DEVICE_HEALTH_OK)
                        log_struct(LOG_NOTICE, (const char *const[]){ RDMAD_MESSAGE_HEALTH, device, field, NULL },
                                   "%s: answers again (was %s).", d->name, device_health_to_string(was));
                else
                        log_struct(LOG_WARNING, (const char *const[]){ RDMAD_MESSAGE_HEALTH, device, field, NULL },
                                   "%s: %s: %s.", d->name, device_health_to_string(health), reason);
        }
        /* At start-up the bus publishes the table as it is. */
        if (!d->manager->starting)
                model_report(d->manager, MODEL_DEVICE, d, mask);
}

void device_read_health(Device *d, const ReaderResult *res, ReadExtent extent) {
        char reason[512];

        if (res->io_error < 0) {
                if (d->health == DEVICE_HEALTH_UNRESPONSIVE && extent != READ_FULL)
                        return;
                snprintf(reason, sizeof(reason), "%s: %s", res->io_file, strerror(-res->io_error));
                device_set_health(d, DEVICE_HEALTH_ERRORS, reason);
        } else if (extent == READ_FULL)
                device_set_health(d, DEVICE_HEALTH_OK, NULL);
}

bool device_readable(const Device *d) {
        if (d->placeholder || d->health == DEVICE_HEALTH_UNRESPONSIVE)
                return false;
        return !d->lane || !reader_lane_stuck(d->lane);
}
