/* SPDX-License-Identifier: MIT */
/* Choosing the command to run from the table, and the messages for a
 * command line that does not fit it. */
#include "verbs.h"

#include <assert.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#include "basic/util.h"

int usage_error(const char *fmt, ...) {
        va_list ap;

        fputs("rdmactl: ", stderr);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputs("\nTry 'rdmactl --help'.\n", stderr);
        return EXIT_USAGE;
}

static const Verb *verb_find(const Verb *verbs, size_t n_verbs, const char *name) {
        for (size_t i = 0; i < n_verbs; i++)
                if (name ? streq(verbs[i].name, name) : (verbs[i].flags & VERB_DEFAULT))
                        return &verbs[i];
        return NULL;
}

int verb_select(const Verb *verbs, size_t n_verbs, char **argv, size_t argc, const Options *o, const Verb **ret,
                char ***ret_args, size_t *ret_n_args) {
        const Verb *verb;
        size_t n_args;

        assert(verbs);
        assert(o);
        assert(ret);

        verb = verb_find(verbs, n_verbs, argc > 0 ? argv[0] : NULL);
        if (!verb)
                return usage_error("unknown command '%s'.", argv[0]);
        n_args = argc > 0 ? argc - 1 : 0;

        if (n_args < verb->min_args)
                return usage_error("'%s' needs %s.", verb->name, verb->usage);
        if (n_args > verb->max_args) {
                if (!verb->usage)
                        return usage_error("'%s' takes no arguments.", verb->name);
                return usage_error("'%s' takes only %s.", verb->name, verb->usage);
        }
        if (o->json != JSON_OFF && !(verb->flags & VERB_JSON))
                return usage_error("'%s' has no JSON output.", verb->name);
        if (o->timeout_set && !(verb->flags & VERB_TIMEOUT))
                return usage_error("--timeout is for 'wait' only.");
        if (o->exit_on_disconnect && !(verb->flags & VERB_FOLLOWS))
                return usage_error("--exit-on-disconnect is for 'monitor' only.");

        *ret = verb;
        *ret_args = argc > 0 ? argv + 1 : argv;
        *ret_n_args = n_args;
        return EXIT_OK;
}
