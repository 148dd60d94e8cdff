/* SPDX-License-Identifier: MIT */
#pragma once

#include "forward.h"

/* The link-state poll timer: on when there are ports and an interval, off
 * otherwise. Called after every change of the device table. */
int poll_update(Manager *m);
