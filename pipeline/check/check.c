/* check.c - measures MP3s with libmpg123 and checks the duration and size claims that pages,
 * feeds, JSON files and ID3 tags make about them (see check.h). */
#define _GNU_SOURCE  /* asprintf, vasprintf */
#include "check.h"
#include "files.h"
#include "mp3_decoder.h"
#include "sidecar.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>
#include <libxml/SAX2.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <mpg123.h>

#define US_PER_S 1000000ULL
#define ITUNES_NS "http://www.itunes.com/dtds/podcast-1.0.dtd"
#define ATOM_NS "http://www.w3.org/2005/Atom"
#define RSS1_NS "http://purl.org/rss/1.0/"
#define JSON_MAX_DEPTH 4096          /* jansson stops at 2048 before we get here */
#define CLAIM_TEXT_MAX 80            /* longer unreadable values are cut in reports */
#define LOOK_MAX 4096                /* how far the line scanner looks into a tag, and ... */
#define LOOK_BACK 256                /* ... back for the start of a line: linear time even on
                                      * pathological one-line files */

/* Adds a formatted diagnostic and returns `status`, or RE_ERR_NOMEM if it could not be kept. */
static re_status fail(re_diagnostics *diag, re_status status, const char *file, unsigned line,
                      unsigned col, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static re_status fail(re_diagnostics *diag, re_status status, const char *file, unsigned line,
                      unsigned col, const char *fmt, ...)
{
    char *msg = NULL;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&msg, fmt, ap);
    va_end(ap);
    if (n < 0)
        return RE_ERR_NOMEM;
    re_status st = diag ? re_diag_add(diag, file, line, col, "%s", msg) : RE_OK;
    free(msg);
    return st == RE_OK ? status : st;
}

/* ======================================================================================
 * Measuring
 * ====================================================================================== */

void re_mp3_measurement_free(re_mp3_measurement *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->tlen_count; i++)
        free(m->tlen[i]);
    free(m->tlen);
    memset(m, 0, sizeof *m);
}

static char *dup_bytes(const char *s, size_t n)
{
    char *p = malloc(n + 1);
    if (p) {
        memcpy(p, s, n);
        p[n] = '\0';
    }
    return p;
}

/* Copies the texts of the leading ID3v2 tag's TLEN frames. */
static re_status collect_tlen(mpg123_handle *mh, re_mp3_measurement *m)
{
    mpg123_id3v1 *v1 = NULL;
    mpg123_id3v2 *v2 = NULL;
    if (!(mpg123_meta_check(mh) & MPG123_ID3) || mpg123_id3(mh, &v1, &v2) != MPG123_OK || !v2)
        return RE_OK;
    for (size_t i = 0; i < v2->texts; i++) {
        const mpg123_text *t = &v2->text[i];
        if (memcmp(t->id, "TLEN", 4) != 0)
            continue;
        size_t n = t->text.p ? strnlen(t->text.p, t->text.fill) : 0;
        char **grown = realloc(m->tlen, (m->tlen_count + 1) * sizeof *grown);
        if (!grown)
            return RE_ERR_NOMEM;
        m->tlen = grown;
        if (!(m->tlen[m->tlen_count] = dup_bytes(t->text.p ? t->text.p : "", n)))
            return RE_ERR_NOMEM;
        m->tlen_count++;
    }
    return RE_OK;
}

/* Reads the stream up to its first frame: format, MPEG version, layer, LAME tag, TLEN. */
static re_status decoder_start(mpg123_handle *mh, const char *path, re_mp3_measurement *m,
                               re_diagnostics *diag)
{
    long rate = 0;
    int channels = 0, encoding = 0;
    if (mpg123_getformat(mh, &rate, &channels, &encoding) != MPG123_OK)
        return fail(diag, RE_ERR_FORMAT, path, 0, 0,
                    "not an MP3: no complete MPEG audio frame found");
    struct mpg123_frameinfo2 info;
    if (mpg123_info2(mh, &info) != MPG123_OK)
        return fail(diag, RE_ERR_FORMAT, path, 0, 0, "not an MP3: %s", mpg123_strerror(mh));
    if (info.layer != 3)
        return fail(diag, RE_ERR_FORMAT, path, 0, 0,
                    "not an MP3: MPEG audio layer %d, not layer III", info.layer);
    if (rate <= 0 || channels < 1 || channels > 2 || encoding != MPG123_ENC_SIGNED_16)
        return fail(diag, RE_ERR_FORMAT, path, 0, 0, "not an MP3: unusable output format");
    m->sample_rate = (unsigned)rate;
    m->channels = (unsigned)channels;
    m->mpeg_version = info.version == MPG123_1_0 ? 1 : info.version == MPG123_2_0 ? 2 : 25;
    long delay = -1;
    if (mpg123_getstate2(mh, MPG123_ENC_DELAY, &delay, NULL) != MPG123_OK)
        delay = -1;
    m->has_lame_tag = delay >= 0;
    m->tag_frames = -1;
    if (m->has_lame_tag) {   /* with a tag, the frame length comes from it, not a guess */
        off_t frames = mpg123_framelength(mh);
        m->tag_frames = frames >= 0 ? (int64_t)frames : -1;
    }
    return collect_tlen(mh, m);
}

/* Notes where decoding stopped early: after the last good frame, or at the frame that does
 * not fit. */
static void stop_at(mpg123_handle *mh, re_mp3_measurement *m, int after_frame, const char *why)
{
    off_t at = mpg123_framepos(mh);   /* where the frame parsed last starts */
    struct mpg123_frameinfo2 info;
    if (after_frame && at >= 0 && mpg123_info2(mh, &info) == MPG123_OK && info.framesize > 0)
        at += info.framesize;
    m->stopped_at = at > 0 ? (uint64_t)at : 1;
    m->stopped_why = why;
}

/* Decodes every frame, counting PCM frames per channel. With a Xing/LAME tag, only the frames
 * it announces count: random bytes after the audio can pass for a frame or two. Junk (or
 * damage) ends the count with a note; so does a change of sample rate. */
static re_status decoder_run(mpg123_handle *mh, const char *path, re_mp3_measurement *m,
                             re_diagnostics *diag)
{
    unsigned channels = m->channels;
    for (;;) {
        off_t num = 0;
        unsigned char *audio = NULL;
        size_t bytes = 0;
        int rc = mpg123_decode_frame(mh, &num, &audio, &bytes);
        if (rc == MPG123_DONE)
            break;
        if (rc == MPG123_NEW_FORMAT) {
            long rate = 0;
            int ch = 0, enc = 0;
            if (mpg123_getformat(mh, &rate, &ch, &enc) != MPG123_OK || ch < 1 || ch > 2
                || (unsigned)rate != m->sample_rate) {
                stop_at(mh, m, 0, "the sample rate changes (junk, or another stream joined on)");
                break;
            }
            channels = (unsigned)ch;
        } else if (rc != MPG123_OK && m->samples == 0) {
            return fail(diag, RE_ERR_FORMAT, path, 0, 0, "not an MP3: %s", mpg123_strerror(mh));
        } else if (rc != MPG123_OK) {
            stop_at(mh, m, 1, "what follows is not MPEG audio (trailing junk or damage)");
            break;
        }
        if (m->tag_frames >= 0 && num >= m->tag_frames)   /* num counts from 0 */
            m->extra_frames++;
        else
            m->samples += bytes / (2u * channels);
    }
    off_t frame = mpg123_tellframe(mh);
    m->frames = frame > 0 ? (uint64_t)frame : 0;
    if (m->frames >= m->extra_frames)
        m->frames -= m->extra_frames;
    m->truncated = m->tag_frames >= 0 && m->frames < (uint64_t)m->tag_frames;
    return RE_OK;
}

re_status re_mp3_measure(const char *path, re_mp3_measurement *out, re_diagnostics *diag)
{
    if (!path || !out)
        return RE_ERR_INVALID;
    memset(out, 0, sizeof *out);
    int fd = -1;
    mpg123_handle *mh = NULL;
    re_status status = re_file_open_regular(path, &fd, &out->bytes, diag);
    if (status != RE_OK)
        goto done;
    if ((status = re_mp3_decoder_new(MPG123_ENC_SIGNED_16, &mh, NULL, 0)) != RE_OK) {
        if (status != RE_ERR_NOMEM)
            status = fail(diag, status, path, 0, 0, "cannot set up the MP3 decoder");
        goto done;
    }
    if (mpg123_open_fd(mh, fd) != MPG123_OK) {
        status = fail(diag, RE_ERR_READ, path, 0, 0, "cannot read: %s", mpg123_strerror(mh));
        goto done;
    }
    status = decoder_start(mh, path, out, diag);
    if (status == RE_OK)
        status = decoder_run(mh, path, out, diag);
    if (mpg123_close(mh) != MPG123_OK && status == RE_OK)
        status = fail(diag, RE_ERR_READ, path, 0, 0, "cannot close: %s", mpg123_strerror(mh));
done:
    if (mh)
        mpg123_delete(mh);
    if (fd >= 0 && close(fd) != 0 && status == RE_OK)
        status = fail(diag, RE_ERR_READ, path, 0, 0, "cannot close: %s", strerror(errno));
    if (status != RE_OK)
        re_mp3_measurement_free(out);
    return status;
}

/* ======================================================================================
 * Claims: the list, and reading values
 * ====================================================================================== */

void re_claim_list_init(re_claim_list *list)
{
    memset(list, 0, sizeof *list);
}

static void claim_free(re_claim *c)
{
    free(c->file);
    free(c->field);
    free(c->text);
}

void re_claim_list_free(re_claim_list *list)
{
    if (!list)
        return;
    for (size_t i = 0; i < list->count; i++)
        claim_free(&list->items[i]);
    free(list->items);
    memset(list, 0, sizeof *list);
}

/* Appends a zeroed claim with its file, field and text copied; *out points at it. */
static re_status claim_push(re_claim_list *list, const char *file, const char *field,
                            size_t field_len, const char *text, size_t text_len, re_claim **out)
{
    if (list->count == list->capacity) {
        size_t cap = list->capacity ? list->capacity * 2 : 8;
        re_claim *items = realloc(list->items, cap * sizeof *items);
        if (!items)
            return RE_ERR_NOMEM;
        list->items = items;
        list->capacity = cap;
    }
    re_claim c;
    memset(&c, 0, sizeof c);
    if (text_len > CLAIM_TEXT_MAX)
        text_len = CLAIM_TEXT_MAX;
    c.file = strdup(file);
    c.field = dup_bytes(field, field_len);
    c.text = dup_bytes(text, text_len);
    if (!c.file || !c.field || !c.text) {
        claim_free(&c);
        return RE_ERR_NOMEM;
    }
    list->items[list->count] = c;
    *out = &list->items[list->count++];
    return RE_OK;
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int is_alpha(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int is_space(char c)
{
    return c == ' ' || c == '\t';
}

/* A decimal count: digits only, no sign, no overflow. */
static int parse_count(const char *s, size_t n, uint64_t *out)
{
    uint64_t v = 0;
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++) {
        if (!is_digit(s[i]) || v > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10)
            return 0;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    *out = v;
    return 1;
}

/* Records how the duration text s[0..n) was written (it has already parsed). */
static void read_style(re_claim *c, const char *s, size_t n)
{
    re_claim_style st = { 0, '.', 1, 0, 0 };
    size_t i = 0;
    for (; i < n && s[i] != '.' && s[i] != ','; i++)
        if (s[i] == ':')
            st.clock_fields++;
    if (i < n) {
        st.frac_sep = s[i];
        for (i++; i < n && is_digit(s[i]); i++)
            st.frac_digits++;
    }
    while (st.first_width < n && is_digit(s[st.first_width]))
        st.first_width++;
    if (st.frac_digits > 18)
        st.frac_digits = 18;
    if (st.first_width > 20)
        st.first_width = 20;
    if (c->notation == RE_NOTATION_ISO) {
        /* PT173S: seconds only although minutes were available (PT45S is just canonical) */
        st.seconds_only = n > 3 && s[1] == 'T' && s[n - 1] == 'S'
                          && c->value.us >= 60 * US_PER_S;
        for (size_t j = 2; st.seconds_only && j + 1 < n; j++)
            st.seconds_only = is_digit(s[j]) || s[j] == '.' || s[j] == ',';
    }
    c->style = st;
}

/* Reads a duration value: ISO 8601 when it starts with P, else a clock form or seconds. */
static void read_duration(re_claim *c, const char *s, size_t n)
{
    c->kind = RE_CLAIM_DURATION;
    c->readable = 0;
    if (n > 0 && s[0] == 'P') {
        c->notation = RE_NOTATION_ISO;
        c->readable = re_duration_parse_iso(s, n, &c->value) == RE_OK;
    } else {
        c->notation = RE_NOTATION_CLOCK;
        c->readable = re_duration_parse_clock(s, n, &c->value) == RE_OK;
    }
    if (c->readable)
        read_style(c, s, n);
}

/* Reads a count claim; MS counts also become a duration with 1 ms precision. */
static void read_count(re_claim *c, re_claim_kind kind, const char *s, size_t n)
{
    c->kind = kind;
    c->notation = RE_NOTATION_INTEGER;
    c->readable = parse_count(s, n, &c->count);
    if (c->readable && kind == RE_CLAIM_MS) {
        if (c->count > UINT64_MAX / 1000)
            c->readable = 0;
        else
            c->value = (re_duration){ c->count * 1000, 1000 };
    }
}

/* ======================================================================================
 * Extraction: shared context, positions
 * ====================================================================================== */

typedef struct span {
    size_t start, end;
} span;

typedef struct extract_ctx {
    const char *name;
    const char *buf;
    size_t len;
    const char *mp3_name;
    re_claim_list *out;
    re_diagnostics *diag;
    re_diagnostics *notes;
    span *skips;          /* regions the line scanner ignores (sorted) */
    size_t skip_count, skip_cap;
    span *blocks;         /* HTML: JSON-LD script contents */
    size_t block_count, block_cap;
    int html;             /* the line scanner steps over tags (style="animation-duration: 2s") */
    size_t pos_off, pos_line_start;   /* position_of's memory: counting resumes from here */
    unsigned pos_line;
    size_t claims;        /* found in this file so far */
} extract_ctx;

/* 1-based line and byte column of offset `off` (columns after a leading BOM). Claims come
 * mostly in order, so counting resumes where the last call stopped. */
static void position_of(extract_ctx *x, size_t off, unsigned *line, unsigned *col)
{
    if (x->pos_line == 0 || off < x->pos_off) {
        x->pos_off = 0;
        x->pos_line = 1;
        x->pos_line_start = 0;
    }
    for (size_t i = x->pos_off; i < off; i++)
        if (x->buf[i] == '\n') {
            x->pos_line++;
            x->pos_line_start = i + 1;
        }
    x->pos_off = off;
    size_t c = off - x->pos_line_start + 1;
    if (x->pos_line == 1 && off >= 3 && memcmp(x->buf, "\xEF\xBB\xBF", 3) == 0)
        c -= 3;
    *line = x->pos_line;
    *col = c > UINT_MAX ? UINT_MAX : (unsigned)c;
}

/* Adds a claim whose value sits at buf[off..off+len) (len 0: not rewritable) and shows
 * as `text`. */
static re_status add_claim(extract_ctx *x, const char *field, size_t field_len, size_t off,
                           size_t len, const char *text, size_t text_len, re_claim **out)
{
    if (++x->claims > RE_CHECK_MAX_CLAIMS)
        return fail(x->diag, RE_ERR_LIMIT, x->name, 0, 0, "more than %u claims in one file",
                    RE_CHECK_MAX_CLAIMS);
    re_status st = claim_push(x->out, x->name, field, field_len, text, text_len, out);
    if (st != RE_OK)
        return st;
    position_of(x, off, &(*out)->line, &(*out)->col);
    (*out)->offset = off;
    (*out)->length = len;
    return RE_OK;
}

static re_status push_span(span **list, size_t *count, size_t *cap, size_t start, size_t end)
{
    if (*count == *cap) {
        size_t n = *cap ? *cap * 2 : 8;
        span *grown = realloc(*list, n * sizeof *grown);
        if (!grown)
            return RE_ERR_NOMEM;
        *list = grown;
        *cap = n;
    }
    (*list)[(*count)++] = (span){ start, end };
    return RE_OK;
}

static const char *find_ci(const char *buf, size_t from, size_t len, const char *needle)
{
    size_t n = strlen(needle);
    for (size_t i = from; i + n <= len; i++)
        if (strncasecmp(buf + i, needle, n) == 0)
            return buf + i;
    return NULL;
}

/* ======================================================================================
 * Extraction: `Duration: VALUE` lines in text, Markdown and HTML
 * ====================================================================================== */

static int is_markup(char c)
{
    return c == '*' || c == '_' || c == '`';
}

/* Skips blanks, emphasis marks, HTML tags and (after the colon) entities such as &nbsp;,
 * without leaving the line. */
static size_t skip_separators(const char *buf, size_t i, size_t len, int entities)
{
    while (i < len) {
        if (is_space(buf[i]) || is_markup(buf[i]) || (entities && buf[i] == '|')) {
            i++;
        } else if (buf[i] == '<') {
            size_t j = i + 1;
            while (j < len && buf[j] != '>' && buf[j] != '\n' && j - i < LOOK_MAX)
                j++;
            if (j >= len || buf[j] != '>')
                return i;
            i = j + 1;
        } else if (entities && buf[i] == '&') {
            size_t j = i + 1;
            while (j < len && j - i < 10 && (is_alpha(buf[j]) || is_digit(buf[j]) || buf[j] == '#'))
                j++;
            if (j >= len || buf[j] != ';' || j == i + 1)
                return i;
            i = j + 1;
        } else {
            return i;
        }
    }
    return i;
}

/* Whether buf[from..to) holds only list markers, quote and heading marks, emphasis, table
 * bars, blanks and HTML tags: a label after that starts its line. */
static int only_markup(const char *buf, size_t from, size_t to)
{
    size_t i = from;
    while (i < to) {
        char c = buf[i];
        if (is_space(c) || is_markup(c) || strchr("-+>#|", c)) {
            i++;
        } else if (c == '<') {
            while (i < to && buf[i] != '>')
                i++;
            if (i == to)
                return 0;
            i++;
        } else if (is_digit(c)) {
            while (i < to && is_digit(buf[i]))
                i++;
            if (i == to || (buf[i] != '.' && buf[i] != ')'))
                return 0;
            i++;
        } else {
            return 0;
        }
    }
    return 1;
}

/* Matches "duration" or "audio duration" (any case) at i; returns the label's end or 0. */
static size_t match_label(const char *buf, size_t i, size_t len)
{
    size_t j = i;
    if (len - i >= 5 && strncasecmp(buf + i, "audio", 5) == 0) {
        j = i + 5;
        if (j >= len || !is_space(buf[j]))
            return 0;
        while (j < len && is_space(buf[j]))
            j++;
    }
    if (len - j < 8 || strncasecmp(buf + j, "duration", 8) != 0)
        return 0;
    j += 8;
    if (j < len && (is_alpha(buf[j]) || is_digit(buf[j]) || buf[j] == '_'))
        return 0;
    return j;
}

static int is_seconds_word(const char *s, size_t n)
{
    static const char *const words[] = { "s", "sec", "secs", "second", "seconds" };
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strlen(words[i]) == n && strncasecmp(s, words[i], n) == 0)
            return 1;
    return 0;
}

/* The value token after a label: ISO (P...) is [0-9A-Z.,]+; a number or clock is
 * [0-9:.,]+ and may be followed by a seconds word ("173 s"). Trailing . , : are punctuation.
 * Returns the token's end; *unit_ok is 0 when a non-seconds unit follows a bare number. */
static size_t value_token(const char *buf, size_t v, size_t len, int *unit_ok)
{
    size_t e = v;
    int iso = buf[v] == 'P';
    while (e < len && (is_digit(buf[e]) || buf[e] == '.' || buf[e] == ',' || buf[e] == ':'
                       || (iso && buf[e] >= 'A' && buf[e] <= 'Z')))
        e++;
    while (e > v && (buf[e - 1] == '.' || buf[e - 1] == ',' || buf[e - 1] == ':'))
        e--;
    *unit_ok = 1;
    if (!iso && e > v && !memchr(buf + v, ':', e - v)) {
        size_t w = e;
        while (w < len && is_space(buf[w]))
            w++;
        size_t we = w;
        while (we < len && is_alpha(buf[we]))
            we++;
        if (we > w)   /* "173 s" holds; "3 minutes" and "2m53s" are not read */
            *unit_ok = is_seconds_word(buf + w, we - w) && !(we < len && is_digit(buf[we]));
    }
    return e;
}

/* The visible rest of a line from v, for reporting an unreadable value. */
static size_t visible_end(const char *buf, size_t v, size_t len)
{
    size_t e = v;
    while (e < len && buf[e] != '\n' && buf[e] != '\r' && buf[e] != '<' && e - v < CLAIM_TEXT_MAX)
        e++;
    while (e > v && is_space(buf[e - 1]))
        e--;
    return e;
}

/* Whether the label at i starts its line, after markup only (LOOK_BACK bytes at most). */
static int starts_line(const char *buf, size_t i)
{
    size_t from = i;
    while (from > 0 && buf[from - 1] != '\n' && i - from < LOOK_BACK)
        from--;
    if (from > 0 && buf[from - 1] != '\n')
        return 0;
    return only_markup(buf, from, i);
}

/* Tries a label at i. *next is where scanning continues. */
static re_status try_label(extract_ctx *x, size_t i, size_t *next)
{
    const char *buf = x->buf;
    size_t len = x->len;
    *next = i + 1;
    size_t label_end = match_label(buf, i, len);
    if (label_end == 0)
        return RE_OK;
    size_t colon = skip_separators(buf, label_end, len, 0);
    if (colon >= len || buf[colon] != ':')
        return RE_OK;
    size_t v = skip_separators(buf, colon + 1, len, 1);
    *next = colon + 1;
    if (v >= len || buf[v] == '\n' || buf[v] == '\r')
        return RE_OK;
    int unit_ok = 1;
    size_t e = value_token(buf, v, len, &unit_ok);
    int anchored = starts_line(buf, i);
    re_claim probe;
    memset(&probe, 0, sizeof probe);
    if (e > v)
        read_duration(&probe, buf + v, e - v);
    int readable = probe.readable && unit_ok;
    if (!readable && !anchored)
        return RE_OK;   /* prose such as "the duration: varies" in the middle of a line */
    re_claim *c = NULL;
    size_t shown_end = readable ? e : visible_end(buf, v, len);
    re_status st = add_claim(x, buf + i, label_end - i, v, readable ? e - v : 0, buf + v,
                             shown_end - v, &c);
    if (st != RE_OK)
        return st;
    if (readable)
        read_duration(c, buf + v, e - v);
    else
        c->kind = RE_CLAIM_DURATION;
    *next = e > v ? e : v;
    return RE_OK;
}

/* Not inside a word, nor the end of a hyphenated one ("transition-duration"). */
static int word_start(const char *buf, size_t i)
{
    if (i == 0)
        return 1;
    char p = buf[i - 1];
    if (p == '-' && i >= 2)
        p = buf[i - 2];
    return !(is_alpha(p) || is_digit(p) || p == '_');
}

static size_t tag_end(const char *buf, size_t lt, size_t len);

/* Scans every line for labels, outside the skipped regions. */
static re_status scan_lines(extract_ctx *x)
{
    size_t i = 0, k = 0;
    while (i < x->len) {
        while (k < x->skip_count && x->skips[k].end <= i)
            k++;
        if (k < x->skip_count && x->skips[k].start <= i) {
            i = x->skips[k].end;
            continue;
        }
        char c = x->buf[i];
        if (c == '<' && x->html) {
            i = tag_end(x->buf, i, x->len) + 1;
            continue;
        }
        if ((c == 'd' || c == 'D' || c == 'a' || c == 'A') && word_start(x->buf, i)) {
            size_t next;
            re_status st = try_label(x, i, &next);
            if (st != RE_OK)
                return st;
            i = next;
            continue;
        }
        i++;
    }
    return RE_OK;
}

/* Markdown fenced code blocks (``` or ~~~) are skipped: code is not a claim. */
static re_status find_fences(extract_ctx *x)
{
    size_t i = 0, open_at = 0;
    int open = 0;
    while (i < x->len) {
        size_t eol = i;
        while (eol < x->len && x->buf[eol] != '\n')
            eol++;
        size_t j = i;
        while (j < eol && j - i < 3 && x->buf[j] == ' ')
            j++;
        int fence = eol - j >= 3 && (memcmp(x->buf + j, "```", 3) == 0
                                     || memcmp(x->buf + j, "~~~", 3) == 0);
        if (fence && !open) {
            open = 1;
            open_at = i;
        } else if (fence) {
            open = 0;
            re_status st = push_span(&x->skips, &x->skip_count, &x->skip_cap, open_at, eol);
            if (st != RE_OK)
                return st;
        }
        i = eol + 1;
    }
    if (open)
        return push_span(&x->skips, &x->skip_count, &x->skip_cap, open_at, x->len);
    return RE_OK;
}

/* ======================================================================================
 * Extraction: HTML regions (comments, script, style) and JSON-LD blocks
 * ====================================================================================== */

/* Finds attribute `name` in the start tag buf[from..to) (from just after the tag name).
 * Values may be quoted or, in HTML, bare. Sets the value's span. */
static int tag_attr(const char *buf, size_t from, size_t to, const char *name, int icase,
                    size_t *voff, size_t *vlen)
{
    size_t i = from, n = strlen(name);
    while (i < to) {
        while (i < to && (is_space(buf[i]) || buf[i] == '\n' || buf[i] == '\r' || buf[i] == '/'))
            i++;
        size_t ns = i;
        while (i < to && !is_space(buf[i]) && buf[i] != '\n' && buf[i] != '\r' && buf[i] != '='
               && buf[i] != '>' && buf[i] != '/')
            i++;
        size_t ne = i;
        while (i < to && (is_space(buf[i]) || buf[i] == '\n' || buf[i] == '\r'))
            i++;
        size_t vs = i, ve = i;
        if (i < to && buf[i] == '=') {
            i++;
            while (i < to && (is_space(buf[i]) || buf[i] == '\n' || buf[i] == '\r'))
                i++;
            if (i < to && (buf[i] == '"' || buf[i] == '\'')) {
                char q = buf[i++];
                vs = i;
                while (i < to && buf[i] != q)
                    i++;
                ve = i;
                if (i < to)
                    i++;
            } else {
                vs = i;
                while (i < to && !is_space(buf[i]) && buf[i] != '\n' && buf[i] != '>')
                    i++;
                ve = i;
            }
        }
        int same = ne - ns == n && (icase ? strncasecmp(buf + ns, name, n) == 0
                                          : strncmp(buf + ns, name, n) == 0);
        if (same) {
            *voff = vs;
            *vlen = ve - vs;
            return 1;
        }
        if (ne == ns && i == ns)
            i++;   /* a stray character: step over it */
    }
    return 0;
}

/* The end of the tag that starts at buf[lt] == '<' (index of '>', or len), respecting
 * quotes. */
static size_t tag_end(const char *buf, size_t lt, size_t len)
{
    char q = 0;
    for (size_t i = lt + 1; i < len; i++) {
        if (q) {
            if (buf[i] == q)
                q = 0;
        } else if (buf[i] == '"' || buf[i] == '\'') {
            q = buf[i];
        } else if (buf[i] == '>') {
            return i;
        }
    }
    return len;
}

/* <script>/<style> at lt: records the whole element as skipped and, for an ld+json script,
 * its contents as a JSON block. Returns where scanning continues. */
static re_status raw_element(extract_ctx *x, size_t lt, const char *tag, size_t *next)
{
    size_t n = strlen(tag);
    size_t gt = tag_end(x->buf, lt, x->len);
    char close[16];
    snprintf(close, sizeof close, "</%s", tag);
    const char *end = gt < x->len ? find_ci(x->buf, gt + 1, x->len, close) : NULL;
    size_t content_end = end ? (size_t)(end - x->buf) : x->len;
    size_t elem_end = end ? tag_end(x->buf, content_end, x->len) : x->len;
    if (elem_end < x->len)
        elem_end++;
    re_status st = push_span(&x->skips, &x->skip_count, &x->skip_cap, lt, elem_end);
    size_t voff, vlen;
    if (st == RE_OK && n == 6 && gt < x->len
        && tag_attr(x->buf, lt + 1 + n, gt, "type", 1, &voff, &vlen)
        && vlen == 19 && strncasecmp(x->buf + voff, "application/ld+json", 19) == 0)
        st = push_span(&x->blocks, &x->block_count, &x->block_cap, gt + 1, content_end);
    *next = elem_end;
    return st;
}

static int tag_named(const char *buf, size_t lt, size_t len, const char *tag)
{
    size_t n = strlen(tag);
    return len - lt > n + 1 && strncasecmp(buf + lt + 1, tag, n) == 0
           && (is_space(buf[lt + 1 + n]) || buf[lt + 1 + n] == '>' || buf[lt + 1 + n] == '\n'
               || buf[lt + 1 + n] == '\r' || buf[lt + 1 + n] == '/');
}

static re_status find_html_regions(extract_ctx *x)
{
    size_t i = 0;
    while (i < x->len) {
        const char *lt = memchr(x->buf + i, '<', x->len - i);
        if (!lt)
            break;
        i = (size_t)(lt - x->buf);
        re_status st = RE_OK;
        if (x->len - i >= 4 && memcmp(lt, "<!--", 4) == 0) {
            const char *end = find_ci(x->buf, i + 4, x->len, "-->");
            size_t e = end ? (size_t)(end - x->buf) + 3 : x->len;
            st = push_span(&x->skips, &x->skip_count, &x->skip_cap, i, e);
            i = e;
        } else if (tag_named(x->buf, i, x->len, "script")) {
            st = raw_element(x, i, "script", &i);
        } else if (tag_named(x->buf, i, x->len, "style")) {
            st = raw_element(x, i, "style", &i);
        } else if (tag_named(x->buf, i, x->len, "pre")) {   /* code, as ``` in Markdown */
            st = raw_element(x, i, "pre", &i);
        } else if (tag_named(x->buf, i, x->len, "textarea")) {
            st = raw_element(x, i, "textarea", &i);
        } else {
            i++;
        }
        if (st != RE_OK)
            return st;
    }
    return RE_OK;
}

/* ======================================================================================
 * Extraction: JSON (jansson validates and decodes; a token scan finds the spans)
 * ====================================================================================== */

typedef struct json_scan {
    extract_ctx *x;
    int sidecar;
    size_t key_off, key_len;   /* the last key read in the current object */
    int have_key;
} json_scan;

static int json_is_delim(char c)
{
    return c == ',' || c == ':' || c == ']' || c == '}' || c == ' ' || c == '\t' || c == '\n'
           || c == '\r' || c == '"' || c == '[' || c == '{';
}

static size_t json_string_end(const char *buf, size_t i, size_t end)
{
    for (i++; i < end; i++) {
        if (buf[i] == '\\')
            i++;
        else if (buf[i] == '"')
            return i + 1;
    }
    return end;
}

static int key_is(const json_scan *s, const char *name)
{
    size_t n = strlen(name);
    return s->key_len == n && memcmp(s->x->buf + s->key_off, name, n) == 0;
}

/* The claim kind a key names at this depth, or -1 when its value is not a claim. */
static int json_claim_kind(const json_scan *s, size_t depth)
{
    if (key_is(s, "duration"))
        return RE_CLAIM_DURATION;
    if (!s->sidecar || depth != 1)
        return -1;
    if (key_is(s, "duration_ms"))
        return RE_CLAIM_MS;
    if (key_is(s, "samples"))
        return RE_CLAIM_SAMPLES;
    if (key_is(s, "sample_rate"))
        return RE_CLAIM_SAMPLE_RATE;
    if (key_is(s, "bytes"))
        return RE_CLAIM_BYTES;
    return -1;
}

/* A scalar value token buf[a..b) after a claim key. */
static re_status json_value(json_scan *s, int kind, size_t a, size_t b)
{
    extract_ctx *x = s->x;
    int is_string = x->buf[a] == '"';
    if (!is_string && !is_digit(x->buf[a]) && x->buf[a] != '-')
        return RE_OK;   /* true, false, null: no claim */
    const char *text = x->buf + a;
    size_t text_len = b - a, off = a, len = b - a;
    json_t *decoded = NULL;
    if (is_string) {
        json_error_t err;
        decoded = json_loadb(x->buf + a, b - a, JSON_DECODE_ANY, &err);
        if (!decoded || !json_is_string(decoded)) {
            json_decref(decoded);
            return fail(x->diag, RE_ERR_INPUT, x->name, 0, 0, "cannot decode a JSON string");
        }
        text = json_string_value(decoded);
        text_len = json_string_length(decoded);
        off = a + 1;
        len = b - a - 2;
    }
    re_claim *c = NULL;
    re_status st = add_claim(x, x->buf + s->key_off, s->key_len, off, len, text, text_len, &c);
    if (st == RE_OK && kind == RE_CLAIM_DURATION)
        read_duration(c, text, text_len);
    else if (st == RE_OK)
        read_count(c, (re_claim_kind)kind, text, text_len);
    if (st == RE_OK && ((!c->readable && kind == RE_CLAIM_DURATION)
                        || (is_string && kind != RE_CLAIM_DURATION)))
        c->length = 0;   /* no notation to keep, or a count written as a string */
    if (st == RE_OK && c->readable && !is_string && kind == RE_CLAIM_DURATION)
        c->style.clock_fields = 1;
    json_decref(decoded);
    return st;
}

static re_status json_scan_tokens(json_scan *s, size_t pos, size_t end)
{
    const char *buf = s->x->buf;
    char stack[JSON_MAX_DEPTH];
    size_t depth = 0;
    int expect_key = 0;
    while (pos < end) {
        char ch = buf[pos];
        if (ch == '{' || ch == '[') {
            if (depth == JSON_MAX_DEPTH)
                return fail(s->x->diag, RE_ERR_INPUT, s->x->name, 0, 0, "JSON nested too deeply");
            stack[depth++] = ch;
            expect_key = ch == '{';
            s->have_key = 0;
            pos++;
        } else if (ch == '}' || ch == ']') {
            depth -= depth > 0;
            expect_key = 0;
            s->have_key = 0;
            pos++;
        } else if (ch == ',') {
            expect_key = depth > 0 && stack[depth - 1] == '{';
            s->have_key = 0;
            pos++;
        } else if (ch == ':' || ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r') {
            pos++;
        } else {
            size_t e = ch == '"' ? json_string_end(buf, pos, end) : pos + 1;
            while (ch != '"' && e < end && !json_is_delim(buf[e]))
                e++;
            if (expect_key && ch == '"') {
                s->key_off = pos + 1;
                s->key_len = e - pos - 2;
                s->have_key = 1;
                expect_key = 0;
            } else if (s->have_key && depth > 0 && stack[depth - 1] == '{') {
                int kind = json_claim_kind(s, depth);
                s->have_key = 0;
                if (kind >= 0) {
                    re_status st = json_value(s, kind, pos, e);
                    if (st != RE_OK)
                        return st;
                }
            }
            pos = e;
        }
    }
    return RE_OK;
}

static int json_is_sidecar(const json_t *root)
{
    const char *gen = json_is_object(root) ? json_string_value(json_object_get(root, "generator"))
                                           : NULL;
    return gen && strncmp(gen, "render-episode", 14) == 0;
}

/* Validates buf[start..end) as JSON and collects its claims. */
static re_status extract_json(extract_ctx *x, size_t start, size_t end, int sidecar)
{
    json_error_t err;
    json_t *root = json_loadb(x->buf + start, end - start, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY,
                              &err);
    if (!root) {
        size_t at = start + (err.position > 0 ? (size_t)err.position : 0);
        if (at > end)
            at = end;
        unsigned line, col;
        position_of(x, at, &line, &col);
        return fail(x->diag, RE_ERR_INPUT, x->name, line, col, "malformed JSON: %s", err.text);
    }
    json_scan s = { x, sidecar || json_is_sidecar(root), 0, 0, 0 };
    json_decref(root);
    return json_scan_tokens(&s, start, end);
}

/* ======================================================================================
 * Extraction: RSS and Atom feeds (libxml2; byte offsets recorded while parsing)
 * ====================================================================================== */

/* Wraps libxml2's own start-element handler to remember where each start tag ends
 * (the offset of its '>' or "/>"), so that values can be rewritten in place. */
static void on_start_element(void *ctx, const xmlChar *localname, const xmlChar *prefix,
                             const xmlChar *uri, int nb_namespaces, const xmlChar **namespaces,
                             int nb_attributes, int nb_defaulted, const xmlChar **attributes)
{
    xmlSAX2StartElementNs(ctx, localname, prefix, uri, nb_namespaces, namespaces, nb_attributes,
                          nb_defaulted, attributes);
    xmlParserCtxtPtr ctxt = ctx;
    long off = xmlByteConsumed(ctxt);
    if (ctxt->node && off >= 0)
        ctxt->node->_private = (void *)(uintptr_t)((unsigned long)off + 1);
}

static int node_offset(const xmlNode *node, size_t len, size_t *off)
{
    uintptr_t v = (uintptr_t)node->_private;
    if (v == 0 || v - 1 >= len)
        return 0;
    *off = (size_t)(v - 1);
    return 1;
}

static int node_is(const xmlNode *node, const char *name, const char *ns)
{
    if (node->type != XML_ELEMENT_NODE || strcmp((const char *)node->name, name) != 0)
        return 0;
    if (!ns)
        return node->ns == NULL;
    return node->ns && node->ns->href && strcmp((const char *)node->ns->href, ns) == 0;
}

static int hex_value(char c)
{
    if (is_digit(c))
        return c - '0';
    c = (char)(c | 0x20);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Whether the last path segment of url (before any query or fragment), percent-decoded, is
 * exactly `name`. */
static int url_names(const char *url, const char *name)
{
    size_t end = strcspn(url, "?#"), start = end;
    while (start > 0 && url[start - 1] != '/')
        start--;
    size_t n = strlen(name), j = 0;
    for (size_t i = start; i < end; i++, j++) {
        char c = url[i];
        if (c == '%' && end - i > 2 && hex_value(url[i + 1]) >= 0 && hex_value(url[i + 2]) >= 0) {
            c = (char)(hex_value(url[i + 1]) * 16 + hex_value(url[i + 2]));
            i += 2;
        }
        if (j >= n || name[j] != c)
            return 0;
    }
    return j == n;
}

/* The enclosure URL of an RSS <enclosure> or Atom <link rel="enclosure">, else NULL. */
static xmlChar *enclosure_url(const xmlNode *node)
{
    if (node_is(node, "enclosure", NULL))
        return xmlGetNoNsProp(node, (const xmlChar *)"url");
    if (!node_is(node, "link", ATOM_NS))
        return NULL;
    xmlChar *rel = xmlGetNoNsProp(node, (const xmlChar *)"rel");
    int is_enclosure = rel && strcmp((const char *)rel, "enclosure") == 0;
    xmlFree(rel);
    return is_enclosure ? xmlGetNoNsProp(node, (const xmlChar *)"href") : NULL;
}

static int names_mp3(const xmlNode *node, const char *mp3_name)
{
    xmlChar *url = enclosure_url(node);
    int match = url && url_names((const char *)url, mp3_name);
    xmlFree(url);
    return match;
}

/* Claim for the `length` attribute of an enclosure. */
static re_status xml_length_claim(extract_ctx *x, const xmlNode *node)
{
    xmlChar *value = xmlGetNoNsProp(node, (const xmlChar *)"length");
    if (!value)
        return RE_OK;
    size_t vlen = strlen((const char *)value), off = 0, span_off = 0, span_len = 0, lt;
    if (node_offset(node, x->len, &off)) {
        for (lt = off; lt > 0 && x->buf[lt] != '<'; lt--)
            ;
        size_t name_end = lt + 1;
        while (name_end < off && !is_space(x->buf[name_end]) && x->buf[name_end] != '\n'
               && x->buf[name_end] != '\r')
            name_end++;
        if (tag_attr(x->buf, name_end, off, "length", 0, &span_off, &span_len)
            && (span_len != vlen || memcmp(x->buf + span_off, value, vlen) != 0))
            span_len = 0;   /* written with entities: not rewritable */
    }
    re_claim *c = NULL;
    re_status st = add_claim(x, "enclosure length", 16, span_len ? span_off : off, span_len,
                             (const char *)value, vlen, &c);
    if (st == RE_OK) {
        if (!span_len) {
            c->line = (unsigned)xmlGetLineNo(node);
            c->col = 0;
        }
        read_count(c, RE_CLAIM_BYTES, (const char *)value, vlen);
    }
    xmlFree(value);
    return st;
}

/* Claim for an itunes:duration element. */
static re_status xml_duration_claim(extract_ctx *x, const xmlNode *node)
{
    xmlChar *content = xmlNodeGetContent(node);
    if (!content)
        return RE_ERR_NOMEM;
    const char *s = (const char *)content;
    size_t n = strlen(s), a = 0, b = n, off = 0, span_len = 0;
    while (a < b && (is_space(s[a]) || s[a] == '\n' || s[a] == '\r'))
        a++;
    while (b > a && (is_space(s[b - 1]) || s[b - 1] == '\n' || s[b - 1] == '\r'))
        b--;
    size_t end = off + 1 + n;
    if (node_offset(node, x->len, &off) && x->buf[off] == '>' && (end = off + 1 + n) <= x->len
        && memcmp(x->buf + off + 1, s, n) == 0 && (end == x->len || x->buf[end] == '<'))
        span_len = b - a;   /* plain text: rewritable; CDATA or entities are not */
    re_claim *c = NULL;
    re_status st = add_claim(x, "itunes:duration", 15, off + 1 + a, span_len, s + a, b - a, &c);
    if (st == RE_OK) {
        read_duration(c, s + a, b - a);
        if (!c->readable)
            c->length = 0;
        if (!span_len) {
            c->line = (unsigned)xmlGetLineNo(node);
            c->col = 0;
        }
    }
    xmlFree(content);
    return st;
}

/* An RSS item or Atom entry: claims only when one of its enclosures names the MP3. */
static re_status xml_item(extract_ctx *x, const xmlNode *item, size_t *matched)
{
    int match = 0;
    for (const xmlNode *n = item->children; n; n = n->next)
        match = match || names_mp3(n, x->mp3_name);
    if (!match)
        return RE_OK;
    (*matched)++;
    for (const xmlNode *n = item->children; n; n = n->next) {
        re_status st = RE_OK;
        if (names_mp3(n, x->mp3_name))
            st = xml_length_claim(x, n);
        else if (node_is(n, "duration", ITUNES_NS))
            st = xml_duration_claim(x, n);
        if (st != RE_OK)
            return st;
    }
    return RE_OK;
}

static re_status xml_walk(extract_ctx *x, const xmlNode *node, size_t *items, size_t *matched)
{
    for (; node; node = node->next) {
        if (node->type != XML_ELEMENT_NODE)
            continue;
        re_status st;
        if (node_is(node, "item", NULL) || node_is(node, "item", RSS1_NS)
            || node_is(node, "entry", ATOM_NS)) {
            (*items)++;
            st = xml_item(x, node, matched);
        } else {
            st = xml_walk(x, node->children, items, matched);
        }
        if (st != RE_OK)
            return st;
    }
    return RE_OK;
}

/* The first error libxml2 reports (later ones are often consequences of it). */
typedef struct xml_first_error {
    int set;
    int line, col;
    char message[256];
} xml_first_error;

static void on_xml_error(void *user, xmlErrorPtr error)
{
    xmlParserCtxtPtr ctxt = user;
    xml_first_error *first = ctxt ? ctxt->_private : NULL;
    if (!first || first->set || !error || error->level < XML_ERR_ERROR)
        return;
    first->set = 1;
    first->line = error->line;
    first->col = error->int2;
    snprintf(first->message, sizeof first->message, "%s",
             error->message ? error->message : "unknown error");
    first->message[strcspn(first->message, "\n")] = '\0';
}

static re_status xml_parse(extract_ctx *x, xmlDocPtr *doc)
{
    if (x->len > INT_MAX)
        return fail(x->diag, RE_ERR_LIMIT, x->name, 0, 0, "too large for the XML parser");
    xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
    if (!ctxt)
        return RE_ERR_NOMEM;
    xml_first_error first = { 0, 0, 0, "unknown error" };
    ctxt->_private = &first;
    ctxt->sax->startElementNs = on_start_element;
    ctxt->sax->serror = on_xml_error;   /* errors come back to us, never printed */
    /* no network, no DTD loading, no entity substitution */
    *doc = xmlCtxtReadMemory(ctxt, x->buf, (int)x->len, x->name, NULL,
                             XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING
                             | XML_PARSE_BIG_LINES);
    re_status st = RE_OK;
    if (!*doc)
        st = fail(x->diag, RE_ERR_INPUT, x->name, first.line > 0 ? (unsigned)first.line : 0,
                  first.col > 0 ? (unsigned)first.col : 0, "malformed XML: %s", first.message);
    xmlFreeParserCtxt(ctxt);
    return st;
}

static re_status extract_html(extract_ctx *x);

static re_status extract_xml(extract_ctx *x)
{
    xmlDocPtr doc = NULL;
    re_status st = xml_parse(x, &doc);
    if (st != RE_OK)
        return st;
    const xmlNode *root = xmlDocGetRootElement(doc);
    if (root && strcasecmp((const char *)root->name, "html") == 0) {
        xmlFreeDoc(doc);
        return extract_html(x);   /* XHTML: a page, not a feed */
    }
    size_t items = 0, matched = 0;
    st = xml_walk(x, root, &items, &matched);
    xmlFreeDoc(doc);
    if (st == RE_OK && items > 0 && matched == 0 && x->notes)
        st = fail(x->notes, RE_OK, x->name, 0, 0,
                  "none of its %zu feed items has an enclosure named %s", items, x->mp3_name);
    return st;
}

/* ======================================================================================
 * Extraction: entry points
 * ====================================================================================== */

static re_status extract_html(extract_ctx *x)
{
    x->html = 1;
    re_status st = find_html_regions(x);
    if (st == RE_OK)
        st = scan_lines(x);
    for (size_t i = 0; st == RE_OK && i < x->block_count; i++)
        st = extract_json(x, x->blocks[i].start, x->blocks[i].end, 0);
    return st;
}

static int has_suffix(const char *name, const char *suffix)
{
    size_t n = strlen(name), s = strlen(suffix);
    return n >= s && strcasecmp(name + n - s, suffix) == 0;
}

const char *re_file_kind_name(re_file_kind kind)
{
    switch (kind) {
    case RE_FILE_AUTO: return "auto";
    case RE_FILE_TEXT: return "text";
    case RE_FILE_HTML: return "html";
    case RE_FILE_JSON: return "json";
    case RE_FILE_SIDECAR: return "sidecar";
    case RE_FILE_XML: return "xml";
    }
    return "unknown";
}

re_file_kind re_file_sniff(const char *name, const char *buf, size_t len)
{
    static const struct { const char *suffix; re_file_kind kind; } by_name[] = {
        { ".json", RE_FILE_JSON }, { ".jsonld", RE_FILE_JSON }, { ".xml", RE_FILE_XML },
        { ".rss", RE_FILE_XML }, { ".atom", RE_FILE_XML }, { ".html", RE_FILE_HTML },
        { ".htm", RE_FILE_HTML }, { ".xhtml", RE_FILE_XML }, { ".md", RE_FILE_TEXT },
        { ".markdown", RE_FILE_TEXT }, { ".txt", RE_FILE_TEXT },
    };
    for (size_t i = 0; name && i < sizeof by_name / sizeof by_name[0]; i++)
        if (has_suffix(name, by_name[i].suffix))
            return by_name[i].kind;
    size_t i = len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    while (i < len && (is_space(buf[i]) || buf[i] == '\n' || buf[i] == '\r'))
        i++;
    if (i < len && (buf[i] == '{' || buf[i] == '['))
        return RE_FILE_JSON;
    if (i < len && buf[i] == '<') {
        const char *xml_starts[] = { "<?xml", "<rss", "<feed", "<rdf:RDF" };
        for (size_t k = 0; k < sizeof xml_starts / sizeof xml_starts[0]; k++)
            if (len - i >= strlen(xml_starts[k])
                && strncmp(buf + i, xml_starts[k], strlen(xml_starts[k])) == 0)
                return RE_FILE_XML;
        return RE_FILE_HTML;
    }
    return RE_FILE_TEXT;
}

/* Stable, so claims at one offset keep their order; lists are short and nearly sorted
 * (only HTML's JSON-LD claims come after the text ones). */
static void sort_by_offset(re_claim *items, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        re_claim c = items[i];
        size_t j = i;
        for (; j > 0 && items[j - 1].offset > c.offset; j--)
            items[j] = items[j - 1];
        items[j] = c;
    }
}

re_status re_claims_extract(const char *name, const char *buf, size_t len, re_file_kind kind,
                            const char *mp3_name, re_claim_list *out, re_diagnostics *diag,
                            re_diagnostics *notes)
{
    if (!name || (!buf && len) || !mp3_name || !out)
        return RE_ERR_INVALID;
    if (kind == RE_FILE_AUTO)
        kind = re_file_sniff(name, buf, len);
    extract_ctx x;
    memset(&x, 0, sizeof x);
    x = (extract_ctx){ .name = name, .buf = buf ? buf : "", .len = len, .mp3_name = mp3_name,
                       .out = out, .diag = diag, .notes = notes };
    size_t before = out->count;
    re_status st;
    switch (kind) {
    case RE_FILE_JSON: st = extract_json(&x, 0, len, 0); break;
    case RE_FILE_SIDECAR: st = extract_json(&x, 0, len, 1); break;
    case RE_FILE_XML: st = extract_xml(&x); break;
    case RE_FILE_HTML: st = extract_html(&x); break;
    default:
        st = find_fences(&x);
        if (st == RE_OK)
            st = scan_lines(&x);
        break;
    }
    free(x.skips);
    free(x.blocks);
    if (st != RE_OK)
        while (out->count > before)
            claim_free(&out->items[--out->count]);
    else if (out->count > before)   /* no claims: items may still be NULL */
        sort_by_offset(out->items + before, out->count - before);
    return st;
}

re_status re_claims_from_tlen(const char *mp3_path, const re_mp3_measurement *m,
                              re_claim_list *out)
{
    if (!mp3_path || !m || !out)
        return RE_ERR_INVALID;
    for (size_t i = 0; i < m->tlen_count; i++) {
        re_claim *c = NULL;
        const char *t = m->tlen[i];
        re_status st = claim_push(out, mp3_path, "ID3 TLEN", 8, t, strlen(t), &c);
        if (st != RE_OK)
            return st;
        read_count(c, RE_CLAIM_MS, t, strlen(t));
    }
    return RE_OK;
}

/* ======================================================================================
 * Judging
 * ====================================================================================== */

static uint64_t pow10_u64(unsigned k)
{
    uint64_t p = 1;
    while (k-- > 0)
        p *= 10;
    return p;
}

/* The measured length in units of 10^-digits s: whole seconds half up (the project's rule),
 * milliseconds and finer rounded down (the project's rule), tenths and hundredths nearest. */
static uint64_t measured_scaled(const re_mp3_measurement *m, unsigned digits)
{
    if (digits == 0)
        return re_samples_to_seconds(m->samples, m->sample_rate);
    if (digits >= 3)
        return re_samples_to_ms(m->samples, m->sample_rate) * pow10_u64(digits - 3);
    unsigned __int128 num = (unsigned __int128)m->samples * pow10_u64(digits) * 2 + m->sample_rate;
    return (uint64_t)(num / (2u * (unsigned __int128)m->sample_rate));
}

/* "PT2M53S", "PT173.5S", "02:53", "0:02:53.50", "173" in the claim's own style. */
static void format_duration(const re_claim *c, const re_mp3_measurement *m, char *out, size_t size)
{
    unsigned digits = c->style.frac_digits > 9 ? 9 : c->style.frac_digits;
    uint64_t v = measured_scaled(m, digits), p = pow10_u64(digits);
    unsigned long long whole = v / p, frac = v % p;
    char frac_text[32] = "";
    if (c->style.frac_digits > 0)
        snprintf(frac_text, sizeof frac_text, "%c%0*llu%.*s", c->style.frac_sep, (int)digits, frac,
                 (int)(c->style.frac_digits - digits), "000000000");
    unsigned long long h = whole / 3600, mi = whole / 60 % 60, s = whole % 60;
    int w = c->style.first_width > 0 ? (int)c->style.first_width : 1;
    if (c->notation == RE_NOTATION_ISO && c->style.seconds_only)
        snprintf(out, size, "PT%llu%sS", whole, frac_text);
    else if (c->notation == RE_NOTATION_ISO && h > 0)
        snprintf(out, size, "PT%lluH%lluM%llu%sS", h, mi, s, frac_text);
    else if (c->notation == RE_NOTATION_ISO && mi > 0)
        snprintf(out, size, "PT%lluM%llu%sS", mi, s, frac_text);
    else if (c->notation == RE_NOTATION_ISO)
        snprintf(out, size, "PT%llu%sS", s, frac_text);
    else if (c->style.clock_fields >= 3)
        snprintf(out, size, "%0*llu:%02llu:%02llu%s", w, h, mi, s, frac_text);
    else if (c->style.clock_fields == 2)
        snprintf(out, size, "%0*llu:%02llu%s", w, whole / 60, s, frac_text);
    else
        snprintf(out, size, "%0*llu%s", w, whole, frac_text);
}

static void format_measured(re_claim *c, const re_mp3_measurement *m)
{
    unsigned long long v = 0;
    switch (c->kind) {
    case RE_CLAIM_DURATION:
        if (c->readable) {
            format_duration(c, m, c->measured, sizeof c->measured);
        } else {
            char iso[RE_DURATION_ISO_MAX];
            re_duration_format_iso(re_samples_to_seconds(m->samples, m->sample_rate), iso);
            snprintf(c->measured, sizeof c->measured, "%s", iso);
        }
        return;
    case RE_CLAIM_MS: v = re_samples_to_ms(m->samples, m->sample_rate); break;
    case RE_CLAIM_SAMPLES: v = m->samples; break;
    case RE_CLAIM_SAMPLE_RATE: v = m->sample_rate; break;
    case RE_CLAIM_BYTES: v = m->bytes; break;
    }
    snprintf(c->measured, sizeof c->measured, "%llu", v);
}

/* |claim - measured| scaled by the rate: claim_us * rate - samples * 10^6. */
static unsigned __int128 abs_diff_scaled(uint64_t claim_us, const re_mp3_measurement *m)
{
    unsigned __int128 a = (unsigned __int128)claim_us * m->sample_rate;
    unsigned __int128 b = (unsigned __int128)m->samples * US_PER_S;
    return a > b ? a - b : b - a;
}

static int holds_exactly(const re_claim *c, const re_mp3_measurement *m)
{
    uint64_t unit = c->value.unit_us;
    switch (c->kind) {
    case RE_CLAIM_DURATION:
        if (unit == US_PER_S)
            return c->value.us == re_samples_to_seconds(m->samples, m->sample_rate) * US_PER_S;
        if (unit <= 1000)
            return abs_diff_scaled(c->value.us, m) <= (unsigned __int128)1000 * m->sample_rate;
        return 2 * abs_diff_scaled(c->value.us, m) <= (unsigned __int128)unit * m->sample_rate;
    case RE_CLAIM_MS:
        return abs_diff_scaled(c->value.us, m) <= (unsigned __int128)1000 * m->sample_rate;
    case RE_CLAIM_SAMPLES: return c->count == m->samples;
    case RE_CLAIM_SAMPLE_RATE: return c->count == m->sample_rate;
    case RE_CLAIM_BYTES: return c->count == m->bytes;
    }
    return 0;
}

static int holds_within(const re_claim *c, const re_mp3_measurement *m, uint64_t tolerance_us)
{
    unsigned __int128 limit = (unsigned __int128)tolerance_us * m->sample_rate;
    switch (c->kind) {
    case RE_CLAIM_DURATION:
    case RE_CLAIM_MS:
        return abs_diff_scaled(c->value.us, m) <= limit;
    case RE_CLAIM_SAMPLES: {
        uint64_t d = c->count > m->samples ? c->count - m->samples : m->samples - c->count;
        return (unsigned __int128)d * US_PER_S <= limit;
    }
    default:
        return 0;
    }
}

void re_claim_judge(re_claim *claim, const re_mp3_measurement *m, uint64_t tolerance_us)
{
    if (!claim || !m)
        return;
    claim->ok = 0;
    claim->within_tolerance = 0;
    format_measured(claim, m);
    if (!claim->readable || m->sample_rate == 0)
        return;
    if (holds_exactly(claim, m)) {
        claim->ok = 1;
    } else if (tolerance_us > 0 && holds_within(claim, m, tolerance_us)) {
        claim->ok = 1;
        claim->within_tolerance = 1;
    }
}

/* ======================================================================================
 * Fixing
 * ====================================================================================== */

int re_claim_fixable(const re_claim *claim)
{
    return claim && claim->length > 0 && (claim->readable || claim->kind != RE_CLAIM_DURATION);
}

static int by_offset(const void *a, const void *b)
{
    const re_claim *x = *(const re_claim *const *)a, *y = *(const re_claim *const *)b;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

re_status re_claims_fix(const char *buf, size_t len, const re_claim *claims, size_t n,
                        char **out, size_t *out_len, size_t *fixed)
{
    if ((!buf && len) || (!claims && n) || !out || !out_len || !fixed)
        return RE_ERR_INVALID;
    *out = NULL;
    *fixed = 0;
    const re_claim **todo = malloc((n ? n : 1) * sizeof *todo);
    if (!todo)
        return RE_ERR_NOMEM;
    size_t count = 0, size = len;
    for (size_t i = 0; i < n; i++) {
        const re_claim *c = &claims[i];
        if (c->ok || !re_claim_fixable(c) || c->offset + c->length > len)
            continue;
        todo[count++] = c;
        size += strlen(c->measured);
    }
    qsort(todo, count, sizeof *todo, by_offset);
    re_status st = RE_OK;
    for (size_t i = 1; i < count; i++)
        if (todo[i - 1]->offset + todo[i - 1]->length > todo[i]->offset)
            st = RE_ERR_INVALID;
    char *res = st == RE_OK ? malloc(size + 1) : NULL;
    if (st == RE_OK && !res)
        st = RE_ERR_NOMEM;
    if (st == RE_OK) {
        size_t from = 0, w = 0;
        for (size_t i = 0; i < count; i++) {
            memcpy(res + w, buf + from, todo[i]->offset - from);
            w += todo[i]->offset - from;
            size_t mlen = strlen(todo[i]->measured);
            memcpy(res + w, todo[i]->measured, mlen);
            w += mlen;
            from = todo[i]->offset + todo[i]->length;
        }
        memcpy(res + w, buf + from, len - from);
        w += len - from;
        res[w] = '\0';
        *out = res;
        *out_len = w;
        *fixed = count;
    }
    free(todo);
    return st;
}

/* ======================================================================================
 * Whole runs
 * ====================================================================================== */

typedef struct run_file {
    char *buf;               /* contents, kept for --fix */
    size_t len;
    size_t first_claim;      /* its claims are report->claims.items[first_claim..+claim_count) */
    dev_t dev;
    ino_t ino;
} run_file;

typedef struct run {
    const re_check_options *opt;
    re_check_report *rep;
    run_file *data;          /* parallel to rep->files */
    const char *mp3_name;
} run;

static re_status add_file(run *r, const char *path, int is_sidecar, int named,
                          const struct stat *st)
{
    re_check_report *rep = r->rep;
    for (size_t i = 0; i < rep->file_count; i++)
        if (r->data[i].dev == st->st_dev && r->data[i].ino == st->st_ino) {
            rep->files[i].named |= named;   /* the same file twice: check it once */
            return RE_OK;
        }
    re_check_file *files = realloc(rep->files, (rep->file_count + 1) * sizeof *files);
    if (!files)
        return RE_ERR_NOMEM;
    rep->files = files;
    run_file *data = realloc(r->data, (rep->file_count + 1) * sizeof *data);
    if (!data)
        return RE_ERR_NOMEM;
    r->data = data;
    re_check_file *f = &rep->files[rep->file_count];
    memset(f, 0, sizeof *f);
    if (!(f->path = strdup(path)))
        return RE_ERR_NOMEM;
    f->is_sidecar = is_sidecar;
    f->named = named;
    f->kind = is_sidecar ? RE_FILE_SIDECAR : RE_FILE_AUTO;
    r->data[rep->file_count] = (run_file){ NULL, 0, 0, st->st_dev, st->st_ino };
    rep->file_count++;
    return RE_OK;
}

/* The sidecar (when present) and the named files, each once. */
static re_status list_files(run *r)
{
    const re_check_options *opt = r->opt;
    struct stat st;
    re_status s = RE_OK;
    if (!opt->no_sidecar) {
        char *side = re_sidecar_path(opt->mp3_path);   /* the name render-episode writes */
        struct stat mp3;
        if (!side)
            return RE_ERR_NOMEM;
        if (stat(side, &st) == 0 && S_ISREG(st.st_mode) && stat(opt->mp3_path, &mp3) == 0
            && (st.st_dev != mp3.st_dev || st.st_ino != mp3.st_ino))
            s = add_file(r, side, 1, 0, &st);
        free(side);
    }
    for (size_t i = 0; s == RE_OK && i < opt->file_count; i++) {
        if (stat(opt->files[i], &st) != 0)
            memset(&st, 0, sizeof st);   /* reported when it is read */
        if (st.st_ino == 0) {
            st.st_dev = (dev_t)-1;
            st.st_ino = (ino_t)(i + 1);
        }
        s = add_file(r, opt->files[i], 0, 1, &st);
    }
    return s;
}

static re_status first_failure(re_status sofar, re_status now)
{
    return sofar != RE_OK ? sofar : now;
}

static int fatal(re_status s)
{
    return s == RE_ERR_NOMEM || s == RE_ERR_INVALID;
}

/* Reads and extracts every listed file. */
static re_status collect(run *r, re_status *input_status)
{
    re_check_report *rep = r->rep;
    for (size_t i = 0; i < rep->file_count; i++) {
        re_check_file *f = &rep->files[i];
        run_file *d = &r->data[i];
        size_t before = rep->claims.count;
        d->first_claim = before;
        re_status s = re_file_read(f->path, RE_CHECK_MAX_FILE_SIZE, RE_READ_REGULAR, &d->buf,
                                   &d->len, &rep->errors);
        if (s == RE_OK) {
            if (f->kind == RE_FILE_AUTO)
                f->kind = re_file_sniff(f->path, d->buf, d->len);
            s = re_claims_extract(f->path, d->buf, d->len, f->kind, r->mp3_name, &rep->claims,
                                  &rep->errors, &rep->warnings);
        }
        if (fatal(s))
            return s;
        f->status = s;
        f->claim_count = rep->claims.count - before;
        *input_status = first_failure(*input_status, s);
    }
    return RE_OK;
}

/* After rewriting, the file must yield the same claims, each fixed one now holding; else the
 * rewrite is not written. */
static re_status verify_fix(run *r, size_t index, const char *buf, size_t len)
{
    const re_check_file *f = &r->rep->files[index];
    const re_claim *old = &r->rep->claims.items[r->data[index].first_claim];
    re_claim_list again;
    re_claim_list_init(&again);
    re_diagnostics scratch;
    re_diagnostics_init(&scratch, 1);
    re_status s = re_claims_extract(f->path, buf, len, f->kind, r->mp3_name, &again, &scratch,
                                    NULL);
    if (s == RE_OK && again.count != f->claim_count)
        s = RE_ERR_INVALID;
    for (size_t i = 0; s == RE_OK && i < again.count; i++) {
        re_claim_judge(&again.items[i], &r->rep->mp3, r->opt->tolerance_us);
        if (!old[i].ok && re_claim_fixable(&old[i]) && !again.items[i].ok)
            s = RE_ERR_INVALID;
    }
    re_claim_list_free(&again);
    re_diagnostics_free(&scratch);
    return s;
}

static re_status fix_file(run *r, size_t index)
{
    re_check_report *rep = r->rep;
    re_check_file *f = &rep->files[index];
    run_file *d = &r->data[index];
    re_claim *claims = &rep->claims.items[d->first_claim];
    char *out = NULL, *now = NULL;
    size_t out_len = 0, fixed = 0, now_len = 0;
    re_status s = re_claims_fix(d->buf, d->len, claims, f->claim_count, &out, &out_len, &fixed);
    if (s == RE_OK && fixed > 0 && verify_fix(r, index, out, out_len) != RE_OK)
        s = fail(&rep->errors, RE_ERR_WRITE, f->path, 0, 0,
                 "internal error: the rewritten file does not check; left unchanged");
    if (s == RE_OK && fixed > 0)
        s = re_file_read(f->path, RE_CHECK_MAX_FILE_SIZE, RE_READ_REGULAR, &now, &now_len,
                         &rep->errors);
    if (s == RE_OK && fixed > 0 && (now_len != d->len || memcmp(now, d->buf, d->len) != 0))
        s = fail(&rep->errors, RE_ERR_WRITE, f->path, 0, 0,
                 "changed while being checked; not fixed");
    if (s == RE_OK && fixed > 0)
        s = re_file_replace(f->path, out, out_len, &rep->errors);
    if (s == RE_OK) {
        f->fixed_count = fixed;
        for (size_t i = 0; fixed > 0 && i < f->claim_count; i++)
            claims[i].fixed = !claims[i].ok && re_claim_fixable(&claims[i]);
    }
    free(out);
    free(now);
    return s;
}

static re_status fix_all(run *r, re_status *input_status)
{
    for (size_t i = 0; i < r->rep->file_count; i++) {
        if (!r->rep->files[i].named || r->rep->files[i].status != RE_OK)
            continue;
        re_status s = fix_file(r, i);
        if (s == RE_ERR_NOMEM)
            return s;
        *input_status = first_failure(*input_status, s);
    }
    return RE_OK;
}

static re_status mp3_warnings(re_check_report *rep, const char *path)
{
    const re_mp3_measurement *m = &rep->mp3;
    re_status s = RE_OK;
    if (m->truncated)
        s = fail(&rep->warnings, RE_OK, path, 0, 0,
                 "truncated or damaged: its Xing/LAME tag announces %lld frames but only %llu "
                 "decode; measured what decodes", (long long)m->tag_frames,
                 (unsigned long long)m->frames);
    else if (m->extra_frames > 0)
        s = fail(&rep->warnings, RE_OK, path, 0, 0,
                 "%llu more frames decode after the %lld its Xing/LAME tag announces; not "
                 "counted (junk that looks like audio, or files joined together?)",
                 (unsigned long long)m->extra_frames, (long long)m->tag_frames);
    if (s == RE_OK && m->stopped_at)
        s = fail(&rep->warnings, RE_OK, path, 0, 0,
                 "decoding stopped at byte %llu of %llu: %s; measured the %llu frames "
                 "before it", (unsigned long long)m->stopped_at, (unsigned long long)m->bytes,
                 m->stopped_why ? m->stopped_why : "damaged", (unsigned long long)m->frames);
    if (s == RE_OK && !m->has_lame_tag)
        s = fail(&rep->warnings, RE_OK, path, 0, 0,
                 "no LAME tag: the measured length includes the encoder delay and padding, "
                 "as players play them");
    return s;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

re_status re_check_run(const re_check_options *opt, re_check_report *report)
{
    if (!report)
        return RE_ERR_INVALID;
    memset(report, 0, sizeof *report);
    re_claim_list_init(&report->claims);
    re_diagnostics_init(&report->errors, 0);
    re_diagnostics_init(&report->warnings, 0);
    if (!opt || !opt->mp3_path || (opt->file_count && !opt->files))
        return RE_ERR_INVALID;
    run r = { opt, report, NULL, base_name(opt->mp3_path) };
    re_status input = re_mp3_measure(opt->mp3_path, &report->mp3, &report->errors);
    if (input != RE_OK)
        return input;
    report->measured = 1;
    re_status s = mp3_warnings(report, opt->mp3_path);
    if (s == RE_OK)
        s = re_claims_from_tlen(opt->mp3_path, &report->mp3, &report->claims);
    if (s == RE_OK)
        s = list_files(&r);
    if (s == RE_OK)
        s = collect(&r, &input);
    for (size_t i = 0; s == RE_OK && i < report->claims.count; i++)
        re_claim_judge(&report->claims.items[i], &report->mp3, opt->tolerance_us);
    if (s == RE_OK && opt->fix)
        s = fix_all(&r, &input);
    for (size_t i = 0; r.data && i < report->file_count; i++)
        free(r.data[i].buf);
    free(r.data);
    return s != RE_OK ? s : input;
}

void re_check_report_free(re_check_report *report)
{
    if (!report)
        return;
    re_mp3_measurement_free(&report->mp3);
    re_claim_list_free(&report->claims);
    for (size_t i = 0; i < report->file_count; i++)
        free(report->files[i].path);
    free(report->files);
    re_diagnostics_free(&report->errors);
    re_diagnostics_free(&report->warnings);
    memset(report, 0, sizeof *report);
}

size_t re_check_failed(const re_check_report *report)
{
    size_t n = 0;
    for (size_t i = 0; i < report->claims.count; i++)
        n += !report->claims.items[i].ok && !report->claims.items[i].fixed;
    for (size_t i = 0; i < report->file_count; i++) {
        const re_check_file *f = &report->files[i];
        n += f->named && f->status == RE_OK && f->claim_count == 0;
    }
    return n;
}
