/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_markdown_brief.c - release notes told as a briefing: commit hashes, links and ranges
 * left out, conventional-commit types said as words, breaking changes announced, version
 * headings, runs of dependency updates and the new contributors said once; each rule alone
 * (markdown_brief.h) and as a document reads (re_script_parse, re_markdown_outline). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testkit.h"
#include "markdown.h"
#include "markdown_brief.h"
#include "script.h"

/* The text with re_md_brief_text's edits applied. Caller frees. */
static char *edited(const char *text)
{
    md_edits e = { 0 };
    size_t len = strlen(text);
    re_md_brief_text(text, len, &e);
    char *out = calloc(1, len * 2 + 64), *o = out;
    size_t from = 0;
    for (size_t k = 0; out && k < e.count; k++) {
        memcpy(o, text + from, e.items[k].at - from);
        o += e.items[k].at - from;
        if (e.items[k].with)
            o = stpcpy(o, e.items[k].with);
        from = e.items[k].at + e.items[k].len;
    }
    if (out)
        strcpy(o, text + from);
    re_md_edits_free(&e);
    return out;
}

static void says(const char *text, const char *expected)
{
    char *got = edited(text);
    CHECK_STR(got, expected);
    free(got);
}

static void test_commit_hashes(void)
{
    /* yargs' CHANGELOG.md: the hash of a commit link, once the link is left out */
    says("ignore bun when getting bin name ()", "ignore bun when getting bin name");
    says("lang: 'count' for de locale (issue 2476) ()", "lang: 'count' for de locale (issue 2476)");
    /* a hash in parentheses, several, alone, after "commit", and commit ranges */
    says("Fix the parser (7f42848)", "Fix the parser");
    says("Fix the parser (7f42848, a1b2c3d)", "Fix the parser");
    says("7f42848 Fix the parser", "Fix the parser");
    says("Reverted in commit 9fceb02d0ae5.", "Reverted in an earlier commit.");
    says("This reverts commit 7f42848.", "This reverts an earlier commit.");
    says("Changes a1b2c3d..e4f5a6b and 9fceb02d0ae5...HEAD here", "Changes and here");
    /* edits side by side never overlap (each takes one blank with it) */
    says("(7f42848) (a1b2c3d) done", "done");
    says("feat: 7f42848 add X", "New: add X");
    /* not hashes: numbers, words, shorter runs, a call's parentheses, a digest, a UUID's part */
    says("Released 2026113 and deadbeef (abc1234x)", "Released 2026113 and deadbeef (abc1234x)");
    says("singleton usage of yargs().argv", "singleton usage of yargs().argv");
    says("sha256:e3b0c44298fc1c14 stays", "sha256:e3b0c44298fc1c14 stays");
    says("the id 1a2b3c-4d5e6f stays", "the id 1a2b3c-4d5e6f stays");
    /* a name and its number is no hash: one change from letters to digits */
    says("Support ed25519 keys (ed25519) since dec2019", "Support ed25519 keys (ed25519) since dec2019");
    says("deadbeef1 and face123 stay", "deadbeef1 and face123 stay");

    /* commit links (the link's text a hash, or the address itself), and compare links
     * between commits; a link whose text says something else is read */
    CHECK(re_md_brief_commit_link("https://github.com/yargs/yargs/commit/"
                                  "b77831c13c6abc9f896cac5e3ff1effe844d8cbe", "b77831c", 0));
    CHECK(re_md_brief_commit_link("https://gitlab.com/o/r/-/commit/7f428485e7", "7f42848", 0));
    CHECK(re_md_brief_commit_link("https://github.com/o/r/commits/7f428485e7", "", 1));
    CHECK(re_md_brief_commit_link("https://github.com/o/r/compare/a1b2c3d...e4f5a6b", "", 1));
    CHECK(!re_md_brief_commit_link("https://github.com/o/r/commit/7f428485e7", "the fix", 0));
    CHECK(!re_md_brief_commit_link("https://github.com/o/r/compare/v1.2.0...v1.3.0", "", 1));
    CHECK(!re_md_brief_commit_link("https://github.com/o/r/pull/12", "#12", 0));
}

static void test_commit_types(void)
{
    /* syncthing's generated release notes (v1.29.7) */
    says("fix(config): deep copy configuration defaults",
         "Fixed in config: deep copy configuration defaults");
    says("feat(gui): close a modal when pressing ESC",
         "New in gui: close a modal when pressing ESC");
    says("chore(gui): add Serbian (sr) translation template",
         "gui: add Serbian (sr) translation template");
    says("chore: move golangci-lint & meta", "move golangci-lint & meta");
    says("build: reactivate golangci-lint", "Build: reactivate golangci-lint");
    says("refactor: use slices.Contains", "Refactoring: use slices.Contains");
    says("docs: general notes about v2 coming", "Documentation: general notes about v2 coming");
    says("perf: cache the index", "Performance: cache the index");
    says("ci: run on arm64", "Continuous integration: run on arm64");
    says("test: cover the parser", "Tests: cover the parser");
    /* yargs: `**deps:** update dependency yargs-parser to v22` */
    says("deps: update dependency yargs-parser to v22",
         "Dependencies: update dependency yargs-parser to v22");
    says("build(deps-dev): bump prettier from 3.3.2 to 3.3.3",
         "Development dependencies: bump prettier from 3.3.2 to 3.3.3");
    /* breaking changes are announced */
    says("feat!: drop Node 16 support", "Breaking change: drop Node 16 support");
    says("feat(api)!: remove v1 routes", "Breaking change in api: remove v1 routes");
    says("BREAKING CHANGE: the config file moved", "Breaking change: the config file moved");
    /* not a prefix: an unknown word, no blank after the colon, a sentence */
    says("lang: 'count' for de locale", "lang: 'count' for de locale");
    says("fix:this", "fix:this");
    says("Fix the bug: a crash", "Fix the bug: a crash");
    /* a prefix and a hash in one item */
    says("fix(sync): retry (7f42848)", "Fixed in sync: retry");
}

static void heading_says(const char *title, const char *expected)
{
    int nomem = 0;
    char *got = re_md_brief_heading(title, &nomem);
    CHECK_INT(nomem, 0);
    if (expected)
        CHECK_STR(got, expected);
    else
        CHECK(got == NULL);
    if (expected == NULL && got)
        fprintf(stderr, "  '%s' said as '%s'\n", title, got);
    free(got);
}

static void test_headings(void)
{
    /* keep-a-changelog, conventional-changelog, GitHub's release pages */
    heading_says("[2.4.0] - 2026-11-30", "Version 2.4.0, 2026-11-30");
    heading_says("1.3.0 - 2026-11-30", "Version 1.3.0, 2026-11-30");
    heading_says("v2.4.0 (2026-11-30)", "Version 2.4.0, 2026-11-30");
    heading_says("18.1.0 (2026-07-26)", "Version 18.1.0, 2026-07-26");
    heading_says("1.0.0 / 2014-08-10", "Version 1.0.0, 2014-08-10");
    heading_says("2.4.0 \xE2\x80\x94 2026-11-30", "Version 2.4.0, 2026-11-30");
    heading_says("2.4.0", "Version 2.4.0");
    heading_says("v1.0.0-rc.1", "Version 1.0.0-rc.1");
    heading_says("[Unreleased]", "Unreleased changes");
    heading_says("Unreleased", "Unreleased changes");
    heading_says("\xE2\x9A\xA0 BREAKING CHANGES", "Breaking changes");
    heading_says("Breaking Changes", "Breaking changes");
    /* said as written */
    heading_says("Features", NULL);
    heading_says("2.4.0 - the big one", NULL);
    heading_says("2026", NULL);
    heading_says("[2.4.0 - 2026-11-30", NULL);
    CHECK(re_md_brief_is_contributors("New Contributors"));
    CHECK(!re_md_brief_is_contributors("Contributors"));
}

static char *group_of(const char *const *items, size_t n, unsigned *taken)
{
    md_group g = { 0 };
    *taken = 0;
    while (*taken < n && re_md_group_add(&g, items[*taken], strlen(items[*taken])))
        ++*taken;
    char *s = g.count >= re_md_group_least(g.kind) ? re_md_group_sentence(&g) : NULL;
    re_md_group_free(&g);
    return s;
}

static void test_groups(void)
{
    unsigned taken;
    /* peter-evans/create-pull-request's release notes: five bumps, one package twice */
    const char *const bumps[] = {
        "build(deps-dev): bump types/node from 18.19.36 to 18.19.39 by dependabot, pull "
        "request 3000",
        "build(deps-dev): bump ts-jest from 29.1.5 to 29.2.0 by dependabot, pull request 3008",
        "build(deps-dev): bump prettier from 3.3.2 to 3.3.3 by dependabot, pull request 3018",
        "build(deps-dev): bump ts-jest from 29.2.0 to 29.2.2 by dependabot, pull request 3019",
        "Bump eslint-plugin-prettier from 5.1.3 to 5.2.1",
        "Add a feature by alice, pull request 3040",
    };
    char *s = group_of(bumps, 6, &taken);
    CHECK_INT(taken, 5);
    CHECK_STR(s, "Five dependency updates, among them types/node to 18.19.39, ts-jest to "
                 "29.2.2 and prettier to 3.3.3.");
    free(s);
    /* renovate's phrasing; two are named in full */
    const char *const renovate[] = { "chore(deps): update dependency eslint to v8.57.0",
                                     "fix(deps): update rust crate serde to 1.0.197" };
    s = group_of(renovate, 2, &taken);
    CHECK_STR(s, "Two dependency updates: eslint to 8.57.0 and serde to 1.0.197.");
    free(s);
    /* a single update is said as it is */
    s = group_of(bumps + 4, 2, &taken);
    CHECK(s == NULL);
    CHECK_INT(taken, 1);
    /* not updates */
    CHECK_INT(re_md_brief_kind("Update the README to mention v2", 31), MD_GROUP_NONE);
    CHECK_INT(re_md_brief_kind("Bump the npm_and_yarn group across 1 directory with 2 updates", 61),
              MD_GROUP_NONE);
    CHECK_INT(re_md_brief_kind("Update .NET version to 1.13.0", 29), MD_GROUP_NONE);
    /* GitHub's "New Contributors" */
    const char *const people[] = {
        "hazemKrimi made their first contribution in pull request 10092",
        "pullmerge made their first contribution in pull request 10121",
        "dependabot[bot] made their first contribution in pull request 2",
    };
    s = group_of(people, 3, &taken);
    CHECK_STR(s, "New contributors: hazemKrimi, pullmerge and dependabot.");
    free(s);
    s = group_of(people, 1, &taken);
    CHECK_STR(s, "New contributor: hazemKrimi.");
    free(s);
    /* twelve named, the rest counted (not compared, so that thousands cost no more) */
    char texts[15][64];
    const char *many[15];
    for (int i = 0; i < 15; i++) {
        snprintf(texts[i], sizeof texts[i], "p%02d made their first contribution in #%d", i, i);
        many[i] = texts[i];
    }
    s = group_of(many, 15, &taken);
    CHECK_STR(s, "New contributors: p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11 "
                 "and 3 more.");
    free(s);
}

/* Parses text as notes.md: the speech items joined by spaces ("|" between paragraphs,
 * "#TITLE#" for chapters). */
static char *spoken(const char *text)
{
    re_episode *ep = NULL;
    re_diagnostics d;
    re_diagnostics_init(&d, 0);
    CHECK_INT(re_script_parse("notes.md", text, strlen(text), &ep, &d), RE_OK);
    char *out = calloc(1, 8192);
    for (size_t i = 0; ep && out && i < ep->item_count; i++) {
        const re_item *it = &ep->items[i];
        if (it->kind == RE_ITEM_SPEECH)
            snprintf(out + strlen(out), 8192 - strlen(out), "%s%s", *out ? " " : "", it->text);
        else if (it->kind == RE_ITEM_BREAK)
            strcat(out, " |");
        else if (it->kind == RE_ITEM_CHAPTER)
            snprintf(out + strlen(out), 8192 - strlen(out), "%s#%s#", *out ? " " : "", it->text);
    }
    re_episode_free(ep);
    re_diagnostics_free(&d);
    return out;
}

static void test_documents(void)
{
    /* conventional-changelog (yargs' CHANGELOG.md, lines 5-10) */
    char *s = spoken("# Changelog\n\n## [18.1.0](https://github.com/yargs/yargs/compare/v18.0.0..."
                     "v18.1.0) (2026-07-26)\n\n### Features\n\n* ignore bun when getting bin name "
                     "([b77831c](https://github.com/yargs/yargs/commit/b77831c13c6abc9f896cac5e3ff"
                     "1effe844d8cbe))\n");
    CHECK_STR(s, "#18.1.0 (2026-07-26)# Version 18.1.0, 2026-07-26. | Features. |"
                 " ignore bun when getting bin name.");
    free(s);
    /* GitHub's generated notes: updates and contributors said once, the heading that names
     * the contributors not said before them */
    s = spoken("# v1.0.1\n\n## What's Changed\n\n"
               "- Bump aglipanci/laravel-pint-action from 1.0.0 to 2.1.0 by @dependabot in "
               "https://github.com/Laravel-Myanmar-Tools/phone-number/pull/1\n"
               "- Bump dependabot/fetch-metadata from 1.3.5 to 1.3.6 by @dependabot in "
               "https://github.com/Laravel-Myanmar-Tools/phone-number/pull/2\n\n"
               "## New Contributors\n\n- @dependabot made their first contribution in "
               "https://github.com/Laravel-Myanmar-Tools/phone-number/pull/1\n");
    CHECK_STR(s, "#What's Changed# What's Changed. | Two dependency updates: "
                 "aglipanci/laravel-pint-action to 2.1.0 and dependabot/fetch-metadata to 1.3.6. |"
                 " #New Contributors# New contributor: dependabot.");
    free(s);

    /* explain's outline says what was left out and why */
    const char *doc = "- fix(sync): retry ([7f42848](https://github.com/o/r/commit/7f428485e7))\n"
                      "- Bump a from 1 to 2\n- Bump b from 3 to 4\n";
    re_md_outline outline = { 0 };
    re_diagnostics d;
    re_diagnostics_init(&d, 0);
    CHECK_INT(re_markdown_outline("notes.md", doc, strlen(doc), &outline, &d), RE_OK);
    CHECK_INT(outline.count, 3);
    if (outline.count == 3) {
        CHECK_STR(outline.blocks[0].account, "spoken: Fixed in sync: retry (left out: the commit "
                  "link https://github.com/o/r/commit/7f428485e7 (not read aloud); the commit "
                  "type 'fix(sync):' (said 'Fixed in sync:'))");
        CHECK_STR(outline.blocks[1].account, "spoken: Two dependency updates: a to 2 and b to 4. "
                  "(for 2 items; this one: Bump a from 1 to 2)");
        CHECK_STR(outline.blocks[2].account, "left out: Bump b from 3 to 4 (said with the item "
                  "at line 2)");
        CHECK_INT(outline.blocks[2].line, 3);
        CHECK_INT(outline.blocks[2].col, 3);
    }
    re_md_outline_free(&outline);
    re_diagnostics_free(&d);

    /* a directive after an edit still stands at its own column */
    doc = "- feat: wait [pause 99h] here\n";
    re_episode *ep = NULL;
    re_diagnostics_init(&d, 0);
    CHECK_INT(re_script_parse("notes.md", doc, strlen(doc), &ep, &d), RE_ERR_INPUT);
    CHECK(d.count >= 1 && d.items[0].line == 1 && d.items[0].col == 14);
    re_diagnostics_free(&d);
}

int main(void)
{
    test_commit_hashes();
    test_commit_types();
    test_headings();
    test_groups();
    test_documents();
    return check_finish("test_markdown_brief");
}
