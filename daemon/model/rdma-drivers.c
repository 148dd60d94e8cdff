/* SPDX-License-Identifier: MIT */
#include "rdma-drivers.h"

#include "basic/util.h"

static const char *const hardware_rdma_drivers[] = {
        "be2net", "bnxt_en", "cxgb4", "efa",  "erdma",     "hfi1",      "hns3", "i40e",       "ib_mthca",
        "ib_qib", "ice",     "ionic", "mana", "mlx4_core", "mlx5_core", "qede", "vmw_pvrdma",
};

bool rdma_pci_driver(const char *driver) {
        for (size_t i = 0; driver && i < ELEMENTSOF(hardware_rdma_drivers); i++)
                if (streq(driver, hardware_rdma_drivers[i]))
                        return true;
        return false;
}
