/* SPDX-License-Identifier: MIT */
#pragma once

/* A port's last State changes (Port.LinkHistory) and the text of the file
 * that keeps them across restarts: pure, no I/O (history-store.c writes and
 * reads the files, port.c ties them to the ports). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LINK_HISTORY_MAX 32
/* A state name as the kernel prints it ("ACTIVE_DEFER" is the longest it
 * knows); a longer one is cut at a character boundary. */
#define LINK_STATE_NAME_MAX 32

typedef struct LinkChange {
        uint64_t usec; /* CLOCK_REALTIME */
        char old_state[LINK_STATE_NAME_MAX];
        char new_state[LINK_STATE_NAME_MAX];
} LinkChange;

/* Oldest first; at most LINK_HISTORY_MAX, the oldest dropped for a new one. */
typedef struct LinkHistory {
        LinkChange changes[LINK_HISTORY_MAX];
        size_t n;
} LinkHistory;

void link_history_add(LinkHistory *h, uint64_t usec, const char *old_state, const char *new_state);

/* The file's text: a header naming the format and the key, a line per
 * change (usec, old, new; names %-escaped, "-" for ""), and a last line
 * with their number and a checksum of everything before it, so that a
 * truncated or altered file is told from a good one. *ret is
 * NUL-terminated; NULL only on OOM. */
#define LINK_HISTORY_FILE_MAX 16384
char *link_history_format(const LinkHistory *h, const char *key, size_t *ret_len);

/* The text of a file back into *ret: -EBADMSG when it is not a whole,
 * well-formed file of this format for this key (truncated, altered, another
 * key's, another version's). */
int link_history_parse(const char *text, size_t len, const char *key, LinkHistory *ret);

/* The file name of a port's history: "link-history.guid.<16 hex digits>"
 * for a port GUID ("9803:9b03:009f:cfd6"), else
 * "link-history.port.<device, %-escaped>.<number>". Every character is
 * [A-Za-z0-9_.%-]; none starts with a dot (the temporary files do). */
#define LINK_HISTORY_KEY_MAX 256
int link_history_key(const char *port_guid, const char *device, uint32_t port, char ret[static LINK_HISTORY_KEY_MAX]);
