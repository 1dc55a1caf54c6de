/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mp3_parallel.c - parallel MP3 encoding of a PCM spool: pieces at frame boundaries, one
 * LAME encoder per piece and thread, frames spliced into one stream with one LAME tag.
 *
 * The frame grid. Every encoder starts at a multiple of the piece length, which is a
 * multiple of LAME's frame-padding cycle, so its frame j is frame (start + j) of the whole
 * stream, padded or not exactly as a single encoder would pad it, with LAME's own 576-sample
 * delay in front. Piece p keeps frames [p*L + priming, (p+1)*L + priming); piece 0 starts at
 * frame 0 and the last piece runs to the end and is flushed.
 *
 * The bit reservoir. A Layer III frame's main data may begin up to main_data_begin bytes
 * before its header, in the slots of earlier frames. When the stream switches at frame s
 * from encoder A to encoder B, B's frame s may borrow bytes that live in B's own (dropped)
 * priming frames. A's frame s in turn tells how many bytes before header s A did not use
 * for frames < s. If A's free bytes >= B's borrowed bytes, the borrowed bytes are copied
 * into the end of that free space and every frame stays exactly as its encoder made it.
 * A runs `overrun` frames past its piece, so both encoders offer that many candidates. Both
 * hear the same audio, so their states converge (most of all once both reservoirs have
 * filled up in a pause) and they often make the very same frames: the writer switches at the
 * first frame both made alike (nothing changes at all), else at the last frame that allows
 * the switch (B has settled longest). If none does, the writer encodes on with A until a
 * frame does, or until A has covered B's piece, which is then dropped.
 *
 * The tag. LAME's own Info/LAME tag frame from the last encoder is the template; frame count,
 * byte count, seek table (LAME's algorithm, which for CBR depends only on the frame count),
 * padding, music length, music CRC and tag CRC are computed for the spliced stream. With a
 * single piece this gives byte for byte what mp3.c writes. */
#define _GNU_SOURCE
#include "mp3_parallel.h"

#include <errno.h>
#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include <lame/lame.h>

#include "mp3_stream.h"

#define DEFAULT_PIECE_SHARE 16     /* default piece: 1/16 of the episode ... */
#define DEFAULT_PIECE_MIN 512      /* ... but at least this many frames ... */
#define DEFAULT_PIECE_MAX 3136     /* ... and at most this many (64 padding cycles at 22050 Hz) */

enum { PIECE_WAITING, PIECE_RUNNING, PIECE_DONE };

/* An encoder thread: the job it works on and its own list of messages. */
typedef struct worker {
    job *jb;
    re_diagnostics diag;
} worker;

/* ---- the tag ------------------------------------------------------------------------------ */

/* LAME's seek table (VbrTag.c: addVbr + Xing_seek_table) for `frames` frames of one bitrate. */
static void lame_toc(uint64_t frames, int kbps, unsigned char toc[100])
{
    enum { BAG = 400 };
    int64_t bag[BAG], sum = 0;
    int pos = 0;
    uint64_t want = 1, seen = 0;
    for (uint64_t f = 0; f < frames; f++) {
        sum += kbps;
        if (++seen < want)
            continue;
        if (pos < BAG) {
            bag[pos++] = sum;
            seen = 0;
        }
        if (pos == BAG) {
            for (int i = 1; i < BAG; i += 2)
                bag[i / 2] = bag[i];
            want *= 2;
            pos /= 2;
        }
    }
    memset(toc, 0, 100);
    if (pos <= 0)
        return;
    for (int i = 1; i < 100; i++) {
        float j = (float)i / 100.0f;
        int index = (int)floor(j * (float)pos);
        if (index > pos - 1)
            index = pos - 1;
        float act = (float)bag[index], total = (float)sum;
        int point = (int)(256. * act / total);
        toc[i] = (unsigned char)(point > 255 ? 255 : point);
    }
}


/* ---- workers ------------------------------------------------------------------------------- */

/* Records a thread's failure, with the list that says why (its messages stay there, in the
 * thread's own list, until the caller moves them after the join). The first failure wins,
 * except that a real error replaces a mere interruption. */
static void fail(job *jb, re_status status, re_diagnostics *said)
{
    if (said->count == 0)
        re_diag_add(said, NULL, 0, 0, "%s", re_strerror(status));
    pthread_mutex_lock(&jb->lock);
    if (jb->error == RE_OK || (jb->error == RE_ERR_INTERRUPTED && status != RE_ERR_INTERRUPTED)) {
        jb->error = status;
        jb->said = said;
    }
    atomic_store(&jb->abort, 1);
    pthread_cond_broadcast(&jb->changed);
    pthread_mutex_unlock(&jb->lock);
}



static void *worker_main(void *arg)
{
    worker *wk = arg;
    job *jb = wk->jb;
    scratch sc;
    re_status status = re_mp3_scratch_init(&sc, &wk->diag);
    if (status != RE_OK) {
        re_mp3_scratch_free(&sc);
        fail(jb, status, &wk->diag);
        return NULL;
    }
    pthread_mutex_lock(&jb->lock);
    for (;;) {
        while (!atomic_load(&jb->abort) && jb->next_claim < jb->piece_count &&
               jb->next_claim >= jb->current + jb->window)
            pthread_cond_wait(&jb->changed, &jb->lock);
        if (atomic_load(&jb->abort) || jb->next_claim >= jb->piece_count)
            break;
        size_t i = jb->next_claim++;
        jb->state[i] = PIECE_RUNNING;
        pthread_mutex_unlock(&jb->lock);

        status = re_mp3_piece_start(&jb->pieces[i], jb, &sc);
        if (status != RE_OK)
            fail(jb, status, &wk->diag);

        pthread_mutex_lock(&jb->lock);
        if (status == RE_OK)
            jb->state[i] = PIECE_DONE;
        pthread_cond_broadcast(&jb->changed);
    }
    pthread_mutex_unlock(&jb->lock);
    re_mp3_scratch_free(&sc);
    return NULL;
}

/* ---- the writer (calling thread) ------------------------------------------------------------ */

typedef struct writer {
    FILE *out;
    uint16_t crc_table[256];
    uint16_t music_crc;
    uint64_t audio_bytes;
    re_mp3_parallel_stats *stats;
} writer;

static re_status emit(writer *w, const unsigned char *bytes, size_t n, int music)
{
    if (n > 0 && fwrite(bytes, 1, n, w->out) != n)
        return RE_ERR_WRITE;
    if (music) {
        w->music_crc = re_mp3_crc16(w->crc_table, w->music_crc, bytes, n);
        w->audio_bytes += n;
    }
    return RE_OK;
}

static re_status wait_for(job *jb, size_t i)
{
    pthread_mutex_lock(&jb->lock);
    while (jb->state[i] != PIECE_DONE && !atomic_load(&jb->abort))
        pthread_cond_wait(&jb->changed, &jb->lock);
    re_status status = jb->state[i] == PIECE_DONE ? RE_OK
                     : jb->error != RE_OK ? jb->error : RE_ERR_INTERRUPTED;
    pthread_mutex_unlock(&jb->lock);
    return status;
}

static void move_window(job *jb, size_t current)
{
    pthread_mutex_lock(&jb->lock);
    jb->current = current;
    pthread_cond_broadcast(&jb->changed);
    pthread_mutex_unlock(&jb->lock);
}

/* Splices every piece into the stream after the ID3 tag; cur ends as the final encoder. */
static re_status splice_all(job *jb, writer *w, scratch *sc, size_t *final_piece)
{
    const stream_format *fmt = &jb->fmt;
    re_status status = wait_for(jb, 0);
    if (status != RE_OK)
        return status;
    size_t cur_index = 0;
    piece *cur = &jb->pieces[0];
    uint64_t e = 0;                      /* the first frame of cur not written yet */
    size_t write_from = 0;               /* its byte (piece 0: the tag placeholder first) */
    re_mp3_parallel_stats *st = w->stats;

    for (size_t next_index = 1; next_index < jb->piece_count; next_index++) {
        if (jb->stop && *jb->stop)
            return RE_ERR_INTERRUPTED;
        status = wait_for(jb, next_index);
        if (status != RE_OK)
            return status;
        piece *next = &jb->pieces[next_index];
        uint64_t lo = mp3_max64(mp3_max64(next->keep_from, e + fmt->reach), next->first + fmt->reach);
        /* Within the frames both encoders have made: the first frame where they agree byte
         * for byte (they have converged: the switch changes nothing), else the last frame
         * where the reservoir allows a switch (the later encoder has settled longest). */
        uint64_t hi = mp3_min64(re_mp3_piece_end(cur), re_mp3_piece_end(next));
        uint64_t s = lo, found = UINT64_MAX;
        int seamless = 0;
        for (; s < hi && !seamless; s++) {
            if (!re_mp3_may_switch(jb, cur, next, s))
                continue;
            found = s;
            seamless = s + 1 < hi && re_mp3_same_frame(cur, next, s, fmt->side_len);
        }
        /* None: cur encodes on until a frame allows the switch or it has covered next. */
        while (found == UINT64_MAX && re_mp3_piece_end(cur) < re_mp3_piece_end(next)) {
            uint64_t before = re_mp3_piece_end(cur);
            status = re_mp3_piece_advance(cur, jb, before + EXTENSION_STEP, sc);
            if (status != RE_OK)
                return status;
            if (re_mp3_piece_end(cur) == before) {     /* flushed short of next's frames */
                re_diag_add(sc->diag, NULL, 0, 0, "the encoders disagree on the stream's length");
                return RE_ERR_ENCODER;
            }
            if (st)
                st->extension_frames += re_mp3_piece_end(cur) - before;
            hi = mp3_min64(re_mp3_piece_end(cur), re_mp3_piece_end(next));
            for (; s < hi && found == UINT64_MAX; s++)
                if (re_mp3_may_switch(jb, cur, next, s))
                    found = s;
        }
        if (found == UINT64_MAX) {
            /* cur went through all of next's frames without a splice point: next is not
             * needed, cur goes on to the piece after it. */
            if (st)
                st->encoded_frames += next->count;
            re_mp3_piece_free(next);
            move_window(jb, next_index);
            continue;
        }
        unsigned borrow = next->frame[found - next->first].borrow;
        status = re_mp3_copy_borrowed(cur, next, found, borrow, fmt->side_len);
        if (status != RE_OK) {
            re_diag_add(sc->diag, NULL, 0, 0, "cannot splice at frame %llu",
                        (unsigned long long)found);
            return status;
        }
        size_t end = cur->frame[found - cur->first].offset;
        size_t music_from = cur_index == 0 && write_from < fmt->tag_frame_len ? fmt->tag_frame_len
                          : write_from;
        status = emit(w, cur->bytes + write_from, music_from - write_from, 0);
        if (status == RE_OK)
            status = emit(w, cur->bytes + music_from, end - music_from, 1);
        if (status != RE_OK)
            return status;
        if (st) {
            if (st->splices < st->splice_capacity && st->splice_at)
                st->splice_at[st->splices] = found;
            st->splices++;
            st->seamless_splices += seamless;
            st->encoded_frames += cur->count;
        }
        re_mp3_piece_free(cur);
        cur = next;
        cur_index = next_index;
        e = found;
        write_from = cur->frame[found - cur->first].offset;
        move_window(jb, next_index);
    }
    status = re_mp3_piece_advance(cur, jb, UINT64_MAX, sc);
    if (status != RE_OK)
        return status;
    size_t music_from = cur_index == 0 && write_from < fmt->tag_frame_len ? fmt->tag_frame_len
                      : write_from;
    status = emit(w, cur->bytes + write_from, music_from - write_from, 0);
    if (status == RE_OK)
        status = emit(w, cur->bytes + music_from, cur->len - music_from, 1);
    if (st) {
        st->encoded_frames += cur->count;
        st->stream_frames = re_mp3_piece_end(cur);
    }
    *final_piece = cur_index;
    return status;
}

/* Writes the LAME tag frame for the spliced stream over the placeholder at tag_at. */
static re_status write_tag(job *jb, writer *w, const piece *last, off_t tag_at,
                           re_diagnostics *diag)
{
    const stream_format *fmt = &jb->fmt;
    unsigned char tag[2880];
    size_t size = lame_get_lametag_frame(last->gf, tag, sizeof tag);
    size_t x = fmt->side_len;
    if (size != fmt->tag_frame_len || x + LAME_TAG_END > size || memcmp(tag + x, "Info", 4) != 0) {
        re_diag_add(diag, NULL, 0, 0, "LAME's tag frame is not the expected Info tag");
        return RE_ERR_ENCODER;
    }
    uint64_t frames = re_mp3_piece_end(last);
    uint64_t bytes = fmt->tag_frame_len + w->audio_bytes;
    unsigned delay = (unsigned)tag[x + LAME_DELAY] << 4 | tag[x + LAME_DELAY + 1] >> 4;
    uint64_t span = frames * fmt->spf;
    if (span < delay + jb->samples || span - delay - jb->samples > 0xFFF || bytes > UINT32_MAX ||
        frames > UINT32_MAX) {
        re_diag_add(diag, NULL, 0, 0, "the spliced stream cannot be described by a LAME tag");
        return RE_ERR_ENCODER;
    }
    unsigned padding = (unsigned)(span - delay - jb->samples);
    unsigned lame_padding = ((unsigned)tag[x + LAME_DELAY + 1] & 0xF) << 8 | tag[x + LAME_DELAY + 2];
    if (padding != lame_padding) {
        re_diag_add(diag, NULL, 0, 0, "the spliced stream has %u samples of padding, LAME says %u",
                    padding, lame_padding);
        return RE_ERR_ENCODER;
    }
    re_mp3_put_be(tag + x + XING_FRAMES, frames, 4);
    re_mp3_put_be(tag + x + XING_BYTES, bytes, 4);
    lame_toc(frames, fmt->kbps, tag + x + XING_TOC);
    re_mp3_put_be(tag + x + LAME_MUSIC_LENGTH, bytes, 4);
    re_mp3_put_be(tag + x + LAME_MUSIC_CRC, w->music_crc, 2);
    re_mp3_put_be(tag + x + LAME_TAG_CRC, re_mp3_crc16(w->crc_table, 0, tag, x + LAME_TAG_CRC), 2);
    if (fseeko(w->out, tag_at, SEEK_SET) != 0 || fwrite(tag, 1, size, w->out) != size ||
        fseeko(w->out, 0, SEEK_END) != 0 || fflush(w->out) != 0) {
        re_diag_add(diag, NULL, 0, 0, "cannot write the MP3 file: %s", strerror(errno));
        return RE_ERR_WRITE;
    }
    return RE_OK;
}

static void plan_pieces(job *jb, const re_mp3_parallel_tuning *tuning)
{
    const stream_format *fmt = &jb->fmt;
    uint64_t input_frames = (jb->samples + fmt->spf - 1) / fmt->spf;
    uint64_t len = tuning && tuning->piece_frames ? tuning->piece_frames
                 : (input_frames + DEFAULT_PIECE_SHARE - 1) / DEFAULT_PIECE_SHARE;
    if (!(tuning && tuning->piece_frames)) {
        if (len < DEFAULT_PIECE_MIN)
            len = DEFAULT_PIECE_MIN;
        if (len > DEFAULT_PIECE_MAX)
            len = DEFAULT_PIECE_MAX;
    }
    len = (len + fmt->period - 1) / fmt->period * fmt->period;
    if (!(tuning && tuning->piece_frames) && (input_frames + len / 2) / len < 2
        && input_frames >= 4 * fmt->period) {
        /* One piece would leave every core but one idle on a short episode (its start-up
         * time): two halves from about 5 s of audio on, for one splice's overlap. */
        uint64_t half = ((input_frames + 1) / 2 + fmt->period - 1) / fmt->period * fmt->period;
        if ((input_frames + half / 2) / half == 2)
            len = half;
    }
    jb->piece_len = len;
    jb->priming = tuning && tuning->priming_frames ? tuning->priming_frames : DEFAULT_PRIMING;
    if (jb->priming > len / 2)
        jb->priming = len / 2;
    jb->overrun = tuning && tuning->overrun_frames ? tuning->overrun_frames : DEFAULT_OVERRUN;
    jb->margin = tuning ? tuning->splice_margin : 0;
    uint64_t count = (input_frames + len / 2) / len;
    jb->piece_count = count ? (size_t)count : 1;
}

/* The writer's messages go to writer_said, each worker's to its own list; after the join the
 * first failure's are moved to diag. */
static re_status encode_pieces(FILE *out, job *jb, unsigned workers, const unsigned char *id3_tag,
                               size_t id3_len, re_mp3_parallel_stats *stats, re_diagnostics *diag)
{
    re_status status = RE_OK;
    pthread_t *threads = NULL;
    worker *crew = NULL;
    size_t started = 0;
    int lock_ready = 0, cond_ready = 0;
    re_diagnostics writer_said;
    re_diagnostics_init(&writer_said, RE_DIAG_DEFAULT_LIMIT);
    scratch sc = { 0 };
    writer w = { .out = out, .stats = stats };
    re_mp3_crc16_table(w.crc_table);

    jb->pieces = calloc(jb->piece_count, sizeof *jb->pieces);
    jb->state = calloc(jb->piece_count, sizeof *jb->state);
    if (workers > jb->piece_count)
        workers = (unsigned)jb->piece_count;
    threads = calloc(workers, sizeof *threads);
    crew = calloc(workers, sizeof *crew);
    for (unsigned t = 0; crew && t < workers; t++) {
        crew[t].jb = jb;
        re_diagnostics_init(&crew[t].diag, RE_DIAG_DEFAULT_LIMIT);
    }
    if (!jb->pieces || !jb->state || !threads || !crew
        || re_mp3_scratch_init(&sc, &writer_said) != RE_OK) {
        status = RE_ERR_NOMEM;
        goto done;
    }
    for (size_t p = 0; p < jb->piece_count; p++) {
        piece *pc = &jb->pieces[p];
        pc->first = p * jb->piece_len;
        pc->keep_from = p == 0 ? 0 : pc->first + jb->priming;
        pc->keep_to = p + 1 == jb->piece_count ? UINT64_MAX : (p + 1) * jb->piece_len + jb->priming;
    }
    jb->window = (size_t)workers + 2;
    atomic_init(&jb->abort, 0);
    if (pthread_mutex_init(&jb->lock, NULL) != 0) {
        status = RE_ERR_NOMEM;
        goto done;
    }
    lock_ready = 1;
    if (pthread_cond_init(&jb->changed, NULL) != 0) {
        status = RE_ERR_NOMEM;
        goto done;
    }
    cond_ready = 1;

    if (id3_len && fwrite(id3_tag, 1, id3_len, out) != id3_len) {
        status = RE_ERR_WRITE;
        re_diag_add(diag, NULL, 0, 0, "cannot write the MP3 file: %s", strerror(errno));
        goto done;
    }
    off_t tag_at = ftello(out);
    if (tag_at < 0) {
        status = RE_ERR_WRITE;
        re_diag_add(diag, NULL, 0, 0, "cannot write the MP3 file: %s", strerror(errno));
        goto done;
    }
    for (; started < workers; started++) {
        int err = pthread_create(&threads[started], NULL, worker_main, &crew[started]);
        if (err != 0) {   /* EAGAIN: a process limit, which another process's end may lift */
            status = err == EAGAIN ? RE_ERR_LIMIT : RE_ERR_NOMEM;
            re_diag_add(diag, NULL, 0, 0, "cannot start an encoder thread");
            break;
        }
    }
    size_t final_piece = 0;
    if (status == RE_OK) {
        status = splice_all(jb, &w, &sc, &final_piece);
        if (status == RE_ERR_WRITE)
            re_diag_add(&writer_said, NULL, 0, 0, "cannot write the MP3 file: %s",
                        strerror(errno));
        if (status != RE_OK)
            fail(jb, status, &writer_said);    /* keeps a worker's earlier error */
    }
    if (status != RE_OK)
        atomic_store(&jb->abort, 1);
    pthread_mutex_lock(&jb->lock);
    pthread_cond_broadcast(&jb->changed);
    pthread_mutex_unlock(&jb->lock);
    for (size_t t = 0; t < started; t++)
        pthread_join(threads[t], NULL);
#ifdef __GLIBC__
    /* The workers' LAME encoders were allocated in per-thread malloc arenas, which glibc
     * keeps after the threads end: without this, a render that encodes again (a loudness
     * retry) starts 3 MB higher (measured at 2 h 16 min). */
    malloc_trim(0);
#endif
    if (jb->error != RE_OK) {
        status = jb->error;
        re_status moved = re_diag_move(diag, jb->said);
        if (moved != RE_OK)
            status = moved;
    }
    if (status == RE_OK)
        status = write_tag(jb, &w, &jb->pieces[final_piece], tag_at, diag);
done:
    if (jb->pieces)
        for (size_t p = 0; p < jb->piece_count; p++)
            re_mp3_piece_free(&jb->pieces[p]);
    free(jb->pieces);
    free(jb->state);
    free(threads);
    for (unsigned t = 0; crew && t < workers; t++)
        re_diagnostics_free(&crew[t].diag);
    free(crew);
    re_mp3_scratch_free(&sc);
    re_diagnostics_free(&writer_said);
    if (cond_ready)
        pthread_cond_destroy(&jb->changed);
    if (lock_ready)
        pthread_mutex_destroy(&jb->lock);
    return status;
}

/* ---- the serial path ----------------------------------------------------------------------- */

static re_status encode_serial(FILE *out, job *jb, const unsigned char *id3_tag, size_t id3_len,
                               re_diagnostics *diag)
{
    re_mp3_encoder *enc = NULL;
    re_diagnostics read_said;
    re_diagnostics_init(&read_said, RE_DIAG_DEFAULT_LIMIT);
    scratch sc = { 0 };
    re_status status = re_mp3_scratch_init(&sc, &read_said);
    if (status == RE_OK)
        status = re_mp3_encoder_create(out, jb->rate, jb->settings, id3_tag, id3_len, &enc);
    for (uint64_t done = 0; status == RE_OK && done < jb->samples;) {
        if (jb->stop && *jb->stop) {
            status = RE_ERR_INTERRUPTED;
            break;
        }
        uint64_t n = jb->samples - done < CHUNK_SAMPLES ? jb->samples - done : CHUNK_SAMPLES;
        status = re_mp3_read_pcm(jb, done, sc.pcm, (size_t)n, &sc);
        if (status == RE_OK)
            status = re_mp3_encoder_write(enc, sc.pcm, (size_t)n);
        done += n;
    }
    if (status == RE_OK)
        status = re_mp3_encoder_finish(enc);
    re_mp3_encoder_free(enc);
    if (status == RE_ERR_READ) {
        re_status moved = re_diag_move(diag, &read_said);
        if (moved != RE_OK)
            status = moved;
    } else if (status == RE_ERR_WRITE)
        re_diag_add(diag, NULL, 0, 0, "cannot write the MP3 file: %s", strerror(errno));
    else if (status == RE_ERR_ENCODER)
        re_diag_add(diag, NULL, 0, 0, "LAME failed");
    re_mp3_scratch_free(&sc);
    re_diagnostics_free(&read_said);
    return status;
}

unsigned re_mp3_default_workers(void)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return cpus > 2 ? (unsigned)(cpus < 16 ? cpus : 16) : 2;
}

re_status re_mp3_encode_fd(const re_mp3_encoding *encoding, re_mp3_pcm pcm,
                           const re_mp3_file *file, re_mp3_parallel_stats *stats,
                           re_diagnostics *diag)
{
    if (stats) {
        uint64_t *splice_at = stats->splice_at;
        size_t capacity = stats->splice_capacity;
        memset(stats, 0, sizeof *stats);
        stats->splice_at = splice_at;
        stats->splice_capacity = capacity;
    }
    if (!encoding || !file || !file->out || pcm.fd < 0 || (file->id3_len > 0 && !file->id3_tag)) {
        re_diag_add(diag, NULL, 0, 0, "invalid argument");
        return RE_ERR_INVALID;
    }
    const re_mp3_parallel_tuning *tuning = &encoding->tuning;
    unsigned sample_rate = encoding->sample_rate, workers = encoding->workers;
    re_status status = re_mp3_check_settings(sample_rate, &encoding->settings, diag);
    if (status != RE_OK)
        return status;
    FILE *out = file->out;
    if (ftello(out) < 0) {
        int error = errno;
        re_diag_add(diag, NULL, 0, 0, "the MP3 output cannot seek (a pipe?)");
        return error == ESPIPE ? RE_ERR_INVALID : RE_ERR_WRITE;
    }
    job jb = { .fd = pcm.fd, .samples = pcm.frames, .rate = sample_rate,
               .settings = &encoding->settings, .stop = encoding->stop };
    if (re_mp3_stream_describe(sample_rate, encoding->settings.bitrate_kbps, &jb.fmt) != RE_OK) {
        re_diag_add(diag, NULL, 0, 0, "%u Hz at %d kbps is not an MPEG Layer III stream",
                    sample_rate, encoding->settings.bitrate_kbps);
        return RE_ERR_ENCODER;
    }
    plan_pieces(&jb, tuning);
    if (workers <= 1 || (jb.piece_count == 1 && !tuning->force_pieces))
        return encode_serial(out, &jb, file->id3_tag, file->id3_len, diag);
    if (stats)
        stats->pieces = jb.piece_count;
    unsigned threads = tuning->threads && tuning->threads < workers ? tuning->threads : workers;
    re_diagnostics said;
    re_diagnostics_init(&said, RE_DIAG_DEFAULT_LIMIT);
    status = encode_pieces(out, &jb, threads, file->id3_tag, file->id3_len, stats, &said);
    if (status != RE_ERR_INTERRUPTED && status != RE_ERR_NOMEM) {   /* these say no more */
        re_status moved = re_diag_move(diag, &said);
        if (moved != RE_OK)
            status = moved;
    }
    re_diagnostics_free(&said);
    return status;
}
