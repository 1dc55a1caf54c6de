/* text_rules.h - what a published text may hold, private to the describe stage: the show
 * file's and the sidecar's readers judge texts by the same rules (defined in feed.c). */
#ifndef RE_TEXT_RULES_H
#define RE_TEXT_RULES_H

#include <stdint.h>

/* The first code point in s (valid UTF-8) that XML 1.0 cannot carry - C0 controls other than
 * TAB, LF and CR, U+FFFE, U+FFFF - or 0 when there is none. */
uint32_t re_text_xml_unsafe(const char *s);

#endif
