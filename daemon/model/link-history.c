/* SPDX-License-Identifier: MIT */
#include "link-history.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/utf8.h"
#include "basic/util.h"

#define LINK_HISTORY_MAGIC "rdmad link history 1"

/* Copies s into a name field, cut at a character boundary if too long. */
static void state_name_copy(char dst[static LINK_STATE_NAME_MAX], const char *s) {
        size_t len = strlen(strempty(s));

        if (len >= LINK_STATE_NAME_MAX) {
                len = LINK_STATE_NAME_MAX - 1;
                /* Not inside a UTF-8 sequence: back to its first byte. */
                while (len > 0 && ((unsigned char) s[len] & 0xc0) == 0x80)
                        len--;
        }
        memcpy(dst, strempty(s), len);
        dst[len] = '\0';
}

void link_history_add(LinkHistory *h, uint64_t usec, const char *old_state, const char *new_state) {
        LinkChange *c;

        if (h->n == LINK_HISTORY_MAX) {
                memmove(h->changes, h->changes + 1, (LINK_HISTORY_MAX - 1) * sizeof(LinkChange));
                h->n--;
        }
        c = &h->changes[h->n++];
        c->usec = usec;
        state_name_copy(c->old_state, old_state);
        state_name_copy(c->new_state, new_state);
}

/* FNV-1a, 64 bits: enough to tell a damaged file, not meant against forgery
 * (the directory is rdmad's own). */
static uint64_t checksum(const char *s, size_t len) {
        uint64_t h = UINT64_C(0xcbf29ce484222325);

        for (size_t i = 0; i < len; i++) {
                h ^= (unsigned char) s[i];
                h *= UINT64_C(0x100000001b3);
        }
        return h;
}

static bool name_char_plain(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* A name as one word: plain characters as they are, others as %XX, "" as "-". */
static size_t escape_name(const char *s, char *out) {
        static const char hex[] = "0123456789abcdef";
        size_t n = 0;

        if (!*s) {
                out[n++] = '-';
                return n;
        }
        for (; *s; s++)
                if (name_char_plain(*s))
                        out[n++] = *s;
                else {
                        out[n++] = '%';
                        out[n++] = hex[(unsigned char) *s >> 4];
                        out[n++] = hex[(unsigned char) *s & 15];
                }
        return n;
}

/* One word back into a name; -EBADMSG for anything escape_name() would not write. */
static int unescape_name(const char *w, size_t len, char out[static LINK_STATE_NAME_MAX]) {
        size_t n = 0;

        if (len == 1 && w[0] == '-') {
                out[0] = '\0';
                return 0;
        }
        if (len == 0)
                return -EBADMSG;
        for (size_t i = 0; i < len; i++) {
                char c = w[i];

                if (c == '%') {
                        int hi, lo;

                        if (i + 2 >= len)
                                return -EBADMSG;
                        hi = unhexchar_lower(w[i + 1]);
                        lo = unhexchar_lower(w[i + 2]);
                        if (hi < 0 || lo < 0)
                                return -EBADMSG;
                        c = (char) (hi << 4 | lo);
                        if (c == '\0' || name_char_plain(c))
                                return -EBADMSG;
                        i += 2;
                } else if (!name_char_plain(c))
                        return -EBADMSG;
                if (n + 1 >= LINK_STATE_NAME_MAX)
                        return -EBADMSG;
                out[n++] = c;
        }
        out[n] = '\0';
        /* What goes on the bus must be UTF-8. */
        return utf8_is_valid_n(out, n) ? 0 : -EBADMSG;
}

char *link_history_format(const LinkHistory *h, const char *key, size_t *ret_len) {
        /* Every name at most 3 bytes per byte, every line bounded. */
        size_t size = sizeof(LINK_HISTORY_MAGIC) + strlen(key) + 2 + 64 +
                      LINK_HISTORY_MAX * (20 + 2 * 3 * LINK_STATE_NAME_MAX + 4);
        char *text = malloc(size);
        size_t n;

        if (!text)
                return NULL;
        n = (size_t) snprintf(text, size, "%s %s\n", LINK_HISTORY_MAGIC, key);
        for (size_t i = 0; h && i < h->n; i++) {
                n += (size_t) snprintf(text + n, size - n, "%" PRIu64 " ", h->changes[i].usec);
                n += escape_name(h->changes[i].old_state, text + n);
                text[n++] = ' ';
                n += escape_name(h->changes[i].new_state, text + n);
                text[n++] = '\n';
        }
        n += (size_t) snprintf(text + n, size - n, "end %zu %016" PRIx64 "\n", h ? h->n : 0, checksum(text, n));
        *ret_len = n;
        return text;
}

/* The next line of text[*pos..len), without its newline; false at the end
 * or for a last line without one. */
static bool next_line(const char *text, size_t len, size_t *pos, const char **ret, size_t *ret_len) {
        const char *nl;

        if (*pos >= len)
                return false;
        nl = memchr(text + *pos, '\n', len - *pos);
        if (!nl)
                return false;
        *ret = text + *pos;
        *ret_len = (size_t) (nl - (text + *pos));
        *pos = (size_t) (nl - text) + 1;
        return true;
}

static int parse_u64_word(const char *w, size_t len, uint64_t *ret) {
        uint64_t v = 0;

        if (len == 0 || len > 20 || (len > 1 && w[0] == '0'))
                return -EBADMSG;
        for (size_t i = 0; i < len; i++) {
                if (w[i] < '0' || w[i] > '9')
                        return -EBADMSG;
                if (v > (UINT64_MAX - (uint64_t) (w[i] - '0')) / 10)
                        return -EBADMSG;
                v = v * 10 + (uint64_t) (w[i] - '0');
        }
        *ret = v;
        return 0;
}

/* "usec old new" */
static int parse_change(const char *line, size_t len, LinkChange *ret) {
        const char *end = line + len, *a, *b;
        uint64_t usec;

        a = memchr(line, ' ', len);
        if (!a || parse_u64_word(line, (size_t) (a - line), &usec) < 0)
                return -EBADMSG;
        a++;
        b = memchr(a, ' ', (size_t) (end - a));
        if (!b || unescape_name(a, (size_t) (b - a), ret->old_state) < 0 ||
            unescape_name(b + 1, (size_t) (end - b - 1), ret->new_state) < 0)
                return -EBADMSG;
        ret->usec = usec;
        return 0;
}

int link_history_parse(const char *text, size_t len, const char *key, LinkHistory *ret) {
        LinkHistory h = {};
        char header[LINK_HISTORY_KEY_MAX + sizeof(LINK_HISTORY_MAGIC) + 2], end[64];
        const char *line;
        size_t pos = 0, line_len, body_end;

        if (len > LINK_HISTORY_FILE_MAX || memchr(text, '\0', len))
                return -EBADMSG;
        snprintf(header, sizeof(header), "%s %s", LINK_HISTORY_MAGIC, key);
        if (!next_line(text, len, &pos, &line, &line_len) || line_len != strlen(header) ||
            memcmp(line, header, line_len) != 0)
                return -EBADMSG;
        for (;;) {
                body_end = pos;
                if (!next_line(text, len, &pos, &line, &line_len))
                        return -EBADMSG; /* no end line: truncated */
                if (line_len >= 4 && memcmp(line, "end ", 4) == 0)
                        break;
                if (h.n == LINK_HISTORY_MAX || parse_change(line, line_len, &h.changes[h.n]) < 0)
                        return -EBADMSG;
                h.n++;
        }
        /* The end line, and nothing after it. */
        snprintf(end, sizeof(end), "end %zu %016" PRIx64, h.n, checksum(text, body_end));
        if (pos != len || line_len != strlen(end) || memcmp(line, end, line_len) != 0)
                return -EBADMSG;
        *ret = h;
        return 0;
}

static bool guid_valid(const char *g) {
        /* "%04x:%04x:%04x:%04x" */
        if (strlen(g) != 19)
                return false;
        for (size_t i = 0; i < 19; i++)
                if (i % 5 == 4 ? g[i] != ':' : unhexchar_lower(g[i]) < 0)
                        return false;
        return true;
}

int link_history_key(const char *port_guid, const char *device, uint32_t port, char ret[static LINK_HISTORY_KEY_MAX]) {
        size_t n;

        if (port_guid && *port_guid) {
                if (!guid_valid(port_guid))
                        return -EINVAL;
                n = (size_t) snprintf(ret, LINK_HISTORY_KEY_MAX, "link-history.guid.");
                for (const char *p = port_guid; *p; p++)
                        if (*p != ':')
                                ret[n++] = *p;
                ret[n] = '\0';
                return 0;
        }
        if (!device || !*device)
                return -EINVAL;
        /* A kernel device name is at most 63 bytes: 189 escaped. */
        if (strlen(device) > 64)
                return -ENAMETOOLONG;
        n = (size_t) snprintf(ret, LINK_HISTORY_KEY_MAX, "link-history.port.");
        for (const char *p = device; *p; p++)
                if (name_char_plain(*p) || *p == '-')
                        ret[n++] = *p;
                else
                        n += (size_t) snprintf(ret + n, LINK_HISTORY_KEY_MAX - n, "%%%02x", (unsigned char) *p);
        snprintf(ret + n, LINK_HISTORY_KEY_MAX - n, ".%" PRIu32, port);
        return 0;
}
