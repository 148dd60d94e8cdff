/* SPDX-License-Identifier: MIT */
#pragma once

/* A fault file system for the tests: a FUSE passthrough (libfuse3) mounted
 * over one directory of the umockdev testbed (a device's sysfs directory),
 * whose reads the test makes block until released, fail with EIO, or take
 * N ms: what a hung firmware command, a failing adapter and a slow one do to
 * a reader of sysfs. Direct I/O with asynchronous direct I/O off, so that
 * read(), pread() and io_submit() all wait in the kernel, in
 * request_wait_answer(), as they do on a wedged driver.
 *
 * "uevent" files never fault: the driver core renders them without asking
 * the driver (rdmad(8), "Sick adapters"). Lookups, getattr and directory
 * listings never fault either: they do not reach a driver in sysfs.
 *
 * A blocked reader cannot be killed until it is released: fault_fs_unmount()
 * releases every blocked read, unmounts (fusermount3 -u -z), waits for the
 * server's threads and checks that the mount is gone. Call it in teardown,
 * before the daemon is stopped. */

#include <stdbool.h>

typedef struct FaultFs FaultFs;

typedef enum FaultMode {
        FAULT_NONE,
        FAULT_BLOCK, /* until fault_fs_release() or another mode */
        FAULT_EIO,
        FAULT_DELAY, /* delay_ms, then the contents */
} FaultMode;

/* The server program's main (tests/lib/fault-fs-server.c): fault_fs_mount()
 * runs it, with the shared state's memfd, in a process of its own. */
int fault_fs_server_main(int argc, char *argv[]);

/* Whether FUSE can be used here: /dev/fuse, fusermount3. With a message
 * on stderr when not. */
bool fault_fs_available(void);

/* Mounts the passthrough over dir (an absolute path); NULL with a message
 * on failure. */
FaultFs *fault_fs_mount(const char *dir);

/* Reads of files whose path relative to the mount matches pattern (fnmatch
 * without FNM_PATHNAME: "*" is every file, "ports/1/state" one) get mode. */
void fault_fs_set(FaultFs *f, const char *pattern, FaultMode mode, unsigned delay_ms);

/* Reads blocked now, and in all since the mount. */
unsigned fault_fs_blocked(FaultFs *f);
unsigned fault_fs_blocked_total(FaultFs *f);
/* Waits until at least n reads are blocked; false after timeout_ms. */
bool fault_fs_wait_blocked(FaultFs *f, unsigned n, int timeout_ms);

/* Every fault off and every blocked read let go. */
void fault_fs_release(FaultFs *f);

/* Writes value to rel in the directory under the mount, never faulted
 * (the driver changed a value meanwhile). */
void fault_fs_write(FaultFs *f, const char *rel, const char *value);

/* Releases, unmounts, joins; fails the test if the mount is still there.
 * NULL is fine. */
void fault_fs_unmount(FaultFs *f);
