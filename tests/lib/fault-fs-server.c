/* SPDX-License-Identifier: MIT */
/* The FUSE server of the fault file system (fault-fs.h), exec'd by
 * fault_fs_mount() so that it starts as a process of its own, not as a copy
 * of the test's threads and locks. */
#include "fault-fs.h"

int main(int argc, char *argv[]) {
        return fault_fs_server_main(argc, argv);
}
