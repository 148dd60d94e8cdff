/* SPDX-License-Identifier: MIT */
/* rtnetlink datagrams as they come off the socket: every length field is
 * the sender's word and must not be trusted. */
#include <errno.h>
#include <net/if.h>
#include <string.h>

#include "fuzz.h"
#include "netlink.h"

static void on_name(const char *ifname, void *userdata) {
        size_t *count = userdata;

        fuzz_assert(ifname[0] != '\0');
        fuzz_assert(strnlen(ifname, IF_NAMESIZE) < IF_NAMESIZE);
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
        free(buf);
        return 0;
}
