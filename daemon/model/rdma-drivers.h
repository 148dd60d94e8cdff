/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>

/* Whether a PCI function bound to `driver` carries a hardware RDMA device:
 * the drivers whose functions are the parents of their RDMA devices. The
 * parent of a soft device (siw, rxe) is the function of whatever NIC it
 * runs over, usually a plain one. systemd/90-rdmad.rules lists the same. */
bool rdma_pci_driver(const char *driver);
