/* SPDX-License-Identifier: MIT */
#include "model-events.h"

#include "manager.h"

void model_report(Manager *m, ModelObjectKind kind, void *object, PropertyMask mask) {
        if ((mask != 0 || kind == MODEL_DEVICE_SET) && m->events.changed)
                m->events.changed(kind, object, mask, m->events_userdata);
}
