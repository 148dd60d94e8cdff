/* SPDX-License-Identifier: MIT */
#pragma once

#include "api/rdmad-api.h"

#include <systemd/sd-bus.h>

#include "forward.h"

/* org.rdmad1.Manager, one object at RDMAD_ROOT_PATH (userdata: the BusServer). */

extern const sd_bus_vtable manager_vtable[];

/* PropertiesChanged for Manager.Devices. */
int bus_manager_send_changed(BusServer *s);
