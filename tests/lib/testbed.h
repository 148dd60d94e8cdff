/* SPDX-License-Identifier: MIT */
#pragma once

/* The umockdev testbed: sysfs files written, read and removed as the
 * kernel does it, devices added and renamed, a slow driver. */

typedef struct Harness Harness;

/* A slow driver, played by the test: sriov_numvfs of the PF at devpath
 * ("/sys/devices/...") becomes a FIFO, so each read or write of the daemon's
 * worker waits until the test serves it. Returns the FIFO's path (caller frees). */
char *harness_fifo_numvfs(Harness *h, const char *devpath);
/* Serves one read of the worker: `value`. */
void harness_fifo_serve_read(const char *fifo, const char *value);
/* Takes what the worker writes, in order, over one or several opens of the
 * FIFO, and checks it is `expected`. */
void harness_fifo_expect_writes(const char *fifo, const char *expected);

/* Writes a file of the testbed: devpath "/sys/devices/...", name relative to it. */
void harness_write(Harness *h, const char *devpath, const char *name, const char *value);

/* Reads a file of the testbed: devpath "/sys/devices/...", name relative to it (caller frees). */
char *harness_read(Harness *h, const char *devpath, const char *name);

/* Removes a file or directory tree of the testbed ("/sys/..."), without any uevent:
 * what the kernel has already done when its event is still on the way. */
void harness_remove(Harness *h, const char *path);

/* Adds a device record (umockdev format) to the testbed; umockdev sends its
 * "add" uevent. Fails the test with umockdev's message on error. */
void harness_add_device(Harness *h, const char *record);

/* "rdma dev set OLD name NEW": the device directory and its class link are
 * renamed and only "move" is sent (DEVPATH_OLD set), all while the daemon
 * is paused, as the kernel does it in one step. syspath: "/sys/devices/.../OLD". */
void harness_rename_device(Harness *h, const char *syspath, const char *new_name);

/* "ip link set OLD name NEW": the same for a network interface (its link in
 * /sys/class/net, INTERFACE). syspath: "/sys/devices/.../net/OLD". */
void harness_rename_netdev(Harness *h, const char *syspath, const char *new_name);

/* Hot-adds rxe5, a soft-RoCE device as `rdma link add` makes one: port 1
 * ACTIVE (LinkUp), Ethernet. */
void harness_add_rxe5(Harness *h);
