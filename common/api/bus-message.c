/* SPDX-License-Identifier: MIT */
#include "api/bus-message.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>

int bus_message_read_entries(sd_bus_message *m, char type, const char *contents, BusEntryReader entry, void *userdata) {
        char array[256]; /* a signature has at most 255 characters */
        bool dict = type == SD_BUS_TYPE_DICT_ENTRY;
        int r;

        if (!dict && type != SD_BUS_TYPE_STRUCT)
                return -EINVAL;
        if ((size_t) snprintf(array, sizeof(array), "%c%s%c", dict ? '{' : '(', contents, dict ? '}' : ')') >=
            sizeof(array))
                return -EINVAL;
        r = sd_bus_message_enter_container(m, SD_BUS_TYPE_ARRAY, array);
        if (r < 0)
                return r;
        while ((r = sd_bus_message_enter_container(m, type, contents)) > 0) {
                r = entry(m, userdata);
                if (r < 0)
                        return r;
                r = sd_bus_message_exit_container(m);
                if (r < 0)
                        return r;
        }
        if (r < 0)
                return r;
        return sd_bus_message_exit_container(m);
}
