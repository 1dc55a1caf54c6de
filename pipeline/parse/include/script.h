/* SPDX-License-Identifier: GPL-3.0-or-later */
/* script.h - the episode script parser: text in, an episode (metadata + items) out.
 *
 * The format (version 1.1) is documented in docs/script-format.md; in short: front matter
 * between `---` lines, `#`..`######` headings start chapters, blank lines separate paragraphs, `[pause 800ms]`
 * and `[pause 1.5s]` insert exact silence, a paragraph starting with `[voice NAME]` is spoken
 * by that profile, `[lang TAG]...[/lang]` (1.1) is spoken by espeak-ng's voice TAG,
 * `[sound FILE]` and `[sound FILE 2.5s]` (1.1) play a sound file there, front matter `intro:`,
 * `outro:` and `intro_overlap:` (1.1) frame the episode with sound files, `sound_gap:` (1.1)
 * sets the silence between speech and a sound, lines
 * starting with `//` are comments, `\[` is a literal `[`, and all other text is literal. Pure: no I/O except re_script_load, no engine, no voice lookup. */
#ifndef RE_SCRIPT_H
#define RE_SCRIPT_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"
#include "voice.h"

#define RE_PAUSE_MIN_US 1000ULL              /* 1 ms */
#define RE_PAUSE_MAX_US 600000000ULL         /* 10 minutes; also the longest [sound] cut and
                                              * intro_overlap */
#define RE_SOUND_GAP_DEFAULT_US 250000ULL   /* `sound_gap:` when absent (format 1.1) */
#define RE_SCRIPT_DEFAULT_MAX_SIZE (8u << 20) /* bytes */

/* Limits that keep a hostile script from reaching the engine or from making a render
 * unbounded (docs/robustness.md says why each is where it is). Each is an error at the
 * FILE:LINE:COL that crosses it. */
#define RE_SCRIPT_MAX_LINE 16384u            /* bytes in one line */
#define RE_SCRIPT_MAX_PARAGRAPH 10000u       /* bytes of spoken text in one paragraph */
#define RE_SCRIPT_MAX_SEGMENTS 10000u        /* SPEECH and PAUSE items: one engine process
                                              * per speech segment */
#define RE_SCRIPT_MAX_CHAPTERS 255u          /* an ID3 CTOC frame lists at most 255 */
#define RE_SCRIPT_MAX_VOICES 64u             /* distinct voice profiles that speak */
#define RE_SCRIPT_MAX_LANGUAGE 40u           /* characters of a [lang TAG]'s TAG */
#define RE_EPISODE_MAX_US (12ULL * 3600 * 1000000) /* audio of one episode: 12 hours (a WAV
                                              * file ends at 13.5 h of 22.05 kHz mono).
                                              * The parser holds the script's own pauses to
                                              * it; speech is measured when rendering */

typedef enum re_item_kind {
    RE_ITEM_SPEECH,   /* text spoken with a voice profile */
    RE_ITEM_PAUSE,    /* exact silence of pause_us microseconds */
    RE_ITEM_BREAK,    /* a paragraph break: the paragraph pause of `voice` (the paragraph before it) */
    RE_ITEM_CHAPTER,  /* a heading: a chapter titled `text` starts with the next audio */
    RE_ITEM_SOUND     /* a sound file played here (format 1.1): `text` is the FILE as written,
                       * relative to the script's folder; `pause_us` is its cut (the first
                       * pause_us of it, faded out) or 0 for all of it. Like a PAUSE for
                       * paragraphs, breaks and chapters */
} re_item_kind;

/* What a reader keeps first when a Markdown episode must be shortened (--max-duration):
 * the section a block stands in, by its heading, and a few telltales of the block itself. */
typedef enum re_rank {
    RE_RANK_BREAKING,     /* "Breaking changes", an item marked BREAKING */
    RE_RANK_SECURITY,     /* "Security", an item naming a CVE */
    RE_RANK_FEATURE,      /* "Added", "Features", "New" */
    RE_RANK_FIX,          /* "Fixed", "Bug fixes" */
    RE_RANK_CHANGE,       /* "Changed", "Removed", "Deprecated", "Performance" */
    RE_RANK_OTHER,        /* any other section, and prose outside sections */
    RE_RANK_CHORE,        /* "Dependencies", "Chores", "Internal", bot bumps, chore: items */
    RE_RANKS
} re_rank;

/* A Markdown block (a paragraph, a list item, a table, a heading's text) as it stands in a
 * SPEECH item's text: the unit --max-duration keeps or leaves out. */
typedef struct re_item_unit {
    size_t offset;        /* where the block's text starts in the item's text */
    unsigned line, col;   /* where the block starts in the file */
    unsigned char rank;   /* re_rank */
    unsigned char heading; /* 0: content; 1: a section heading's text, 2: a chapter's title
                           * (kept only with something kept under it) */
    unsigned char cont;   /* 1: the block goes on from the item before (after a [pause]) */
    unsigned section;     /* index in the episode's sections */
    unsigned list;        /* the list it is an item of, from 1; 0: not a list item */
    unsigned items;       /* the list items it says: more than 1 for a run said together */
} re_item_unit;

/* A Markdown heading that ranks what follows it; sections[0] is the document before any. */
typedef struct re_md_section {
    char *title;          /* the heading's text; NULL for sections[0] */
    unsigned release;     /* the section of the chapter it is in (itself for a chapter); 0
                           * before the first chapter */
    unsigned char rank;   /* re_rank of its blocks */
} re_md_section;

typedef struct re_item {
    re_item_kind kind;
    unsigned line;        /* where the item starts in the script (1-based) */
    unsigned col;         /* byte column (1-based) */
    char *text;           /* SPEECH: UTF-8, whitespace collapsed to single spaces, no control
                           * characters, never empty; CHAPTER: the title; otherwise NULL */
    const char *voice;    /* SPEECH, BREAK: profile name (points into the episode's storage) */
    uint64_t pause_us;    /* PAUSE; SOUND: its cut, 0 for the whole file */
    char *language;       /* SPEECH in a [lang TAG] span: the espeak-ng voice (language) TAG
                           * to speak it with instead of the profile's (format 1.1); else NULL */
    re_item_unit *units;  /* SPEECH from a Markdown document: its blocks, the first at offset
                           * 0, in order; NULL (0) for a .txt script */
    size_t unit_count;
} re_item;

/* `music:` (format 1.1): a music bed under the whole episode, ducked under speech. The
 * file is loaded, confined and checked when rendering (run/music.h); file NULL: no bed. */
#define RE_MUSIC_DEFAULT_LEVEL_LUFS -24.0
#define RE_MUSIC_LEVEL_MIN_LUFS -60.0
#define RE_MUSIC_LEVEL_MAX_LUFS -5.0
#define RE_MUSIC_DEFAULT_DUCK_DB 12.0
#define RE_MUSIC_DUCK_MAX_DB 60.0
#define RE_MUSIC_DEFAULT_FADE_US 2000000ULL
#define RE_MUSIC_FADE_MAX_US 60000000ULL
typedef struct re_music_spec {
    char *file;           /* `music:` as written (relative to the script), NULL when absent */
    unsigned line, col;   /* of its value */
    double level_lufs;    /* `music_level:` the bed alone after normalization, LUFS */
    double duck_db;       /* `duck:` how far the bed goes down under speech */
    uint64_t fade_us;     /* `fade:` fade in at the start and out at the end, each */
} re_music_spec;

/* A place in the script that names a voice profile (the `voice:` key or a `[voice NAME]`),
 * so that re_episode_check_voices can report a bad profile where it was named. */
typedef struct re_voice_ref {
    char *name;
    unsigned line;        /* 0 (with col 0) for the built-in default "host" when no `voice:` */
    unsigned col;         /* key names it and a paragraph uses it */
} re_voice_ref;

/* `type:` what kind of episode it is, as Apple's itunes:episodeType names it. */
typedef enum re_episode_type {
    RE_EPISODE_TYPE_UNSET,    /* no `type:` (a full episode, but the sidecar says nothing) */
    RE_EPISODE_FULL,
    RE_EPISODE_TRAILER,
    RE_EPISODE_BONUS
} re_episode_type;

/* "full", "trailer", "bonus" (RE_EPISODE_TYPE_UNSET: "full"). */
const char *re_episode_type_name(re_episode_type type);

/* The type named by `name` (s[0..len)), or RE_EPISODE_TYPE_UNSET when it names none. */
re_episode_type re_episode_type_from_name(const char *name, size_t len);

typedef struct re_episode {
    char *file;           /* the name used in diagnostics */
    char *title;          /* required */
    char *show, *published, *summary, *author; /* NULL when absent */
    char *language;       /* default "en-us" */
    char *voice;          /* default profile name, default "host" */
    long episode_number;  /* -1 when absent */
    long season;          /* `season:` 1..999999; -1 when absent */
    char *guid;           /* `guid:` the feed item's guid, overriding the derived one; NULL */
    re_episode_type type; /* `type:`; RE_EPISODE_TYPE_UNSET when absent */
    unsigned sample_rate; /* `sample_rate:` 22050, 44100 or 48000; 0 when absent */
    unsigned voice_line;  /* line of the `voice:` key, 0 when defaulted */
    char *lexicon;        /* the `lexicon:` value as written (a path), NULL when absent */
    unsigned lexicon_line, lexicon_col;
    char *intro, *outro;  /* `intro:`, `outro:` sound files as written (format 1.1), or NULL */
    unsigned intro_line, intro_col, outro_line, outro_col;   /* of the values */
    uint64_t intro_overlap_us;   /* `intro_overlap:` speech starts this long before the
                                  * intro ends (mixed over its tail); 0 when absent */
    unsigned intro_overlap_line, intro_overlap_col;
    uint64_t sound_gap_us;       /* `sound_gap:` the silence between speech and a sound file
                                  * (either side); RE_SOUND_GAP_DEFAULT_US when absent */
    unsigned sound_gap_line, sound_gap_col;   /* of the value; 0 when absent */
    re_music_spec music;
    char *image;          /* `image:` the episode's own cover art as written (relative to the
                           * script), NULL when absent; read and checked when rendering */
    unsigned image_line, image_col;   /* of the value */
    char *notes;          /* a Markdown script's document after its front matter, as written:
                           * the page's show notes; NULL for a .txt script */
    re_item *items;
    size_t item_count;
    re_md_section *sections; /* a Markdown script's headings that rank its blocks (at least
                           * sections[0]); NULL for a .txt script */
    size_t section_count;
    char **voices;        /* distinct profile names used by SPEECH items, in order of first use */
    size_t voice_count;
    re_voice_ref *voice_refs; /* every place that names a profile, in script order */
    size_t voice_ref_count;
} re_episode;

/* 1 when `path` names a Markdown document (it ends `.md` or `.markdown`, in any case):
 * re_script_parse reads it as CommonMark with GitHub's extensions (docs/script-format.md,
 * "Markdown"), not as the .txt format. */
int re_script_is_markdown(const char *path);

/* Parses a whole script held in memory; a Markdown document when re_script_is_markdown(file). `file` names it in diagnostics. On success *out is a
 * new episode (free with re_episode_free). On RE_ERR_INPUT every problem found (up to the
 * diagnostics limit) is in diag and *out is NULL. */
re_status re_script_parse(const char *file, const char *buf, size_t len, re_episode **out,
                          re_diagnostics *diag);

/* re_script_parse, but on RE_ERR_INPUT *out may still hold the episode as far as it was
 * read (NULL when the text could not be decoded), so that the profiles it names
 * (voice_refs) are checked in the same run and their errors reported with the parse errors
 * (re_episode_check_voices). Such an episode is incomplete: never render it; free it. */
re_status re_script_parse_partial(const char *file, const char *buf, size_t len,
                                  re_episode **out, re_diagnostics *diag);

/* Reads `path` (at most max_size bytes, else RE_ERR_LIMIT with a diagnostic) and parses it.
 * Read failures are RE_ERR_READ with a diagnostic naming the path and the reason. */
re_status re_script_load(const char *path, size_t max_size, re_episode **out, re_diagnostics *diag);

/* Resolves every profile the episode uses in `voices`; each unknown or invalid profile is a
 * diagnostic at the line and column that named it. RE_ERR_INPUT if any failed. */
re_status re_episode_check_voices(const re_episode *episode, re_voice_set *voices,
                                  re_diagnostics *diag);

/* Where byte `offset` of SPEECH item's text stands in the script buf[0..len) it was parsed
 * from: *line and *col (a byte column, as item->col) of that character, found by reading the
 * script from the item's own place as the parser did (blank runs and line breaks are one
 * space, comment lines are skipped, `\[` is one '['). For a piece cut from the item (another
 * writing system), so that its messages point at the piece. The item's own place when the
 * offset cannot be followed (not the buffer it was parsed from). */
void re_script_locate(const char *buf, size_t len, const re_item *item, size_t offset,
                      unsigned *line, unsigned *col);

void re_episode_free(re_episode *episode);

#endif
