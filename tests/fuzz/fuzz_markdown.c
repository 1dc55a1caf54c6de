/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz_markdown.c - a Markdown script (*.md): any bytes in, and the episode keeps the promises
 * of script.h as for a .txt script (valid, clean, bounded text for the engine); explain's
 * outline gives the same verdict and a place, a kind and an account for every block. */
#include <string.h>

#include "fuzz.h"
#include "markdown.h"
#include "script.h"
#include "utf8.h"

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

static void check_episode(const re_episode *ep)
{
    FUZZ_ASSERT(ep->title && ep->language && ep->voice);
    size_t segments = 0, chapters = 0, speech = 0;
    for (size_t i = 0; i < ep->item_count; i++) {
        const re_item *it = &ep->items[i];
        switch (it->kind) {
        case RE_ITEM_SPEECH:
            check_speech_text(it->text);
            segments++;
            speech++;
            break;
        case RE_ITEM_PAUSE:
            FUZZ_ASSERT(it->pause_us >= RE_PAUSE_MIN_US && it->pause_us <= RE_PAUSE_MAX_US);
            segments++;
            break;
        case RE_ITEM_BREAK:
            FUZZ_ASSERT(i > 0 && i + 1 < ep->item_count);
            break;
        case RE_ITEM_CHAPTER:
            FUZZ_ASSERT(it->text && it->text[0]);
            chapters++;
            break;
        case RE_ITEM_SOUND:
            FUZZ_ASSERT(it->text && it->text[0] && !strpbrk(it->text, " \t]"));
            segments++;
            break;
        default:
            FUZZ_ASSERT(0);
        }
    }
    FUZZ_ASSERT(speech > 0);
    FUZZ_ASSERT(segments <= RE_SCRIPT_MAX_SEGMENTS);
    FUZZ_ASSERT(chapters <= RE_SCRIPT_MAX_CHAPTERS);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    re_diagnostics diag;
    re_diagnostics_init(&diag, RE_DIAG_DEFAULT_LIMIT);
    re_episode *ep = NULL;
    re_status status = re_script_parse("fuzz.md", (const char *)data, size, &ep, &diag);
    FUZZ_ASSERT(status == RE_OK || status == RE_ERR_INPUT || status == RE_ERR_NOMEM);
    if (status == RE_OK) {
        FUZZ_ASSERT(ep);
        check_episode(ep);   /* warnings (code blocks, a large table) may come with it */
    } else {
        FUZZ_ASSERT(!ep);
        FUZZ_ASSERT(status == RE_ERR_NOMEM || diag.count > 0);
    }
    for (size_t i = 0; i < diag.count; i++) {
        const char *m = diag.items[i].message;
        FUZZ_ASSERT(m && m[0]);
        for (const unsigned char *c = (const unsigned char *)m; *c; c++)
            FUZZ_ASSERT((*c >= 0x20 || *c == '\t') && *c != 0x7F
                        && !(c[0] == 0xC2 && c[1] >= 0x80 && c[1] <= 0x9F));
    }

    re_md_outline outline = { 0 };
    re_diagnostics again;
    re_diagnostics_init(&again, RE_DIAG_DEFAULT_LIMIT);
    re_status outline_status = re_markdown_outline("fuzz.md", (const char *)data, size,
                                                   &outline, &again);
    FUZZ_ASSERT(outline_status == status || outline_status == RE_ERR_NOMEM
                || status == RE_ERR_NOMEM);
    for (size_t i = 0; i < outline.count; i++) {
        const re_md_block *b = &outline.blocks[i];
        FUZZ_ASSERT(b->kind && b->kind[0] && b->account && b->account[0]);
        FUZZ_ASSERT(b->line > 0 && b->col > 0);
    }
    re_md_outline_free(&outline);
    re_diagnostics_free(&again);
    re_episode_free(ep);
    re_diagnostics_free(&diag);
    return 0;
}
