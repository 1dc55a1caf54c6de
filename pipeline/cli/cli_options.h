/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cli_options.h - every command's options as a table (name, short name, kind, range, where
 * the value goes), scanned with getopt_long, and the one usage-error function. */
#ifndef RE_CLI_OPTIONS_H
#define RE_CLI_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

/* What an option takes, and where it puts it (at `offset` in its group's struct). */
typedef enum cli_kind {
    CLI_FLAG,      /* no value: the int there becomes 1 */
    CLI_TEXT,      /* const char *: the value as given (last one wins) */
    CLI_NUMBER,    /* a whole number in [min, max], stored as an int, unsigned or unsigned long */
    CLI_DECIMAL,   /* a decimal number in [min, max], stored as a double */
    CLI_LIST,      /* appended to the cli_list there (repeatable) */
    CLI_CALL,      /* only `check` sees the value */
    CLI_HELP,      /* -h, --help: the scan stops and prints the command's help */
} cli_kind;

#define CLI_ONCE 1u       /* given twice is a usage error */
#define CLI_NONEMPTY 2u   /* an empty value is a usage error ("--NAME needs NEEDS") */

typedef struct cli_option cli_option;
/* Called after the value was stored (or, for CLI_CALL, instead): 0, or nonzero after printing
 * a usage error (re_cli_usage_error's RE_EXIT_USAGE). `command` is the name it takes. */
typedef int (*cli_option_check)(const char *command, const cli_option *option, const char *value,
                                void *base);

struct cli_option {
    const char *name;          /* the long name, without "--" */
    char short_name;           /* 0 when there is none */
    cli_kind kind;
    size_t offset, size;       /* CLI_AT(type, member) */
    double min, max;           /* CLI_NUMBER and CLI_DECIMAL */
    const char *value_name;    /* "HZ", as the help writes it; NULL for a flag */
    const char *needs;         /* "--NAME needs NEEDS" when the value is missing; "a value" */
    unsigned flags;            /* CLI_ONCE, CLI_NONEMPTY */
    cli_option_check check;
};

/* -h, --help: in every command's table. */
#define CLI_HELP_OPTION { .name = "help", .short_name = 'h', .kind = CLI_HELP }

#define CLI_AT(type, member) .offset = offsetof(type, member), .size = sizeof(((type *)0)->member)

/* A growing list of values (--voices, --lexicon, --allow-path: as many as given). */
typedef struct cli_list {
    const char **items;
    size_t count, room;
} cli_list;
/* 0, or -1 when out of memory. */
int re_cli_list_add(cli_list *list, const char *item);
void re_cli_list_free(cli_list *list);

/* One table and the struct its offsets point into. */
typedef struct cli_group {
    const cli_option *options;
    size_t count;
    void *base;
} cli_group;

#define CLI_GROUP(table, struct_pointer) { (table), sizeof (table) / sizeof (table)[0], (struct_pointer) }

typedef struct cli_command {
    const char *name;           /* "batch"; NULL for render */
    const char *help[3];        /* what -h prints: the pieces, in order (NULL after the last) */
    const cli_group *groups;
    size_t group_count;
    /* `--` makes only the next argument an operand, options go on after it (render,
     * explain: `render -- NAME -o X`); otherwise every argument after `--` is one. */
    int dashdash_one;
    /* Each operand, in order: 0, or nonzero after printing a usage error. */
    int (*operand)(void *context, const char *arg);
    void *context;
} cli_command;

#define CLI_GO_ON (-1)

/* Scans argv[1..argc) (argv[0] is the command's word) with getopt_long: options and operands
 * in any order, `--opt=V` or `--opt V`, `-oV` or `-o V`, short flags grouped (`-qj4`), `-` an
 * operand. A long option must be written out whole: a prefix (`--out`) is refused, naming the
 * option it would have been. -h or --help prints the help (scanning stops there); a lone
 * --list-options prints the table (cli_list_options). CLI_GO_ON, or the exit status: 0 after
 * the help or the list, 2 when it could not be written, RE_EXIT_USAGE after the usage error. */
int re_cli_scan(const cli_command *command, int argc, char **argv);

/* One line per option, tab-separated: the long name, the short name or "-", the value's name
 * or "-", and what it takes ("flag", "whole number 1..64", "text, repeatable", ...). */
void cli_list_options(FILE *out, const cli_command *command);

/* "render-episode COMMAND: MESSAGE" on stderr (without COMMAND when it is NULL), MESSAGE as
 * re_utf8_shown shows it: an argument quoted in it never puts a control character (an
 * escape sequence) or invalid UTF-8 on the terminal. For every message that quotes what the
 * user typed. */
void re_cli_error(const char *command, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* re_cli_error, then "Try 'render-episode COMMAND --help'."; returns RE_EXIT_USAGE. */
int re_cli_usage_error(const char *command, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Strict numbers for options: digits only (a decimal: an optional sign and fraction), in
 * [min, max]; 0, or -1 after a usage error that names the option. */
int cli_parse_number(const char *command, const char *option, const char *text, unsigned long min,
                     unsigned long max, unsigned long *out);
int re_cli_parse_decimal(const char *command, const char *option, const char *text, double min,
                         double max, double *out);

#endif
