/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz_cache_entry.c - a segment cache entry as someone with write access to a shared cache
 * could forge it: a valid header, key and checksum (the harness computes them) around
 * arbitrary events and audio. The reader must refuse what the engine could not have made, and
 * whatever it accepts must go through the assembler and the transcript without undefined
 * behaviour (event offsets near 2^63 once overflowed there) or a failure. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "assemble.h"
#include "cache.h"
#include "fuzz.h"
#include "sha256.h"
#include "transcript.h"

#define RATE 22050u

static re_cache *cache;
static re_cache_key key;
static char entry[4096];

/* Once: a cache in a temporary folder and the path where the key's entry goes. */
static int setup(void)
{
    if (cache)
        return 1;
    char dir[] = "/tmp/re-fuzz-cache-XXXXXX";
    if (!mkdtemp(dir) || re_cache_open(dir, &cache) != RE_OK)
        return 0;
    re_voice_profile profile;
    memset(&profile, 0, sizeof profile);
    profile.engine_voice = (char *)"en-us";
    re_cache_key_compute(&key, "espeak-ng 1.51", RATE, &profile, RE_TEXT_PLAIN, "fuzz");
    int16_t pcm[4] = { 1, 2, 3, 4 };
    re_speech speech = { .pcm = pcm, .frames = 4, .rate = RATE };
    if (re_cache_put(cache, &key, RATE, &speech, NULL) != RE_OK)
        return 0;
    char hex[RE_SHA256_HEX_SIZE];
    re_cache_key_hex(&key, hex);
    char find[8192];
    snprintf(find, sizeof find, "find %s -name '%s.seg'", dir, hex);
    FILE *p = popen(find, "r");
    if (!p || !fgets(entry, sizeof entry, p))
        return 0;
    pclose(p);
    entry[strcspn(entry, "\n")] = '\0';
    return entry[0] != '\0';
}

static void le32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void le64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!setup() || size < 2)
        return 0;
    /* data: one byte of event count (records of 24 bytes follow), the rest audio */
    size_t events = data[0] % 64, records = events * 24;
    if (1 + records > size)
        return 0;
    size_t pcm_len = (size - 1 - records) & ~(size_t)1;
    unsigned char header[64] = "RESEG";
    memcpy(header, "RESEG\0v1", 8);
    le32(header + 8, RATE);
    le32(header + 12, 24);
    le64(header + 16, pcm_len / 2);
    le64(header + 24, events);
    memcpy(header + 32, key.digest, 32);
    unsigned char digest[RE_SHA256_SIZE];
    re_sha256_ctx ctx;
    re_sha256_init(&ctx);
    re_sha256_update(&ctx, header, sizeof header);
    re_sha256_update(&ctx, data + 1, records + pcm_len);
    re_sha256_final(&ctx, digest);
    int fd = open(entry, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    FUZZ_ASSERT(fd >= 0);
    FUZZ_ASSERT(write(fd, header, sizeof header) == (ssize_t)sizeof header);
    FUZZ_ASSERT(write(fd, data + 1, records + pcm_len) == (ssize_t)(records + pcm_len));
    FUZZ_ASSERT(write(fd, digest, sizeof digest) == (ssize_t)sizeof digest);
    close(fd);

    re_speech speech;
    int hit = 0;
    FUZZ_ASSERT(re_cache_get(cache, &key, RATE, &speech, &hit) == RE_OK);
    if (!hit)
        return 0;
    FUZZ_ASSERT(speech.frames == pcm_len / 2);
    for (size_t i = 0; i < speech.event_count; i++)
        FUZZ_ASSERT(speech.events[i].sample <= speech.frames);
    re_diagnostics diag;
    re_diagnostics_init(&diag, 4);
    re_assembler *a = NULL;
    FUZZ_ASSERT(re_assembler_create(RATE, &a, &diag) == RE_OK);
    FUZZ_ASSERT(re_assembler_add_speech(a, &speech, 350, &diag) == RE_OK);
    FUZZ_ASSERT(re_assembler_finish(a, &diag) == RE_OK);
    size_t sentence_count, event_count;
    const re_sentence_span *sentences = re_assembler_sentences(a, &sentence_count);
    const re_timed_event *timed = re_assembler_events(a, &event_count);
    for (size_t i = 0; i < sentence_count; i++)
        FUZZ_ASSERT(sentences[i].start <= sentences[i].end
                    && sentences[i].end <= re_assembler_frames(a));
    char text[512];
    memset(text, 'a', sizeof text - 1);
    text[sizeof text - 1] = '\0';
    for (size_t i = 8; i < sizeof text - 1; i += 9)
        text[i] = ' ';
    re_transcript t;
    re_transcript_init(&t, RATE);
    re_transcript_segment segment = { text, NULL };
    FUZZ_ASSERT(re_transcript_build(&t, sentences, sentence_count, timed, event_count, &segment, 1)
                == RE_OK);
    re_transcript_free(&t);
    re_assembler_free(a);
    re_speech_free(&speech);
    re_diagnostics_free(&diag);
    return 0;
}
