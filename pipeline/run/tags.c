/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tags.c - the episode's ID3 frames and WAV strings (see tags.h). */
#include "tags.h"

#include <stdio.h>
#include <stdlib.h>

#include "duration.h"
#include "id3.h"

re_status re_episode_id3_tag(const re_render_facts *facts, const episode_cover *cover,
                             unsigned char **tag, size_t *tag_len)
{
    const re_episode *ep = facts->episode;
    unsigned rate = facts->sample_rate;
    size_t count = facts->chapter_count;
    re_id3_chapter *chapters = count ? calloc(count, sizeof *chapters) : NULL;
    if (count && !chapters)
        return RE_ERR_NOMEM;
    for (size_t i = 0; i < count; i++) {
        const re_chapter_mark *mark = &facts->chapters[i];
        chapters[i] = (re_id3_chapter){ mark->title, (uint32_t)re_samples_to_ms(mark->start, rate),
                                        (uint32_t)re_samples_to_ms(mark->end, rate) };
    }
    char settings[320];
    snprintf(settings, sizeof settings, "render-episode %s; %s; %s", RE_VERSION, facts->engine,
             facts->encoder);
    re_id3_fields fields = {
        .title = ep->title,
        .artist = ep->author ? ep->author : ep->show,
        .album = ep->show,
        .published = ep->published,
        .genre = "Podcast",
        .comment = ep->summary,
        .encoder_settings = settings,
        .length_ms = re_samples_to_ms(facts->samples, rate),
        .track = ep->episode_number,
        .chapters = chapters,
        .chapter_count = count,
    };
    if (cover && cover->present) {
        fields.picture = cover->bytes;
        fields.picture_len = cover->len;
        fields.picture_mime = cover->mime;
    }
    re_status status = re_id3_build(&fields, tag, tag_len);
    free(chapters);
    return status;
}

re_wav_tags re_episode_wav_tags(const re_episode *ep)
{
    re_wav_tags tags = {
        .title = ep->title, .artist = ep->author ? ep->author : ep->show, .album = ep->show,
        .comment = ep->summary, .date = ep->published, .software = "render-episode " RE_VERSION,
    };
    return tags;
}
