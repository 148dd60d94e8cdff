/* SPDX-License-Identifier: MIT */
#include "arg-quote.h"

#include <stdio.h>
#include <string.h>

#include "api/rdmad-api.h"
#include "basic/util.h"

const char *arg_quote(const char *s, char buf[static ARG_QUOTE_SIZE]) {
        size_t k = 0, i;

        for (i = 0; s && s[i] && i < ARG_QUOTE_PREFIX; i++) {
                unsigned char c = (unsigned char) s[i];

                if (c >= 0x20 && c < 0x7f && c != '\'' && c != '"' && c != '\\')
                        buf[k++] = (char) c;
                else
                        k += (size_t) snprintf(buf + k, ARG_QUOTE_SIZE - k, "\\x%02x", c);
        }
        if (s && s[i])
                k += (size_t) snprintf(buf + k, ARG_QUOTE_SIZE - k, "...");
        buf[k] = '\0';
        return buf;
}

int bus_refuse_long_names(sd_bus_message *m) {
        const char *names[2] = {}, *signature = sd_bus_message_get_signature(m, true);
        char quoted[ARG_QUOTE_SIZE];
        size_t n = streq_ptr(signature, "ss") || streq_ptr(signature, "ssv") ? 2 : streq_ptr(signature, "s") ? 1 : 0;
        int k = 0;

        if (!sd_bus_message_is_method_call(m, DBUS_PROPERTIES_INTERFACE, NULL))
                return 0;
        /* Each string read as it is: a format string would be parsed first.
         * Another signature is sd-bus's to answer. */
        for (size_t i = 0; k >= 0 && i < n; i++)
                k = sd_bus_message_read_basic(m, 's', &names[i]);
        (void) sd_bus_message_rewind(m, true);
        for (size_t i = 0; k >= 0 && i < n; i++)
                if (strlen(names[i]) > ARG_NAME_MAX) {
                        (void) sd_bus_reply_method_errorf(m, SD_BUS_ERROR_INVALID_ARGS,
                                                          "%s name '%s' is %zu bytes long; no valid one is longer "
                                                          "than %u.",
                                                          i == 0 ? "Interface" : "Property",
                                                          arg_quote(names[i], quoted), strlen(names[i]), ARG_NAME_MAX);
                        return 1;
                }
        return 0;
}
