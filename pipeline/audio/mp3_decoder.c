/* mp3_decoder.c - the one libmpg123 setup (see mp3_decoder.h). */
#include "mp3_decoder.h"

#include <stdio.h>

re_status re_mp3_decoder_new(int encoding, mpg123_handle **out, char *why, size_t why_len)
{
    int err = MPG123_OK;
    *out = NULL;
    mpg123_handle *mh = mpg123_new(NULL, &err);
    if (!mh) {
        if (why && why_len)
            snprintf(why, why_len, "cannot set up the MP3 decoder: %s", mpg123_plain_strerror(err));
        return err == MPG123_OUT_OF_MEM ? RE_ERR_NOMEM : RE_ERR_FORMAT;
    }
    const long *rates = NULL;
    size_t rate_count = 0;
    mpg123_rates(&rates, &rate_count);
    int ok = mpg123_param2(mh, MPG123_ADD_FLAGS, MPG123_GAPLESS | MPG123_QUIET, 0) == MPG123_OK
          && mpg123_param2(mh, MPG123_REMOVE_FLAGS, MPG123_FORCE_MONO | MPG123_FORCE_STEREO
                           | MPG123_IGNORE_INFOFRAME | MPG123_FORCE_8BIT | MPG123_FORCE_FLOAT,
                           0) == MPG123_OK
          && mpg123_format_none(mh) == MPG123_OK;
    for (size_t i = 0; ok && i < rate_count; i++)
        ok = mpg123_format(mh, rates[i], MPG123_MONO | MPG123_STEREO, encoding) == MPG123_OK;
    if (!ok) {
        if (why && why_len)
            snprintf(why, why_len, "cannot set up the MP3 decoder: %s", mpg123_strerror(mh));
        mpg123_delete(mh);
        return RE_ERR_FORMAT;
    }
    *out = mh;
    return RE_OK;
}
