/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prepare.h - an episode's inputs, loaded and checked, as render and explain both start:
 * the script (its bytes kept), the voice profiles it names resolved in the voice folders,
 * and its pronunciation lexicon built (shipped default < the script's `lexicon:` < each
 * --lexicon). Nothing here touches the speech engine except re_prepared_check_engine. */
#ifndef RE_PREPARE_H
#define RE_PREPARE_H

#include <stddef.h>

#include "lexicon.h"
#include "normalize.h"
#include "script.h"
#include "status.h"
#include "synth.h"
#include "voice.h"

/* Where an episode's inputs come from. The arrays are borrowed for the call. */
typedef struct re_episode_sources {
    const char *script_path;
    size_t max_script_size;            /* bytes */
    const char *const *voice_dirs;     /* searched in this order */
    size_t voice_dir_count;
    const char *const *lexicon_paths;  /* --lexicon files, applied in order after the others */
    size_t lexicon_path_count;
    int no_default_lexicon;            /* leave out the shipped voices/default.lexicon */
    const char *const *allowed_dirs;   /* --allow-path: folders a script may name files in, */
    size_t allowed_dir_count;          /* besides its own folder tree (lexicon.h) */
} re_episode_sources;

/* All owned by the struct; free with re_prepared_free (a zeroed struct is free to free). */
typedef struct re_prepared {
    char *script_bytes;                /* the script as read: the bytes that were parsed */
    size_t script_len;
    re_episode *episode;
    re_voice_set *voices;
    const re_voice_profile **profiles; /* profiles[i] is episode->voices[i]'s, owned by voices */
    re_lexicon *lexicon;
} re_prepared;

/* Reads and parses the script, resolves its profiles, builds its lexicon, in that order.
 * Every problem goes to diag (FILE:LINE:COL); returns the first failure's status
 * (RE_ERR_INPUT, RE_ERR_READ, RE_ERR_LIMIT, RE_ERR_NOMEM). On failure *out holds what was
 * made so far: free it all the same. */
re_status re_prepare(const re_episode_sources *sources, re_prepared *out, re_diagnostics *diag);

/* The profile of a voice the episode names (NULL for one it does not). */
const re_voice_profile *re_prepared_profile(const re_prepared *prepared, const char *voice);

/* What a SPEECH item is spoken with: its paragraph's profile, or, for text in a [lang TAG]
 * span, a copy of it in `scratch` whose engine voice is espeak-ng's TAG with the profile's
 * variant ("en-gb+f3" and [lang de] give "de+f3"; a flite profile's span is espeak-ng's voice
 * TAG alone, with the profile's rate, pitch, range and volume), written into voice_buf. The
 * copy borrows the profile's other strings: valid while `prepared` and voice_buf are. */
#define RE_ITEM_VOICE_MAX 128
const re_voice_profile *re_prepared_item_profile(const re_prepared *prepared,
                                                 const re_item *item, re_voice_profile *scratch,
                                                 char voice_buf[RE_ITEM_VOICE_MAX]);

/* The spoken text of a SPEECH item for the voice it is spoken with (normalize.h's
 * re_normalize_spans_for: the lexicon, and the rules only for an English voice). */
re_status re_prepared_item_spoken(const re_prepared *prepared, const re_item *item,
                                  re_spoken *out);

/* Checks that the engine has every profile's engine voice (in a child, like speech). A
 * missing one is reported at the first paragraph that speaks with it: "voice profile 'NAME':
 * why"; a [lang TAG] the engine has no voice for, at its span: "[lang TAG]: why".
 * RE_ERR_INTERRUPTED is returned without a message. */
re_status re_prepared_check_engine(const re_prepared *prepared, re_engine *engine,
                                   re_diagnostics *diag);

/* The engines that speak the episode, with their versions, into out (size bytes): "espeak-ng
 * 1.51", "flite 2.2", or "espeak-ng 1.51, flite 2.2" (always in that order) when both do; an
 * episode with nothing to say names its default voice's engine. For provenance (the sidecar,
 * the MP3's TSSE) and the fingerprint of what made the outputs. */
void re_prepared_engines(const re_prepared *prepared, const re_engine *engine, char *out,
                         size_t size);

void re_prepared_free(re_prepared *prepared);

#endif
