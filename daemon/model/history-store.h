/* SPDX-License-Identifier: MIT */
#pragma once

/* Where the ports' link histories live across restarts: a file per port in
 * rdmad's state directory (link-history.h names and formats them).
 *
 * Writes are atomic (a temporary file, fsync, rename, fsync of the
 * directory) and run on a worker thread: fsync waits for the disk, seconds
 * under writeback pressure, and the loop must answer the bus meanwhile. A
 * key is written at most once per second: a change within the second after
 * a write is kept here and written when the second is over, the latest
 * history then, so a flap storm costs one write a second and loses nothing.
 * A failed write (a full or read-only disk) is logged once per episode and
 * loses only what it would have kept: the history stays in memory and on
 * the bus.
 *
 * Reads run on the loop, when a device appears: one open and at most
 * LINK_HISTORY_FILE_MAX bytes per port from the local state directory, no
 * fsync, no waiting for a device. A missing file is a port's first start; a
 * truncated, damaged or unreadable one gives an empty history and one
 * warning. */

#include <sys/types.h>
#include <systemd/sd-event.h>

#include "link-history.h"

typedef struct HistoryStore HistoryStore;

/* Opens dir (made if missing: `--state-dir=` by hand); an error if it cannot
 * be opened, and rdmad keeps the histories in memory only. */
int history_store_new(sd_event *event, const char *dir, HistoryStore **ret);

/* Waits for the write under way, writes what is still waiting (in line: the
 * loop is over), frees the store. */
HistoryStore *history_store_free(HistoryStore *s);

/* The history kept under key into *ret: the latest not yet written, else
 * the file's; empty for none or a bad file (one warning). */
void history_store_load(HistoryStore *s, const char *key, LinkHistory *ret);

/* Keeps h under key: written at once if the key's last write started a
 * second ago or more, else when that second is over. */
int history_store_save(HistoryStore *s, const char *key, const LinkHistory *h);
