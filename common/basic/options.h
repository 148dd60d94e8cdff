/* SPDX-License-Identifier: MIT */
#pragma once

/* What rdmad and rdmad-exporter share of their getopt loop: the options
 * both have (--help, --version, --log-level; each still lists them in its
 * option table) and the end of the loop. A program numbers its own options
 * from ARG_PROGRAM. */
enum {
        ARG_VERSION = 0x100,
        ARG_LOG_LEVEL,
        ARG_PROGRAM,
};

/* c, from getopt_long(), when it is none of the program's own options:
 * 1: done, exit successfully (--help, --version); 0: go on; <0: bad usage,
 * said. */
int parse_common_option(int c, const char *program, void (*help)(void));

/* After the loop: 0, or -EINVAL when arguments follow the options. */
int parse_no_arguments(int argc, char *argv[]);
