/* SPDX-License-Identifier: GPL-3.0-or-later */
/* writing.c - spans of a text in another writing system than its voice's (see writing.h). */
#include "writing.h"

#include <stdint.h>
#include <string.h>

#include "utf8.h"

typedef enum writing {
    W_NONE,        /* Latin, digits, punctuation, symbols, blanks: any voice reads them */
    W_HAN, W_KANA, W_HANGUL, W_CYRILLIC, W_GREEK, W_ARABIC, W_HEBREW, W_THAI, W_DEVANAGARI,
    W_GEORGIAN, W_ARMENIAN, W_BENGALI, W_TAMIL, W_ETHIOPIC, W_GUJARATI, W_GURMUKHI, W_ORIYA,
    W_TELUGU, W_KANNADA, W_MALAYALAM, W_SINHALA, W_MYANMAR,
    /* no espeak-ng 1.51 voice reads these: their text is left out, with a warning */
    W_SYRIAC, W_THAANA, W_LAO, W_TIBETAN, W_KHMER, W_MONGOLIAN, W_YI, W_BOPOMOFO,
    W_KANJI,       /* Han in Japanese text: espeak-ng 1.51's ja voice calls each "Chinese letter" */
    W_COUNT
} writing;

static const struct block {
    uint32_t first, last;
    writing writing;
} blocks[] = {
    { 0x0370, 0x03FF, W_GREEK },      { 0x1F00, 0x1FFF, W_GREEK },
    { 0x0400, 0x052F, W_CYRILLIC },   { 0x1C80, 0x1C8F, W_CYRILLIC },
    { 0x0531, 0x058F, W_ARMENIAN },
    { 0x0591, 0x05FF, W_HEBREW },
    { 0x0600, 0x06FF, W_ARABIC },     { 0x0750, 0x077F, W_ARABIC },
    { 0xFB50, 0xFDFF, W_ARABIC },     { 0xFE70, 0xFEFF, W_ARABIC },
    { 0x0900, 0x097F, W_DEVANAGARI },
    { 0x0980, 0x09FF, W_BENGALI },
    { 0x0B80, 0x0BFF, W_TAMIL },
    { 0x0E00, 0x0E7F, W_THAI },
    { 0x10A0, 0x10FF, W_GEORGIAN },
    { 0x1100, 0x11FF, W_HANGUL },     { 0x3130, 0x318F, W_HANGUL },
    { 0xAC00, 0xD7AF, W_HANGUL },
    { 0x1200, 0x137F, W_ETHIOPIC },
    { 0x0A00, 0x0A7F, W_GURMUKHI },   { 0x0A80, 0x0AFF, W_GUJARATI },
    { 0x0B00, 0x0B7F, W_ORIYA },      { 0x0C00, 0x0C7F, W_TELUGU },
    { 0x0C80, 0x0CFF, W_KANNADA },    { 0x0D00, 0x0D7F, W_MALAYALAM },
    { 0x0D80, 0x0DFF, W_SINHALA },    { 0x1000, 0x109F, W_MYANMAR },
    { 0x0700, 0x074F, W_SYRIAC },     { 0x0780, 0x07BF, W_THAANA },
    { 0x0E80, 0x0EFF, W_LAO },        { 0x0F00, 0x0FFF, W_TIBETAN },
    { 0x1780, 0x17FF, W_KHMER },      { 0x1800, 0x18AF, W_MONGOLIAN },
    { 0xA000, 0xA4CF, W_YI },         { 0x3100, 0x312F, W_BOPOMOFO },
    { 0x3040, 0x30FF, W_KANA },       { 0x31F0, 0x31FF, W_KANA },
    { 0xFF66, 0xFF9F, W_KANA },
    { 0x3400, 0x4DBF, W_HAN },        { 0x4E00, 0x9FFF, W_HAN },
    { 0xF900, 0xFAFF, W_HAN },        { 0x20000, 0x3FFFF, W_HAN },
};

static writing writing_of(uint32_t cp)
{
    for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++)
        if (cp >= blocks[i].first && cp <= blocks[i].last)
            return blocks[i].writing;
    return W_NONE;
}

/* The espeak-ng voice for each writing system. */
static const char *const voice_for[W_COUNT] = {
    [W_HAN] = "cmn", [W_KANA] = "ja", [W_HANGUL] = "ko", [W_CYRILLIC] = "ru", [W_GREEK] = "el",
    [W_ARABIC] = "ar", [W_HEBREW] = "he", [W_THAI] = "th", [W_DEVANAGARI] = "hi",
    [W_GEORGIAN] = "ka", [W_ARMENIAN] = "hy", [W_BENGALI] = "bn", [W_TAMIL] = "ta",
    [W_ETHIOPIC] = "am", [W_GUJARATI] = "gu", [W_GURMUKHI] = "pa", [W_ORIYA] = "or",
    [W_TELUGU] = "te", [W_KANNADA] = "kn", [W_MALAYALAM] = "ml", [W_SINHALA] = "si",
    [W_MYANMAR] = "my",
    [W_SYRIAC] = RE_WRITING_NO_VOICE, [W_THAANA] = RE_WRITING_NO_VOICE,
    [W_LAO] = RE_WRITING_NO_VOICE, [W_TIBETAN] = RE_WRITING_NO_VOICE,
    [W_KHMER] = RE_WRITING_NO_VOICE, [W_MONGOLIAN] = RE_WRITING_NO_VOICE,
    [W_YI] = RE_WRITING_NO_VOICE, [W_BOPOMOFO] = RE_WRITING_NO_VOICE,
    [W_KANJI] = RE_WRITING_NO_VOICE,
};

static const char *const names[W_COUNT] = {
    [W_HAN] = "Han", [W_KANA] = "Japanese", [W_HANGUL] = "Hangul", [W_CYRILLIC] = "Cyrillic",
    [W_GREEK] = "Greek", [W_ARABIC] = "Arabic", [W_HEBREW] = "Hebrew", [W_THAI] = "Thai",
    [W_DEVANAGARI] = "Devanagari", [W_GEORGIAN] = "Georgian", [W_ARMENIAN] = "Armenian",
    [W_BENGALI] = "Bengali", [W_TAMIL] = "Tamil", [W_ETHIOPIC] = "Ethiopic",
    [W_GUJARATI] = "Gujarati", [W_GURMUKHI] = "Gurmukhi", [W_ORIYA] = "Oriya",
    [W_TELUGU] = "Telugu", [W_KANNADA] = "Kannada", [W_MALAYALAM] = "Malayalam",
    [W_SINHALA] = "Sinhala", [W_MYANMAR] = "Myanmar", [W_SYRIAC] = "Syriac",
    [W_THAANA] = "Thaana", [W_LAO] = "Lao", [W_TIBETAN] = "Tibetan", [W_KHMER] = "Khmer",
    [W_MONGOLIAN] = "Mongolian", [W_YI] = "Yi", [W_BOPOMOFO] = "Bopomofo",
    [W_KANJI] = "Japanese kanji",
};

/* Languages whose voices read a writing system themselves (by espeak-ng voice name, up to its
 * first '-' or '+'). */
static const struct own {
    const char *language;
    writing writing;
} own[] = {
    { "ru", W_CYRILLIC }, { "uk", W_CYRILLIC }, { "be", W_CYRILLIC }, { "bg", W_CYRILLIC },
    { "mk", W_CYRILLIC }, { "sr", W_CYRILLIC }, { "ky", W_CYRILLIC }, { "kk", W_CYRILLIC },
    { "tt", W_CYRILLIC }, { "ba", W_CYRILLIC }, { "cv", W_CYRILLIC }, { "mn", W_CYRILLIC },
    { "el", W_GREEK },    { "grc", W_GREEK },
    { "ar", W_ARABIC },   { "fa", W_ARABIC },   { "ur", W_ARABIC },   { "ps", W_ARABIC },
    { "sd", W_ARABIC },   { "ug", W_ARABIC },
    { "he", W_HEBREW },
    { "th", W_THAI },
    { "hi", W_DEVANAGARI }, { "mr", W_DEVANAGARI }, { "ne", W_DEVANAGARI },
    { "kok", W_DEVANAGARI }, { "sa", W_DEVANAGARI },
    { "ka", W_GEORGIAN }, { "hy", W_ARMENIAN }, { "hyw", W_ARMENIAN }, { "bn", W_BENGALI },
    { "as", W_BENGALI },  { "gu", W_GUJARATI }, { "pa", W_GURMUKHI }, { "or", W_ORIYA },
    { "te", W_TELUGU },   { "kn", W_KANNADA },  { "ml", W_MALAYALAM }, { "si", W_SINHALA },
    { "my", W_MYANMAR },  { "shn", W_MYANMAR },
    { "bpy", W_BENGALI }, { "ta", W_TAMIL },    { "am", W_ETHIOPIC },
    { "ko", W_HANGUL },
    { "ja", W_KANA },
    { "cmn", W_HAN },     { "yue", W_HAN },     { "hak", W_HAN },     { "zh", W_HAN },
};

static int reads_itself(const char *voice, writing w)
{
    size_t n = strcspn(voice, "-+");
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
        if (own[i].writing == w && strlen(own[i].language) == n
            && strncmp(own[i].language, voice, n) == 0)
            return 1;
    return 0;
}

/* Letters of the Latin script beyond ASCII (é, ß, ŀ, ẞ ...): the voice's own text, which
 * ends a foreign span. Everything else outside the table (digits, punctuation, symbols,
 * emoji, blanks) is neutral: it joins a span it stands inside. */
static int latin_letter(uint32_t cp)
{
    return (cp >= 'A' && cp <= 'Z') || (cp >= 'a' && cp <= 'z')
           || (cp >= 0xC0 && cp <= 0x24F && cp != 0xD7 && cp != 0xF7)
           || (cp >= 0x1E00 && cp <= 0x1EFF);
}

/* The length of the opening quote or bracket that ends text[limit..end), 0 if none. */
static size_t opening_before(const char *text, size_t limit, size_t end)
{
    static const char *const openings[] = {
        "\"", "'", "(", "[", "{", "\xE2\x80\x9C", "\xE2\x80\x98", "\xE2\x80\x9E",  /* “ ‘ „ */
        "\xC2\xAB", "\xE2\x80\xB9", "\xE3\x80\x8C", "\xE3\x80\x8E",          /* « ‹ 「 『 */
        "\xEF\xBC\x88",                                                     /* （ */
    };
    for (size_t i = 0; i < sizeof openings / sizeof openings[0]; i++) {
        size_t n = strlen(openings[i]);
        if (end - limit >= n && memcmp(text + end - n, openings[i], n) == 0)
            return n;
    }
    return 0;
}

void re_writing_runs(const char *text, const char *voice, re_writing_run *runs, size_t *count)
{
    size_t len = strlen(text);
    int kana = 0;
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        i += re_utf8_decode(text + i, text + len, &cp);
        kana |= writing_of(cp) == W_KANA;
    }
    /* The foreign spans: from a character of a script the voice does not read to the last
     * one of the same script before a letter of another. */
    re_writing_run spans[(RE_WRITING_MAX_RUNS - 1) / 2];   /* with the text around them */
    size_t span_count = 0;
    int too_many = 0;
    size_t letters[(RE_WRITING_MAX_RUNS - 1) / 2] = { 0 };   /* of its script, per span */
    int kanji[(RE_WRITING_MAX_RUNS - 1) / 2] = { 0 };        /* Japanese with Han, per span */
    writing kinds[(RE_WRITING_MAX_RUNS - 1) / 2];
    re_writing_run *current = NULL;
    for (size_t i = 0; i < len && !too_many;) {
        uint32_t cp;
        size_t n = re_utf8_decode(text + i, text + len, &cp);
        writing w = writing_of(cp);
        int han = w == W_HAN;
        if (han && reads_itself(voice, W_KANA))
            w = W_KANJI;   /* the Japanese voice reads kana, not kanji: left out */
        else if (han && kana)
            w = W_KANA;    /* Japanese: one span with its kana, left out whole below */
        if (w == W_NONE && !latin_letter(cp)) {
            i += n;
            continue;   /* neutral */
        }
        const char *needs = w == W_NONE || reads_itself(voice, w) ? NULL : voice_for[w];
        if (current && current->voice == needs) {
            current->length = i + n - current->offset;
            letters[current - spans]++;
            kanji[current - spans] |= han;
        } else if (!needs) {
            current = NULL;
        } else if (span_count == sizeof spans / sizeof spans[0]) {
            too_many = 1;
        } else {
            current = &spans[span_count];
            kinds[span_count] = w;
            kanji[span_count] = han;
            letters[span_count++] = 1;
            *current = (re_writing_run){ i, n, needs, names[w] };
        }
        i += n;
    }
    /* One letter of an alphabet is a symbol in the voice's text (π, μs, Δt, β-reduction): the
     * voice names it. A single ideograph or syllable is a word: it keeps its span. */
    size_t kept = 0;
    for (size_t k = 0; k < span_count; k++) {
        writing w = kinds[k];
        int syllabic = w == W_HAN || w == W_KANA || w == W_HANGUL || w == W_YI || w == W_KANJI;
        if (letters[k] < 2 && !syllabic)
            continue;
        spans[kept] = spans[k];
        if (w == W_KANA && kanji[k]) {   /* kana with kanji: half a sentence would be noise */
            spans[kept].voice = RE_WRITING_NO_VOICE;
            spans[kept].script = names[W_KANJI];
        }
        kept++;
    }
    span_count = kept;
    *count = 0;
    if (too_many || span_count == 0) {
        runs[(*count)++] = (re_writing_run){ 0, len, NULL, NULL };
        return;
    }
    /* Punctuation right after a span ("мир!", "東京。") is its own: the voice says it with it. */
    for (size_t k = 0; k < span_count; k++) {
        size_t end = spans[k].offset + spans[k].length;
        size_t limit = k + 1 < span_count ? spans[k + 1].offset : len;
        while (end < limit && text[end] != ' ') {
            uint32_t cp;
            size_t n = re_utf8_decode(text + end, text + len, &cp);
            if (writing_of(cp) != W_NONE || latin_letter(cp))
                break;
            end += n;
        }
        spans[k].length = end - spans[k].offset;
    }
    /* So is opening punctuation right before it ("\"Привет", "«мир", "(東京"): the quote or
     * bracket starts the span's words, and the cue that shows them. */
    for (size_t k = 0; k < span_count; k++) {
        size_t limit = k > 0 ? spans[k - 1].offset + spans[k - 1].length : 0;
        size_t start = spans[k].offset, n;
        while ((n = opening_before(text, limit, start)) > 0)
            start -= n;
        spans[k].length += spans[k].offset - start;
        spans[k].offset = start;
    }
    size_t at = 0;
    for (size_t k = 0; k < span_count; k++) {
        if (spans[k].offset > at)
            runs[(*count)++] = (re_writing_run){ at, spans[k].offset - at, NULL, NULL };
        runs[(*count)++] = spans[k];
        at = spans[k].offset + spans[k].length;
    }
    if (at < len)
        runs[(*count)++] = (re_writing_run){ at, len - at, NULL, NULL };
}
