/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tags.h - what the audio file itself says about its episode: the MP3's ID3v2 tag and the
 * WAV's LIST/INFO strings, filled from the script's front matter and the render's facts, the
 * facts the sidecar holds (sidecar.h), so that the file and its sidecar say the same things.
 *
 * The mapping, for both formats: title -> title; author, else show -> artist; show -> album;
 * summary -> comment; published -> date. The MP3 also gets genre "Podcast", TLEN (the exact
 * milliseconds of the duration rule), TSSE (program, engine and encoder with its settings)
 * and a chapter frame per chapter mark, and the cover art (cover.h) as an APIC frame: picture
 * type 3 (front cover), its MIME type and its bytes as read, no description; the WAV names the program as its software. */
#ifndef RE_RUN_TAGS_H
#define RE_RUN_TAGS_H

#include <stddef.h>

#include "cover.h"
#include "sidecar.h"
#include "status.h"
#include "wav.h"

/* The complete ID3v2.3 tag (id3.h) for facts whose audio is assembled (samples, sample rate,
 * chapters, engine and encoder; bytes and loudness are not used), with the cover when it is
 * present (cover may be NULL). *tag is malloc'ed, the
 * caller's. RE_ERR_NOMEM, or RE_ERR_INVALID for front matter id3.h cannot represent. */
re_status re_episode_id3_tag(const re_render_facts *facts, const episode_cover *cover,
                             unsigned char **tag, size_t *tag_len);

/* The WAV's strings, borrowed from the episode. */
re_wav_tags re_episode_wav_tags(const re_episode *episode);

#endif
