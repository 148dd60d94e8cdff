/* SPDX-License-Identifier: MIT */
#include "basic/options.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>

#include "basic/log.h"

int parse_common_option(int c, const char *program, void (*help)(void)) {
        int r;

        switch (c) {
        case 'h':
                help();
                return 1;
        case ARG_VERSION:
                printf("%s %s\n", program, RDMAD_VERSION);
                return 1;
        case ARG_LOG_LEVEL:
                r = log_level_from_string(optarg);
                if (r < 0)
                        return log_error_errno(EINVAL, "Invalid log level: %s", optarg);
                log_set_max_level(r);
                return 0;
        case '?':
                /* getopt said what was wrong; say where the right options are. */
                fprintf(stderr, "Try '%s --help'.\n", program_invocation_short_name);
                return -EINVAL;
        default:
                return -EINVAL;
        }
}

int parse_no_arguments(int argc, char *argv[]) {
        if (optind < argc)
                return log_error_errno(EINVAL, "%s takes no arguments; try '%s --help'.", program_invocation_short_name,
                                       program_invocation_short_name);
        return 0;
}
