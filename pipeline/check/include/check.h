/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check.h - the `check` stage: measures an MP3's true length by decoding it, collects every
 * claim that pages, feeds, JSON files, our sidecar and the MP3's own ID3 tag make about its
 * duration or size, judges each claim at the precision it was written with, and rewrites
 * wrong claims in place.
 *
 * Layers, each usable alone (the unit tests drive the pure ones on memory buffers):
 *   re_mp3_measure      decode with libmpg123 (gapless) -> samples, rate, bytes, TLEN texts
 *   re_claims_extract   one file's bytes -> claims with their byte spans (pure)
 *   re_claim_judge      a claim + a measurement -> verdict and measured text (pure)
 *   re_claims_fix       bytes + judged claims -> new bytes with wrong values replaced (pure)
 *   re_check_run        all of the above over an MP3 and files, with atomic rewriting
 * Nothing here prints or exits; problems in inputs are FILE:LINE:COL diagnostics. */
#ifndef RE_CHECK_H
#define RE_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "duration.h"
#include "status.h"

/* ---- measuring ------------------------------------------------------------------------ */

typedef struct re_mp3_measurement {
    uint64_t samples;        /* PCM frames per channel that the file decodes to, with the
                              * encoder delay and padding of a LAME/Xing tag removed */
    unsigned sample_rate;    /* Hz */
    unsigned channels;       /* 1 or 2 */
    uint64_t bytes;          /* file size */
    int mpeg_version;        /* 1 (MPEG-1), 2 (MPEG-2) or 25 (MPEG-2.5) */
    uint64_t frames;         /* MPEG frames decoded and counted (the Xing/Info tag frame is
                              * not one) */
    int64_t tag_frames;      /* frames the Xing/Info tag announces; -1 without a tag */
    uint64_t extra_frames;   /* frames that decode after the end the tag announces (junk that
                              * looks like audio, or files joined together): not counted */
    int has_lame_tag;        /* the LAME tag gave encoder delay and padding: samples are exact;
                              * without it, the decoded length includes them (one to two
                              * frames more than the encoder was fed) */
    int truncated;           /* fewer frames decoded than the Xing/Info tag announces */
    uint64_t stopped_at;     /* when not 0: decoding stopped at this byte offset because what
                              * follows is not MPEG audio (trailing junk, or damage) or changes
                              * the sample rate; the frames before it are measured */
    const char *stopped_why; /* static English reason when stopped_at is set */
    char **tlen;             /* texts of the ID3v2 TLEN frames (UTF-8), tlen_count of them */
    size_t tlen_count;
} re_mp3_measurement;

/* Decodes the whole file at `path` with libmpg123 (gapless, native rate and channels). On
 * success fills *out (release with re_mp3_measurement_free). Failures, each with one
 * diagnostic naming the path: RE_ERR_READ (missing, unreadable, a directory, not a regular
 * file), RE_ERR_FORMAT (no complete MPEG layer III frame: empty, random bytes, another
 * format), RE_ERR_NOMEM. A truncated or damaged file that still decodes some frames is not a
 * failure: what decodes is measured, and truncated / extra_frames / stopped_at say what
 * happened. *out is zeroed on failure. */
re_status re_mp3_measure(const char *path, re_mp3_measurement *out, re_diagnostics *diag);
void re_mp3_measurement_free(re_mp3_measurement *m);

/* ---- claims ----------------------------------------------------------------------------- */

#define RE_CHECK_MAX_FILE_SIZE (64u << 20)   /* pages, feeds and JSON files */
#define RE_CHECK_MAX_CLAIMS 10000u          /* claims in one file (more: RE_ERR_LIMIT) */

typedef enum re_claim_kind {
    RE_CLAIM_DURATION,     /* a duration in some notation (see re_notation) */
    RE_CLAIM_MS,           /* whole milliseconds: sidecar duration_ms, ID3 TLEN */
    RE_CLAIM_SAMPLES,      /* PCM frames per channel: sidecar samples */
    RE_CLAIM_SAMPLE_RATE,  /* Hz: sidecar sample_rate */
    RE_CLAIM_BYTES         /* file size: sidecar bytes, RSS/Atom enclosure length */
} re_claim_kind;

typedef enum re_notation {
    RE_NOTATION_ISO,       /* ISO 8601: PT2M53S, PT173S, PT2M53.5S */
    RE_NOTATION_CLOCK,     /* 173, 02:53, 0:02:53.5 (a bare number is seconds) */
    RE_NOTATION_INTEGER    /* a decimal count (MS, SAMPLES, SAMPLE_RATE, BYTES) */
} re_notation;

/* How a value was written, so a rewrite keeps its style. */
typedef struct re_claim_style {
    unsigned frac_digits;  /* digits after the decimal separator (0: none) */
    char frac_sep;         /* '.' or ',' */
    unsigned clock_fields; /* CLOCK: 1 (SSS), 2 (MM:SS) or 3 (HH:MM:SS) */
    unsigned first_width;  /* CLOCK: digits of the first field (zero-padded to this) */
    int seconds_only;      /* ISO: written as PT{n}S */
} re_claim_style;

typedef struct re_claim {
    char *file;            /* as given on the command line */
    unsigned line, col;    /* 1-based position of the value; 0 when there is none (TLEN) */
    char *field;           /* "Duration", "itunes:duration", "enclosure length", "duration",
                            * "duration_ms", "samples", "sample_rate", "bytes", "ID3 TLEN" */
    char *text;            /* the value exactly as written (string contents for JSON) */
    re_claim_kind kind;
    re_notation notation;
    re_claim_style style;
    int readable;          /* text parsed as a value of this kind */
    re_duration value;     /* DURATION and MS (MS: unit_us = 1000) */
    uint64_t count;        /* SAMPLES, SAMPLE_RATE, BYTES */
    size_t offset, length; /* byte span of the value in the file; length 0: cannot be rewritten */
    /* set by re_claim_judge: */
    int ok;
    int within_tolerance;  /* ok only thanks to the tolerance */
    char measured[64];     /* the measured value in this claim's notation */
    /* set by re_check_run when --fix rewrote it: */
    int fixed;
} re_claim;

typedef struct re_claim_list {
    re_claim *items;
    size_t count, capacity;
} re_claim_list;

void re_claim_list_init(re_claim_list *list);
void re_claim_list_free(re_claim_list *list);

typedef enum re_file_kind {
    RE_FILE_AUTO,          /* decide from the name and the first bytes (re_file_sniff) */
    RE_FILE_TEXT,          /* plain text or Markdown: `Duration:` lines outside ``` fences */
    RE_FILE_HTML,          /* `Duration:` lines outside script/style/comments + JSON-LD blocks */
    RE_FILE_JSON,          /* any "duration" key at any depth; read as a sidecar when its
                            * top-level "generator" starts with "render-episode" */
    RE_FILE_SIDECAR,       /* JSON read as render-episode's sidecar: also the top-level keys
                            * duration_ms, samples, sample_rate and bytes */
    RE_FILE_XML            /* RSS 2.0 items and Atom entries; an XHTML root is read as HTML */
} re_file_kind;

/* The kind by extension (.json .jsonld .xml .rss .atom .xhtml .html .htm .md .markdown .txt),
 * else by content after a BOM and blanks: '{' or '[' is JSON; "<?xml", "<rss", "<feed",
 * "<rdf:RDF" is XML; another '<' is HTML; anything else text. Returns neither RE_FILE_AUTO nor
 * RE_FILE_SIDECAR. */
re_file_kind re_file_sniff(const char *name, const char *buf, size_t len);
const char *re_file_kind_name(re_file_kind kind);

/* Appends to `out` every claim in buf[0..len), the contents of the file `name`, about the MP3
 * whose file name (no directory) is mp3_name, in the order they appear; feed items are matched
 * to it by the percent-decoded last path segment of their enclosure URL (query and fragment
 * ignored). kind RE_FILE_AUTO sniffs. A value that does not read is still a claim (readable 0)
 * when its label starts a line or its key names it; `Duration:` in mid-line prose is one only
 * when its value reads. RE_ERR_INPUT with a positioned diagnostic when JSON (also JSON-LD in
 * HTML) or XML is malformed, or JSON repeats a key; RE_ERR_LIMIT past RE_CHECK_MAX_CLAIMS;
 * nothing is added then. RE_ERR_NOMEM.
 * `notes` (may be NULL) receives remarks that are not errors, such as a feed with no item for
 * this MP3. XML is parsed without network access, DTD loading or entity substitution. */
re_status re_claims_extract(const char *name, const char *buf, size_t len, re_file_kind kind,
                            const char *mp3_name, re_claim_list *out, re_diagnostics *diag,
                            re_diagnostics *notes);

/* Appends one claim per ID3 TLEN frame of the measurement (file = mp3_path, no span). */
re_status re_claims_from_tlen(const char *mp3_path, const re_mp3_measurement *m,
                              re_claim_list *out);

/* Judges a claim against a measurement (the claim's unit u is its value.unit_us):
 * - whole-second durations hold when equal to the seconds rounded half up (re_samples_to_seconds);
 * - durations written with a coarser unit (PT3M: u = 60 s) or a finer one down to 10 ms hold
 *   when |claim - measured| <= u/2; milliseconds and finer, within 1 ms;
 * - MS claims within 1 ms; SAMPLES, SAMPLE_RATE and BYTES exactly;
 * - an unreadable claim never holds.
 * tolerance_us > 0 also accepts DURATION, MS and SAMPLES claims within that much time (never
 * BYTES or SAMPLE_RATE). Sets ok, within_tolerance and measured. */
void re_claim_judge(re_claim *claim, const re_mp3_measurement *m, uint64_t tolerance_us);

/* Whether re_claims_fix can rewrite this claim: it has a span, and it is readable or its kind
 * has only one notation (counts). */
int re_claim_fixable(const re_claim *claim);

/* Builds new file contents: every judged, failed, fixable claim among claims[0..n), which must
 * all have been extracted from buf, gets its span replaced by its `measured` text; all other
 * bytes are copied unchanged. *out is malloc'ed and NUL-terminated (owned by the caller, also
 * when *fixed is 0). Overlapping spans are RE_ERR_INVALID. */
re_status re_claims_fix(const char *buf, size_t len, const re_claim *claims, size_t n,
                        char **out, size_t *out_len, size_t *fixed);

/* ---- whole runs ------------------------------------------------------------------------- */


typedef struct re_check_options {
    const char *mp3_path;
    const char *const *files;   /* pages, feeds, JSON files */
    size_t file_count;
    uint64_t tolerance_us;      /* 0: none */
    int fix;                    /* rewrite wrong claims in `files` (not in the sidecar found
                                 * automatically, not in the MP3) */
    int no_sidecar;             /* do not look for MP3-name.json beside the MP3 */
    /* A published folder (check DIR, re_check_site_scan): the MP3's own pages (NAME.html, and
     * NAME.md when its sidecar lists it) are read as if named, but only when they are the
     * running user's or root's; the transcripts and chapters its sidecar lists must still be
     * the bytes it lists (re_check_report.companions). */
    int site;
    const char *const *shared_files;   /* feeds of the whole folder: read like `files`, but
                                        * one without a claim about this MP3 is no failure */
    size_t shared_count;
    /* with shared_files in site mode: per shared file, its claims about this MP3, already
     * extracted (re_check_site.feed_claims); they are moved into the report and the file is
     * not opened again. NULL: each shared file is read, only when the running user's or
     * root's. */
    re_claim_list *const *shared_claims;
} re_check_options;

typedef struct re_check_file {
    char *path;
    re_file_kind kind;
    int is_sidecar;             /* found beside the MP3 (or named and the same file) */
    int named;                  /* given in options.files (or a page found in site mode) */
    int shared;                 /* one of options.shared_files */
    uid_t foreign_owner;        /* site mode: found, but another user's: not read (0: read) */
    size_t feed_items;          /* a feed: its items and entries ... */
    size_t feed_matched;        /* ... and those whose enclosure names the MP3 */
    re_status status;           /* RE_OK, or why it could not be read or parsed */
    size_t claim_count;
    size_t fixed_count;         /* claims rewritten by --fix */
    char *fix_error;            /* why --fix could not replace it (its message in errors), or NULL */
} re_check_file;

typedef struct re_check_report {
    re_mp3_measurement mp3;
    int measured;               /* mp3 holds a measurement */
    re_claim_list claims;       /* in order: TLEN, sidecar, then files as given */
    re_check_file *files;       /* the sidecar (if any) and then each named file */
    size_t file_count;
    re_diagnostics errors;      /* inputs that could not be read, parsed or rewritten */
    re_diagnostics warnings;    /* truncated MP3, no LAME tag, feed without this MP3, ... */
    /* Files published beside the MP3 by name (NAME.vtt, .srt, .transcript.json,
     * .chapters.json, .html, .md) that its sidecar does not list as written by the render
     * that made it: each one a failure, with a message in errors (one it lists whose bytes
     * changed since is a warning). Judged only when the sidecar has a "files" list. */
    size_t strays;
    /* Site mode: the transcripts and chapters (NAME.vtt, .srt, .transcript.json,
     * .chapters.json) the sidecar lists, each judged against its size and SHA-256 there
     * (their cue and chapter times are the render's only while their bytes are). */
    struct re_check_companion {
        char *path;
        int ok;                 /* same bytes as the render wrote */
    } *companions;
    size_t companion_count;
    size_t not_checked;         /* site mode: found files of another user, left out */
} re_check_report;

/* Measures, extracts, judges and (with opt->fix) rewrites. Returns RE_OK when every input
 * could be read (claims may still fail: see re_check_failed); otherwise the first input
 * failure (RE_ERR_READ, RE_ERR_FORMAT, RE_ERR_INPUT, RE_ERR_LIMIT, RE_ERR_WRITE) after doing
 * all that could be done; RE_ERR_NOMEM or RE_ERR_INVALID stop at once. Always initialises
 * *report; release it with re_check_report_free. */
re_status re_check_run(const re_check_options *opt, re_check_report *report);
void re_check_report_free(re_check_report *report);

/* Number of claims that do not hold (after fixing), named files without any claim, strays
 * and companions that changed. */
size_t re_check_failed(const re_check_report *report);

/* ---- a published folder ----------------------------------------------------------------- */

#define RE_CHECK_MAX_DIR_ENTRIES 100000u   /* names in one folder (more: RE_ERR_LIMIT) */

/* What `check DIR` judges in a folder: each episode (NAME.mp3, with the files re_check_run
 * finds beside it in site mode) and the feeds (.xml, .rss, .atom) shared by all of them. */
typedef struct re_check_site {
    char **mp3s;                /* DIR/NAME.mp3, sorted by name */
    size_t mp3_count;
    char **feeds;               /* DIR/NAME.xml|.rss|.atom whose root is <rss>, <feed> or
                                 * <rdf:RDF>, read and parsed, sorted by name */
    size_t feed_count;
    size_t not_checked;         /* files left out with a warning */
    /* each feed parsed once: feed k's claims about MP3 m are feed_claims[k * mp3_count + m]
     * (give them to re_check_run as shared_claims; it moves them into its report) */
    re_claim_list *feed_claims;
    size_t *feed_items;         /* per feed: its items (RSS items, Atom entries), */
    size_t *feed_matched;       /* those whose enclosure names an MP3 of the folder, */
    size_t *feed_claim_count;   /* and the claims they make */
    re_status input_status;     /* RE_OK, or why the first feed left out could not be read
                                 * (RE_ERR_READ, RE_ERR_INPUT malformed, RE_ERR_LIMIT) */
} re_check_site;

/* Lists `dir` (not its subfolders; names starting with '.' are skipped). An MP3 or feed that
 * another user owns (not the running user, not root), or that is reached through their
 * symlink, and one that is a FIFO, device or socket, is never opened: a warning in `warnings`
 * says it is not checked (an episode's own files are judged so by re_check_run in site mode).
 * A page, transcript or chapters file with no NAME.mp3 beside it (other than index.html)
 * gets a warning too. A .xml, .rss or .atom file is a feed only when its root element is
 * <rss>, <feed> (Atom) or <rdf:RDF> (RSS 1.0); any other (a sitemap) is left out silently.
 * Each feed is read (only when the running user's or root's, never reopened later) and parsed
 * once, its items paired with the MP3s; a feed with items but none for some MP3s gets one
 * warning naming them. A feed that cannot be read or is malformed is reported in `errors`,
 * left out, and sets site->input_status; the scan goes on. RE_ERR_READ (dir cannot be opened), RE_ERR_LIMIT (more than
 * RE_CHECK_MAX_DIR_ENTRIES names check reads), RE_ERR_NOMEM; diagnostics in `errors`.
 * Always initialises *site; release it with re_check_site_free. */
re_status re_check_site_scan(const char *dir, re_check_site *site, re_diagnostics *errors,
                             re_diagnostics *warnings);
void re_check_site_free(re_check_site *site);

#endif
