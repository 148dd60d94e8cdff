/* SPDX-License-Identifier: MIT */
/* Which devices the verbs event source opens, and how it backs off. */
#include "basic/util.h"
#include "model.h"
#include "verbs-policy.h"

const char *verbs_skip_reason(const Device *d) {
        bool infiniband = false;

        assert(d);
        /* rxe and siw have no parent device; their events follow the netdev, and
         * holding them open would keep their module from unloading. */
        if (!*d->device_path || streq(d->driver, "rxe") || streq(d->driver, "rdma_rxe") || streq(d->driver, "siw"))
                return "a software device";
        for (size_t i = 0; i < d->n_ports; i++)
                infiniband = infiniband || streq_ptr(d->ports[i].link_layer, "InfiniBand");
        /* RoCE and iWARP ports follow their netdev through rtnetlink. */
        return infiniband ? NULL : "no InfiniBand port";
}

#define RETRY_FIRST_USEC (1000 * 1000ULL)
#define RETRY_MAX_USEC   (300 * 1000 * 1000ULL)

uint64_t verbs_retry_delay_usec(unsigned failures) {
        uint64_t delay = RETRY_FIRST_USEC;

        for (unsigned i = 1; i < failures && delay < RETRY_MAX_USEC; i++)
                delay *= 2;
        return delay < RETRY_MAX_USEC ? delay : RETRY_MAX_USEC;
}
