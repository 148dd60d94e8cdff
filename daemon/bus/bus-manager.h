/* SPDX-License-Identifier: MIT */
#pragma once

#include "bus-objects.h"
#include "forward.h"

/* org.rdmad1.Manager, one object at RDMAD_ROOT_PATH. */
extern const BusObjectType manager_object;

/* PropertiesChanged for Manager.Devices. */
int bus_manager_send_changed(BusServer *s);
