/* SPDX-License-Identifier: MIT */
#pragma once

/* org.rdmad1.Sriov's properties, in the order published; the columns are
 * properties.h's. Its object is its Device. */
#define SRIOV_PROPERTIES(X)                                                                                            \
        X(DEVICE, "o", CONST, PARENT, _, GET, device)                                                                  \
        X(DEVICE_PATH, "s", CONST, STRING, device_path, FIELD, _)                                                      \
        X(NUM_VFS, "u", CHANGE, U32, num_vfs, FIELD, _)                                                                \
        X(TOTAL_VFS, "u", CONST, U32, total_vfs, FIELD, _)
