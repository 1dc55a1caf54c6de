/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cli_cache.c - `render-episode cache --stats | --prune SIZE [--cache DIR]`: look at or bound
 * the segment cache (docs/cache.md). Exit status: 0 ok, 1 usage error, 2 the cache folder
 * cannot be read or some of it cannot be removed. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "cli.h"

static const char cache_usage[] =
    "usage: render-episode cache --stats [--cache DIR]\n"
    "       render-episode cache --prune SIZE [--cache DIR]\n"
    "\n"
    "The segment cache keeps every paragraph's synthesized audio, so that re-rendering an\n"
    "unchanged paragraph costs nothing. It is a plain folder that several renders, users\n"
    "and machines may share.\n"
    "\n"
    "  --stats         print how many entries the cache holds and their size\n"
    "  --prune SIZE    remove the least recently used entries until the cache holds at most\n"
    "                  SIZE (like 500M, 2G or 1048576; K, M, G, T are powers of 1024), and\n"
    "                  temporary files left by renders killed over an hour ago\n"
    "  --cache DIR     the cache folder (default: $XDG_CACHE_HOME/render-episode, else\n"
    "                  ~/.cache/render-episode)\n"
    "  -h, --help      this help\n"
    "\n"
    "Exit status: 0 ok, 1 usage error, 2 the cache cannot be read or pruned.\n";

typedef struct cache_cli {
    const char *dir;
    const char *prune_text;
    uint64_t prune_bytes;
    int stats;
} cache_cli;

static int take_prune(const char *command, const cli_option *option, const char *value,
                      void *base)
{
    (void)option;
    cache_cli *cli = base;
    re_diagnostics said;
    re_diagnostics_init(&said, RE_DIAG_DEFAULT_LIMIT);
    re_status parsed = re_cache_parse_size(value, &cli->prune_bytes, &said);
    if (parsed != RE_OK)
        re_cli_usage_error(command, "--prune: %s", re_cli_first_message(&said, parsed));
    re_diagnostics_free(&said);
    cli->prune_text = value;
    return parsed == RE_OK ? 0 : -1;
}

static int no_operand(void *context, const char *arg)
{
    (void)context;
    return re_cli_usage_error("cache", "unexpected argument '%s' (the cache takes only options)",
                              arg);
}

#define C(member) CLI_AT(cache_cli, member)
static const cli_option cache_options[] = {
    { "stats", 0, CLI_FLAG, C(stats) },
    { "prune", 0, CLI_CALL, C(prune_text), .value_name = "SIZE",
      .needs = "a SIZE (like 500M, 2G or 1048576)", .flags = CLI_ONCE, .check = take_prune },
    { "cache", 0, CLI_TEXT, C(dir), .value_name = "DIR", .needs = "a folder",
      .flags = CLI_ONCE | CLI_NONEMPTY },
    CLI_HELP_OPTION,
};
#undef C

/* Parses argv (argv[0] is "cache"). Returns CLI_GO_ON, or an exit status. */
static int parse_args(int argc, char **argv, cache_cli *cli)
{
    cli_group groups[] = { CLI_GROUP(cache_options, cli) };
    cli_command command = { .name = "cache", .help = { cache_usage }, .groups = groups,
                            .group_count = 1, .operand = no_operand };
    int rc = re_cli_scan(&command, argc, argv);
    if (rc != CLI_GO_ON)
        return rc;
    if (cli->stats && cli->prune_text)
        return re_cli_usage_error("cache", "%s: choose one of --stats and --prune",
                                  "conflicting options");
    if (!cli->stats && !cli->prune_text)
        return re_cli_usage_error("cache", "%s", "what to do? --stats or --prune SIZE");
    return CLI_GO_ON;
}

/* "1234567 bytes (1.2 MiB)", or "512 bytes": exact, and readable by people. */
static void size_text(uint64_t bytes, char *buf, size_t size)
{
    static const char *const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
    if (bytes < 1024) {
        snprintf(buf, size, "%" PRIu64 " %s", bytes, bytes == 1 ? "byte" : "bytes");
        return;
    }
    double value = (double)bytes / 1024;
    int unit = 0;
    while (value >= 1024 && unit < 5) {
        value /= 1024;
        unit++;
    }
    snprintf(buf, size, "%" PRIu64 " bytes (%.1f %s)", bytes, value, units[unit]);
}

static const char *plural(uint64_t n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

static void print_stats(const char *dir, const re_cache_usage *u)
{
    char size[64];
    size_text(u->bytes, size, sizeof size);
    printf("%s: %" PRIu64 " %s, %s", dir, u->entries, plural(u->entries, "entry", "entries"), size);
    if (u->temp_files) {
        size_text(u->temp_bytes, size, sizeof size);
        printf("; %" PRIu64 " temporary %s (being written, or left by a killed render), %s",
               u->temp_files, plural(u->temp_files, "file", "files"), size);
    }
    printf("\n");
}

static void print_prune(const char *dir, const re_cache_prune_report *r, uint64_t limit)
{
    char freed[64], kept[64], max[64];
    size_text(r->bytes_removed, freed, sizeof freed);
    size_text(r->after.bytes, kept, sizeof kept);
    size_text(limit, max, sizeof max);
    printf("%s: removed %" PRIu64 " %s, %s", dir, r->entries_removed,
           plural(r->entries_removed, "entry", "entries"), freed);
    if (r->temp_removed)
        printf(", and %" PRIu64 " stale temporary %s", r->temp_removed,
               plural(r->temp_removed, "file", "files"));
    printf("; %" PRIu64 " %s left, %s; limit %s\n", r->after.entries,
           plural(r->after.entries, "entry", "entries"), kept, max);
}

int re_cli_cache(int argc, char **argv)
{
    cache_cli cli = { 0 };
    int rc = parse_args(argc, argv, &cli);
    if (rc != CLI_GO_ON)
        return rc;
    re_diagnostics diag;
    re_diagnostics_init(&diag, RE_DIAG_DEFAULT_LIMIT);
    char *default_dir = NULL;
    if (!cli.dir) {
        default_dir = re_cache_default_dir(&diag);
        if (!default_dir) {
            re_cli_error("cache", "%s; name the folder with --cache DIR",
                         re_cli_first_message(&diag, RE_ERR_NOMEM));
            re_diagnostics_free(&diag);
            return RE_EXIT_FAILURE;
        }
        cli.dir = default_dir;
    }
    re_cache *cache = NULL;
    re_status status = re_cache_open(cli.dir, &cache);
    if (status != RE_OK) {
        re_cli_error("cache", "%s: %s", cli.dir, re_strerror(status));
        free(default_dir);
        return RE_EXIT_FAILURE;
    }
    if (cli.stats) {
        re_cache_usage usage;
        status = re_cache_stats(cache, &usage, &diag);
        if (status == RE_OK)
            print_stats(cli.dir, &usage);
    } else {
        re_cache_prune_report report;
        status = re_cache_prune(cache, cli.prune_bytes, &report, &diag);
        if (status == RE_OK || status == RE_ERR_WRITE)   /* a partial prune is still reported */
            print_prune(cli.dir, &report, cli.prune_bytes);
    }
    if (status != RE_OK)
        re_cli_error("cache", "%s", re_cli_first_message(&diag, status));
    re_diagnostics_free(&diag);
    if (fflush(stdout) != 0 && status == RE_OK) {
        fprintf(stderr, "render-episode cache: cannot write the report\n");
        status = RE_ERR_WRITE;
    }
    re_cache_free(cache);
    free(default_dir);
    return status == RE_OK ? RE_EXIT_OK : RE_EXIT_FAILURE;
}
