/* SPDX-License-Identifier: GPL-3.0-or-later */
/* transcript.c - cues from the timeline, and the WebVTT, SRT and JSON writers. */
#define _GNU_SOURCE
#include "transcript.h"

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "duration.h"
#include "text.h"
#include "utf8.h"

void re_transcript_init(re_transcript *t, unsigned sample_rate)
{
    memset(t, 0, sizeof *t);
    t->sample_rate = sample_rate;
    t->block_pending = 1;
}

void re_transcript_free(re_transcript *t)
{
    for (size_t i = 0; i < t->count; i++) {
        free(t->cues[i].speaker);
        free(t->cues[i].text);
    }
    free(t->cues);
    memset(t, 0, sizeof *t);
}

re_status re_transcript_add(re_transcript *t, uint64_t start, uint64_t end, const char *speaker,
                            const char *text)
{
    if (end < start || (t->count && start < t->cues[t->count - 1].end))
        return RE_ERR_INVALID;
    if (re_array_grow(&t->cues, &t->capacity, t->count,
                      sizeof *t->cues) != RE_OK)
        return RE_ERR_NOMEM;
    re_cue cue = { start, end, speaker ? strdup(speaker) : NULL, strdup(text),
                   t->block_pending || t->count == 0 };
    if ((speaker && !cue.speaker) || !cue.text) {
        free(cue.speaker);
        free(cue.text);
        return RE_ERR_NOMEM;
    }
    t->cues[t->count++] = cue;
    t->block_pending = 0;
    return RE_OK;
}

void re_transcript_start_block(re_transcript *t)
{
    t->block_pending = 1;
}

uint64_t re_cue_start_ms(const re_transcript *t, const re_cue *cue)
{
    return re_samples_to_ms(cue->start, t->sample_rate);
}

uint64_t re_cue_end_ms(const re_transcript *t, const re_cue *cue)
{
    return re_samples_to_ms(cue->end, t->sample_rate);
}

/* Byte offset of the character at engine position `pos` (counting characters from 1). */
static size_t byte_offset(const char *text, uint32_t pos)
{
    size_t offset = 0;
    for (uint32_t chars = 1; text[offset] && chars < pos; chars++) {
        offset++;
        while ((text[offset] & 0xC0) == 0x80)
            offset++;
    }
    return offset;
}

static size_t utf8_chars(const char *s, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        n += (s[i] & 0xC0) != 0x80;
    return n;
}

/* 1 when the code point that ends at text[at) opens a quotation or a parenthesis: the engine
 * starts a sentence or a word after it, but a reader puts it with what follows. */
static int opening_before(const char *text, size_t at, size_t *start)
{
    static const char *const openers[] = {
        "\"", "'", "(", "[", "{", "\u201c", "\u2018", "\u201e", "\u201a", "\u00ab", "\u2039",
        "\u00bf", "\u00a1", "\u300c", "\u300e", "\uff08",
    };
    for (size_t i = 0; i < sizeof openers / sizeof openers[0]; i++) {
        size_t n = strlen(openers[i]);
        if (at >= n && memcmp(text + at - n, openers[i], n) == 0) {
            *start = at - n;
            return 1;
        }
    }
    return 0;
}

/* Where a sentence or a line that the engine starts at text[at) starts for a reader: before
 * the opening quotes and brackets right in front of it. */
static size_t reader_start(const char *text, size_t at)
{
    size_t start;
    while (opening_before(text, at, &start))
        at = start;
    return at;
}

/* Adds text[from, to) trimmed as a cue, unless it is empty or has no time. */
static re_status add_piece(re_transcript *t, const char *text, size_t from, size_t to,
                           uint64_t start, uint64_t end, const char *speaker)
{
    while (from < to && text[from] == ' ')
        from++;
    while (to > from && text[to - 1] == ' ')
        to--;
    if (from == to || end <= start)
        return RE_OK;
    char *piece = strndup(text + from, to - from);
    if (!piece)
        return RE_ERR_NOMEM;
    re_status status = re_transcript_add(t, start, end, speaker, piece);
    free(piece);
    return status;
}

static int is_space_byte(char c)
{
    return c == ' ' || c == '\t' || c == '\n';
}

/* The start of the text's word (a run without blanks) that holds text[at). */
static size_t word_start(const char *text, size_t at)
{
    while (at > 0 && !is_space_byte(text[at - 1]))
        at--;
    return at;
}

/* The end of the text's word that starts at text[at), not past `to`. */
static size_t word_end(const char *text, size_t at, size_t to)
{
    while (at < to && !is_space_byte(text[at]))
        at++;
    return at;
}

/* Splits one sentence into lines of at most RE_CUE_MAX_LINE characters where the text's
 * words allow, only between the text's own words (never inside "torch.compile", which the
 * engine says as three words), each line starting when the engine starts its first word:
 * the first word event that falls in it. */
static re_status add_sentence(re_transcript *t, const re_sentence_span *s, size_t from, size_t to,
                              const re_timed_event *events, size_t event_count,
                              const re_transcript_segment *seg)
{
    size_t total = utf8_chars(seg->text + from, to - from);
    if (total <= RE_CUE_MAX_LINE)
        return add_piece(t, seg->text, from, to, s->start, s->end, seg->speaker);
    /* Balanced lines: as many as needed, each about as long as what is left divided by the
     * lines left, and never past RE_CUE_MAX_LINE when a word boundary allows. */
    size_t lines = (total + RE_CUE_MAX_LINE - 1) / RE_CUE_MAX_LINE;
    size_t target = (total + lines - 1) / lines;
    size_t piece_from = from;
    uint64_t piece_start = s->start;
    for (size_t i = 0; i < event_count; i++) {
        const re_timed_event *w = &events[i];
        if (w->type != RE_EVENT_WORD || w->segment != s->segment)
            continue;
        size_t at = word_start(seg->text, byte_offset(seg->text, w->text_pos));
        if (at <= piece_from || at >= to || w->sample <= piece_start || w->sample >= s->end)
            continue;   /* a word of the current line, or of no line of this sentence */
        size_t with_word = utf8_chars(seg->text + piece_from, word_end(seg->text, at, to) - piece_from);
        if (with_word <= target || (with_word <= RE_CUE_MAX_LINE && lines <= 1))
            continue;   /* this word still fits on the current line */
        re_status status = add_piece(t, seg->text, piece_from, at, piece_start, w->sample, seg->speaker);
        if (status != RE_OK)
            return status;
        piece_from = at;
        piece_start = w->sample;
        size_t left = utf8_chars(seg->text + piece_from, to - piece_from);
        lines = (left + RE_CUE_MAX_LINE - 1) / RE_CUE_MAX_LINE;
        target = (left + lines - 1) / lines;
    }
    return add_piece(t, seg->text, piece_from, to, piece_start, s->end, seg->speaker);
}

re_status re_transcript_build(re_transcript *t, const re_sentence_span *sentences, size_t sentence_count,
                              const re_timed_event *events, size_t event_count,
                              const re_transcript_segment *segments, size_t segment_count)
{
    for (size_t i = 0; i < sentence_count; i++) {
        const re_sentence_span *s = &sentences[i];
        if (s->segment >= segment_count)
            return RE_ERR_INVALID;
        const re_transcript_segment *seg = &segments[s->segment];
        /* A segment's first sentence starts with its text; a later one before the quotes and
         * brackets that open it, so that the cues, put together, are the script's text. */
        int first = i == 0 || sentences[i - 1].segment != s->segment;
        size_t from = first ? 0 : reader_start(seg->text, byte_offset(seg->text, s->text_pos));
        size_t to = strlen(seg->text);
        if (i + 1 < sentence_count && sentences[i + 1].segment == s->segment)
            to = reader_start(seg->text, byte_offset(seg->text, sentences[i + 1].text_pos));
        if (to < from)
            to = from;
        re_status status = add_sentence(t, s, from, to, events, event_count, seg);
        if (status != RE_OK)
            return status;
    }
    return RE_OK;
}

/* A cue's text as it is heard, for the transcript files: without its emoji, which are not
 * spoken (re_utf8_emoji_length), and without the blank one leaves between two ("good ✅ now"
 * -> "good now"); nothing else moves, so that the cues put together are the script's text
 * without its emoji, whitespace aside. The page keeps the written text. malloc'ed; NULL when
 * out of memory. */
static char *heard_text(const char *text)
{
    size_t len = strlen(text), o = 0;
    char *out = malloc(len + 1);
    if (!out)
        return NULL;
    for (size_t i = 0; i < len;) {
        size_t emoji = re_utf8_emoji_length(text + i, text + len);
        if (!emoji) {
            out[o++] = text[i++];
            continue;
        }
        i += emoji;
        if ((o == 0 || out[o - 1] == ' ') && text[i] == ' ')
            i++;   /* the blank between it and the next word */
    }
    while (o > 0 && out[o - 1] == ' ')
        o--;
    out[o] = '\0';
    return out;
}

/* The heard texts of t's cues, an empty one for a cue of emoji only (left out of the files).
 * NULL when out of memory; free with free_heard. */
static char **heard_texts(const re_transcript *t)
{
    char **texts = calloc(t->count ? t->count : 1, sizeof *texts);
    for (size_t i = 0; texts && i < t->count; i++) {
        texts[i] = heard_text(t->cues[i].text ? t->cues[i].text : "");
        if (!texts[i]) {
            for (size_t k = 0; k < i; k++)
                free(texts[k]);
            free(texts);
            return NULL;
        }
    }
    return texts;
}

static void free_heard(char **texts, size_t count)
{
    for (size_t i = 0; texts && i < count; i++)
        free(texts[i]);
    free(texts);
}

/* HH:MM:SS.mmm (WebVTT) or HH:MM:SS,mmm (SRT). */
static void format_time(uint64_t ms, char separator, char *buf, size_t len)
{
    snprintf(buf, len, "%02llu:%02llu:%02llu%c%03llu", (unsigned long long)(ms / 3600000),
             (unsigned long long)(ms / 60000 % 60), (unsigned long long)(ms / 1000 % 60), separator,
             (unsigned long long)(ms % 1000));
}

/* Cue text and voice names may not contain raw '&', '<' or '>' (WebVTT cue text rules);
 * escaping '>' also keeps "-->" out of cue text. */
static int write_vtt_escaped(FILE *out, const char *s)
{
    for (; *s; s++) {
        int rc;
        switch (*s) {
        case '&': rc = fputs("&amp;", out); break;
        case '<': rc = fputs("&lt;", out); break;
        case '>': rc = fputs("&gt;", out); break;
        default: rc = fputc(*s, out); break;
        }
        if (rc == EOF)
            return -1;
    }
    return 0;
}

re_status re_transcript_write_vtt(FILE *out, const re_transcript *t)
{
    char **heard = heard_texts(t);
    if (!heard)
        return RE_ERR_NOMEM;
    re_status status = fputs("WEBVTT\n", out) == EOF ? RE_ERR_WRITE : RE_OK;
    for (size_t i = 0, number = 0; status == RE_OK && i < t->count; i++) {
        const re_cue *c = &t->cues[i];
        char start[32], end[32];
        if (!heard[i][0])
            continue;
        format_time(re_cue_start_ms(t, c), '.', start, sizeof start);
        format_time(re_cue_end_ms(t, c), '.', end, sizeof end);
        if (fprintf(out, "\n%zu\n%s --> %s\n", ++number, start, end) < 0
            || (c->speaker && (fputs("<v ", out) == EOF || write_vtt_escaped(out, c->speaker) != 0
                               || fputc('>', out) == EOF))
            || write_vtt_escaped(out, heard[i]) != 0 || fputc('\n', out) == EOF)
            status = RE_ERR_WRITE;
    }
    free_heard(heard, t->count);
    if (status != RE_OK)
        return status;
    return ferror(out) ? RE_ERR_WRITE : RE_OK;
}

/* Whether s (at a '<') starts what ffmpeg's SRT decoder takes for a tag and drops: an
 * optional '/', then a name of letters, digits, '_' and '/' up to a blank or the '>' that
 * closes it, with no '<' before that '>' (`<care>`, `</b>`, `<x y=1>`; not `< x>`, `<-b>`). */
static int srt_tag_like(const char *s)
{
    size_t i = 1 + (s[1] == '/'), name = i;
    while (re_is_alnum(s[i]) || s[i] == '_' || s[i] == '/')
        i++;
    if (i == name || (s[i] != ' ' && s[i] != '>'))
        return 0;
    while (s[i] && s[i] != '>' && s[i] != '<')
        i++;
    return s[i] == '>';
}

/* SRT has no escapes, and its readers drop what looks like a tag: before such a '<' is read
 * as one, a space is written after it (`<care>` as `< care>`), so that the cue shows the
 * script's text, whitespace aside. */
static int write_srt_text(FILE *out, const char *s)
{
    for (; *s; s++) {
        if (fputc(*s, out) == EOF)
            return -1;
        if (*s == '<' && srt_tag_like(s) && fputc(' ', out) == EOF)
            return -1;
    }
    return 0;
}

re_status re_transcript_write_srt(FILE *out, const re_transcript *t)
{
    char **heard = heard_texts(t);
    if (!heard)
        return RE_ERR_NOMEM;
    re_status status = RE_OK;
    for (size_t i = 0, number = 0; status == RE_OK && i < t->count; i++) {
        const re_cue *c = &t->cues[i];
        char start[32], end[32];
        if (!heard[i][0])
            continue;
        format_time(re_cue_start_ms(t, c), ',', start, sizeof start);
        format_time(re_cue_end_ms(t, c), ',', end, sizeof end);
        if (fprintf(out, "%s%zu\n%s --> %s\n", number ? "\n" : "", number + 1, start, end) < 0
            || (c->speaker && (write_srt_text(out, c->speaker) != 0 || fputs(": ", out) == EOF))
            || write_srt_text(out, heard[i]) != 0 || fputc('\n', out) == EOF)
            status = RE_ERR_WRITE;
        number++;
    }
    free_heard(heard, t->count);
    if (status != RE_OK)
        return status;
    return ferror(out) ? RE_ERR_WRITE : RE_OK;
}

re_status re_transcript_write_json(FILE *out, const re_transcript *t)
{
    json_t *segments = json_array();
    json_t *root = json_pack("{s:s, s:o}", "version", "1.0.0", "segments", segments);
    char **heard = root ? heard_texts(t) : NULL;
    if (!heard) {
        json_decref(root);
        return RE_ERR_NOMEM;
    }
    for (size_t i = 0; i < t->count; i++) {
        const re_cue *c = &t->cues[i];
        if (!heard[i][0])
            continue;
        json_t *seg = json_object();
        int failed = !seg;
        if (!failed && c->speaker)
            failed |= json_object_set_new(seg, "speaker", json_string(c->speaker));
        if (!failed) {
            failed |= json_object_set_new(seg, "startTime", json_real((double)re_cue_start_ms(t, c) / 1000.0));
            failed |= json_object_set_new(seg, "endTime", json_real((double)re_cue_end_ms(t, c) / 1000.0));
            failed |= json_object_set_new(seg, "body", json_string(heard[i]));
            failed |= json_array_append_new(segments, seg);
        }
        if (failed) {
            free_heard(heard, t->count);
            json_decref(root);
            return RE_ERR_NOMEM;
        }
    }
    free_heard(heard, t->count);
    int rc = json_dumpf(root, out, JSON_INDENT(2) | JSON_REAL_PRECISION(12));
    json_decref(root);
    return rc != 0 || fputc('\n', out) == EOF ? RE_ERR_WRITE : RE_OK;
}

/* ---- one spoken segment: the engine's positions mapped back to the script's text ---- */

/* Maps the engine's character position in the spoken text to the script's text: the
 * transcript shows what the script says ("PR 189759"), at the times the engine said it. */
static uint32_t script_position(const re_spoken *spoken, const char *script_text, uint32_t pos)
{
    size_t at = byte_offset(spoken->text, pos);
    for (size_t i = 0; i < spoken->span_count; i++) {
        const re_spoken_span *sp = &spoken->spans[i];
        if (at >= sp->spoken_offset + sp->spoken_length && i + 1 < spoken->span_count)
            continue;
        size_t into = at > sp->spoken_offset ? at - sp->spoken_offset : 0;
        size_t offset = sp->text_offset
                        + (sp->spoken_length == sp->text_length && into < sp->text_length ? into : 0);
        return 1 + (uint32_t)utf8_chars(script_text, strnlen(script_text, offset));
    }
    return pos;
}

re_status re_transcript_add_spoken(re_transcript *t, const re_sentence_span *sentences,
                                   size_t sentence_count, const re_timed_event *events,
                                   size_t event_count, const re_spoken *spoken,
                                   const char *script_text, const char *speaker)
{
    re_transcript_segment segment = { .text = script_text, .speaker = speaker };
    re_sentence_span *mapped_sentences = calloc(sentence_count ? sentence_count : 1, sizeof *mapped_sentences);
    re_timed_event *mapped_events = calloc(event_count ? event_count : 1, sizeof *mapped_events);
    re_status status = mapped_sentences && mapped_events ? RE_OK : RE_ERR_NOMEM;
    for (size_t k = 0; status == RE_OK && k < sentence_count; k++) {
        mapped_sentences[k] = sentences[k];
        mapped_sentences[k].segment = 0;
        mapped_sentences[k].text_pos = script_position(spoken, script_text, sentences[k].text_pos);
    }
    for (size_t k = 0; status == RE_OK && k < event_count; k++) {
        mapped_events[k] = events[k];
        mapped_events[k].segment = 0;
        uint32_t start = script_position(spoken, script_text, events[k].text_pos);
        uint32_t end = script_position(spoken, script_text, events[k].text_pos + events[k].length);
        mapped_events[k].text_pos = start;
        mapped_events[k].length = end > start ? end - start : 0;
    }
    if (status == RE_OK)
        status = re_transcript_build(t, mapped_sentences, sentence_count, mapped_events,
                                     event_count, &segment, 1);
    free(mapped_sentences);
    free(mapped_events);
    return status;
}
