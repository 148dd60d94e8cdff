/* SPDX-License-Identifier: MIT */
#pragma once

/* Included first into every file of the readers, the model and the event
 * sources (meson.build: no_bus_args): they know nothing of the bus, so sd-bus's
 * types are poisoned there. Including <systemd/sd-bus.h>, or any header that
 * includes it (the bus layer's, common/api/bus-signal.h), stops the build,
 * and without its declarations an sd_bus_*() call does not compile either
 * (-Werror=implicit-function-declaration). */

#pragma GCC poison sd_bus sd_bus_message sd_bus_slot sd_bus_error sd_bus_creds sd_bus_track sd_bus_vtable
