/* SPDX-License-Identifier: MIT */
#include "prometheus-server.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "basic/util.h"
#include "harness.h"
#include "scrape-client.h"

pid_t prometheus_start(const char *dir, const char *name, const char *global, unsigned target_port,
                       unsigned *ret_port) {
        char config_path[512], config_arg[600], storage_arg[600], listen_arg[64];
        char *argv[] = { "prometheus", config_arg, storage_arg, listen_arg, "--log.level=warn", NULL };
        unsigned port = free_tcp_port();
        FILE *config;

        snprintf(config_path, sizeof(config_path), "%s/%s.yml", dir, name);
        config = fopen(config_path, "we");
        assert_non_null(config);
        fprintf(config,
                "global:\n"
                "%s"
                "scrape_configs:\n"
                "  - job_name: rdmad\n"
                "    static_configs:\n"
                "      - targets: ['127.0.0.1:%u']\n",
                global, target_port);
        assert_int_equal(fclose(config), 0);
        snprintf(config_arg, sizeof(config_arg), "--config.file=%s", config_path);
        snprintf(storage_arg, sizeof(storage_arg), "--storage.tsdb.path=%s/%s", dir, name);
        snprintf(listen_arg, sizeof(listen_arg), "--web.listen-address=127.0.0.1:%u", port);
        *ret_port = port;
        return harness_spawn(argv);
}

char *prometheus_query(unsigned port, const char *query) {
        _cleanup_free_ char *encoded = url_encode(query);
        char target[1024], *value = NULL;
        const char *p;
        HttpReply r;

        snprintf(target, sizeof(target), "/api/v1/query?query=%s", encoded);
        if (http_request(port, "GET", target, NULL, 20000, &r) < 0)
                return NULL;
        if (r.status == 200 && strstr(r.body, "\"status\":\"success\"") && (p = strstr(r.body, "\"value\":[")) &&
            (p = strchr(p, ',')) && p[1] == '"')
                value = strndup(p + 2, strcspn(p + 2, "\""));
        http_reply_clear(&r);
        return value;
}

bool prometheus_wait_value(unsigned port, const char *query, const char *expected, int timeout_ms) {
        for (int waited = 0;; waited += 250) {
                _cleanup_free_ char *v = prometheus_query(port, query);

                if (v && streq(v, expected))
                        return true;
                if (waited >= timeout_ms) {
                        fprintf(stderr, "waited %.1f s for Prometheus to answer %s with %s; last seen: %s\n",
                                waited / 1e3, query, expected, v ?: "(no value)");
                        return false;
                }
                usleep(250000); /* the polling interval of this bounded wait */
        }
}
