/* SPDX-License-Identifier: GPL-3.0-or-later */
/* markdown_brief.h - release notes told as a briefing: what the Markdown reader changes in a
 * block's text so that a changelog is said as a person tells it (docs/script-format.md,
 * "Release notes"): commit hashes and ranges left out, conventional-commit prefixes said as
 * words, breaking changes announced, version headings said as versions, runs of dependency
 * updates and the new contributors said once (private to the parse stage).
 *
 * Pure text in, text or edits out: no cmark-gfm, no I/O. markdown.c applies the edits to the
 * text it collected, keeping each kept byte's place in the file. */
#ifndef RE_MARKDOWN_BRIEF_H
#define RE_MARKDOWN_BRIEF_H

#include <stddef.h>

/* text[at, at + len) is said as `with` (NULL: not said); `note` says what and why, for
 * explain. Both owned by the edit list. */
typedef struct md_edit {
    size_t at, len;
    char *with;
    char *note;
} md_edit;

typedef struct md_edits {
    md_edit *items;       /* in text order, never overlapping */
    size_t count, capacity;
    int nomem;
} md_edits;

/* The edits for one block's collected text[0..len) (a paragraph or a list item): a
 * conventional-commit prefix or `BREAKING CHANGE:` at its start, then every commit hash
 * standing alone, in parentheses or in a commit range, and parentheses left empty. Appends
 * to *out (empty first); free with re_md_edits_free. */
void re_md_brief_text(const char *text, size_t len, md_edits *out);

void re_md_edits_free(md_edits *edits);

/* A `:shortcode:` of an emoji at s[0..len) (s[0] is ':', at a word's start when word_start):
 * its length, or 0. */
size_t re_md_emoji_shortcode(const char *s, size_t len, int word_start);

/* A github.com link to a pull request, an issue or a comparison, as a person reads it:
 * "pull request 123", "issue 45", "changes from v1.2.0 to v1.3.0" into out[0..size), with
 * *is_pull_or_issue. 0 when it is none. */
int re_md_github_reference(const char *url, char *out, size_t size, int *is_pull_or_issue);

/* 1 when a link to url whose text is text (bare: the text is the address) is a commit or a
 * comparison of commits named by its hash ("([7f42848](https://github.com/o/r/commit/7f42848))"):
 * not read aloud. */
int re_md_brief_commit_link(const char *url, const char *text, int bare);

/* What a heading whose text is title says instead of its text: "Version 2.4.0, 2026-11-30"
 * for `[2.4.0] - 2026-11-30`, `v2.4.0 (2026-11-30)` or `2.4.0`; "Unreleased changes" for
 * `[Unreleased]`; "Breaking changes" for `⚠ BREAKING CHANGES`. NULL when it says its text as
 * written (or memory ran out: *nomem set); else free() it. */
char *re_md_brief_heading(const char *title, int *nomem);

/* 1 when title is GitHub's "New Contributors" heading. */
int re_md_brief_is_contributors(const char *title);

/* Items said together: a run of dependency updates ("Bump X from A to B", "chore(deps):
 * update dependency X to vB", "Update rust crate X to B"), or first contributions ("alice made
 * their first contribution in ..."). */
typedef enum md_group_kind { MD_GROUP_NONE, MD_GROUP_UPDATES, MD_GROUP_CONTRIBUTORS } md_group_kind;

typedef struct md_group {
    md_group_kind kind;
    unsigned count;       /* items in the group */
    struct md_group_name {
        char *name;
        char *version;    /* the last one said for it; NULL for a contributor */
    } *names;             /* distinct names in order, the first few only (those said) */
    size_t name_count, capacity;
    unsigned unnamed;     /* items whose names were not kept: past the few said */
    int nomem;
} md_group;

/* The kind of item a list item's collected text[0..len) is, MD_GROUP_NONE for any other. */
md_group_kind re_md_brief_kind(const char *text, size_t len);

/* Adds the item text[0..len) to g: 1 when it is of g's kind (the first item sets the kind),
 * else 0 and g is unchanged. */
int re_md_group_add(md_group *g, const char *text, size_t len);

/* The fewest items said together: a single dependency update is said as it is. */
unsigned re_md_group_least(md_group_kind kind);

/* The group as one sentence: "Four dependency updates, among them X to B, Y to D and Z to F."
 * or "New contributors: alice, bob and carol." NULL when memory ran out; free() it. */
char *re_md_group_sentence(const md_group *g);

void re_md_group_free(md_group *g);

#endif
