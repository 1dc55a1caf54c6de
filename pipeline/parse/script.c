/* SPDX-License-Identifier: GPL-3.0-or-later */
/* script.c - the episode script parser: front matter (script_front.c), then paragraphs,
 * headings and directives (script_directives.c) turned into a flat list of items (format:
 * docs/script-format.md). Here: lines, storage, paragraphs, the body and the public calls. */
#include "script.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "files.h"
#include "markdown.h"
#include "parse_errors.h"
#include "script_body.h"
#include "script_parser.h"
#include "text.h"
#include "utf8.h"

/* ---- lines ------------------------------------------------------------------------------ */

size_t re_skip_blanks(const char *s, size_t len, size_t i)
{
    while (i < len && re_is_line_blank(s[i]))
        i++;
    return i;
}

/* A new string of s[0..len) with each run of blanks made one space (s is trimmed). */
char *collapse_blanks(const char *s, size_t len)
{
    char *out = malloc(len + 1);
    size_t n = 0;

    if (!out)
        return NULL;
    for (size_t i = 0; i < len; i++) {
        if (!re_is_line_blank(s[i]))
            out[n++] = s[i];
        else if (n > 0 && out[n - 1] != ' ')
            out[n++] = ' ';
    }
    out[n] = '\0';
    return out;
}

/* Next line without its LF and without the CR of a CRLF; 0 at the end of the text. */
int re_next_line(line_reader *r, const char **line, size_t *len)
{
    if (r->pos >= r->len)
        return 0;
    const char *start = r->buf + r->pos;
    const char *nl = memchr(start, '\n', r->len - r->pos);
    size_t n = nl ? (size_t)(nl - start) : r->len - r->pos;

    r->pos += n + 1;
    r->number++;
    if (n > 0 && start[n - 1] == '\r')
        n--;
    *line = start;
    *len = n;
    return 1;
}

/* A line over the limit is an error at the first byte past it, and is not read further. */
int re_line_too_long(parser *p, size_t len, unsigned number)
{
    if (len <= RE_SCRIPT_MAX_LINE)
        return 0;
    re_parse_error(&p->err, number, RE_SCRIPT_MAX_LINE + 1, "line is %zu bytes; the limit is %u (is a line "
             "break missing?)", len, RE_SCRIPT_MAX_LINE);
    return 1;
}

int re_is_delimiter_line(const char *line, size_t len)
{
    return len >= 3 && memcmp(line, "---", 3) == 0 && re_skip_blanks(line, len, 3) == len;
}

/* ---- storage ---------------------------------------------------------------------------- */

static int grow(void **array, size_t *cap, size_t count, size_t size)
{
    if (count < *cap)
        return 1;
    size_t new_cap = *cap ? *cap * 2 : 16;
    void *bigger = realloc(*array, new_cap * size);
    if (!bigger)
        return 0;
    *array = bigger;
    *cap = new_cap;
    return 1;
}

static int text_append(text_buf *t, const char *s, size_t n)
{
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 256;
        while (cap < t->len + n + 1)
            cap *= 2;
        char *bigger = realloc(t->data, cap);
        if (!bigger)
            return 0;
        t->data = bigger;
        t->cap = cap;
    }
    memcpy(t->data + t->len, s, n);
    t->len += n;
    t->data[t->len] = '\0';
    return 1;
}

static void push_item(parser *p, re_item item)
{
    re_episode *ep = p->ep;

    if (!grow((void **)&ep->items, &p->item_cap, ep->item_count, sizeof *ep->items)) {
        free(item.text);
        free(item.language);
        free(item.units);
        p->err.nomem = 1;
        return;
    }
    ep->items[ep->item_count++] = item;
}

void re_add_voice_ref(parser *p, const char *name, size_t len, unsigned line, unsigned col)
{
    re_episode *ep = p->ep;
    char *copy = strndup(name, len);

    if (!copy || !grow((void **)&ep->voice_refs, &p->ref_cap, ep->voice_ref_count,
                       sizeof *ep->voice_refs)) {
        free(copy);
        p->err.nomem = 1;
        return;
    }
    ep->voice_refs[ep->voice_ref_count++] = (re_voice_ref){ copy, line, col };
}

/* The episode's copy of a profile name used by speech, added to `voices` on first use;
 * NULL after an error (too many profiles, reported at line:col) or when out of memory. */
static const char *intern_voice(parser *p, const char *name, unsigned line, unsigned col)
{
    re_episode *ep = p->ep;

    for (size_t i = 0; i < ep->voice_count; i++) {
        if (strcmp(ep->voices[i], name) == 0)
            return ep->voices[i];
    }
    if (ep->voice_count >= RE_SCRIPT_MAX_VOICES) {
        if (!p->too_many_voices)
            re_parse_error(&p->err, line, col, "more than %u voice profiles speak in this script; the "
                     "limit is %u", RE_SCRIPT_MAX_VOICES, RE_SCRIPT_MAX_VOICES);
        p->too_many_voices = 1;
        return NULL;
    }
    char *copy = strdup(name);
    if (!copy || !grow((void **)&ep->voices, &p->voice_cap, ep->voice_count,
                       sizeof *ep->voices)) {
        free(copy);
        p->err.nomem = 1;
        return NULL;
    }
    ep->voices[ep->voice_count++] = copy;
    return copy;
}

/* ---- paragraphs ------------------------------------------------------------------------- */

void re_add_piece(parser *p, re_item item)
{
    paragraph *para = &p->para;

    if (p->halted || ++p->segments > RE_SCRIPT_MAX_SEGMENTS) {
        /* One engine process per speech segment: past the limit the script is not read on. */
        if (!p->halted)
            re_parse_error(&p->err, item.line, item.col, "the script has more than %u segments (pieces of "
                     "speech and pauses); the limit is %u: split it into several episodes "
                     "(the rest of the script was not read)", RE_SCRIPT_MAX_SEGMENTS,
                     RE_SCRIPT_MAX_SEGMENTS);
        p->halted = 1;
        free(item.text);
        free(item.language);
        free(item.units);
        return;
    }
    if (!grow((void **)&para->pieces, &para->piece_cap, para->piece_count,
              sizeof *para->pieces)) {
        free(item.text);
        free(item.language);
        free(item.units);
        p->err.nomem = 1;
        return;
    }
    para->pieces[para->piece_count++] = item;
}

/* The blocks of a piece of len bytes, the first at offset 0: text before the first block
 * that starts in it goes on with the block taken last (after a [pause], a [lang] span).
 * Blocks that start at its end wait for the next piece. 0: no memory. */
static int take_units(parser *p, size_t len, re_item_unit **out, size_t *count)
{
    size_t here = 0;
    while (here < p->unit_count && p->units[here].offset < len)
        here++;
    int lead = here == 0 || p->units[0].offset > 0;
    re_item_unit *units = malloc((here + (size_t)lead) * sizeof *units);
    if (!units)
        return 0;
    size_t n = 0;
    if (lead) {
        units[n] = p->unit_now;
        units[n].offset = 0;
        units[n++].cont = 1;
    }
    for (size_t k = 0; k < here; k++)
        units[n++] = p->units[k];
    if (here)
        p->unit_now = p->units[here - 1];
    if (here < p->unit_count) {   /* the last of them starts the next piece */
        p->units[0] = p->units[p->unit_count - 1];
        p->units[0].offset = 0;
        p->unit_count = 1;
    } else {
        p->unit_count = 0;
    }
    *out = units;
    *count = n;
    return 1;
}

/* Ends the speech piece being collected, if it has any text. */
void re_finish_piece(parser *p)
{
    paragraph *para = &p->para;

    para->pending_space = 0;
    if (para->text.len == 0)
        return;
    char *text = strndup(para->text.data, para->text.len);
    if (!text) {
        p->err.nomem = 1;
        return;
    }
    char *language = NULL;
    if (para->lang[0] && !(language = strdup(para->lang))) {
        free(text);
        p->err.nomem = 1;
        return;
    }
    re_item_unit *units = NULL;
    size_t unit_count = 0;
    if (p->unit_open && !take_units(p, para->text.len, &units, &unit_count)) {
        free(text);
        free(language);
        p->err.nomem = 1;
        return;
    }
    para->speech_bytes += para->text.len;
    para->has_speech = 1;
    para->lang_has_text |= para->lang[0] != '\0';
    para->text.len = 0;
    re_add_piece(p, (re_item){ RE_ITEM_SPEECH, para->piece_line, para->piece_col, text, NULL, 0,
                            language, units, unit_count });
}

void re_add_text(parser *p, const char *s, size_t n, unsigned line, unsigned col)
{
    paragraph *para = &p->para;
    int ok = 1;

    if (para->text.len == 0) {
        para->piece_line = line;
        para->piece_col = col;
    } else if (para->pending_space) {
        ok = text_append(&para->text, " ", 1);
    }
    para->pending_space = 0;
    para->started = 1;
    if (!ok || !text_append(&para->text, s, n))
        p->err.nomem = 1;
}

void re_add_pause(parser *p, uint64_t us, unsigned line, unsigned col)
{
    if (p->pause_total_us <= RE_EPISODE_MAX_US && p->pause_total_us + us > RE_EPISODE_MAX_US)
        re_parse_error(&p->err, line, col, "the pauses add up to more than %llu hours here, the longest "
                 "episode that can be rendered", RE_EPISODE_MAX_US / 3600000000ULL);
    p->pause_total_us += us;
    re_finish_piece(p);
    p->para.has_pause = 1;
    re_add_piece(p, (re_item){ RE_ITEM_PAUSE, line, col, NULL, NULL, us, NULL, NULL, 0 });
}

/* ---- body ------------------------------------------------------------------------------- */

/* Reads s[0..len), which stands at line:col, into the open paragraph; with `directives`,
 * `[` may start a directive and `\[` is a literal '['. */
static void read_text(parser *p, const char *s, size_t len, unsigned line, unsigned col,
                      int directives)
{
    paragraph *para = &p->para;
    size_t i = 0;

    while (i < len && !p->err.nomem && !p->halted) {
        char c = s[i];
        size_t used = 0;
        if (re_is_line_blank(c)) {
            para->pending_space = 1;
            used = 1;
        } else if (directives && c == '\\' && i + 1 < len && s[i + 1] == '[') {
            re_add_text(p, "[", 1, line, col + (unsigned)i);
            used = 2;
        } else if (directives && c == '[') {
            used = re_directive(p, s + i, len - i, line, col + (unsigned)i);
        }
        if (used == 0) {
            re_add_text(p, &c, 1, line, col + (unsigned)i);
            used = 1;
        }
        i += used;
    }
}

static void open_paragraph(parser *p, unsigned line, unsigned col)
{
    if (!p->para.open) {
        p->para.open = 1;
        p->para.line = line;
        p->para.col = col;
    }
}

/* Reads one line of paragraph text from column i (its first non-blank). */
static void paragraph_line(parser *p, const char *line, size_t len, size_t i, unsigned number)
{
    open_paragraph(p, number, (unsigned)i + 1);
    p->para.pending_space = 1;   /* lines are joined with a space */
    read_text(p, line + i, len - i, number, (unsigned)i + 1, 1);
}

/* A heading waits for the next audio; one still waiting has none, which is an error. */
static void chapter_without_audio(parser *p)
{
    char q[QUOTE_SIZE];

    if (!p->chapter)
        return;
    re_parse_error(&p->err, p->chapter_line, p->chapter_col, "chapter '%s' has no audio: a heading must "
             "be followed by text or a pause", re_quote(q, p->chapter, strlen(p->chapter)));
    free(p->chapter);
    p->chapter = NULL;
}

static void flush_chapter(parser *p)
{
    if (!p->chapter)
        return;
    push_item(p, (re_item){ RE_ITEM_CHAPTER, p->chapter_line, p->chapter_col, p->chapter,
                            NULL, 0, NULL, NULL, 0 });
    p->chapter = NULL;
}

/* `#`..`######`, a blank, then the title; 0 if the line is not a heading. */
static int heading_level(const char *s, size_t len)
{
    size_t n = 0;

    while (n < len && s[n] == '#')
        n++;
    return n >= 1 && n <= 6 && n < len && re_is_line_blank(s[n]) ? (int)n : 0;
}

static void chapter(parser *p, const char *title, size_t title_len, unsigned line,
                    unsigned col)
{
    if (++p->chapters == RE_SCRIPT_MAX_CHAPTERS + 1)
        re_parse_error(&p->err, line, col, "this is chapter %u; the limit is %u (the MP3's chapter table "
                 "holds no more)", p->chapters, RE_SCRIPT_MAX_CHAPTERS);
    chapter_without_audio(p);
    p->chapter = collapse_blanks(title, title_len);
    p->chapter_line = line;
    p->chapter_col = col;
    if (!p->chapter)
        p->err.nomem = 1;
}

static void heading(parser *p, const char *s, size_t len, int level, unsigned line,
                    unsigned col)
{
    const char *title = s + level;
    size_t title_len = len - (size_t)level;

    re_trim(&title, &title_len);
    if (title_len == 0) {
        re_parse_error(&p->err, line, col, "a heading needs a title after '%.*s '", level, s);
        return;
    }
    chapter(p, title, title_len, line, col);
}

static const char *paragraph_voice(parser *p)
{
    const paragraph *para = &p->para;
    const char *name = para->voice[0] ? para->voice : p->ep->voice;

    if (!para->voice[0] && !p->ep->voice_line && !p->default_ref_added) {
        p->default_ref_added = 1;   /* the built-in default is named nowhere in the script */
        re_add_voice_ref(p, name, strlen(name), 0, 0);
    }
    return para->voice[0] ? intern_voice(p, name, para->voice_line, para->voice_col)
                          : intern_voice(p, name, para->line, para->col);
}

/* Moves the paragraph's pieces to the episode, with the BREAK and CHAPTER before them. A
 * BREAK is placed at the line that ended the paragraph before it, so item positions never
 * go backwards. */
static void emit_paragraph(parser *p, unsigned ended_by)
{
    paragraph *para = &p->para;
    const char *voice = NULL;

    if (para->has_speech) {
        if (p->last_voice && !p->pause_since_speech)
            push_item(p, (re_item){ RE_ITEM_BREAK, p->last_end_line, 1, NULL,
                                    p->last_voice, 0, NULL, NULL, 0 });
        voice = paragraph_voice(p);
        p->last_voice = voice;
        p->last_end_line = ended_by;
        p->pause_since_speech = 0;
    } else if (para->has_pause) {
        p->pause_since_speech = p->last_voice != NULL;
    }
    flush_chapter(p);
    for (size_t i = 0; i < para->piece_count; i++) {
        if (para->pieces[i].kind == RE_ITEM_SPEECH)
            para->pieces[i].voice = voice;
        push_item(p, para->pieces[i]);
    }
    para->piece_count = 0;
}

/* Ends the open paragraph, if any; `ended_by` is the line that ended it. */
static void end_paragraph(parser *p, unsigned ended_by)
{
    char q[QUOTE_SIZE];
    paragraph *para = &p->para;

    if (!para->open)
        return;
    if (para->lang[0]) {
        re_parse_error(&p->err, para->lang_line, para->lang_col, "the [lang %s] span is not closed: "
                 "end it with [/lang] in the same paragraph (a span never crosses a blank line "
                 "or a heading)", re_quote(q, para->lang, strlen(para->lang)));
        para->lang_has_text = 1;   /* one error for it is enough */
        re_close_lang(p);
    }
    re_finish_piece(p);
    if (para->voice[0] && !para->has_speech && !para->has_pause)
        re_parse_error(&p->err, para->voice_line, para->voice_col, "'[voice %s]' is alone in its paragraph: "
                 "it sets the voice of its own paragraph only, so put the text after it",
                 re_quote(q, para->voice, strlen(para->voice)));
    if (para->speech_bytes > RE_SCRIPT_MAX_PARAGRAPH)
        re_parse_error(&p->err, para->line, para->col, "paragraph is %zu bytes; the limit is %u: split it "
                 "with a blank line", para->speech_bytes, RE_SCRIPT_MAX_PARAGRAPH);
    if (para->has_speech || para->has_pause)
        emit_paragraph(p, ended_by);
    text_buf text = para->text;
    re_item *pieces = para->pieces;
    size_t piece_cap = para->piece_cap;
    memset(para, 0, sizeof *para);   /* keep the buffers for the next paragraph */
    para->text = text;
    para->text.len = 0;
    para->pieces = pieces;
    para->piece_cap = piece_cap;
}

static void body_line(parser *p, const char *line, size_t len, unsigned number)
{
    size_t i = re_skip_blanks(line, len, 0);
    int level;

    if (i == len) {
        end_paragraph(p, number);
    } else if (len - i >= 2 && line[i] == '/' && line[i + 1] == '/') {
        /* a comment: skipped, and the paragraph goes on */
    } else if ((level = heading_level(line + i, len - i)) > 0) {
        end_paragraph(p, number);
        heading(p, line + i, len - i, level, number, (unsigned)i + 1);
    } else {
        paragraph_line(p, line, len, i, number);
    }
}

/* ---- the body as the Markdown reader builds it (script_body.h) ------------------------ */

void re_body_span(parser *p, const char *s, size_t len, unsigned line, unsigned col)
{
    open_paragraph(p, line, col);
    read_text(p, s, len, line, col, 1);
}

void re_body_literal(parser *p, const char *s, size_t len, unsigned line, unsigned col)
{
    open_paragraph(p, line, col);
    read_text(p, s, len, line, col, 0);
}

void body_space(parser *p)
{
    p->para.pending_space = 1;
}

void re_body_end_sentence(parser *p)
{
    text_buf *t = &p->para.text;

    if (t->len == 0)
        return;
    char last = t->data[t->len - 1];
    if (last == ':' || last == ';' || last == ',')
        t->data[t->len - 1] = '.';
    else if (last != '.' && last != '!' && last != '?' && !text_append(t, ".", 1))
        p->err.nomem = 1;
    p->para.pending_space = 1;
}

void re_body_end_paragraph(parser *p, unsigned ended_by)
{
    end_paragraph(p, ended_by);
}

void re_body_heading(parser *p, const char *title, size_t len, unsigned line, unsigned col)
{
    end_paragraph(p, line);
    chapter(p, title, len, line, col);
}

unsigned re_body_section(parser *p, const char *title, unsigned char rank, int chapter)
{
    re_episode *ep = p->ep;
    if (!grow((void **)&ep->sections, &p->section_cap, ep->section_count + 1,
              sizeof *ep->sections)) {
        p->err.nomem = 1;
        return 0;
    }
    if (ep->section_count == 0)   /* the document before any heading */
        ep->sections[ep->section_count++] = (re_md_section){ NULL, 0, RE_RANK_OTHER };
    char *copy = strdup(title);
    if (!copy) {
        p->err.nomem = 1;
        return 0;
    }
    unsigned index = (unsigned)ep->section_count;
    unsigned release = chapter ? index : ep->sections[index - 1].release;
    ep->sections[ep->section_count++] = (re_md_section){ copy, release, rank };
    return index;
}

void re_body_unit(parser *p, unsigned char rank, unsigned char heading, unsigned section,
                  unsigned list, unsigned items, unsigned line, unsigned col)
{
    text_buf *t = &p->para.text;
    if (p->ep->section_count == 0 && re_body_section(p, "", RE_RANK_OTHER, 0) == 0)
        return;
    size_t offset = t->len + (t->len > 0 && p->para.pending_space);
    re_item_unit unit = { offset, line, col, rank, heading, 0, section, list, items };
    if (p->unit_count > 0 && p->units[p->unit_count - 1].offset == offset) {
        p->units[p->unit_count - 1] = unit;   /* the block before it said nothing */
    } else if (grow((void **)&p->units, &p->unit_cap, p->unit_count, sizeof *p->units)) {
        p->units[p->unit_count++] = unit;
    } else {
        p->err.nomem = 1;
        return;
    }
    if (!p->unit_open)
        p->unit_now = unit;   /* for text before it, which has none */
    p->unit_open = 1;
}

parse_errors *re_body_errors(parser *p)
{
    return &p->err;
}

re_episode *re_body_episode(parser *p)
{
    return p->ep;
}

re_md_outline *re_body_outline(parser *p)
{
    return p->outline;
}

int re_body_stopped(const parser *p)
{
    return p->halted || p->err.nomem;
}

void re_body_halt(parser *p)
{
    p->halted = 1;
}

static int has_speech(const re_episode *ep)
{
    for (size_t i = 0; i < ep->item_count; i++) {
        if (ep->items[i].kind == RE_ITEM_SPEECH)
            return 1;
    }
    return 0;
}

static void parse_body(parser *p, line_reader *r, unsigned closing_line)
{
    const char *line;
    size_t len;

    while (!p->err.nomem && !p->halted && re_next_line(r, &line, &len)) {
        if (!re_line_too_long(p, len, r->number))
            body_line(p, line, len, r->number);
    }
    end_paragraph(p, r->number + 1);
    if (!p->halted)
        chapter_without_audio(p);
    if (!has_speech(p->ep))
        re_parse_error(&p->err, closing_line + 1, 1, "the script has no spoken text");
}

/* A Markdown document: front matter only when its first line is `---`; the title, when the
 * front matter gives none, is the first level-1 heading (markdown.c), else the file name. */
static void parse_markdown(parser *p, line_reader *r)
{
    const char *line;
    size_t len;
    line_reader first = *r;
    unsigned closing_line = 0;

    if (re_next_line(&first, &line, &len) && re_is_delimiter_line(line, len)
        && !re_parse_front_matter(p, r, &closing_line))
        return;
    if (p->err.nomem)
        return;
    size_t body_len = r->pos < r->len ? r->len - r->pos : 0;
    if (!(p->ep->notes = strndup(r->buf + r->pos, body_len))) {
        p->err.nomem = 1;
        return;
    }
    re_markdown_body(p, r->buf + r->pos, body_len, r->number + 1);
    if (!p->ep->title && !p->err.nomem) {
        const char *base = strrchr(p->err.file, '/');
        base = base ? base + 1 : p->err.file;
        const char *dot = strrchr(base, '.');
        size_t n = dot && dot > base ? (size_t)(dot - base) : strlen(base);
        if (!(p->ep->title = strndup(base, n)))
            p->err.nomem = 1;
    }
    if (!p->halted)
        chapter_without_audio(p);
    if (!p->err.nomem && !p->halted && !has_speech(p->ep))
        re_parse_error(&p->err, closing_line + 1, 1, "the document has no spoken text");
}

/* ---- public ----------------------------------------------------------------------------- */

int re_script_is_markdown(const char *path)
{
    size_t n = path ? strlen(path) : 0;

    return (n > 3 && strcasecmp(path + n - 3, ".md") == 0)
           || (n > 9 && strcasecmp(path + n - 9, ".markdown") == 0);
}

static re_episode *episode_new(const char *file)
{
    re_episode *ep = calloc(1, sizeof *ep);

    if (!ep)
        return NULL;
    ep->episode_number = -1;
    ep->season = -1;
    ep->file = strdup(file);
    ep->language = strdup("en-us");
    ep->voice = strdup("host");
    ep->music = (re_music_spec){ .level_lufs = RE_MUSIC_DEFAULT_LEVEL_LUFS,
                                 .duck_db = RE_MUSIC_DEFAULT_DUCK_DB,
                                 .fade_us = RE_MUSIC_DEFAULT_FADE_US };
    ep->sound_gap_us = RE_SOUND_GAP_DEFAULT_US;
    if (!ep->file || !ep->language || !ep->voice) {
        re_episode_free(ep);
        return NULL;
    }
    return ep;
}

void re_episode_free(re_episode *episode)
{
    if (!episode)
        return;
    for (size_t i = 0; i < episode->item_count; i++) {
        free(episode->items[i].text);
        free(episode->items[i].language);
        free(episode->items[i].units);
    }
    for (size_t i = 0; i < episode->section_count; i++)
        free(episode->sections[i].title);
    free(episode->sections);
    for (size_t i = 0; i < episode->voice_count; i++)
        free(episode->voices[i]);
    for (size_t i = 0; i < episode->voice_ref_count; i++)
        free(episode->voice_refs[i].name);
    free(episode->items);
    free(episode->voices);
    free(episode->voice_refs);
    free(episode->file);
    free(episode->title);
    free(episode->show);
    free(episode->published);
    free(episode->summary);
    free(episode->guid);
    free(episode->author);
    free(episode->language);
    free(episode->voice);
    free(episode->lexicon);
    free(episode->image);
    free(episode->intro);
    free(episode->outro);
    free(episode->music.file);
    free(episode->notes);
    free(episode);
}

static void parser_free(parser *p)
{
    for (size_t i = 0; i < p->para.piece_count; i++) {
        free(p->para.pieces[i].text);
        free(p->para.pieces[i].units);
    }
    free(p->units);
    free(p->para.pieces);
    free(p->para.text.data);
    free(p->chapter);
}

/* re_script_parse; with keep_partial, an episode that failed with RE_ERR_INPUT is handed out
 * too (re_script_parse_partial). */
static re_status parse_script(const char *file, const char *buf, size_t len, re_episode **out,
                              re_diagnostics *diag, int keep_partial, re_md_outline *outline)
{
    parser p = { .err = { .file = file ? file : "-", .diag = diag }, .outline = outline };
    line_reader r = { 0 };
    unsigned closing_line = 0;
    int decodable = 0;
    re_status status;

    if (!out || !diag || (!buf && len > 0))
        return RE_ERR_INVALID;
    *out = NULL;
    size_t bom = buf ? re_utf8_bom_length(buf, len) : 0;
    r.buf = buf ? buf + bom : "";
    r.len = len - bom;
    status = re_utf8_check_text(p.err.file, r.buf, r.len, &decodable, diag);
    if (status != RE_OK && (status == RE_ERR_NOMEM || !decodable))
        return status;
    p.err.count = status == RE_ERR_INPUT;
    p.ep = episode_new(p.err.file);
    if (!p.ep)
        return RE_ERR_NOMEM;
    p.markdown = re_script_is_markdown(p.err.file);
    if (p.markdown)
        parse_markdown(&p, &r);
    else if (re_parse_front_matter(&p, &r, &closing_line) && !p.err.nomem)
        parse_body(&p, &r, closing_line);
    parser_free(&p);
    status = p.err.nomem ? RE_ERR_NOMEM : p.err.count ? RE_ERR_INPUT : RE_OK;
    if (status != RE_OK && !(status == RE_ERR_INPUT && keep_partial)) {
        re_episode_free(p.ep);
        return status;
    }
    *out = p.ep;
    return status;
}

re_status re_script_parse(const char *file, const char *buf, size_t len, re_episode **out,
                          re_diagnostics *diag)
{
    return parse_script(file, buf, len, out, diag, 0, NULL);
}

re_status re_script_parse_partial(const char *file, const char *buf, size_t len,
                                  re_episode **out, re_diagnostics *diag)
{
    return parse_script(file, buf, len, out, diag, 1, NULL);
}

re_status re_markdown_outline(const char *file, const char *buf, size_t len, re_md_outline *out,
                              re_diagnostics *diag)
{
    re_episode *episode = NULL;

    if (!out || !re_script_is_markdown(file))
        return RE_ERR_INVALID;
    memset(out, 0, sizeof *out);
    re_status status = parse_script(file, buf, len, &episode, diag, 0, out);
    re_episode_free(episode);
    return status;
}

void re_md_outline_free(re_md_outline *outline)
{
    if (!outline)
        return;
    for (size_t i = 0; i < outline->count; i++) {
        free(outline->blocks[i].kind);
        free(outline->blocks[i].account);
    }
    free(outline->blocks);
    memset(outline, 0, sizeof *outline);
}

re_status re_script_load(const char *path, size_t max_size, re_episode **out,
                         re_diagnostics *diag)
{
    char *buf = NULL;
    size_t len = 0;
    re_status status;

    if (!path || !out || !diag)
        return RE_ERR_INVALID;
    *out = NULL;
    status = re_file_read(path, max_size, RE_READ_ANY, &buf, &len, diag);
    if (status == RE_OK)
        status = re_script_parse(path, buf, len, out, diag);
    free(buf);
    return status;
}

/* Past the blanks, line breaks and comment lines that the parser read as one space between
 * two words of a paragraph: *pos moves on, *line and *line_start follow it. */
static void skip_joining_space(const char *buf, size_t len, size_t *pos, unsigned *line,
                               size_t *line_start)
{
    for (;;) {
        *pos = re_skip_blanks(buf, len, *pos);
        if (*pos < len && buf[*pos] == '\n') {
            *line_start = ++*pos;
            ++*line;
            size_t i = re_skip_blanks(buf, len, *pos);
            if (len - i >= 2 && buf[i] == '/' && buf[i + 1] == '/') {   /* a comment line */
                const char *nl = memchr(buf + i, '\n', len - i);
                *pos = nl ? (size_t)(nl - buf) : len;
            }
            continue;
        }
        return;
    }
}

void re_script_locate(const char *buf, size_t len, const re_item *item, size_t offset,
                      unsigned *line, unsigned *col)
{
    *line = item->line;
    *col = item->col;
    if (!buf || !item->text || item->line == 0 || item->col == 0)
        return;
    size_t bom = re_utf8_bom_length(buf, len);
    buf += bom;
    len -= bom;
    size_t pos = 0, line_start = 0;
    for (unsigned n = 1; n < item->line; n++) {
        const char *nl = memchr(buf + pos, '\n', len - pos);
        if (!nl)
            return;
        pos = line_start = (size_t)(nl - buf) + 1;
    }
    pos += item->col - 1;
    unsigned at_line = item->line;
    const char *text = item->text;
    for (size_t t = 0; t < offset; t++) {
        if (text[t] == '\0' || pos >= len)
            return;
        if (text[t] == ' ' && (re_is_line_blank(buf[pos]) || buf[pos] == '\n')) {
            skip_joining_space(buf, len, &pos, &at_line, &line_start);
        } else if (text[t] == '[' && buf[pos] == '\\' && pos + 1 < len && buf[pos + 1] == '[') {
            pos += 2;
        } else if (buf[pos] == text[t]) {
            pos++;
        } else {
            return;   /* not the text this item was read from */
        }
    }
    *line = at_line;
    *col = (unsigned)(pos - line_start) + 1;
}

re_status re_episode_check_voices(const re_episode *episode, re_voice_set *voices,
                                  re_diagnostics *diag)
{
    int failed = 0;
    char near[RE_VOICE_NAME_MAX + 1];

    if (!episode || !voices || !diag)
        return RE_ERR_INVALID;
    for (size_t i = 0; i < episode->voice_ref_count; i++) {
        const re_voice_ref *ref = &episode->voice_refs[i];
        const re_voice_profile *profile;
        re_voice_lookup how;
        re_status status = re_voice_set_find(voices, ref->name, &profile, &how, diag);
        if (status == RE_OK)
            continue;
        if (status != RE_ERR_INPUT)
            return status;
        failed = 1;
        if (how == RE_VOICE_BROKEN)
            status = re_diag_add(diag, episode->file, ref->line, ref->col, "voice profile '%s' "
                                 "is invalid (see its errors above)", ref->name);
        else if ((status = re_voice_set_nearest(voices, ref->name, near)) == RE_OK)
            status = re_diag_add(diag, episode->file, ref->line, ref->col, "unknown voice "
                                 "profile '%s'%s%s%s (looked in: %s); to define it, write "
                                 "%s.voice (key = value lines: voice, speaker, rate...) into "
                                 "a folder given with --voices DIR", ref->name,
                                 near[0] ? " (did you mean '" : "", near, near[0] ? "'?)" : "",
                                 re_voice_set_search_path(voices), ref->name);
        if (status != RE_OK)
            return RE_ERR_NOMEM;
    }
    return failed ? RE_ERR_INPUT : RE_OK;
}
