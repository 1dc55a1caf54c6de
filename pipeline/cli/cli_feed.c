/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cli_feed.c - `render-episode feed OUTDIR --base-url URL [-o FEED.xml] [--show FILE]`:
 * options, diagnostics on stderr, one summary line on stdout, and the exit status (0 ok,
 * 1 usage error, 2 invalid input or unwritable output; nothing written on failure). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli.h"
#include "feed.h"
#include "files.h"
#include "folder_index.h"
#include "output.h"
#include "show_pages.h"

static const char feed_usage[] =
    "usage: render-episode feed OUTDIR --base-url URL [-o FEED.xml] [--show FILE] [--draft]\n"
    "                           [--include-future]\n"
    "\n"
    "Builds an RSS 2.0 podcast feed (iTunes and Podcasting 2.0 namespaces) from the episodes\n"
    "rendered into OUTDIR: every NAME.mp3 with its sidecar NAME.json, newest first, with\n"
    "NAME.vtt, NAME.srt, NAME.transcript.json, NAME.chapters.json and NAME.html when the\n"
    "render that made NAME.mp3 wrote them (its sidecar lists them) and they are unchanged.\n"
    "The channel is described by a show file of `key: value` lines (title, description,\n"
    "author, language, link, image, category, explicit, owner_name, owner_email, guid,\n"
    "locked, medium, disclosure). image, category, explicit and guid are required.\n"
    "Also writes OUTDIR/index.html: the show and its episodes, newest first, each linked to\n"
    "its page NAME.html (render --page) or its audio. An episode published later than now\n"
    "(its `published:`) is left out of both, with a warning, until a feed is written after\n"
    "that time. Two sets of files that claim one episode (the same guid:, or the same\n"
    "season and episode number) are refused. Then puts every page the feed links inside\n"
    "its show: links to the index, the feed, the previous, next and nearby episodes, a\n"
    "canonical URL and Open Graph/Twitter tags under --base-url, its new SHA-256 written\n"
    "into NAME.json (a page that cannot be updated is left as it was, with a warning; one\n"
    "that could not be put back beside its old sidecar is named: render it again).\n"
    "\n"
    "  --base-url URL       where OUTDIR's files are published (http:// or https://)\n"
    "  -o, --output FILE    the feed (default OUTDIR/feed.xml; - for standard output, and\n"
    "                       then no index.html)\n"
    "      --show FILE      the show file (default OUTDIR/show.txt when it exists)\n"
    "      --draft          write the feed even without what Apple Podcasts and Podcast\n"
    "                       Index require (marked a draft in an XML comment)\n"
    "      --include-future also the episodes published later than now\n"
    "  -q, --quiet          no summary line\n"
    "  -h, --help           this help\n"
    "\n"
    "Exit status: 0 written, 1 usage error (an invalid RENDER_EPISODE_NOW too), 2 invalid\n"
    "show file or sidecars, a stale sidecar, two sets of one episode, no episode, or an\n"
    "unwritable output (nothing is written). Stopped by a signal (128+N) or out of memory\n"
    "(2) while putting the pages inside their show, the feed and index are written, each\n"
    "page is as it was or whole, and feed says so.\n"
    "\n"
    "Environment: RENDER_EPISODE_NOW, an ISO 8601 date-time with a zone, is taken for now\n"
    "(to preview a schedule, and for tests).\n";

typedef struct feed_cli {
    const char *dir;
    const char *base_url;
    const char *output;
    const char *show;
    int quiet;
    int draft;
    int include_future;
    int64_t now_ms;       /* RENDER_EPISODE_NOW, else the clock */
} feed_cli;

static int take_folder(void *context, const char *arg)
{
    feed_cli *cli = context;
    if (cli->dir)
        return re_cli_usage_error("feed", "one OUTDIR at a time (got a second one: '%s')", arg);
    cli->dir = arg;
    return 0;
}

#define F(member) CLI_AT(feed_cli, member)
static const cli_option feed_options[] = {
    { "base-url", 0, CLI_TEXT, F(base_url), .value_name = "URL", .needs = "a URL" },
    { "output", 'o', CLI_TEXT, F(output), .value_name = "FILE", .needs = "a file name",
      .flags = CLI_NONEMPTY },
    { "show", 0, CLI_TEXT, F(show), .value_name = "FILE", .needs = "a file name",
      .flags = CLI_NONEMPTY },
    { "draft", 0, CLI_FLAG, F(draft) },
    { "include-future", 0, CLI_FLAG, F(include_future) },
    { "quiet", 'q', CLI_FLAG, F(quiet) },
    CLI_HELP_OPTION,
};
#undef F

/* Now, for the schedule: RENDER_EPISODE_NOW when set (a `published` form with a zone, so that a
 * test or a preview of next week's feed does not depend on the clock), else the clock. */
static int take_now(feed_cli *cli)
{
    const char *value = getenv(RE_NOW_ENV);
    if (value && value[0]) {
        char rfc822[RE_RFC822_MAX];
        if (!strchr(value, 'T') || re_rfc822_from_iso(value, rfc822, &cli->now_ms) != RE_OK)
            return re_cli_usage_error("feed", "%s='%s' is not an ISO 8601 date-time with a zone "
                                      "like 2026-11-30T09:00:00Z", RE_NOW_ENV, value);
        return CLI_GO_ON;
    }
    struct timespec ts;
    if (clock_gettime(CLOCK_REALTIME, &ts) != 0)
        return re_cli_usage_error("feed", "cannot read the clock: %s", strerror(errno));
    cli->now_ms = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
    return CLI_GO_ON;
}

/* argv[0] is "feed"; options may come before or after OUTDIR. Returns CLI_GO_ON, or an exit
 * status. */
static int parse_args(int argc, char **argv, feed_cli *cli)
{
    cli_group groups[] = { CLI_GROUP(feed_options, cli) };
    cli_command command = { .name = "feed", .help = { feed_usage }, .groups = groups,
                            .group_count = 1, .operand = take_folder, .context = cli };
    int rc = re_cli_scan(&command, argc, argv);
    if (rc != CLI_GO_ON)
        return rc;
    if (!cli->dir)
        return re_cli_usage_error("feed", "%s", "which folder? usage: render-episode feed OUTDIR "
                                  "--base-url URL");
    if (!cli->base_url)
        return re_cli_usage_error("feed", "%s", "--base-url URL is required: the address OUTDIR is "
                                  "published at");
    const char *why = NULL;
    if (!re_feed_base_url_ok(cli->base_url, &why)) {
        re_cli_error("feed", "--base-url '%s': %s", cli->base_url, why);
        return re_cli_usage_error("feed", "%s", "for example --base-url https://example.org/podcast/");
    }
    return take_now(cli);
}

static void print_diagnostics(const re_diagnostics *diag, const char *kind)
{
    for (size_t i = 0; i < diag->count; i++)
        re_cli_print_diagnostic(&diag->items[i], kind);
    if (diag->truncated)
        fprintf(stderr, "render-episode feed: too many messages; only the first %zu are shown\n",
                diag->count);
}

/* Writes the feed to standard output, or to a temporary file beside the target that is
 * flushed to disk (*out; published by the caller, after the folder's index, so that a feed
 * that cannot be written leaves the index as it was). */
static re_status write_output(const re_feed *feed, const feed_cli *cli, const char *target,
                              re_output **prepared, re_diagnostics *errors)
{
    *prepared = NULL;
    if (strcmp(target, "-") == 0) {
        re_status st = re_feed_write(stdout, feed, cli->base_url);
        if (st == RE_ERR_WRITE)
            re_diag_add(errors, "(standard output)", 0, 0, "cannot write the feed");
        return st;
    }
    re_output *out = NULL;
    re_status st = re_output_open_special(target, RE_OUTPUT_WRITE_INTO_SPECIAL, &out, errors);
    if (st == RE_ERR_NOMEM)
        re_diag_add(errors, target, 0, 0, "out of memory");
    if (st != RE_OK)
        return st;
    st = re_feed_write(re_output_stream(out), feed, cli->base_url);
    if (st != RE_OK) {
        re_output_discard(out);
        if (st != RE_ERR_INTERRUPTED)
            re_diag_add(errors, target, 0, 0, "cannot write the feed: %s", re_strerror(st));
        return st;
    }
    st = re_output_prepare(out, errors);
    if (st != RE_OK) {
        re_output_discard(out);
        return st;
    }
    *prepared = out;
    return RE_OK;
}

/* The feed's file name when it is written into the episodes' folder itself (the default, or
 * -o naming a file there), so that the index links it; else NULL. Malloc'ed. */
static char *feed_name_in_folder(const char *dir, const char *target)
{
    const char *slash = strrchr(target, '/');
    char *parent = slash ? strndup(target, slash == target ? 1 : (size_t)(slash - target))
                         : strdup(".");
    struct stat a, b;
    int same = parent && stat(parent, &a) == 0 && stat(dir, &b) == 0 && a.st_dev == b.st_dev
               && a.st_ino == b.st_ino;
    free(parent);
    return same ? strdup(slash ? slash + 1 : target) : NULL;
}

/* The folder's index.html, then the feed: both or neither (the index is put back as it was
 * when the feed cannot be renamed into place). */
static re_status publish(const re_feed *feed, const feed_cli *cli, re_output *prepared,
                         int *index_written, re_diagnostics *errors, re_diagnostics *warnings)
{
    *index_written = 0;
    char *index = re_path_join(cli->dir, RE_FOLDER_INDEX_NAME);
    /* an episode rendered from index.txt has its page there: never replaced by the folder's */
    for (size_t i = 0; index && i < feed->count; i++) {
        if (strcmp(feed->episodes[i].stem, "index") != 0)
            continue;
        free(index);
        if (re_diag_add(warnings, cli->dir, 0, 0, "%s not written: an episode is named "
                        "index (%s), whose page is (or would be) %s; rename its script to "
                        "have the folder's index", RE_FOLDER_INDEX_NAME, feed->episodes[i].audio_name,
                        RE_FOLDER_INDEX_NAME) != RE_OK) {
            re_output_discard(prepared);
            return RE_ERR_NOMEM;
        }
        return re_output_publish(prepared, errors);
    }
    char *feed_name = feed_name_in_folder(cli->dir, re_output_target(prepared));
    char *backup = NULL;
    re_status st = index ? re_output_backup(index, &backup) : RE_ERR_NOMEM;
    if (st == RE_OK)
        st = re_folder_index_publish(feed, cli->dir, feed_name, errors);
    free(feed_name);
    if (st != RE_OK) {
        re_output_discard(prepared);
        re_output_drop_backup(backup);
        free(index);
        return st;
    }
    st = re_output_publish(prepared, errors);
    if (st == RE_OK)
        re_output_drop_backup(backup);
    else
        re_output_restore(index, backup);
    *index_written = st == RE_OK;
    free(index);
    return st;
}

/* Every episode page inside its show, once the feed and the index are published: links to
 * them, the previous, next and nearby episodes, the canonical URL and share tags. A page
 * that cannot be updated keeps what it had, with a warning: the feed stands. */
static re_status publish_pages(const re_feed *feed, const feed_cli *cli, const char *target,
                               int index_written, re_diagnostics *warnings)
{
    char *feed_name = feed_name_in_folder(cli->dir, target);
    size_t updated = 0;
    re_status st = re_show_pages_publish(feed, cli->dir, cli->base_url,
                                         index_written ? RE_FOLDER_INDEX_NAME : NULL, feed_name,
                                         &re_cli_stop_signal, &updated, warnings);
    free(feed_name);
    return st;
}

/* The show file found in the episodes' folder (not named with --show): read when it is there
 * and the running user's or root's; another user's (which anyone can put in a shared folder)
 * is ignored with a warning, never read or waited on. The user's own FIFO is read as any
 * input is (it waits for its writer). */
static re_status load_default_show(const char *path, re_show *show, re_diagnostics *errors,
                                   re_diagnostics *warnings)
{
    struct stat st;
    if (stat(path, &st) != 0 && (lstat(path, &st) != 0 || re_owner_trusted(st.st_uid)))
        return RE_OK;   /* none (or a dangling link of ours): the channel from the episodes */
    char *text = NULL;
    size_t len = 0;
    uid_t owner = 0;
    re_status status = re_file_read_trusted(path, RE_SHOW_MAX_SIZE, RE_READ_ANY, &text, &len,
                                            &owner, errors);
    if (status == RE_OK && !text)
        return re_diag_add(warnings, path, 0, 0, "ignored: it belongs to another user (uid %ju), "
                           "not to you or root (name a show file with --show FILE)",
                           (uintmax_t)owner) == RE_OK ? RE_OK : RE_ERR_NOMEM;
    if (status == RE_OK)
        status = re_show_parse(path, text, len, show, errors);
    free(text);
    return status;
}

static re_status build(const feed_cli *cli, const char *target, size_t *episodes,
                       size_t *future, int *published, re_diagnostics *errors,
                       re_diagnostics *warnings)
{
    *published = 0;
    re_feed feed;
    re_feed_init(&feed);
    const char *slash = strrchr(target, '/');
    feed.dir = cli->dir;
    feed.feed_name = strcmp(target, "-") == 0 ? "feed.xml" : slash ? slash + 1 : target;
    feed.draft = cli->draft;
    feed.stop = &re_cli_stop_signal;
    char *default_show = re_path_join(cli->dir, RE_SHOW_FILE_NAME);
    if (!default_show)
        return RE_ERR_NOMEM;
    const char *show_path = cli->show ? cli->show : default_show;
    re_status st = cli->show ? re_show_load(show_path, &feed.show, errors)
                             : load_default_show(default_show, &feed.show, errors, warnings);
    /* the folder is read even when the show file is bad, to report everything at once */
    re_status scan = st == RE_ERR_NOMEM || st == RE_ERR_INTERRUPTED
                     ? st : re_feed_scan(&feed, cli->dir, errors, warnings);
    if (st == RE_OK)
        st = scan;
    if (st == RE_OK)   /* the channel guid, which the item guids derive from */
        st = re_feed_name_channel(&feed, cli->base_url);
    if (st == RE_OK)   /* two sets of one episode, scheduled or not */
        st = re_feed_check_identities(&feed, errors);
    if (st == RE_OK && !cli->include_future)   /* the feed and the index alike */
        st = re_feed_leave_out_future(&feed, cli->now_ms, future, warnings);
    if (st == RE_OK)   /* from the episodes published now: a scheduled one shapes nothing */
        st = re_feed_complete_channel(&feed, cli->base_url, show_path, errors, warnings);
    re_output *prepared = NULL;
    if (st == RE_OK)
        st = write_output(&feed, cli, target, &prepared, errors);
    int index_written = 0;
    if (st == RE_OK && prepared)   /* the folder's index.html, newest first, with the feed */
        st = publish(&feed, cli, prepared, &index_written, errors, warnings);
    *published = st == RE_OK && prepared;
    if (*published)   /* then every page inside its show */
        st = publish_pages(&feed, cli, target, index_written, warnings);
    *episodes = feed.count;
    re_feed_free(&feed);
    free(default_show);
    return st;
}

int re_cli_feed(int argc, char **argv)
{
    feed_cli cli = { 0 };
    int rc = parse_args(argc, argv, &cli);
    if (rc != CLI_GO_ON)
        return rc;
    char *default_output = cli.output ? NULL : re_path_join(cli.dir, "feed.xml");
    const char *target = cli.output ? cli.output : default_output;
    if (!target) {
        fprintf(stderr, "render-episode feed: out of memory\n");
        return RE_EXIT_FAILURE;
    }
    re_diagnostics errors, warnings;
    re_diagnostics_init(&errors, RE_DIAG_DEFAULT_LIMIT);
    re_diagnostics_init(&warnings, RE_DIAG_DEFAULT_LIMIT);
    size_t episodes = 0, future = 0;
    int published = 0;
    re_status st = build(&cli, target, &episodes, &future, &published, &errors, &warnings);
    print_diagnostics(&warnings, "warning: ");
    print_diagnostics(&errors, "");
    if (st != RE_OK && st != RE_ERR_INTERRUPTED && errors.count == 0)
        re_cli_error("feed", "%s: %s", cli.dir, re_strerror(st));
    if (st != RE_OK && published)   /* stopped while putting the pages inside their show */
        fprintf(stderr, "render-episode feed: %s was written; the episode pages were not all "
                "given the show's links (each is as it was or whole): run feed again\n", target);
    else if (st != RE_OK)
        fprintf(stderr, "render-episode feed: nothing was written\n");
    else if (!cli.quiet && strcmp(target, "-") != 0) {
        char later[64] = "";
        if (future)
            snprintf(later, sizeof later, " (%zu scheduled later, left out)", future);
        printf("%s: %zu episode%s%s%s\n", target, episodes, episodes == 1 ? "" : "s", later,
               cli.draft ? " (--draft)" : "");
    }
    if (st == RE_OK && fflush(stdout) != 0)
        st = RE_ERR_WRITE;
    re_diagnostics_free(&errors);
    re_diagnostics_free(&warnings);
    free(default_output);
    return re_cli_exit_status(st);   /* 128 + N when a signal stopped it */
}
