/* SPDX-License-Identifier: MIT */
#include "scrape-client.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ms(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000 + (uint64_t) ts.tv_nsec / 1000000;
}

static int connect_local(unsigned port, int timeout_ms) {
        struct sockaddr_in sa = { .sin_family = AF_INET,
                                  .sin_port = htons(port),
                                  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };

        for (int waited = 0;; waited += 20) {
                int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

                if (fd < 0)
                        return -errno;
                if (connect(fd, (struct sockaddr *) &sa, sizeof(sa)) == 0)
                        return fd;
                close(fd);
                if (waited >= timeout_ms)
                        return -ECONNREFUSED;
                usleep(20000);
        }
}

int http_request(unsigned port, const char *method, const char *target, const char *accept, int connect_timeout_ms,
                 HttpReply *ret) {
        char *headers = NULL;
        int r;

        if (accept && asprintf(&headers, "Accept: %s\r\n", accept) < 0)
                return -ENOMEM;
        r = http_request_with(port, method, target, headers, connect_timeout_ms, ret);
        free(headers);
        return r;
}

int http_request_with(unsigned port, const char *method, const char *target, const char *headers,
                      int connect_timeout_ms, HttpReply *ret) {
        char *request = NULL, *data = NULL, *split;
        size_t size = 0;
        FILE *out;
        int fd, len;
        char buf[65536];
        uint64_t deadline;
        ssize_t n;

        *ret = (HttpReply){};
        fd = connect_local(port, connect_timeout_ms);
        if (fd < 0)
                return fd;
        len = asprintf(&request, "%s %s HTTP/1.0\r\nHost: 127.0.0.1:%u\r\n%sConnection: close\r\n\r\n", method, target,
                       port, headers ?: "");
        if (len < 0 || write(fd, request, (size_t) len) != len) {
                free(request);
                close(fd);
                return -EIO;
        }
        free(request);

        /* The whole answer within the deadline, however it trickles: a
         * server that never answers fails the scrape, not the test's meson timeout. */
        deadline = now_ms() + HTTP_REPLY_TIMEOUT_MS;
        out = open_memstream(&data, &size);
        for (;;) {
                struct pollfd p = { .fd = fd, .events = POLLIN };
                uint64_t now = now_ms();

                if (now >= deadline) {
                        n = -1;
                        errno = ETIMEDOUT;
                        break;
                }
                if (poll(&p, 1, (int) (deadline - now)) < 0 && errno != EINTR) {
                        n = -1;
                        break;
                }
                if (!(p.revents & (POLLIN | POLLHUP | POLLERR)))
                        continue;
                n = read(fd, buf, sizeof(buf));
                if (n <= 0)
                        break;
                fwrite(buf, 1, (size_t) n, out);
        }
        fclose(out);
        close(fd);
        if (n < 0 && errno == ETIMEDOUT) {
                fprintf(stderr,
                        "waited %.1f s for the answer to %s http://127.0.0.1:%u%s; last seen: %zu bytes%s%.*s\n",
                        HTTP_REPLY_TIMEOUT_MS / 1000.0, method, port, target, size, size ? ":\n" : "",
                        size > 4096 ? 4096 : (int) size, data ?: "");
                free(data);
                return -ETIMEDOUT;
        }
        if (n < 0 || sscanf(data, "HTTP/1.%*d %d", &ret->status) != 1) {
                free(data);
                return -EIO;
        }
        split = strstr(data, "\r\n\r\n");
        if (!split) {
                free(data);
                return -EIO;
        }
        ret->headers = strndup(data, (size_t) (split - data) + 2);
        ret->body_size = size - (size_t) (split + 4 - data);
        ret->body = malloc(ret->body_size + 1);
        memcpy(ret->body, split + 4, ret->body_size);
        ret->body[ret->body_size] = '\0';
        free(data);
        return 0;
}

void http_reply_clear(HttpReply *r) {
        free(r->headers);
        free(r->body);
        *r = (HttpReply){};
}

char *http_reply_header(const HttpReply *r, const char *name) {
        size_t len = strlen(name);

        for (const char *line = r->headers; line && *line;
             line = strstr(line, "\r\n") ? strstr(line, "\r\n") + 2 : NULL) {
                const char *end = strstr(line, "\r\n");

                if (strncasecmp(line, name, len) == 0 && line[len] == ':') {
                        const char *v = line + len + 1;
                        while (*v == ' ')
                                v++;
                        return strndup(v, (size_t) (end - v));
                }
        }
        return NULL;
}

char *url_encode(const char *s) {
        char *out = malloc(strlen(s) * 3 + 1), *p = out;

        for (const unsigned char *c = (const unsigned char *) s; *c; c++)
                if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
                    strchr("-_.~", *c))
                        *p++ = (char) *c;
                else
                        p += sprintf(p, "%%%02X", *c);
        *p = '\0';
        return out;
}

static int compare_strings(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

/* Reads {a="x",b="y"} at *p into a canonical string; *p moves past '}'. */
static char *read_labels(const char **p) {
        char *pairs[64], *joined = NULL;
        size_t n = 0, size = 0;
        const char *s = *p + 1;
        FILE *f;

        while (*s && *s != '}') {
                const char *start = s;
                bool quoted = false;

                for (; *s && (quoted || (*s != ',' && *s != '}')); s++) {
                        if (quoted && *s == '\\' && s[1])
                                s++;
                        else if (*s == '"')
                                quoted = !quoted;
                }
                if (n == 64)
                        return NULL;
                pairs[n++] = strndup(start, (size_t) (s - start));
                if (*s == ',')
                        s++;
        }
        if (*s != '}') {
                for (size_t i = 0; i < n; i++)
                        free(pairs[i]);
                return NULL;
        }
        *p = s + 1;
        qsort(pairs, n, sizeof(char *), compare_strings);
        f = open_memstream(&joined, &size);
        for (size_t i = 0; i < n; i++) {
                fprintf(f, "%s%s", i ? "," : "", pairs[i]);
                free(pairs[i]);
        }
        fclose(f);
        return joined;
}

bool samples_parse(const char *text, Samples *ret) {
        size_t allocated = 0;

        *ret = (Samples){};
        for (const char *line = text; line && *line;) {
                const char *end = strchr(line, '\n') ?: line + strlen(line);
                const char *p = line;
                Sample s = {};
                char *value_end;

                if (*line == '#' || *line == '\n') {
                        line = *end ? end + 1 : end;
                        continue;
                }
                while (p < end && *p != '{' && *p != ' ')
                        p++;
                s.name = strndup(line, (size_t) (p - line));
                s.labels = *p == '{' ? read_labels(&p) : strdup("");
                if (!s.labels || *p != ' ') {
                        free(s.name);
                        free(s.labels);
                        return false;
                }
                s.value = strtod(p + 1, &value_end);
                if (value_end == p + 1) {
                        free(s.name);
                        free(s.labels);
                        return false;
                }
                if (ret->n == allocated) {
                        allocated = allocated ? allocated * 2 : 64;
                        ret->items = reallocarray(ret->items, allocated, sizeof(Sample));
                }
                ret->items[ret->n++] = s;
                line = *end ? end + 1 : end;
        }
        return true;
}

void samples_clear(Samples *s) {
        for (size_t i = 0; i < s->n; i++) {
                free(s->items[i].name);
                free(s->items[i].labels);
        }
        free(s->items);
        *s = (Samples){};
}

const Sample *samples_find(const Samples *s, const char *name, const char *labels) {
        for (size_t i = 0; i < s->n; i++)
                if (strcmp(s->items[i].name, name) == 0 && strcmp(s->items[i].labels, labels) == 0)
                        return &s->items[i];
        return NULL;
}

unsigned free_tcp_port(void) {
        struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        socklen_t len = sizeof(sa);
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        unsigned port = 0;

        if (fd >= 0 && bind(fd, (struct sockaddr *) &sa, sizeof(sa)) == 0 &&
            getsockname(fd, (struct sockaddr *) &sa, &len) == 0)
                port = ntohs(sa.sin_port);
        if (fd >= 0)
                close(fd);
        return port;
}
