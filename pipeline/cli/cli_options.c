/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cli_options.c - the option tables scanned with getopt_long (in order, no permutation: an
 * operand is handed over where it stands), strict numbers, and the usage error. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_options.h"
#include "utf8.h"

/* The message as re_utf8_shown shows it: the arguments quoted in it are the user's bytes. */
static void print_error(const char *command, const char *fmt, va_list ap)
{
    char *message = NULL, *shown = NULL;
    if (vasprintf(&message, fmt, ap) >= 0)
        shown = re_utf8_shown(message);
    else
        message = NULL;
    fprintf(stderr, "render-episode%s%s: %s\n", command ? " " : "", command ? command : "",
            shown ? shown : "(a message that could not be shown: out of memory)");
    free(shown);
    free(message);
}

void re_cli_error(const char *command, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    print_error(command, fmt, ap);
    va_end(ap);
}

int re_cli_usage_error(const char *command, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    print_error(command, fmt, ap);
    va_end(ap);
    fprintf(stderr, "Try 'render-episode%s%s --help'.\n", command ? " " : "",
            command ? command : "");
    return RE_EXIT_USAGE;
}

int cli_parse_number(const char *command, const char *option, const char *text, unsigned long min,
                     unsigned long max, unsigned long *out)
{
    char *end = NULL;
    errno = 0;
    unsigned long value = text && *text >= '0' && *text <= '9' ? strtoul(text, &end, 10) : 0;
    if (!text || !end || *end != '\0' || errno == ERANGE || value < min || value > max) {
        re_cli_usage_error(command, "%s needs a whole number from %lu to %lu, not '%s'", option, min,
                           max, text ? text : "");
        return -1;
    }
    *out = value;
    return 0;
}

int re_cli_parse_decimal(const char *command, const char *option, const char *text, double min,
                         double max, double *out)
{
    const char *p = text;
    if (*p == '-' || *p == '+')
        p++;
    int digits = 0;
    while (*p >= '0' && *p <= '9')
        p++, digits++;
    if (*p == '.')
        for (p++; *p >= '0' && *p <= '9'; p++)
            digits++;
    char *end = NULL;
    double value = digits && *p == '\0' ? strtod(text, &end) : 0;
    if (!digits || *p != '\0' || !end || *end != '\0' || value < min || value > max) {
        re_cli_usage_error(command, "%s needs a number from %g to %g, not '%s'", option, min, max,
                           text);
        return -1;
    }
    *out = value;
    return 0;
}

int re_cli_list_add(cli_list *list, const char *item)
{
    if (list->count == list->room) {
        size_t room = list->room ? 2 * list->room : 8;
        const char **items = realloc(list->items, room * sizeof *items);
        if (!items)
            return -1;
        list->items = items;
        list->room = room;
    }
    list->items[list->count++] = item;
    return 0;
}

void re_cli_list_free(cli_list *list)
{
    free(list->items);
    memset(list, 0, sizeof *list);
}

#define CLI_SCAN_HELP (-2)   /* -h or --help came: stop there and print the help */

/* getopt_long's code for option k: its short name, else one no character has. */
static int option_code(const cli_option *o, size_t k)
{
    return o->short_name ? (unsigned char)o->short_name : 256 + (int)k;
}

typedef struct scan {
    const cli_command *command;
    const cli_option **options;   /* every group's, in order */
    void **bases;
    unsigned *seen;
    size_t count;
} scan;

static size_t option_by_code(const scan *s, int code)
{
    for (size_t k = 0; k < s->count; k++)
        if (option_code(s->options[k], k) == code)
            return k;
    return s->count;
}

/* The option whose short name is `code` in the other case ('O' for 'o'), else s->count. */
static size_t other_case(const scan *s, int code)
{
    int other = isupper(code) ? tolower(code) : islower(code) ? toupper(code) : 0;
    return other ? option_by_code(s, other) : s->count;
}

static int store_number(void *at, size_t size, unsigned long value)
{
    if (size == sizeof(unsigned long)) {
        memcpy(at, &value, sizeof value);
        return 0;
    }
    if (size == sizeof(unsigned)) {   /* an int or an unsigned: every range fits either */
        unsigned narrow = (unsigned)value;
        memcpy(at, &narrow, sizeof narrow);
        return 0;
    }
    return -1;
}

/* Stores option k's value; CLI_GO_ON, CLI_SCAN_HELP or RE_EXIT_USAGE. */
static int take(const scan *s, size_t k, const char *value)
{
    const cli_option *o = s->options[k];
    const char *cmd = s->command->name;
    char *at = (char *)s->bases[k] + o->offset;
    unsigned long n;
    if (++s->seen[k] > 1 && (o->flags & CLI_ONCE)) {
        re_cli_usage_error(cmd, "--%s given twice", o->name);
        return RE_EXIT_USAGE;
    }
    if (value && !*value && (o->flags & CLI_NONEMPTY)) {
        re_cli_usage_error(cmd, "--%s needs %s", o->name, o->needs ? o->needs : "a value");
        return RE_EXIT_USAGE;
    }
    switch (o->kind) {
    case CLI_HELP:
        return CLI_SCAN_HELP;
    case CLI_FLAG:
        *(int *)(void *)at = 1;
        break;
    case CLI_TEXT:
        *(const char **)(void *)at = value;
        break;
    case CLI_NUMBER: {
        char option[64];
        snprintf(option, sizeof option, "--%s", o->name);
        if (cli_parse_number(cmd, option, value, (unsigned long)o->min, (unsigned long)o->max, &n)
            != 0)
            return RE_EXIT_USAGE;
        if (store_number(at, o->size, n) != 0)
            abort();   /* a table naming a member no number fits: a bug, not a usage error */
        break;
    }
    case CLI_DECIMAL: {
        char option[64];
        snprintf(option, sizeof option, "--%s", o->name);
        if (re_cli_parse_decimal(cmd, option, value, o->min, o->max, (double *)(void *)at) != 0)
            return RE_EXIT_USAGE;
        break;
    }
    case CLI_LIST:
        if (re_cli_list_add((cli_list *)(void *)at, value) != 0) {
            fprintf(stderr, "render-episode: out of memory\n");
            return RE_EXIT_FAILURE;
        }
        break;
    case CLI_CALL:
        break;
    }
    if (o->check && o->check(cmd, o, value, s->bases[k]) != 0)
        return RE_EXIT_USAGE;
    return CLI_GO_ON;
}

/* A long option getopt_long found by a prefix of its name is refused: a CI script's
 * `--out` must not change meaning when an option `--outline` is added. */
static int written_whole(const scan *s, size_t k, const char *arg)
{
    const char *name = s->options[k]->name;
    size_t n = strlen(name);
    if (strncmp(arg, "--", 2) == 0 && strncmp(arg + 2, name, n) == 0
        && (arg[2 + n] == '\0' || arg[2 + n] == '='))
        return 1;
    re_cli_usage_error(s->command->name, "unknown option '%.*s' (did you mean '--%s'? "
                       "options are not abbreviated)", (int)strcspn(arg, "="), arg, name);
    return 0;
}

static int operand(const scan *s, const char *arg)
{
    return s->command->operand(s->command->context, arg) == 0 ? CLI_GO_ON : RE_EXIT_USAGE;
}

/* One getopt_long call's outcome at argv (argv[0] is skipped, as getopt skips it). */
static int step(const scan *s, int argc, char **argv, const char *shorts,
                const struct option *longs, int *done)
{
    const char *cmd = s->command->name;
    int index = -1;
    int c = getopt_long(argc, argv, shorts, longs, &index);
    if (c == -1) {
        *done = 1;
        return CLI_GO_ON;
    }
    if (c == 1)
        return operand(s, optarg);
    if (c == ':' || c == '?') {
        size_t k = optopt ? option_by_code(s, optopt) : s->count;
        if (k < s->count && c == ':')
            re_cli_usage_error(cmd, "--%s needs %s", s->options[k]->name,
                               s->options[k]->needs ? s->options[k]->needs : "a value");
        else if (k < s->count)
            re_cli_usage_error(cmd, "--%s takes no value (in '%s')", s->options[k]->name,
                               argv[optind - 1]);
        else if (optopt && other_case(s, optopt) < s->count) {   /* batch -o: -O DIR */
            const cli_option *o = s->options[other_case(s, optopt)];
            const char *space = o->value_name ? " " : "", *value = o->value_name ? o->value_name : "";
            re_cli_usage_error(cmd, "unknown option '-%c' (options are case-sensitive: did you mean "
                               "-%c%s%s, --%s%s%s?)", optopt, o->short_name, space, value, o->name,
                               space, value);
        }
        else if (optopt)
            re_cli_usage_error(cmd, "unknown option '-%c'", optopt);
        else
            re_cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
        return RE_EXIT_USAGE;
    }
    size_t k = option_by_code(s, c);
    if (k == s->count)
        abort();   /* getopt_long returned a code of no option of the table */
    if (index >= 0) {
        const char *arg = argv[optind - 1];
        if (longs[index].has_arg == required_argument && optarg == arg)
            arg = argv[optind - 2];   /* `--name VALUE`: the option is the one before */
        if (!written_whole(s, k, arg))
            return RE_EXIT_USAGE;
    }
    return take(s, k, optarg);
}

static int scan_all(const scan *s, int argc, char **argv, const char *shorts,
                    const struct option *longs)
{
    int base = 0, rc = CLI_GO_ON;
    opterr = 0;
    optind = 0;   /* glibc: 0 starts afresh (a previous command's scan, or the last `--`) */
    while (rc == CLI_GO_ON) {
        int done = 0;
        rc = step(s, argc - base, argv + base, shorts, longs, &done);
        if (rc != CLI_GO_ON || !done)
            continue;
        int at = base + optind;   /* past `--`, when arguments are left */
        if (at >= argc)
            break;
        if (s->command->dashdash_one) {
            rc = operand(s, argv[at]);
            base = at;   /* scanning goes on after it, which getopt sees as argv[0] */
            optind = 0;
            continue;
        }
        for (; at < argc && rc == CLI_GO_ON; at++)
            rc = operand(s, argv[at]);
        break;
    }
    return rc;
}

static int print_help(const cli_command *command)
{
    for (size_t i = 0; i < 3 && command->help[i]; i++)
        fputs(command->help[i], stdout);
    return fflush(stdout) == 0 ? RE_EXIT_OK : RE_EXIT_FAILURE;
}

int re_cli_scan(const cli_command *command, int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--list-options") == 0) {
        cli_list_options(stdout, command);
        return fflush(stdout) == 0 ? RE_EXIT_OK : RE_EXIT_FAILURE;
    }
    size_t total = 0;
    for (size_t g = 0; g < command->group_count; g++)
        total += command->groups[g].count;
    scan s = { command, calloc(total + 1, sizeof *s.options), calloc(total + 1, sizeof *s.bases),
               calloc(total + 1, sizeof *s.seen), total };
    struct option *longs = calloc(total + 1, sizeof *longs);
    char *shorts = malloc(2 * total + 3);
    int rc = RE_EXIT_FAILURE;
    if (!s.options || !s.bases || !s.seen || !longs || !shorts) {
        fprintf(stderr, "render-episode: out of memory\n");
        goto done;
    }
    /* "-": operands in order (code 1), whatever POSIXLY_CORRECT says; ":": a missing value
     * is told apart from an unknown option */
    size_t n = 0, k = 0;
    shorts[n++] = '-';
    shorts[n++] = ':';
    for (size_t g = 0; g < command->group_count; g++) {
        for (size_t i = 0; i < command->groups[g].count; i++, k++) {
            const cli_option *o = &command->groups[g].options[i];
            int has_value = o->kind != CLI_FLAG && o->kind != CLI_HELP;
            s.options[k] = o;
            s.bases[k] = command->groups[g].base;
            longs[k] = (struct option){ o->name, has_value ? required_argument : no_argument,
                                        NULL, option_code(o, k) };
            if (o->short_name) {
                shorts[n++] = o->short_name;
                if (has_value)
                    shorts[n++] = ':';
            }
        }
    }
    shorts[n] = '\0';
    rc = scan_all(&s, argc, argv, shorts, longs);
    if (rc == CLI_SCAN_HELP)
        rc = print_help(command);
done:
    free(shorts);
    free(longs);
    free(s.seen);
    free(s.bases);
    free(s.options);
    return rc;
}

void cli_list_options(FILE *out, const cli_command *command)
{
    for (size_t g = 0; g < command->group_count; g++) {
        for (size_t i = 0; i < command->groups[g].count; i++) {
            const cli_option *o = &command->groups[g].options[i];
            fprintf(out, "--%s\t", o->name);
            if (o->short_name)
                fprintf(out, "-%c\t", o->short_name);
            else
                fputs("-\t", out);
            fprintf(out, "%s\t", o->value_name ? o->value_name : "-");
            switch (o->kind) {
            case CLI_HELP: fputs("help", out); break;
            case CLI_FLAG: fputs("flag", out); break;
            case CLI_TEXT: fputs("text", out); break;
            case CLI_NUMBER: fprintf(out, "whole number %.0f..%.0f", o->min, o->max); break;
            case CLI_DECIMAL: fprintf(out, "number %g..%g", o->min, o->max); break;
            case CLI_LIST: fputs("text, repeatable", out); break;
            case CLI_CALL: fputs("text", out); break;
            }
            fputs(o->flags & CLI_ONCE ? "\tonce\n" : "\n", out);
        }
    }
}
