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

    const re_item *title = speech(ep, "[2.0.0]");
    u = unit(title, "[2.0.0]");
    CHECK(u && u->heading == 2);
    CHECK(u && ep->sections[u->section].release == u->section);
    unsigned release = u ? u->section : 0;

    const re_item *added = speech(ep, "A new command.");
    u = unit(added, "A new command.");
    CHECK(u && u->rank == RE_RANK_FEATURE && u->list > 0 && u->heading == 0);
    CHECK_STR(section_title(ep, u), "Added");
    CHECK(u && ep->sections[u->section].release == release);
    const re_item_unit *brk = unit(added, "BREAKING");
    CHECK(brk && brk->rank == RE_RANK_BREAKING && u && brk->list == u->list);
    CHECK(added && added->unit_count == 2);

    const re_item *fixed = speech(ep, "A crash on start.");
    u = unit(fixed, "A crash on start.");
    CHECK(u && u->rank == RE_RANK_FIX);
    /* a second paragraph and a nested list go with their item: two units in all */
    CHECK(fixed && fixed->unit_count == 2);
    CHECK(fixed && strstr(fixed->text, "nested detail"));
    u = unit(fixed, "Fixes CVE");
    CHECK(u && u->rank == RE_RANK_SECURITY);

    u = unit(speech(ep, "Bump serde"), "Bump serde");
    CHECK(u && u->rank == RE_RANK_CHORE);
    CHECK_STR(section_title(ep, u), "Dependencies");

    const re_item *changed = speech(ep, "chore(ci)");
    u = unit(changed, "chore(ci)");
    CHECK(u && u->rank == RE_RANK_CHORE);
    u = unit(changed, "deps-dev");
    CHECK(u && u->rank == RE_RANK_CHORE);
    u = unit(changed, "Output is quieter");
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
    CHECK(rest && rest->unit_count == 2 && rest->units[0].cont == 1 && rest->units[1].cont == 0);
    CHECK(rest && first && rest->units[0].list == first->units[0].list);
    CHECK(rest && strcmp(rest->text + rest->units[1].offset, "Two.") == 0);
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
    test_txt();
    return check_finish("test_markdown_rank");
}
