/* SPDX-License-Identifier: GPL-3.0-or-later */
/* flite.c - flite 2.2 behind the engine contract (engine_backend.h): Debian's libflite with
 * its three US English clustergen voices, in-process, never the flite program.
 *
 * flite's one hidden state is the C library's rand(), which its voices draw their noise
 * from: each sentence starts from the state a new process has (srand(1)), so its audio
 * depends on its text and settings alone, wherever it is in a paragraph and whatever the
 * process did before. It speaks in synth.c's children all the same: a crash or a hang stays
 * in one child, and voice settings are set in the child's copy of the voice.
 *
 * What flite gives that espeak-ng does not (docs/design.md, "The second engine: flite"):
 * - its audio has no digital silence: a sentence starts and ends in low noise, with 180-260
 *   ms of near-silence before the first sound. Each sentence's edges are gated here to exact
 *   zeros, by flite's own timing and by level together (sentence_sound), so that the
 *   assembler finds its sound as it finds espeak-ng's, and a pause starts at the last sound;
 * - word starts come from the utterance's Segment relation, the end time of each phone: a
 *   token's first word starts where the phone before it ends;
 * - flite's English front end reads bytes, and drops every one above ASCII: "café" would be
 *   "caf" and "Über" "ber". Each sentence is folded to ASCII first (ascii_fold): a Latin
 *   letter with a diacritic is said as its base letter, typographic quotes as ASCII ones, a
 *   hyphen as '-', a dash as ',' (a pause), anything else not ASCII as a space; word
 *   positions are mapped back to the sentence's own characters. */
#define _GNU_SOURCE
#include "engine_backend.h"

#include <dlfcn.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <flite/flite.h>
#include <flite/cst_cg.h>
#include <flite/flite_version.h>

#include "normalize.h"
#include "utf8.h"

typedef cst_voice *register_voice(const char *voxdir);   /* each voice library's one entry */

#define FLITE_RATE 16000u   /* the clustergen voices' rate; checked on every utterance */

/* Each voice's own speed at duration_stretch 1, in words per minute, measured on the
 * first 635 words of the GPL-3 text with their punctuation pauses (docs/design.md): a
 * profile's rate is words per minute for flite as for espeak-ng. */
static const struct {
    const char *name;
    const char *library;    /* its SONAME: it needs libflite, its English front end and lexicon */
    const char *reg;        /* the library's function that makes the voice */
    double words_per_minute;
} voice_table[] = {
    { "rms", "libflite_cmu_us_rms.so.1", "register_cmu_us_rms", 152.6 },
    { "slt", "libflite_cmu_us_slt.so.1", "register_cmu_us_slt", 171.1 },
    { "awb", "libflite_cmu_us_awb.so.1", "register_cmu_us_awb", 164.2 },
};
#define VOICE_COUNT (sizeof voice_table / sizeof voice_table[0])

static cst_voice *voices[VOICE_COUNT];

/* flite's libraries are loaded on demand, with dlopen, when a render first needs a flite voice
 * (engine_backend.h, on_demand): the four libraries hold 136,475 relocations, about 15 ms of
 * every run's start-up when linked. Every call into libflite goes through this table, resolved
 * by flite_start in the parent before any child forks, so children inherit it. */
#define FLITE_SONAME "libflite.so.1"
#define FLITE_PACKAGE "libflite1"
#define FLITE_FUNCTIONS(X) \
    X(flite_init) X(flite_synth_text) X(feat_set_float) X(feat_val) X(val_cg_db) X(utt_wave) \
    X(utt_relation) X(relation_head) X(relation_tail) X(item_next) X(item_prev) \
    X(item_daughter) X(item_feat_string) X(item_as) X(item_feat_float) X(path_to_item) \
    X(ffeature_string) X(delete_utterance)
static struct {
#define FLITE_MEMBER(name) __typeof__(name) *name;
    FLITE_FUNCTIONS(FLITE_MEMBER)
#undef FLITE_MEMBER
} fl;
static int flite_loaded;   /* fl is resolved and voices[] registered */

static const char *item_name_of(const cst_item *item)
{
    return fl.item_feat_string(item, "name");   /* flite.h's item_name(), a macro */
}
static cst_voice *chosen;     /* in a child: the profile's voice */
static double chosen_gain;    /* in a child: the profile's volume / 100 */

/* Sets the function pointer at *fn to the symbol `name` of lib, a handle or RTLD_DEFAULT (as
 * the dynamic linker binds it; POSIX: dlsym's result converts to a function pointer); 0, or
 * -1 with dlerror()'s words in diag. */
static int flite_symbol(void *lib, const char *name, void *fn, re_diagnostics *diag)
{
    dlerror();
    void *found = dlsym(lib, name);
    const char *error = dlerror();
    if (error || !found) {
        re_diag_add(diag, NULL, 0, 0, "cannot load flite (install the package %s): %s",
                    FLITE_PACKAGE, error ? error : name);
        return -1;
    }
    memcpy(fn, &found, sizeof found);
    return 0;
}

/* Loads libflite and the three voice libraries, and registers the voices: once per process.
 * A library that fails to load stays loaded if it did (flite keeps no handle we could undo). */
static re_status flite_start(re_diagnostics *diag)
{
    if (flite_loaded)
        return RE_OK;
    /* RTLD_GLOBAL, and its functions found as the dynamic linker found them when the program
     * was linked with it: a preloaded library still comes first (the tests' crash shim
     * replaces flite_synth_text and calls the real one with dlsym(RTLD_NEXT)) */
    void *lib = dlopen(FLITE_SONAME, RTLD_NOW | RTLD_GLOBAL);
    if (!lib)
        return re_diag_fail(diag, RE_ERR_ENGINE, NULL, 0, 0,
                            "cannot load flite (install the package %s): %s", FLITE_PACKAGE,
                            dlerror());
#define FLITE_RESOLVE(name) \
    if (flite_symbol(RTLD_DEFAULT, #name, &fl.name, diag) != 0) \
        return RE_ERR_ENGINE;
    FLITE_FUNCTIONS(FLITE_RESOLVE)
#undef FLITE_RESOLVE
    fl.flite_init();
    for (size_t i = 0; i < VOICE_COUNT; i++) {
        void *voice_lib = dlopen(voice_table[i].library, RTLD_NOW | RTLD_LOCAL);
        if (!voice_lib)
            return re_diag_fail(diag, RE_ERR_ENGINE, NULL, 0, 0,
                                "cannot load flite's voice '%s' (install the package %s): %s",
                                voice_table[i].name, FLITE_PACKAGE, dlerror());
        register_voice *reg;
        if (flite_symbol(voice_lib, voice_table[i].reg, &reg, diag) != 0)
            return RE_ERR_ENGINE;
        voices[i] = reg(NULL);
        if (!voices[i]) {
            re_diag_add(diag, NULL, 0, 0, "cannot load flite's voice '%s'", voice_table[i].name);
            return RE_ERR_ENGINE;
        }
    }
    flite_loaded = 1;
    return RE_OK;
}

static const char *flite_version(void)
{
    return FLITE_PROJECT_VERSION;
}

static unsigned flite_rate(const re_voice_profile *profile)
{
    (void)profile;
    return FLITE_RATE;
}

/* rate: words per minute against the voice's own; pitch: 50 is the voice's own mean, each
 * step 1/100 of an octave up or down (0 is half an octave below); range: 50 is the voice's
 * own spread of pitch, 0 a monotone, 99 nearly twice as wide; volume: a gain of volume/100. */
static int flite_select(const re_voice_profile *profile)
{
    chosen = NULL;
    for (size_t i = 0; i < VOICE_COUNT; i++)
        if (strcmp(voice_table[i].name, profile->engine_voice) == 0) {
            chosen = voices[i];
            fl.feat_set_float(chosen->features, "duration_stretch",
                           (float)(voice_table[i].words_per_minute / profile->rate));
        }
    if (!chosen) {
        char text[200];
        snprintf(text, sizeof text, "flite has no voice '%s'", profile->engine_voice);
        re_synth_child_message(text);
        return -1;
    }
    const cst_val *db_val = fl.feat_val(chosen->features, "cg_db");
    const cst_cg_db *db = db_val ? fl.val_cg_db(db_val) : NULL;
    if (!db) {
        re_synth_child_message("flite's voice has no clustergen data");
        return -1;
    }
    fl.feat_set_float(chosen->features, "f0_shift", (float)pow(2.0, (profile->pitch - 50) / 100.0));
    fl.feat_set_float(chosen->features, "int_f0_target_stddev",
                   (float)(db->f0_stddev * profile->range / 50.0));
    chosen_gain = profile->volume / 100.0;
    return 0;
}

static double segment_end(const cst_item *segment)
{
    return segment ? (double)fl.item_feat_float(segment, "end") : 0.0;
}

static size_t seconds_to_frames(double seconds, size_t frames)
{
    double at = floor(seconds * FLITE_RATE + 0.5);
    return at <= 0 ? 0 : at >= (double)frames ? frames : (size_t)at;
}

/* The sound of a sentence: where flite's phones are, widened to where its level says there is
 * sound, less the closure of a first stop (the silence before "p" or "t" bursts, which a
 * listener hears as pause). flite starts and ends an utterance with a pause phone ("pau") of
 * low noise; the phones between say where the speech is, and a sample louder than the noise
 * just outside them is the start or the decay of a sound. Loud: above 1/100 of the sentence's
 * peak (the assembler's own measure of a quiet tail) and above twice the loudest sample of the
 * first half of the leading pause (the voice's noise: up to about 150 of 32767 for awb). Sets
 * [*first, *end); empty when the sentence has no phone and no loud sample. */
static void sentence_sound(const cst_utterance *utt, const int16_t *pcm, size_t frames,
                           size_t *first, size_t *end)
{
    const cst_item *head = fl.relation_head(fl.utt_relation(utt, "Segment"));
    const cst_item *tail = fl.relation_tail(fl.utt_relation(utt, "Segment"));
    size_t phones_from = 0, phones_to = frames;
    if (head && strcmp(item_name_of(head), "pau") == 0)
        phones_from = seconds_to_frames(segment_end(head), frames);
    if (tail && tail != head && strcmp(item_name_of(tail), "pau") == 0)
        phones_to = seconds_to_frames(segment_end(fl.item_prev(tail)), frames);
    int peak = 0, noise = 0;
    for (size_t i = 0; i < frames; i++) {
        int level = abs(pcm[i]);
        if (level > peak)
            peak = level;
        if (i < phones_from / 2 && level > noise)
            noise = level;
    }
    int loud = peak / 100 > 2 * noise ? peak / 100 : 2 * noise;
    int phones = phones_from < phones_to;
    size_t a = phones ? phones_from : frames, b = phones ? phones_to : 0;
    /* a stop or an affricate begins with its closure, a silence: its sound starts at its
     * burst, the first loud sample within it */
    const cst_item *first_phone = head && phones_from > 0 ? fl.item_next(head) : head;
    const char *kind = first_phone ? fl.ffeature_string(first_phone, "ph_ctype") : "";
    size_t closure_end = first_phone ? seconds_to_frames(segment_end(first_phone), frames) : 0;
    size_t search_to = (strcmp(kind, "s") == 0 || strcmp(kind, "a") == 0) && a < closure_end
                       ? closure_end : a;
    for (size_t i = 0; i < search_to; i++)
        if (abs(pcm[i]) > loud) {
            a = i;
            break;
        }
    for (size_t i = frames; i > b; i--)
        if (abs(pcm[i - 1]) > loud) {
            b = i;
            break;
        }
    *first = a < b ? a : 0;
    *end = a < b ? b : 0;
}

/* The base letters of the Latin letters with diacritics, two characters a code point ("  ":
 * none; a second letter for ligatures and the like, "AE", "ss"): Latin-1 and Extended-A
 * (U+00C0..U+024F) and Latin Extended Additional (U+1E00..U+1EFF), as Unicode decomposes
 * them or, for a letter it does not decompose, as its name says (LATIN SMALL LETTER L WITH
 * STROKE: l). A letter of these blocks with no base letter (a click, a tone letter) is left
 * out of its word. */
static const char latin_letters[] =
    "A A A A A A AEC E E E E I I I I D N O O O O O x O U U U U Y THss"   /* C0..DF */
    "a a a a a a aec e e e e i i i i d n o o o o o   o u u u u y thy "   /* E0..FF */
    "A a A a A a C c C c C c C c D d D d E e E e E e E e E e G g G g "   /* 100..11F */
    "G g G g H h H h I i I i I i I i I i IJijJ j K k k L l L l L l L "   /* 120..13F */
    "l L l N n N n N n n N n O o O o O o OEoeR r R r R r S s S s S s "   /* 140..15F */
    "S s T t T t T t U u U u U u U u U u U u W w Y y Y Z z Z z Z z s "   /* 160..17F */
    "b B B b     O C c D D D d   E E E F f G   hv  I K k l     N n O "   /* 180..19F */
    "O o OIoiP p           t T t T U u   V Y y Z z                   "   /* 1A0..1BF */
    "        DZD dzLJL ljNJN njA a I i O o U u U u U u U u U u e A a "   /* 1C0..1DF */
    "A a AEaeG g G g K k O o O o     j DZD dzG g     N n A a AEaeO o "   /* 1E0..1FF */
    "A a A a E e E e I i I i O o O o R r R r U u U u S s T t     H h "   /* 200..21F */
    "N d OUouZ z A a E e O o O o O o O o Y y l n t j dbqpA C c L T s "   /* 220..23F */
    "z     B U   E e J j   q R r Y y "   /* 240..24F */;
static const char latin_additional[] =
    "A a B b B b B b C c D d D d D d D d D d E e E e E e E e E e F f "   /* 1E00..1E1F */
    "G g H h H h H h H h H h I i I i K k K k K k L l L l L l L l M m "   /* 1E20..1E3F */
    "M m M m N n N n N n N n O o O o O o O o P p P p R r R r R r R r "   /* 1E40..1E5F */
    "S s S s S s S s S s T t T t T t T t U u U u U u U u U u V v V v "   /* 1E60..1E7F */
    "W w W w W w W w W w X x X x Y y Z z Z z Z z h t w y a s s s SS  "   /* 1E80..1E9F */
    "A a A a A a A a A a A a A a A a A a A a A a A a E e E e E e E e "   /* 1EA0..1EBF */
    "E e E e E e E e I i I i O o O o O o O o O o O o O o O o O o O o "   /* 1EC0..1EDF */
    "O o O o U u U u U u U u U u U u U u Y y Y y Y y Y y         Y y "   /* 1EE0..1EFF */;

/* What flite is given for code point cp: its letters, "" to leave it out, NULL for a space. */
static const char *ascii_of(uint32_t cp, char letters[3])
{
    const char *pair = cp >= 0xC0 && cp <= 0x24F ? latin_letters + 2 * (cp - 0xC0)
                     : cp >= 0x1E00 && cp <= 0x1EFF ? latin_additional + 2 * (cp - 0x1E00)
                     : NULL;
    if (pair) {
        letters[0] = pair[0] == ' ' ? '\0' : pair[0];
        letters[1] = pair[1] == ' ' ? '\0' : pair[1];
        letters[2] = '\0';
        return cp == 0xF7 ? NULL : letters;   /* the division sign is no letter: a space */
    }
    switch (cp) {
    case 0x2018: case 0x2019: case 0x201A: case 0x201B: case 0x2032: return "'";
    case 0x201C: case 0x201D: case 0x201E: case 0x201F: case 0x2033: case 0xAB: case 0xBB:
        return "\"";
    case 0x2010: case 0x2011: return "-";
    case 0x2012: case 0x2013: case 0x2014: case 0x2015: return ",";   /* a dash: a pause */
    case 0x2026: return "...";
    default: return NULL;
    }
}

/* The sentence as flite can read it: ASCII, into *out (malloc'ed), with at[k] the index of the
 * sentence's character that byte k of *out says. 0, or -1 when out of memory. */
static int ascii_fold(const char *sentence, size_t len, char **out, uint32_t **at)
{
    *out = malloc(3 * len + 1);   /* a character of 2 or more bytes gives at most 3 */
    *at = malloc((3 * len + 1) * sizeof **at);
    if (!*out || !*at) {
        free(*out);
        free(*at);
        return -1;
    }
    size_t n = 0;
    uint32_t index = 0;
    for (const char *p = sentence, *end = sentence + len; p < end; index++) {
        uint32_t cp;
        p += re_utf8_decode(p, end, &cp);
        char letters[3];
        const char *re_say = cp < 0x80 ? (letters[0] = (char)cp, letters[1] = '\0', letters)
                                    : ascii_of(cp, letters);
        for (const char *c = re_say ? re_say : " "; *c; c++) {
            (*at)[n] = index;
            (*out)[n++] = *c;
        }
    }
    (*out)[n] = '\0';
    (*at)[n] = index;
    return 0;
}

/* A word start for each token that flite says as words: at the token's place in the
 * folded sentence (tokens are its runs without blanks, less their punctuation, in order),
 * when the phone before its first word ends; at[] maps it back to the sentence's characters. */
static void report_words(const cst_utterance *utt, const char *sentence, size_t len,
                         const uint32_t *at)
{
    size_t cursor = 0;
    for (const cst_item *token = fl.relation_head(fl.utt_relation(utt, "Token")); token;
         token = fl.item_next(token)) {
        const char *name = item_name_of(token);
        size_t name_len = name ? strlen(name) : 0;
        if (name_len == 0 || !fl.item_daughter(token))
            continue;
        const char *found = memmem(sentence + cursor, len - cursor, name, name_len);
        if (!found)
            continue;
        size_t offset = (size_t)(found - sentence);
        cursor = offset + name_len;
        const cst_item *segment = fl.path_to_item(fl.item_daughter(token),
                                               "R:SylStructure.daughter1.daughter1.R:Segment");
        if (!segment)
            continue;
        double start = segment_end(fl.item_prev(segment));
        re_synth_child_word(at[offset] + 1, at[offset + name_len - 1] - at[offset] + 1,
                            (uint64_t)floor(start * FLITE_RATE + 0.5));
    }
}

static int flite_speak(const char *sentence, size_t len, unsigned text_flags)
{
    if (text_flags & RE_TEXT_PHONEMES) {
        re_synth_child_message("flite cannot say espeak-ng phoneme input ([[...]])");
        return -1;
    }
    char *text;
    uint32_t *at;
    if (ascii_fold(sentence, len, &text, &at) != 0) {
        re_synth_child_message("out of memory");
        return -1;
    }
    srand(1);   /* glibc's state at a process's start: see the top of this file */
    cst_utterance *utt = fl.flite_synth_text(text, chosen);
    cst_wave *wave = utt ? fl.utt_wave(utt) : NULL;
    if (!wave || wave->num_channels != 1 || (unsigned)wave->sample_rate != FLITE_RATE
        || wave->num_samples < 0) {
        if (utt)
            fl.delete_utterance(utt);
        free(text);
        free(at);
        re_synth_child_message("flite made no audio of the expected kind (16 kHz mono)");
        return -1;
    }
    size_t frames = (size_t)wave->num_samples;
    int16_t *pcm = wave->samples;
    for (size_t i = 0; chosen_gain != 1.0 && i < frames; i++) {
        double v = floor(pcm[i] * chosen_gain + 0.5);
        pcm[i] = (int16_t)(v > INT16_MAX ? INT16_MAX : v < INT16_MIN ? INT16_MIN : v);
    }
    size_t first, end;
    sentence_sound(utt, pcm, frames, &first, &end);
    memset(pcm, 0, first * sizeof *pcm);
    memset(pcm + end, 0, (frames - end) * sizeof *pcm);   /* all of it when there is no sound */
    report_words(utt, text, strlen(text), at);
    (void)re_synth_child_pcm(pcm, frames);
    fl.delete_utterance(utt);
    free(text);
    free(at);
    return 0;
}

/* Each word's phones as flite's lexicon and letter-to-sound rules give them, joined by '-',
 * words by spaces: "dh-ax b-ih-l-d ih-z g-r-iy-n". */
static int flite_phonemes(const char *text, unsigned text_flags, FILE *out)
{
    if (text_flags & RE_TEXT_PHONEMES) {
        re_synth_child_message("flite cannot say espeak-ng phoneme input ([[...]])");
        return -1;
    }
    char *folded;
    uint32_t *at;
    if (ascii_fold(text, strlen(text), &folded, &at) != 0) {
        re_synth_child_message("out of memory");
        return -1;
    }
    free(at);
    cst_utterance *utt = fl.flite_synth_text(folded, chosen);
    free(folded);
    if (!utt) {
        re_synth_child_message("flite could not read this text");
        return -1;
    }
    const char *sep = "";
    for (const cst_item *word = fl.relation_head(fl.utt_relation(utt, "Word")); word;
         word = fl.item_next(word)) {
        const cst_item *syllable = fl.item_daughter(fl.item_as(word, "SylStructure"));
        fputs(sep, out);
        sep = " ";
        const char *join = "";
        for (; syllable; syllable = fl.item_next(syllable))
            for (const cst_item *p = fl.item_daughter(syllable); p; p = fl.item_next(p)) {
                fprintf(out, "%s%s", join, item_name_of(p));
                join = "-";
            }
    }
    fputc('\n', out);
    fl.delete_utterance(utt);
    return 0;
}

const engine_backend re_flite_backend = {
    .on_demand = 1,
    .start = flite_start,
    .version = flite_version,
    .rate = flite_rate,
    .select = flite_select,
    .speak = flite_speak,
    .phonemes = flite_phonemes,
};
