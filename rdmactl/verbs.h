/* SPDX-License-Identifier: MIT */
#pragma once

/* rdmactl's commands as a table (systemd's dispatch_verb, iproute2's
 * rd_exec_cmd): a name, how many arguments it takes, the usage words the
 * messages quote, which options apply, and the function that runs it. */

#include <stddef.h>
#include <systemd/sd-bus.h>

#include "rdmactl.h"

typedef enum VerbFlags {
        VERB_DEFAULT = 1 << 0, /* runs when no command is given */
        VERB_JSON = 1 << 1,    /* has JSON output */
        VERB_TIMEOUT = 1 << 2, /* takes --timeout */
        VERB_NO_BUS = 1 << 3,  /* runs without connecting (help) */
        VERB_FOLLOWS = 1 << 4, /* follows rdmad over time: takes --exit-on-disconnect */
} VerbFlags;

typedef int (*verb_run_t)(sd_bus *bus, const Options *o, char **args, size_t n_args);

typedef struct Verb {
        const char *name;
        size_t min_args, max_args; /* after the name; SIZE_MAX: any number */
        VerbFlags flags;
        const char *usage; /* the arguments, as "DEVICE COUNT"; NULL if none */
        verb_run_t run;
} Verb;

/* Picks the verb argv[0] names (the default one when n_args is 0) and checks
 * its argument count and the options against it. Prints the usage error and
 * returns EXIT_USAGE, or returns EXIT_OK with the verb in *ret and its
 * arguments (argv after the name) in *ret_args, *ret_n_args. */
int verb_select(const Verb *verbs, size_t n_verbs, char **argv, size_t argc, const Options *o, const Verb **ret,
                char ***ret_args, size_t *ret_n_args);

/* "rdmactl: <message>" and the hint to --help on stderr; returns EXIT_USAGE. */
int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
