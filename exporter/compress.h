/* SPDX-License-Identifier: MIT */
#pragma once

/* gzip for /metrics when the scraper asks for it (Prometheus always does):
 * a big host's exposition shrinks about tenfold. */

#include <stdbool.h>
#include <stddef.h>

/* Whether an Accept-Encoding header accepts gzip (or "*") with q > 0. */
bool accepts_gzip(const char *accept_encoding);

/* in → a gzip member in *ret (malloc'd). 0 or -ENOMEM / -EIO. */
int gzip_compress(const char *in, size_t size, char **ret, size_t *ret_size);
