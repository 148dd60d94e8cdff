/* SPDX-License-Identifier: MIT */
#pragma once

/* rdmactl wait [NAME...] --state=STATE: follows rdmad's signals until what
 * the WaitSpec names is there, through rdmad's absence, activation and
 * restarts. timeout_usec: UINT64_MAX for none. Returns the exit status. */

#include <stdint.h>
#include <systemd/sd-bus.h>

#include "rdmactl.h"
#include "wait-check.h"

int wait_online(sd_bus *bus, const Options *o, const WaitSpec *spec, uint64_t timeout_usec);
