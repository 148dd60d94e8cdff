/* SPDX-License-Identifier: MIT */
#include "compress.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

#include "basic/util.h"
#include "negotiate.h"

bool accepts_gzip(const char *accept_encoding) {
        int star = -1, gzip = -1;

        if (!accept_encoding)
                return false;
        for (const char *p = accept_encoding; *p;) {
                size_t len = strcspn(p, ","), name_len;
                const char *semi, *q;
                int qv = 1000;

                while (len > 0 && (*p == ' ' || *p == '\t'))
                        p++, len--;
                semi = memchr(p, ';', len);
                name_len = semi ? (size_t) (semi - p) : len;
                while (name_len > 0 && (p[name_len - 1] == ' ' || p[name_len - 1] == '\t'))
                        name_len--;
                if (semi) {
                        q = semi + 1;
                        while (q < p + len && (*q == ' ' || *q == '\t'))
                                q++;
                        if ((size_t) (p + len - q) >= 2 && strncasecmp(q, "q=", 2) == 0) {
                                size_t qlen = (size_t) (p + len - q - 2);

                                while (qlen > 0 && (q[2 + qlen - 1] == ' ' || q[2 + qlen - 1] == '\t'))
                                        qlen--;
                                qv = qvalue_parse(q + 2, qlen);
                                if (qv < 0)
                                        qv = 0; /* a malformed weight accepts nothing */
                        }
                }
                if ((name_len == 4 && strncasecmp(p, "gzip", 4) == 0) ||
                    (name_len == 6 && strncasecmp(p, "x-gzip", 6) == 0))
                        gzip = qv;
                else if (name_len == 1 && *p == '*')
                        star = qv;
                p += len;
                if (*p == ',')
                        p++;
        }
        return gzip >= 0 ? gzip > 0 : star > 0;
}

int gzip_compress(const char *in, size_t size, char **ret, size_t *ret_size) {
        z_stream z = {};
        uLong bound;
        char *out;
        int r;

        /* 15 + 16: a gzip header and trailer around the deflate stream; level 1:
         * the text compresses well already, and a scrape is on a deadline. */
        if (deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
                return -ENOMEM;
        bound = deflateBound(&z, (uLong) size);
        out = malloc(bound);
        if (!out) {
                deflateEnd(&z);
                return -ENOMEM;
        }
        z.next_in = (Bytef *) in;
        z.avail_in = (uInt) size;
        z.next_out = (Bytef *) out;
        z.avail_out = (uInt) bound;
        r = deflate(&z, Z_FINISH);
        deflateEnd(&z);
        if (r != Z_STREAM_END) {
                free(out);
                return -EIO;
        }
        *ret = out;
        *ret_size = z.total_out;
        return 0;
}
