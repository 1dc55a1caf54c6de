/* disclosure.h - the note that the voices are synthetic, the same words in the feed
 * (podcast:txt) and on the episode page. */
#ifndef RE_DISCLOSURE_H
#define RE_DISCLOSURE_H

#define RE_DISCLOSURE_TEXT "The voices in this episode are synthetic: it was read by a text-to-speech engine (espeak-ng)."

#endif
