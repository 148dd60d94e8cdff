/* SPDX-License-Identifier: MIT */
#pragma once

#include <syslog.h>

/* One small logging module. Where a line goes is decided once, by
 * log_open(), as systemd's own daemons decide it:
 *   - stderr is the journal (systemd set $JOURNAL_STREAM to its device and
 *     inode): native journal entries through sd-journal, with PRIORITY= and
 *     whatever structured fields the caller adds (log_struct());
 *   - stderr is a terminal: plain lines, for a person;
 *   - anything else (a pipe, a file, a supervisor that is not systemd):
 *     lines with "<N>" sd-daemon priority prefixes, which journald and
 *     syslog-style collectors turn into priorities.
 * Before log_open() lines get prefixes. The target and the maximum level
 * are the only global state. */

typedef enum LogTarget {
        LOG_TARGET_PREFIXED, /* "<N>message" on stderr */
        LOG_TARGET_CONSOLE,  /* "message" on stderr */
        LOG_TARGET_JOURNAL,  /* sd_journal_sendv(), "<N>message" on stderr if that fails */
} LogTarget;

/* Chooses the target from what stderr is (see above). */
void log_open(void);

/* The target log_open() picks for a stderr of that kind: pure, for tests.
 * journal_stream is $JOURNAL_STREAM ("DEV:INO") or NULL. */
LogTarget log_target_for(const char *journal_stream, unsigned long long stderr_dev, unsigned long long stderr_ino,
                         int stderr_is_tty);

void log_set_max_level(int level);
int log_get_max_level(void);
int log_level_from_string(const char *s);

/* Returns -abs(error), so callers can write "return log_error_errno(r, ...)". */
int log_internal(int level, int error, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* A message with structured fields for the journal: fields is a
 * NULL-terminated list of "KEY=value" strings (journal field names: upper
 * case, digits, underscores), sent beside MESSAGE= and PRIORITY= when the
 * target is the journal; other targets print the message alone. */
void log_struct(int level, const char *const *fields, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#define log_full_errno(level, error, ...) log_internal((level), (error), __VA_ARGS__)
#define log_debug(...)                    log_internal(LOG_DEBUG, 0, __VA_ARGS__)
#define log_info(...)                     log_internal(LOG_INFO, 0, __VA_ARGS__)
#define log_notice(...)                   log_internal(LOG_NOTICE, 0, __VA_ARGS__)
#define log_warning(...)                  log_internal(LOG_WARNING, 0, __VA_ARGS__)
#define log_error(...)                    log_internal(LOG_ERR, 0, __VA_ARGS__)
#define log_debug_errno(e, ...)           log_internal(LOG_DEBUG, (e), __VA_ARGS__)
#define log_warning_errno(e, ...)         log_internal(LOG_WARNING, (e), __VA_ARGS__)
#define log_error_errno(e, ...)           log_internal(LOG_ERR, (e), __VA_ARGS__)
#define log_oom()                         log_internal(LOG_ERR, ENOMEM, "Out of memory.")
