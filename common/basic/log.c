/* SPDX-License-Identifier: MIT */
#include "basic/log.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#define SD_JOURNAL_SUPPRESS_LOCATION /* CODE_FILE= would name log.c, not the caller */
#include <systemd/sd-journal.h>

static int max_level = LOG_INFO;
static LogTarget target = LOG_TARGET_PREFIXED;

/* Fields beside MESSAGE=, PRIORITY=, SYSLOG_IDENTIFIER= and ERRNO=. */
#define LOG_FIELDS_MAX 16
#define LOG_LINE_MAX   2048

/* A formatted message with room for its journal field name in front, so
 * that logging never allocates (it reports running out of memory). */
typedef struct LogLine {
        char field[sizeof("MESSAGE=") - 1];
        char text[LOG_LINE_MAX];
} LogLine;
_Static_assert(offsetof(LogLine, text) == sizeof("MESSAGE=") - 1, "MESSAGE=text is one contiguous field");

LogTarget log_target_for(const char *journal_stream, unsigned long long stderr_dev, unsigned long long stderr_ino,
                         int stderr_is_tty) {
        unsigned long long dev, ino;
        int end = 0;

        /* As sd_journal_stream_fd() documents: "DEV:INO" of the stream journald gave us. */
        if (journal_stream && sscanf(journal_stream, "%llu:%llu%n", &dev, &ino, &end) == 2 &&
            journal_stream[end] == '\0' && dev == stderr_dev && ino == stderr_ino)
                return LOG_TARGET_JOURNAL;
        return stderr_is_tty ? LOG_TARGET_CONSOLE : LOG_TARGET_PREFIXED;
}

void log_open(void) {
        struct stat st;

        if (fstat(STDERR_FILENO, &st) < 0) {
                target = LOG_TARGET_PREFIXED;
                return;
        }
        target = log_target_for(getenv("JOURNAL_STREAM"), (unsigned long long) st.st_dev,
                                (unsigned long long) st.st_ino, isatty(STDERR_FILENO));
}

void log_set_max_level(int level) {
        max_level = level;
}

int log_get_max_level(void) {
        return max_level;
}

int log_level_from_string(const char *s) {
        static const char *const names[] = {
                [LOG_EMERG] = "emerg",     [LOG_ALERT] = "alert",   [LOG_CRIT] = "crit", [LOG_ERR] = "err",
                [LOG_WARNING] = "warning", [LOG_NOTICE] = "notice", [LOG_INFO] = "info", [LOG_DEBUG] = "debug",
        };

        for (int i = 0; i < (int) (sizeof(names) / sizeof(names[0])); i++)
                if (strcasecmp(s, names[i]) == 0)
                        return i;
        if (s[0] >= '0' && s[0] <= '7' && s[1] == '\0')
                return s[0] - '0';
        return -EINVAL;
}

static struct iovec iovec_str(const char *s) {
        return (struct iovec){ .iov_base = (char *) s, .iov_len = strlen(s) };
}

/* One journal entry; 0 or the negative errno of sd_journal_sendv(). */
static int journal_send(int level, int error, LogLine *line, const char *const *fields) {
        char priority[sizeof("PRIORITY=") + 2], errno_field[sizeof("ERRNO=") + 12];
        struct iovec iov[4 + LOG_FIELDS_MAX];
        size_t n = 0;

        memcpy(line->field, "MESSAGE=", sizeof(line->field));
        snprintf(priority, sizeof(priority), "PRIORITY=%i", level);
        iov[n++] = (struct iovec){ .iov_base = line, .iov_len = sizeof(line->field) + strlen(line->text) };
        iov[n++] = iovec_str(priority);
        iov[n++] = iovec_str("SYSLOG_IDENTIFIER=rdmad");
        if (error != 0) {
                snprintf(errno_field, sizeof(errno_field), "ERRNO=%i", error);
                iov[n++] = iovec_str(errno_field);
        }
        for (size_t i = 0; fields && fields[i] && i < LOG_FIELDS_MAX; i++)
                iov[n++] = iovec_str(fields[i]);
        return sd_journal_sendv(iov, (int) n);
}

static void log_write(int level, int error, LogLine *line, const char *const *fields) {
        if (target == LOG_TARGET_JOURNAL && journal_send(level, error, line, fields) >= 0)
                return;
        /* A journal that cannot be reached still reads the stream, priorities included. */
        if (target == LOG_TARGET_CONSOLE)
                fprintf(stderr, "%s\n", line->text);
        else
                fprintf(stderr, "<%d>%s\n", level, line->text);
}

int log_internal(int level, int error, const char *fmt, ...) {
        int saved = errno;
        error = abs(error);

        if (level <= max_level) {
                LogLine line;
                va_list ap;

                /* glibc expands %m from errno: let it name the error we were given. */
                errno = error;
                va_start(ap, fmt);
                vsnprintf(line.text, sizeof(line.text), fmt, ap);
                va_end(ap);
                log_write(level, error, &line, NULL);
        }

        errno = saved;
        return -error;
}

void log_struct(int level, const char *const *fields, const char *fmt, ...) {
        int saved = errno;

        if (level <= max_level) {
                LogLine line;
                va_list ap;

                va_start(ap, fmt);
                vsnprintf(line.text, sizeof(line.text), fmt, ap);
                va_end(ap);
                log_write(level, 0, &line, fields);
        }
        errno = saved;
}
