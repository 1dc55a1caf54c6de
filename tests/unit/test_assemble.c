/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_assemble.c - exact joins: leading/trailing engine silence trimmed, sentence gaps set
 * to the profile's pause, silences exact, chapters and events placed on the right samples. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "assemble.h"
#include "testkit.h"

#define RATE 1000   /* 1 sample = 1 ms keeps the arithmetic readable */

/* A fake segment: [10 zeros][20 sound][50 zeros][30 sound][5 zeros], sentence 2 inside the gap. */
static re_speech fake_speech(void)
{
    re_speech s = { 0 };
    s.frames = 115;
    s.rate = RATE;
    s.pcm = calloc(s.frames, sizeof *s.pcm);
    for (size_t i = 10; i < 30; i++)
        s.pcm[i] = 1000;
    for (size_t i = 80; i < 110; i++)
        s.pcm[i] = -1000;
    s.pcm[15] = 0;   /* a one-sample zero inside a sound is not a gap */
    s.event_count = 3;
    s.events = calloc(3, sizeof *s.events);
    s.events[0] = (re_speech_event){ RE_EVENT_SENTENCE, 1, 0, 0 };
    s.events[1] = (re_speech_event){ RE_EVENT_WORD, 1, 5, 12 };
    s.events[2] = (re_speech_event){ RE_EVENT_SENTENCE, 20, 0, 60 };
    return s;
}

/* Sound files are written as they are; the intro's held tail is mixed under what follows
 * (clipped), and what nothing covers is written at finish. */
static void sounds_and_overlap(void)
{
    re_assembler *a;
    re_diagnostics diag;
    re_diagnostics_init(&diag, 0);
    CHECK_INT(re_assembler_create(RATE, &a, &diag), RE_OK);
    /* edges at most RE_JOIN_JUMP_MAX: written as they are (no fade) */
    int16_t intro[10], insert[4] = { 7, -7, 32000, -8 };
    for (int i = 0; i < 10; i++)
        intro[i] = (int16_t)(100 * (i + 1));
    intro[0] = intro[9] = 8;
    CHECK_INT(re_assembler_add_sound_overlapped(a, intro, 10, 11, &diag), RE_ERR_INVALID);
    CHECK_INT(re_assembler_add_sound_overlapped(a, intro, 10, 4, &diag), RE_OK);
    CHECK_INT(re_assembler_frames(a), 6);   /* the held tail is not the end yet */
    CHECK_INT(re_assembler_add_sound_overlapped(a, insert, 4, 1, &diag), RE_ERR_INVALID);
    CHECK_INT(re_assembler_mark_chapter(a, "Talk"), RE_OK);   /* starts under the tail */
    CHECK_INT(re_assembler_add_silence(a, 2, &diag), RE_OK);   /* covers 2 of the 4 */
    CHECK_INT(re_assembler_add_sound(a, insert, 4, &diag), RE_OK);   /* the rest, and 2 more */
    CHECK_INT(re_assembler_frames(a), 12);
    CHECK_INT(re_assembler_add_sound_overlapped(a, intro, 10, 10, &diag), RE_OK);   /* nothing after */
    CHECK_INT(re_assembler_finish(a, &diag), RE_OK);
    CHECK_INT(re_assembler_frames(a), 22);
    int16_t buf[32];
    size_t got = 0, total = 0;
    do {
        CHECK_INT(re_assembler_read(a, buf + total, 32 - total, &got, &diag), RE_OK);
        total += got;
    } while (got > 0 && total < 32);
    CHECK_INT(total, 22);
    static const int16_t want[22] = { 8, 200, 300, 400, 500, 600,     /* intro head */
                                      700, 800,                       /* tail over silence */
                                      900 + 7, 8 - 7,                 /* tail + insert */
                                      32000, -8,                      /* insert alone */
                                      8, 200, 300, 400, 500, 600, 700, 800, 900, 8 };
    CHECK(memcmp(buf, want, sizeof want) == 0);
    size_t n;
    const re_chapter_mark *ch = re_assembler_chapters(a, &n);
    CHECK_INT(n, 1);
    CHECK_INT(ch[0].start, 0);   /* the first chapter reaches back to 0 */
    re_assembler_free(a);

    /* clipping: a loud tail under loud speech */
    CHECK_INT(re_assembler_create(RATE, &a, &diag), RE_OK);
    int16_t loud[4] = { 1, 30000, -30000, 1 };
    CHECK_INT(re_assembler_add_sound_overlapped(a, loud, 4, 4, &diag), RE_OK);
    CHECK_INT(re_assembler_add_sound(a, loud, 4, &diag), RE_OK);
    CHECK_INT(re_assembler_finish(a, &diag), RE_OK);
    CHECK_INT(re_assembler_read(a, buf, 32, &got, &diag), RE_OK);
    CHECK_INT(got, 4);
    CHECK_INT(buf[1], 32767);
    CHECK_INT(buf[2], -32768);
    re_assembler_free(a);

    /* release: the rest of the tail written as it is, what follows (the outro) after it */
    CHECK_INT(re_assembler_create(RATE, &a, &diag), RE_OK);
    CHECK_INT(re_assembler_release(a, &diag), RE_OK);   /* nothing held: nothing written */
    CHECK_INT(re_assembler_frames(a), 0);
    CHECK_INT(re_assembler_add_sound_overlapped(a, intro, 10, 4, &diag), RE_OK);
    CHECK_INT(re_assembler_add_silence(a, 1, &diag), RE_OK);   /* covers 1 of the 4 */
    CHECK_INT(re_assembler_release(a, &diag), RE_OK);
    CHECK_INT(re_assembler_frames(a), 10);
    CHECK_INT(re_assembler_add_sound(a, insert, 2, &diag), RE_OK);
    CHECK_INT(re_assembler_finish(a, &diag), RE_OK);
    CHECK_INT(re_assembler_read(a, buf, 32, &got, &diag), RE_OK);
    CHECK_INT(got, 12);
    static const int16_t released[12] = { 8, 200, 300, 400, 500, 600, 700, 800, 900, 8,
                                          7, -7 };
    CHECK(memcmp(buf, released, sizeof released) == 0);
    re_assembler_free(a);

    /* a sound that starts and ends on a loud sample (a square wave) is faded in and out over
     * 5 ms like speech, so it does not click; its middle is as it was; held or not */
    int16_t square[40];
    for (int i = 0; i < 40; i++)
        square[i] = (int16_t)(i % 10 < 5 ? 6000 : -6000);
    for (size_t overlap = 0; overlap <= 20; overlap += 20) {
        CHECK_INT(re_assembler_create(RATE, &a, &diag), RE_OK);
        CHECK_INT(re_assembler_add_sound_overlapped(a, square, 40, overlap, &diag), RE_OK);
        CHECK_INT(re_assembler_finish(a, &diag), RE_OK);
        int16_t out[40];
        total = 0;
        do {
            CHECK_INT(re_assembler_read(a, out + total, 40 - total, &got, &diag), RE_OK);
            total += got;
        } while (got > 0 && total < 40);
        CHECK_INT(total, 40);
        CHECK_INT(out[0], 444);       /* 6000 x 16/216 */
        CHECK_INT(out[4], 5555);      /* 6000 x 200/216 */
        CHECK_INT(out[5], -6000);
        CHECK_INT(out[34], 6000);
        CHECK_INT(out[39], -444);
        re_assembler_free(a);
    }
    re_diagnostics_free(&diag);
}

/* Where a sentence's pause goes comes from its own audio (up to the next sentence's call),
 * not from the silences inside it: a 30 ms stop before the last word ("u+w [stop] B.") stays,
 * a breath tail of 40 ms or more no louder than 1/100 of the peak goes, a quieter sound of
 * its own (a final "f", louder than that) stays, and a sample that is not zero never becomes
 * zero in a fade (so the pause keeps its length). */
static void pause_after_the_whole_sentence(void)
{
    re_assembler *a;
    re_diagnostics diag;
    re_diagnostics_init(&diag, 0);
    re_speech s = { 0 };
    s.frames = 260;
    s.rate = RATE;
    s.pcm = calloc(s.frames, sizeof *s.pcm);
    for (size_t i = 0; i < 20; i++)
        s.pcm[i] = 2000;          /* "Run chmod u+w" */
    for (size_t i = 50; i < 60; i++)
        s.pcm[i] = 2000;          /* "B." after a 30-sample stop */
    for (size_t i = 60; i < 110; i++)
        s.pcm[i] = (int16_t)(i % 2 ? 3 : -3);   /* a breath tail: 50 samples at 3 <= 2000/100 */
    for (size_t i = 120; i < 140; i++)
        s.pcm[i] = 2000;          /* the second sentence */
    for (size_t i = 140; i < 200; i++)
        s.pcm[i] = 30;            /* its final fricative: 30 > 2000/100, kept */
    s.pcm[199] = 10;              /* faded to 10 x 16/216 = 0.74: kept as 1 */
    s.event_count = 2;
    s.events = calloc(2, sizeof *s.events);
    s.events[0] = (re_speech_event){ RE_EVENT_SENTENCE, 1, 0, 0 };
    s.events[1] = (re_speech_event){ RE_EVENT_SENTENCE, 18, 0, 115 };
    CHECK_INT(re_assembler_create(RATE, &a, &diag), RE_OK);
    CHECK_INT(re_assembler_add_speech(a, &s, 100, &diag), RE_OK);
    /* 60 (sentence 1, its stop kept, its tail gone) + 100 pause + 80 (sentence 2) */
    CHECK_INT(re_assembler_frames(a), 60 + 100 + 80);
    CHECK_INT(re_assembler_finish(a, &diag), RE_OK);
    int16_t buf[256];
    size_t got;
    CHECK_INT(re_assembler_read(a, buf, 256, &got, &diag), RE_OK);
    CHECK_INT(got, 240);
    CHECK_INT(buf[25], 0);        /* the stop inside the sentence */
    CHECK_INT(buf[54], 2000);     /* "B." before the pause */
    CHECK_INT(buf[59], 148);      /* 2000 x 16/216: faded */
    for (size_t i = 60; i < 160; i++)
        CHECK_INT(buf[i], 0);
    CHECK_INT(buf[160], 148);
    CHECK_INT(buf[200], 30);
    CHECK_INT(buf[239], 1);       /* never 0 */
    size_t n;
    const re_sentence_span *sp = re_assembler_sentences(a, &n);
    CHECK_INT(n, 2);
    CHECK_INT(sp[0].end, 60);
    CHECK_INT(sp[1].start, 160);
    re_speech_free(&s);
    re_assembler_free(a);
    re_diagnostics_free(&diag);
}

/* A segment is audible when any one sample is not zero, the last or a negative one too. */
static void audible_at_one_sample(void)
{
    int16_t pcm[8] = { 0 };
    re_speech s = { 0 };
    s.rate = RATE;
    s.pcm = pcm;
    CHECK_INT(re_assembler_audible(&s), 0);        /* no samples */
    s.frames = 8;
    CHECK_INT(re_assembler_audible(&s), 0);        /* all zero */
    pcm[7] = -1;
    CHECK_INT(re_assembler_audible(&s), 1);        /* the last, below zero */
    s.frames = 7;
    CHECK_INT(re_assembler_audible(&s), 0);        /* not counted past frames */
    pcm[0] = 1;
    CHECK_INT(re_assembler_audible(&s), 1);
}

int main(void)
{
    audible_at_one_sample();
    sounds_and_overlap();
    pause_after_the_whole_sentence();
    re_assembler *a;
    re_diagnostics diag;
    re_diagnostics_init(&diag, 0);
    CHECK_INT(re_assembler_create(RATE, &a, &diag), RE_OK);
    re_speech s = fake_speech();
    CHECK_INT(re_assembler_mark_chapter(a, "One"), RE_OK);
    CHECK_INT(re_assembler_add_speech(a, &s, 40, &diag), RE_OK);
    /* 20 sound + 40 pause + 30 sound */
    CHECK_INT(re_assembler_frames(a), 90);
    CHECK_INT(re_assembler_add_silence(a, 7, &diag), RE_OK);
    CHECK_INT(re_assembler_mark_chapter(a, "Two"), RE_OK);
    CHECK_INT(re_assembler_add_speech(a, &s, 10, &diag), RE_OK);
    CHECK_INT(re_assembler_frames(a), 90 + 7 + 60);
    CHECK_INT(re_assembler_finish(a, &diag), RE_OK);

    size_t n;
    const re_timed_event *ev = re_assembler_events(a, &n);
    CHECK_INT(n, 6);
    CHECK_INT(ev[0].sample, 0);        /* sentence 1 at the first sound */
    CHECK_INT(ev[1].sample, 2);        /* word at 12 - 10 trimmed */
    CHECK_INT(ev[2].sample, 60);       /* sentence 2 at the next sound after the 40-sample pause */
    CHECK_INT(ev[3].sample, 97);
    CHECK_INT(ev[5].sample, 97 + 30);
    CHECK_INT(ev[5].segment, 1);

    const re_sentence_span *sp = re_assembler_sentences(a, &n);
    CHECK_INT(n, 4);
    CHECK_INT(sp[0].start, 0);
    CHECK_INT(sp[0].end, 20);         /* the last sound before the gap */
    CHECK_INT(sp[1].start, 60);
    CHECK_INT(sp[1].end, 90);         /* the end of the segment's sound */
    CHECK_INT(sp[1].text_pos, 20);
    CHECK_INT(sp[2].start, 97);
    CHECK_INT(sp[2].end, 117);
    CHECK_INT(sp[3].segment, 1);

    const re_chapter_mark *ch = re_assembler_chapters(a, &n);
    CHECK_INT(n, 2);
    CHECK_STR(ch[0].title, "One");
    CHECK_INT(ch[0].start, 0);
    CHECK_INT(ch[0].end, 97);
    CHECK_INT(ch[1].start, 97);
    CHECK_INT(ch[1].end, 157);

    int16_t buf[200];
    size_t got, total = 0;
    do {
        CHECK_INT(re_assembler_read(a, buf + total, 200 - total, &got, &diag), RE_OK);
        total += got;
    } while (got > 0 && total < 200);
    CHECK_INT(total, 157);
    /* Each stretch's first and last 5 samples (RE_JOIN_FADE_MS at 1000 Hz) are faded:
     * smoothstep weights 16/216, 56/216, 108/216, 160/216, 200/216 from the edge. */
    CHECK_INT(buf[0], 74);
    CHECK_INT(buf[1], 259);
    CHECK_INT(buf[2], 500);
    CHECK_INT(buf[3], 740);
    CHECK_INT(buf[4], 925);
    CHECK_INT(buf[5], 0);             /* the one-sample zero kept */
    CHECK_INT(buf[6], 1000);          /* past the fade: as spoken */
    CHECK_INT(buf[14], 1000);
    CHECK_INT(buf[15], 925);
    CHECK_INT(buf[19], 74);
    CHECK_INT(buf[20], 0);
    CHECK_INT(buf[59], 0);
    CHECK_INT(buf[60], -74);
    CHECK_INT(buf[70], -1000);
    CHECK_INT(buf[89], -74);
    CHECK_INT(buf[90], 0);
    CHECK_INT(buf[96], 0);
    CHECK_INT(buf[97], 74);
    CHECK_INT(buf[117], 0);           /* second segment: 10-sample sentence pause */
    CHECK_INT(buf[127], -74);
    int16_t raw[157];
    CHECK_INT(pread(re_assembler_pcm_fd(a), raw, sizeof raw, 0), sizeof raw);
    CHECK(memcmp(raw, buf, sizeof raw) == 0);   /* the raw view is the same little-endian PCM */
    CHECK_INT(re_us_to_frames(1500, 22050), 33);     /* 33.075 -> 33 */
    CHECK_INT(re_us_to_frames(800000, 22050), 17640);
    re_speech_free(&s);
    re_assembler_free(a);
    CHECK_INT(diag.count, 0);
    re_diagnostics_free(&diag);
    return check_finish("test_assemble");
}
