/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <sys/types.h>

/* Files of rdmad's state directory ($STATE_DIRECTORY): link histories and
 * SR-IOV intents. */

/* name's text in dir_fd as a whole new file or not at all (a temporary
 * file, fsync, rename, fsync of the directory): a crash or a full disk
 * leaves the old file, never half of the new one. Blocks: a worker's. */
int state_file_write_atomic(int dir_fd, const char *name, const char *text, size_t len, mode_t mode);
