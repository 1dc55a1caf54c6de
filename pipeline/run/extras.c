/* SPDX-License-Identifier: GPL-3.0-or-later */
/* extras.c - the files published beside an episode's audio but the sidecar (see extras.h). */
#include "extras.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "page.h"
#include "sidecar.h"

/* The HTML page names the audio and the WebVTT transcript beside it, by file name. */
static re_status write_html_page(FILE *out, const char *output_path,
                                 const re_render_facts *facts, const re_transcript *transcript)
{
    char *vtt = re_output_sibling(output_path, ".vtt");
    if (!vtt)
        return RE_ERR_NOMEM;
    const char *audio_slash = strrchr(output_path, '/'), *vtt_slash = strrchr(vtt, '/');
    re_status status = re_page_write_html(out, facts, transcript,
                                          audio_slash ? audio_slash + 1 : output_path,
                                          vtt_slash ? vtt_slash + 1 : vtt);
    free(vtt);
    return status;
}

/* The Markdown page links the audio beside it, by file name. */
static re_status write_markdown_page(FILE *out, const char *output_path,
                                     const re_render_facts *facts,
                                     const re_transcript *transcript)
{
    const char *audio_slash = strrchr(output_path, '/');
    return re_page_write_named(out, facts, transcript,
                               audio_slash ? audio_slash + 1 : output_path);
}

re_status re_render_write_extras(output_set *outputs, const char *output_path,
                                 const re_render_facts *facts, const re_transcript *transcript,
                                 const episode_cover *cover, re_diagnostics *diag)
{
    for (int k = 0; k < OUTPUT_KINDS; k++) {
        re_output *file = k == OUTPUT_AUDIO || k == OUTPUT_SIDECAR ? NULL
                        : re_output_set_file(outputs, (output_kind)k);
        if (!file)
            continue;
        FILE *out = re_output_stream(file);
        re_status status = RE_OK;
        switch (k) {
        case OUTPUT_VTT: status = re_transcript_write_vtt(out, transcript); break;
        case OUTPUT_SRT: status = re_transcript_write_srt(out, transcript); break;
        case OUTPUT_TRANSCRIPT_JSON: status = re_transcript_write_json(out, transcript); break;
        case OUTPUT_CHAPTERS:
            status = re_chapters_json_write(out, facts->chapters, facts->chapter_count,
                                            facts->sample_rate);
            break;
        case OUTPUT_PAGE: status = write_html_page(out, output_path, facts, transcript); break;
        case OUTPUT_PAGE_MD:
            status = write_markdown_page(out, output_path, facts, transcript);
            break;
        case OUTPUT_COVER_JPEG: case OUTPUT_COVER_PNG:   /* the script's image, as read */
            status = fwrite(cover->bytes, 1, cover->len, out) == cover->len ? RE_OK
                                                                             : RE_ERR_WRITE;
            break;
        }
        if (status != RE_OK)
            return re_diag_fail(diag, status, re_output_target(file), 0, 0, "%s",
                                status == RE_ERR_NOMEM ? "out of memory" : "cannot write");
    }
    return RE_OK;
}
