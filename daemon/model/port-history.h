/* SPDX-License-Identifier: MIT */
#pragma once

/* Port.LinkHistory: a port's State changes recorded where they are counted
 * (manager.c), kept in the state directory through the HistoryStore when
 * rdmad has one, read back when the port's device appears. */

#include <stdint.h>

#include "forward.h"
#include "history-store.h"

/* The file a port's history is kept in: by its port GUID where it has one
 * (it follows the adapter across renames and slots), else by device name
 * and port number. */
int port_history_key(const Port *p, char ret[static LINK_HISTORY_KEY_MAX]);

/* Each port of d gets its kept history (store NULL: none). */
void device_history_load(HistoryStore *store, Device *d);

/* A State change of p at usec, from old_state to its State now: into its
 * history, and to the store (NULL: memory only). */
int port_history_record(HistoryStore *store, Port *p, uint64_t usec, const char *old_state);
