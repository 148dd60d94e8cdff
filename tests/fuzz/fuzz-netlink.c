/* SPDX-License-Identifier: MIT */
/* rtnetlink datagrams as they come off the socket: every length field is
 * the sender's word and must not be trusted. */
#include <errno.h>
#include <net/if.h>
#include <string.h>

#include "fuzz.h"
#include "netlink.h"
#include "route-query.h"

static void on_name(const char *ifname, void *userdata) {
        size_t *count = userdata;

        fuzz_assert(ifname[0] != '\0');
        fuzz_assert(strnlen(ifname, IF_NAMESIZE) < IF_NAMESIZE);
        (*count)++;
}

static void on_index(int ifindex, void *userdata) {
        size_t *count = userdata;

        fuzz_assert(ifindex > 0);
        (*count)++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        /* A copy of exactly the datagram's size (malloc aligns it like the
         * daemon's receive buffer), so that ASan sees any read past it. */
        void *buf = malloc(size ? size : 1);
        size_t names = 0;
        int n;

        if (!buf)
                return 0;
        memcpy(buf, data, size);
        n = rtnl_parse_link_names(buf, size, on_name, &names);
        fuzz_assert(n >= 0 || n == -EBADMSG);
        if (n >= 0)
                fuzz_assert(names <= (size_t) n);
        /* The address messages of the same datagram, and ResolveAddress's answers read from it. */
        names = 0;
        n = rtnl_parse_addr_indexes(buf, size, on_index, &names);
        fuzz_assert(n >= 0 || n == -EBADMSG);
        if (n >= 0)
                fuzz_assert(names <= (size_t) n);
        {
                RouteAnswer a = {};
                bool done;

                n = rtnl_parse_route_reply(buf, size, 0, &a);
                fuzz_assert(n <= 1);
                if (n == 1)
                        fuzz_assert(a.family == AF_INET || a.family == AF_INET6);
                n = rtnl_parse_addr_dump(buf, size, 0, AF_INET6, (const uint8_t[16]){}, &done);
                fuzz_assert(n >= 0 || !done);
                (void) rtnl_parse_link_lower(buf, size, 0);
        }
        free(buf);
        return 0;
}
