/* SPDX-License-Identifier: MIT */
#pragma once

/* The reader pool's watch (reader-watch.c): what the reading code tells of
 * each read, so that a read that hangs or fails is named. */

/* For the reading code, on a pool thread (no-ops elsewhere): a read of
 * name (in the directory dirfd, or AT_FDCWD) begins, and how it ended
 * (-errno or >= 0). The pool names the file when the read hangs or fails. */
void reader_read_begin(int dirfd, const char *name);
void reader_read_end(int dirfd, const char *name, int r);
/* A read that returned what cannot be a value of its file (-EBADMSG): a
 * failed read of the device, as an I/O error is. */
void reader_read_failed(int dirfd, const char *name, int r);
