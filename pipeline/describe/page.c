/* SPDX-License-Identifier: GPL-3.0-or-later */
/* page.c - the episode page in Markdown (see page.h, docs/feed.md). */
#define _GNU_SOURCE  /* asprintf */
#include "page.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "duration.h"
#include "html_tree.h"
#include "notes.h"
#include "page_text.h"
#include "text.h"
#include "url.h"

char *re_page_cover_alt(const re_episode *ep)
{
    char *alt = NULL;
    return asprintf(&alt, "Cover art of %s", ep->show ? ep->show : ep->title) < 0 ? NULL : alt;
}

int re_page_ends_with_duration(const char *s, size_t end)
{
    while (end > 0 && re_is_blank(s[end - 1]))
        end--;
    return end >= 8 && strncasecmp(s + end - 8, "duration", 8) == 0;
}

/* "&name;" or "&#123;": an entity reference that Markdown would decode. */
static int starts_entity(const char *s, size_t n)
{
    size_t i = 1;
    while (i < n && i < 33 && (re_is_alnum(s[i]) || s[i] == '#'))
        i++;
    return i > 1 && i < n && s[i] == ';';
}

/* Writes s as literal Markdown text on one line: outer blanks dropped, line breaks made
 * spaces, inline markup characters backslash-escaped, and (when it begins a line) anything
 * that would start a heading, quote, list or rule escaped too. */
static void md_text(FILE *out, const char *s, int line_start)
{
    while (re_is_blank(*s))
        s++;
    size_t n = strlen(s);
    while (n > 0 && (re_is_blank(s[n - 1]) || s[n - 1] == '\n' || s[n - 1] == '\r'))
        n--;
    size_t digits = 0;   /* leading digits of a line: "1." would start an ordered list */
    while (line_start && digits < n && re_is_digit(s[digits]))
        digits++;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '\n' || c == '\r')
            c = ' ';
        int escape = strchr("\\`*_[]<>#|~", c) != NULL
                     || (line_start && i == 0 && strchr("-+=", c) != NULL)
                     || (line_start && i == digits && digits > 0 && (c == '.' || c == ')'))
                     || (c == '&' && starts_entity(s + i, n - i))
                     || (c == ':' && re_page_ends_with_duration(s, i));
        if (escape)
            fputc('\\', out);
        fputc(c, out);
    }
}

const char *re_page_episode_type_words(re_episode_type type)
{
    return type == RE_EPISODE_TRAILER ? "Trailer" : type == RE_EPISODE_BONUS ? "Bonus episode"
                                                                             : NULL;
}

void re_page_duration_words(uint64_t seconds, char *buf, size_t size)
{
    unsigned long long s = (unsigned long long)seconds;
    if (s >= 3600)
        snprintf(buf, size, "%llu h %llu min %llu s", s / 3600, s / 60 % 60, s % 60);
    else if (s >= 60)
        snprintf(buf, size, "%llu min %llu s", s / 60, s % 60);
    else
        snprintf(buf, size, "%llu s", s);
}

void re_page_clock_text(uint64_t ms, char *buf, size_t size)
{
    unsigned long long s = (unsigned long long)(ms / 1000);
    if (s >= 3600)
        snprintf(buf, size, "%llu:%02llu:%02llu", s / 3600, s / 60 % 60, s % 60);
    else
        snprintf(buf, size, "%llu:%02llu", s / 60, s % 60);
}

static void write_chapters(FILE *out, const re_render_facts *facts)
{
    fputs("\n## Chapters\n\n", out);
    for (size_t i = 0; i < facts->chapter_count; i++) {
        char at[32];
        re_page_clock_text(re_samples_to_ms(facts->chapters[i].start, facts->sample_rate), at, sizeof at);
        fprintf(out, "- %s ", at);
        md_text(out, facts->chapters[i].title ? facts->chapters[i].title : "", 0);
        fputc('\n', out);
    }
}

static int same_speaker(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

int re_page_cue_opens_paragraph(const re_render_facts *facts, const re_transcript *t, size_t i,
                                size_t *chapter)
{
    const re_cue *cue = &t->cues[i];
    int new_chapter = 0;
    while (*chapter + 1 < facts->chapter_count
           && cue->start >= facts->chapters[*chapter + 1].start) {
        (*chapter)++;
        new_chapter = 1;
    }
    int markdown = facts->episode && facts->episode->notes;
    return i == 0 || new_chapter || !same_speaker(cue->speaker, t->cues[i - 1].speaker)
           || (markdown && cue->opens_block);
}

/* One line per cue; a new paragraph where the speaker changes or a chapter starts, opened
 * by the speaker's name in bold when the cue has one. */
static void write_transcript(FILE *out, const re_render_facts *facts, const re_transcript *t)
{
    fputs("\n## Transcript\n", out);
    size_t chapter = 0;
    for (size_t i = 0; i < t->count; i++) {
        const re_cue *cue = &t->cues[i];
        if (re_page_cue_opens_paragraph(facts, t, i, &chapter)) {
            fputc('\n', out);
            if (cue->speaker) {
                fputs("**", out);
                md_text(out, cue->speaker, 0);
                int guard = re_page_ends_with_duration(cue->speaker, strlen(cue->speaker));
                fputs(guard ? "\\:** " : ":** ", out);
            }
            md_text(out, cue->text ? cue->text : "", cue->speaker == NULL);
        } else {
            md_text(out, cue->text ? cue->text : "", 1);
        }
        fputc('\n', out);
    }
}

/* A Markdown script's document as show notes: its safe part (notes.h: no raw HTML, no image,
 * links to safe addresses only) written back as Markdown whose every text is escaped, its
 * headings two levels down (under the page's own `##`), and a colon right after "duration"
 * written `\:`, so that the page's own claims stay the only ones. */
static re_status write_notes(FILE *out, const char *notes)
{
    fputs("\n## Show notes\n\n", out);
    char *html = re_html_from_markdown(notes);
    re_status status = html ? re_notes_write_markdown(out, html, 2) : RE_ERR_NOMEM;
    free(html);
    return status;
}

/* The cover beside the page, as on the HTML page: a Markdown image whose alt text is escaped
 * like every text from the script and whose file is a percent-encoded relative URL, so that
 * no name (blanks, brackets, parentheses, "javascript:") ends the link or reads as a URL. */
static re_status write_cover(FILE *out, const re_render_facts *facts)
{
    char *alt = re_page_cover_alt(facts->episode), *href = re_url_escape(facts->cover_file);
    int made = alt && href;
    if (made) {
        fputs("![", out);
        md_text(out, alt, 0);
        fprintf(out, "](%s)\n\n", href);
    }
    free(alt);
    free(href);
    return made ? RE_OK : RE_ERR_NOMEM;
}

/* The audio file, and the show's feed beside it when a show file is there (as the HTML page's
 * Subscribe link): relative links, percent-encoded, so that any file name stays one link. */
static re_status write_listen_links(FILE *out, const re_render_facts *facts,
                                    const char *audio_name)
{
    char *audio = re_url_escape(audio_name);
    if (!audio)
        return RE_ERR_NOMEM;
    fprintf(out, "- Listen: [the audio file](%s)\n", audio);
    free(audio);
    if (facts->in_feed)
        fputs("- Subscribe: [the show's feed (RSS)](feed.xml)\n", out);
    return RE_OK;
}

re_status re_page_write(FILE *out, const re_render_facts *facts, const re_transcript *transcript)
{
    return re_page_write_named(out, facts, transcript, NULL);
}

re_status re_page_write_named(FILE *out, const re_render_facts *facts,
                              const re_transcript *transcript, const char *audio_name)
{
    if (!out || !facts || !facts->episode || !facts->episode->title || facts->sample_rate == 0
        || (facts->chapter_count > 0 && !facts->chapters))
        return RE_ERR_INVALID;
    const re_episode *ep = facts->episode;
    char iso[RE_DURATION_ISO_MAX];
    re_duration_format_iso(re_samples_to_seconds(facts->samples, facts->sample_rate), iso);

    fputs("# ", out);
    md_text(out, ep->title, 0);
    fputs("\n\n", out);
    if (facts->cover_file && write_cover(out, facts) != RE_OK)
        return RE_ERR_NOMEM;
    if (ep->summary && *ep->summary) {
        md_text(out, ep->summary, 1);
        fputs("\n\n", out);
    }
    fprintf(out, "Duration: %s\n\n## Episode overview\n\n", iso);
    if (ep->show) {
        fputs("- Show: ", out);
        md_text(out, ep->show, 0);
        fputc('\n', out);
    }
    if (ep->published) {
        fputs("- Published: ", out);
        md_text(out, ep->published, 0);
        fputc('\n', out);
    }
    if (ep->episode_number >= 0)
        fprintf(out, "- Episode: %ld\n", ep->episode_number);
    const char *kind = re_page_episode_type_words(ep->type);
    if (kind)   /* a trailer or bonus episode says so, as the HTML page */
        fprintf(out, "- Type: %s\n", kind);
    fprintf(out, "- Audio duration: %s\n", iso);
    if (audio_name && write_listen_links(out, facts, audio_name) != RE_OK)
        return RE_ERR_NOMEM;
    if (facts->chapter_count > 0)
        write_chapters(out, facts);
    if (ep->notes && *ep->notes && write_notes(out, ep->notes) == RE_ERR_NOMEM)
        return RE_ERR_NOMEM;
    if (transcript && transcript->count > 0)
        write_transcript(out, facts, transcript);
    return ferror(out) || fflush(out) == EOF ? RE_ERR_WRITE : RE_OK;
}
