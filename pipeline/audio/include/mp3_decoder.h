/* mp3_decoder.h - a libmpg123 decoder set up the way this program reads MP3s (check's
 * duration measurement, the loudness stage's peaks and loudness): gapless, so the LAME tag's
 * delay and padding are removed as ffmpeg removes them; silent; every rate libmpg123 knows,
 * mono or stereo, each file keeping its own; one sample encoding for all. */
#ifndef RE_MP3_DECODER_H
#define RE_MP3_DECODER_H

#include <stddef.h>

#include <mpg123.h>

#include "status.h"

/* A new handle decoding to `encoding` (MPG123_ENC_SIGNED_16, MPG123_ENC_FLOAT_32, ...), not
 * yet opened on anything; free it with mpg123_delete. RE_ERR_NOMEM, or RE_ERR_FORMAT when
 * libmpg123 refuses the setup, with the reason in why (may be NULL). */
re_status re_mp3_decoder_new(int encoding, mpg123_handle **out, char *why, size_t why_len);

#endif
