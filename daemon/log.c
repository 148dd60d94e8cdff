/* SPDX-License-Identifier: MIT */
#include "log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int max_level = LOG_INFO;

void log_set_max_level(int level) {
        max_level = level;
}

int log_get_max_level(void) {
        return max_level;
}

int log_level_from_string(const char *s) {
        static const char *const names[] = {
                [LOG_EMERG] = "emerg", [LOG_ALERT] = "alert",   [LOG_CRIT] = "crit",
                [LOG_ERR] = "err",     [LOG_WARNING] = "warning", [LOG_NOTICE] = "notice",
                [LOG_INFO] = "info",   [LOG_DEBUG] = "debug",
        };

        for (int i = 0; i < (int) (sizeof(names) / sizeof(names[0])); i++)
                if (strcasecmp(s, names[i]) == 0)
                        return i;
        if (s[0] >= '0' && s[0] <= '7' && s[1] == '\0')
                return s[0] - '0';
        return -EINVAL;
}

int log_internal(int level, int error, const char *fmt, ...) {
        int saved = errno;
        error = abs(error);

        if (level <= max_level) {
                char buf[2048];
                va_list ap;

                /* glibc expands %m from errno: let it name the error we were given. */
                errno = error;
                va_start(ap, fmt);
                vsnprintf(buf, sizeof(buf), fmt, ap);
                va_end(ap);
                fprintf(stderr, "<%d>%s\n", level, buf);
        }

        errno = saved;
        return -error;
}
