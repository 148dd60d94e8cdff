/* SPDX-License-Identifier: MIT */
#pragma once

/* The daemon's main types by name only, so that a header can mention them
 * without including the header that defines them (manager.h includes the
 * registries' headers; they must not include it back). */

#include <stdint.h>

/* A set of an interface's properties that changed: PROPERTY_BIT()s of
 * their places among its CHANGE rows (properties.h). */
typedef uint64_t PropertyMask;

typedef struct Manager Manager;
typedef struct Device Device;
typedef struct Port Port;
typedef struct NetDev NetDev;
typedef struct CounterReader CounterReader;
typedef struct BusServer BusServer;
typedef struct ReaderPool ReaderPool;
typedef struct ReaderLane ReaderLane;
typedef struct ReaderJob ReaderJob;
typedef struct ReaderResult ReaderResult;
