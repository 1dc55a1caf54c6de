/* SPDX-License-Identifier: GPL-3.0-or-later */
/* disclosure.h - the one sentence that tells listeners the voices are synthetic: the feed's
 * podcast:txt (purpose "disclosure") and the episode page both say it, in these words. */
#ifndef RE_DISCLOSURE_H
#define RE_DISCLOSURE_H

#define RE_DISCLOSURE_TEXT \
    "The voices in this episode are synthetic: it was read from a written script by " \
    "text-to-speech software (espeak-ng)."

#endif
