/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_markdown_rank.c - the blocks --max-duration keeps or leaves out, as the Markdown reader
 * marks them (script.h, re_item_unit): where each starts in its item's text, its rank by its
 * section's heading or its own telltales, its section, release and list. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testkit.h"
#include "script.h"

static re_episode *parse(const char *text)
{
    re_diagnostics diag;
    re_diagnostics_init(&diag, 0);
    re_episode *ep = NULL;
    re_status status = re_script_parse("notes.md", text, strlen(text), &ep, &diag);
    CHECK(status == RE_OK);
    for (size_t i = 0; i < diag.count; i++)
        fprintf(stderr, "  %u:%u: %s\n", diag.items[i].line, diag.items[i].col,
                diag.items[i].message);
    re_diagnostics_free(&diag);
    return ep;
}

/* The SPEECH item whose text starts with `start`. */
static const re_item *speech(const re_episode *ep, const char *start)
{
    for (size_t i = 0; ep && i < ep->item_count; i++)
        if (ep->items[i].kind == RE_ITEM_SPEECH
            && strncmp(ep->items[i].text, start, strlen(start)) == 0)
            return &ep->items[i];
    fprintf(stderr, "  no speech starting '%s'\n", start);
    return NULL;
}

/* The unit of item `it` that starts with `start` in its text. */
static const re_item_unit *unit(const re_item *it, const char *start)
{
    for (size_t k = 0; it && k < it->unit_count; k++)
        if (strncmp(it->text + it->units[k].offset, start, strlen(start)) == 0)
            return &it->units[k];
    fprintf(stderr, "  no unit starting '%s'\n", start);
    return NULL;
}

static const char *section_title(const re_episode *ep, const re_item_unit *u)
{
    return u && u->section < ep->section_count ? ep->sections[u->section].title : NULL;
}

static void test_changelog(void)
{
    re_episode *ep = parse(
        "# Changelog\n"
        "\n"
        "All notable changes.\n"
        "\n"
        "## [2.0.0] - 2026-11-30\n"
        "\n"
        "### Added\n"
        "\n"
        "- A new command.\n"
        "- BREAKING: the old flag is gone.\n"
        "\n"
        "### Fixed\n"
        "\n"
        "- A crash on start.\n"
        "  It happened on empty input.\n"
        "  - a nested detail.\n"
        "- Fixes CVE-2026-1234 in the parser.\n"
        "\n"
        "### Dependencies\n"
        "\n"
        "- Bump serde from 1.0 to 1.1.\n"
        "\n"
        "## [1.9.0] - 2026-10-01\n"
        "\n"
        "### Changed\n"
        "\n"
        "- chore(ci): a faster pipeline.\n"
        "- **deps-dev:** bump eslint.\n"
        "- Output is quieter.\n");
    CHECK(ep != NULL);
    if (!ep)
        return;
    CHECK(ep->section_count >= 7);
    const re_item *intro = speech(ep, "All notable");
    const re_item_unit *u = unit(intro, "All notable");
    CHECK(u && u->offset == 0 && u->rank == RE_RANK_OTHER && u->section == 0 && u->list == 0);

    const re_item *title = speech(ep, "Version 2.0.0");   /* the briefing's words for it */
    u = unit(title, "Version 2.0.0");
    CHECK(u && u->heading == 2);
    CHECK(u && ep->sections[u->section].release == u->section);
    unsigned release = u ? u->section : 0;

    /* each list item is a paragraph of its own, one block each */
    const re_item *added = speech(ep, "A new command.");
    u = unit(added, "A new command.");
    CHECK(u && u->rank == RE_RANK_FEATURE && u->list > 0 && u->heading == 0);
    CHECK_STR(section_title(ep, u), "Added");
    CHECK(u && ep->sections[u->section].release == release);
    CHECK(added && added->unit_count == 1);
    const re_item_unit *brk = unit(speech(ep, "Breaking change"), "Breaking change");
    CHECK(brk && brk->rank == RE_RANK_BREAKING && u && brk->list == u->list);

    const re_item *fixed = speech(ep, "A crash on start.");
    u = unit(fixed, "A crash on start.");
    CHECK(u && u->rank == RE_RANK_FIX);
    /* a nested list goes with its item: its paragraph goes on with the item's block */
    const re_item *nested = speech(ep, "a nested detail");
    CHECK(nested && nested->unit_count == 1 && nested->units[0].cont == 1 && u
          && nested->units[0].list == u->list);
    u = unit(speech(ep, "Fixes CVE"), "Fixes CVE");
    CHECK(u && u->rank == RE_RANK_SECURITY);

    u = unit(speech(ep, "Bump serde"), "Bump serde");
    CHECK(u && u->rank == RE_RANK_CHORE);
    CHECK_STR(section_title(ep, u), "Dependencies");

    /* ranked by what is written: chore(ci) and deps-dev, though the briefing says less */
    u = unit(speech(ep, "ci: a faster"), "ci: a faster");
    CHECK(u && u->rank == RE_RANK_CHORE);
    u = unit(speech(ep, "deps-dev"), "deps-dev");
    CHECK(u && u->rank == RE_RANK_CHORE);
    u = unit(speech(ep, "Output is quieter"), "Output is quieter");
    CHECK(u && u->rank == RE_RANK_CHANGE && ep->sections[u->section].release != release);

    /* a section's heading is spoken as its own sentence, and marked as its heading */
    u = unit(speech(ep, "Fixed."), "Fixed");
    CHECK(u && u->heading == 1);
    CHECK_STR(section_title(ep, u), "Fixed");
    re_episode_free(ep);
}

/* A [pause] inside a list item: the speech after it goes on with the item. */
static void test_continuation(void)
{
    re_episode *ep = parse("# Notes\n\n### Fixed\n\n- One [pause 1s] more of it.\n- Two.\n");
    CHECK(ep != NULL);
    if (!ep)
        return;
    const re_item *first = speech(ep, "One");
    const re_item *rest = speech(ep, "more of it.");
    CHECK(first && first->unit_count == 1 && first->units[0].cont == 0);
    CHECK(rest && rest->unit_count == 1 && rest->units[0].cont == 1);
    CHECK(rest && first && rest->units[0].list == first->units[0].list);
    const re_item *two = speech(ep, "Two.");   /* the next item: a paragraph and block of its own */
    CHECK(two && two->unit_count == 1 && two->units[0].cont == 0 && first
          && two->units[0].list == first->units[0].list);
    re_episode_free(ep);
}

/* With the briefing's edits (issue 39): a block is ranked by what is written (`chore:`,
 * `ci:` rank as chores, though not said), a run of updates said together is one block of
 * its items ranked as chores, an item whose first block is a nested list still opens a
 * block, and the new contributors' heading, not said, still opens their section. */
static void test_briefing_blocks(void)
{
    re_episode *ep = parse(
        "# Notes\n\n## Changes\n\n- chore: tidy the build scripts\n- ci: run the tests on arm64\n"
        "\n## Features\n\n- Bump a from 1.0.0 to 1.0.1\n- Bump b from 2.0.0 to 2.1.0\n"
        "- Bump c from 3.0.0 to 3.0.2\n- Add the frobnicator\n"
        "\n## Fixed\n\n- - crash on empty input\n  - hang on long input\n"
        "\n### New Contributors\n\n"
        "* @alice made their first contribution in https://github.com/o/r/pull/1\n"
        "* @bob made their first contribution in https://github.com/o/r/pull/2\n");
    CHECK(ep != NULL);
    if (!ep)
        return;
    const re_item_unit *tidy = unit(speech(ep, "tidy"), "tidy");
    const re_item_unit *ci = unit(speech(ep, "Continuous integration"), "Continuous");
    CHECK(tidy && tidy->rank == RE_RANK_CHORE);
    CHECK(ci && ci->rank == RE_RANK_CHORE);
    const re_item_unit *run = unit(speech(ep, "Three dependency updates"), "Three");
    CHECK(run && run->rank == RE_RANK_CHORE && run->items == 3 && run->list != 0);
    const re_item_unit *add = unit(speech(ep, "Add the"), "Add the");
    CHECK(run && add && add->list == run->list && add->items == 1);
    const re_item *crash = speech(ep, "crash on empty input");
    CHECK(crash && crash->unit_count >= 1 && crash->units[0].cont == 0
          && crash->units[0].list != 0 && crash->units[0].heading == 0);
    const re_item_unit *names = unit(speech(ep, "New contributors"), "New contributors");
    CHECK(names && section_title(ep, names) && strcmp(section_title(ep, names),
                                                      "New Contributors") == 0);
    re_episode_free(ep);
}

/* A .txt script has no blocks. */
static void test_txt(void)
{
    const char *text = "---\ntitle: T\n---\nHello.\n";
    re_diagnostics diag;
    re_diagnostics_init(&diag, 0);
    re_episode *ep = NULL;
    CHECK(re_script_parse("ep.txt", text, strlen(text), &ep, &diag) == RE_OK);
    CHECK(ep && !ep->sections && ep->items[0].unit_count == 0 && !ep->items[0].units);
    re_episode_free(ep);
    re_diagnostics_free(&diag);
}

int main(void)
{
    test_changelog();
    test_continuation();
    test_briefing_blocks();
    test_txt();
    return check_finish("test_markdown_rank");
}
