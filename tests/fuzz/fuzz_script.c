/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz_script.c - the episode script parser: any bytes in, and whatever comes out keeps the
 * promises of script.h and docs/robustness.md (valid, clean, bounded text for the engine). */
#include <string.h>

#include "fuzz.h"
#include "script.h"
#include "utf8.h"
#include "voice.h"

static void check_speech_text(const char *text)
{
    size_t len = strlen(text), bad;
    const char *why;
    FUZZ_ASSERT(len > 0 && len <= RE_SCRIPT_MAX_PARAGRAPH);
    FUZZ_ASSERT(re_utf8_check(text, len, &bad, &why));
    FUZZ_ASSERT(text[0] != ' ' && text[len - 1] != ' ');
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        i += re_utf8_decode(text + i, text + len, &cp);
        FUZZ_ASSERT(!re_utf8_is_control(cp) && cp != '\n' && cp != '\t' && cp != '\r');
        if (cp == ' ')
            FUZZ_ASSERT(text[i] != ' ');   /* blanks are collapsed */
    }
}

static int known_voice(const re_episode *ep, const char *voice)
{
    for (size_t i = 0; i < ep->voice_count; i++)
        if (ep->voices[i] == voice)
            return 1;
    return 0;
}

static void check_episode(const re_episode *ep)
{
    FUZZ_ASSERT(ep->title && ep->language && ep->voice);
    FUZZ_ASSERT(ep->voice_count <= RE_SCRIPT_MAX_VOICES);
    size_t segments = 0, chapters = 0, speech = 0;
    uint64_t pauses = 0;
    unsigned line = 0, col = 0;
    for (size_t i = 0; i < ep->item_count; i++) {
        const re_item *it = &ep->items[i];
        FUZZ_ASSERT(it->line > line || (it->line == line && it->col >= col) || it->kind == RE_ITEM_BREAK);
        if (it->kind != RE_ITEM_BREAK) {
            line = it->line;
            col = it->col;
        }
        switch (it->kind) {
        case RE_ITEM_SPEECH:
            check_speech_text(it->text);
            FUZZ_ASSERT(known_voice(ep, it->voice));
            if (it->language) {   /* a [lang TAG] span: TAG as script.h allows */
                size_t n = strlen(it->language);
                FUZZ_ASSERT(n > 0 && n <= RE_SCRIPT_MAX_LANGUAGE);
                FUZZ_ASSERT(strspn(it->language, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                 "0123456789-") == n);
            }
            segments++;
            speech++;
            break;
        case RE_ITEM_PAUSE:
            FUZZ_ASSERT(it->pause_us >= RE_PAUSE_MIN_US && it->pause_us <= RE_PAUSE_MAX_US);
            FUZZ_ASSERT(!it->text && !it->language);
            pauses += it->pause_us;
            segments++;
            break;
        case RE_ITEM_BREAK:
            FUZZ_ASSERT(known_voice(ep, it->voice));
            FUZZ_ASSERT(i > 0 && i + 1 < ep->item_count);
            break;
        case RE_ITEM_CHAPTER:
            FUZZ_ASSERT(it->text && it->text[0]);
            chapters++;
            break;
        case RE_ITEM_SOUND:   /* a file name: no blanks, no ']', and a cut in range or none */
            FUZZ_ASSERT(it->text && it->text[0] && !strpbrk(it->text, " \t]") && !it->language);
            FUZZ_ASSERT(it->pause_us == 0
                        || (it->pause_us >= RE_PAUSE_MIN_US && it->pause_us <= RE_PAUSE_MAX_US));
            segments++;
            break;
        default:
            FUZZ_ASSERT(0);
        }
    }
    FUZZ_ASSERT(speech > 0);
    FUZZ_ASSERT(segments <= RE_SCRIPT_MAX_SEGMENTS);
    FUZZ_ASSERT(chapters <= RE_SCRIPT_MAX_CHAPTERS);
    FUZZ_ASSERT(pauses <= RE_EPISODE_MAX_US);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    re_diagnostics diag;
    re_diagnostics_init(&diag, RE_DIAG_DEFAULT_LIMIT);
    re_episode *ep = NULL;
    re_status status = re_script_parse("fuzz.txt", (const char *)data, size, &ep, &diag);
    FUZZ_ASSERT(status == RE_OK || status == RE_ERR_INPUT || status == RE_ERR_NOMEM);
    if (status == RE_OK) {
        FUZZ_ASSERT(ep && diag.count == 0);
        check_episode(ep);
    } else {
        FUZZ_ASSERT(!ep);
        FUZZ_ASSERT(status == RE_ERR_NOMEM || diag.count > 0);
    }
    for (size_t i = 0; i < diag.count; i++) {
        const char *m = diag.items[i].message;
        FUZZ_ASSERT(m && m[0]);
        /* No control character reaches the terminal; a TAB quoted from the input may. */
        for (const unsigned char *c = (const unsigned char *)m; *c; c++)
            FUZZ_ASSERT((*c >= 0x20 || *c == '\t') && *c != 0x7F
                        && !(c[0] == 0xC2 && c[1] >= 0x80 && c[1] <= 0x9F));
    }
    /* The partial parse (prepare.c checks its voices with the parse errors): the same verdict
     * and messages; what it hands out on failure is freed cleanly and names only valid
     * profile names. */
    re_diagnostics again;
    re_diagnostics_init(&again, RE_DIAG_DEFAULT_LIMIT);
    re_episode *partial = NULL;
    re_status partial_status = re_script_parse_partial("fuzz.txt", (const char *)data, size,
                                                       &partial, &again);
    FUZZ_ASSERT(partial_status == status && again.count == diag.count);
    FUZZ_ASSERT(status != RE_OK || partial);
    for (size_t i = 0; partial && i < partial->voice_ref_count; i++)
        FUZZ_ASSERT(re_voice_name_valid(partial->voice_refs[i].name));
    re_episode_free(partial);
    re_diagnostics_free(&again);
    re_episode_free(ep);
    re_diagnostics_free(&diag);
    return 0;
}
