/* SPDX-License-Identifier: GPL-3.0-or-later */
/* music.c - the episode's music bed: loaded before speech, mixed after it (see music.h). */
#include "music.h"

#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "assemble.h"
#include "bed.h"
#include "files.h"

#define MIX_CHUNK 16384

/* Takes the bed's mean (a constant offset, DC) out of it: an offset is no sound, the meter's
 * high-pass does not hear it past its first block (a bed of one sample measured as loud), and
 * in the mix it would be added to the speech, pushing it against full scale on one side. */
static void remove_offset(re_sound *sound)
{
    int64_t sum = 0;
    for (size_t i = 0; i < sound->frames; i++)
        sum += sound->samples[i];
    int64_t n = (int64_t)sound->frames;
    int64_t mean = sum >= 0 ? (sum + n / 2) / n : -((-sum + n / 2) / n);
    if (mean == 0)
        return;
    for (size_t i = 0; i < sound->frames; i++) {
        int64_t v = sound->samples[i] - mean;
        sound->samples[i] = (int16_t)(v > 32767 ? 32767 : v < -32768 ? -32768 : v);
    }
}

/* The bed alone, looped to at least RE_MUSIC_METER_MIN_S, through a planning meter. */
static re_status measure_bed(const re_sound *sound, unsigned rate, double *lufs)
{
    re_loudness_meter *meter = NULL;
    re_status status = re_loudness_meter_create_planning(rate, &meter);
    uint64_t want = (uint64_t)RE_MUSIC_METER_MIN_S * rate, fed = 0;
    while (status == RE_OK && (fed == 0 || fed < want)) {
        status = re_loudness_meter_feed(meter, sound->samples, sound->frames);
        fed += sound->frames;
    }
    re_loudness measured;
    if (status == RE_OK)
        status = re_loudness_meter_finish(meter, &measured);
    re_loudness_meter_free(meter);
    if (status == RE_OK)
        *lufs = measured.integrated_lufs;
    return status;
}

re_status re_episode_music_load(const re_episode *ep, const char *script_path,
                                const char *const *allowed_dirs, size_t allowed_dir_count,
                                unsigned rate, volatile sig_atomic_t *stop, episode_music *out,
                                re_diagnostics *diag)
{
    memset(out, 0, sizeof *out);
    const re_music_spec *spec = &ep->music;
    if (!spec->file)
        return RE_OK;
    out->present = 1;
    out->spec = spec;
    out->script = ep->file;
    int fd = -1, error = 0;
    re_status status = re_path_beside(script_path, spec->file, &out->path);
    const char *path = out->path;
    if (status == RE_OK)   /* beneath the script's folder or an allowed one (files.h) */
        status = re_path_open_confined(script_path, path, allowed_dirs, allowed_dir_count,
                                       O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, &fd, &error);
    if (status == RE_OK && fd < 0 && !error)
        status = re_diag_fail(diag, RE_ERR_INPUT, ep->file, spec->line, spec->col,
                              "music '%s' is outside the script's folder; a script may name "
                              "only files in its own folder tree (allow another folder with "
                              "--allow-path DIR)", spec->file);
    size_t from = diag->count;
    if (status == RE_OK && fd < 0)
        status = re_diag_fail(diag, RE_ERR_READ, NULL, 0, 0, "sound file '%s': cannot open: %s",
                              path, strerror(error));
    else if (status == RE_OK)
        status = re_sound_load_fd_until(fd, path, rate, stop, &out->sound, diag);
    if (status != RE_OK && status != RE_ERR_NOMEM && status != RE_ERR_INPUT
        && status != RE_ERR_INTERRUPTED) {
        re_diag_prefix(diag, from, "music: ");
        re_diag_place(diag, from, ep->file, spec->line, spec->col);
        return RE_ERR_INPUT;
    }
    if (status == RE_OK && out->sound.frames > 0)
        remove_offset(&out->sound);
    if (status == RE_OK)
        status = measure_bed(&out->sound, rate, &out->bed_lufs);
    if (status == RE_OK && !isfinite(out->bed_lufs))
        status = re_diag_fail(diag, RE_ERR_INPUT, ep->file, spec->line, spec->col,
                              "music '%s' is silent (below the loudness meter's gate): there "
                              "is no bed to mix", spec->file);
    if (status == RE_OK)
        re_sha256_hex(out->sound.sha256, out->sha256_hex);
    return status;
}

/* The bed's gain in the mix (music.h), within what the mixer accepts. */
static double bed_gain(const episode_music *music, double speech_lufs, double target_lufs)
{
    double reference = isfinite(speech_lufs) ? speech_lufs : target_lufs;
    double gain = music->spec->level_lufs - target_lufs + reference - music->bed_lufs;
    return gain > RE_BED_MAX_GAIN_DB ? RE_BED_MAX_GAIN_DB
         : gain < -RE_BED_MAX_GAIN_DB ? -RE_BED_MAX_GAIN_DB : gain;
}

/* Mixed samples out to the spool and the meter. */
static re_status emit(re_spool *mixed, re_loudness_meter *meter, const int16_t *pcm, size_t n,
                      re_diagnostics *diag)
{
    re_status status = n ? re_spool_write(mixed, pcm, n, diag) : RE_OK;
    if (status == RE_OK && n)
        status = re_loudness_meter_feed(meter, pcm, n);
    return status;
}

/* One mix of the whole episode with the bed's `settings` into a new finished spool
 * mix->spool, measured by a planning meter while written; *stats from the mixer. */
static re_status mix_pass(episode_music *music, const episode_mix_settings *mix_settings,
                          re_spool *speech, const re_bed_settings *settings, int16_t *in,
                          int16_t *out, episode_track *mix, re_bed_stats *stats,
                          re_diagnostics *diag)
{
    unsigned rate = mix_settings->rate;
    volatile sig_atomic_t *stop = mix_settings->stop;
    re_spool **mixed = &mix->spool;
    re_bed *bed = NULL;
    re_loudness_meter *meter = NULL;
    *mixed = NULL;
    re_status status = re_bed_create(music->sound.samples, music->sound.frames, rate,
                                     re_spool_frames(speech), settings, &bed);
    if (status == RE_OK)
        status = re_loudness_meter_create_planning(rate, &meter);
    if (status == RE_OK)
        status = re_loudness_meter_in_background(meter);
    if (status == RE_OK)
        status = re_spool_create(rate, mixed, diag);
    if (status == RE_OK)
        status = re_spool_rewind(speech, diag);
    for (;;) {
        size_t got = 0, made = 0;
        if (status == RE_OK)
            status = re_spool_read(speech, in, MIX_CHUNK, &got, diag);
        if (status != RE_OK || got == 0)
            break;
        status = re_bed_process(bed, in, got, out, &made);
        if (status == RE_OK)
            status = emit(*mixed, meter, out, made, diag);
        if (status == RE_OK && stop && *stop)
            status = RE_ERR_INTERRUPTED;
    }
    size_t made = 0;
    if (status == RE_OK)
        status = re_bed_flush(bed, out, &made);
    if (status == RE_OK)
        status = emit(*mixed, meter, out, made, diag);
    if (status == RE_OK)
        status = re_spool_finish(*mixed, diag);
    if (status == RE_OK)
        status = re_loudness_meter_finish(meter, &mix->loudness);
    if (status == RE_OK && re_spool_frames(*mixed) != re_spool_frames(speech))
        status = RE_ERR_INVALID;   /* the mixer keeps the length: never seen */
    re_bed_get_stats(bed, stats);
    re_loudness_meter_free(meter);
    re_bed_free(bed);
    if (status != RE_OK) {
        re_spool_free(*mixed);
        *mixed = NULL;
    }
    return status;
}

re_status re_episode_music_mix(episode_music *music, const episode_mix_settings *mix_settings,
                               const episode_track *speech, episode_track *mix,
                               re_diagnostics *diag)
{
    const re_music_spec *spec = music->spec;
    unsigned rate = mix_settings->rate;
    double target_lufs = mix_settings->target_lufs;
    int normalized = mix_settings->normalized;
    const re_loudness *speech_loudness = &speech->loudness;
    re_bed_settings settings = {
        .gain_db = bed_gain(music, speech_loudness->integrated_lufs, target_lufs),
        .duck_db = spec->duck_db, .fade_frames = re_us_to_frames(spec->fade_us, rate),
    };
    int16_t *in = malloc(MIX_CHUNK * sizeof *in), *out = malloc(MIX_CHUNK * sizeof *out);
    mix->spool = NULL;
    re_bed_stats stats = { 0 };
    re_status status = in && out ? RE_OK : RE_ERR_NOMEM;
    if (status == RE_OK)
        status = mix_pass(music, mix_settings, speech->spool, &settings, in, out, mix, &stats,
                          diag);
    /* A loud bed on loud speech can go past int16: saturated there, its flattened peaks would
     * stay in the episode after normalization. When the mix is normalized afterwards (which
     * makes its level free), it is mixed again lowered by just enough that nothing saturates;
     * with --loudness off the levels are the script's and the saturation stays (documented). */
    if (status == RE_OK && normalized && stats.clipped > 0) {
        settings.headroom_db = 20.0 * log10(stats.peak / 32767.0) + 0.01;
        if (settings.headroom_db > RE_BED_MAX_HEADROOM_DB)
            settings.headroom_db = RE_BED_MAX_HEADROOM_DB;
        re_spool_free(mix->spool);
        status = mix_pass(music, mix_settings, speech->spool, &settings, in, out, mix, &stats,
                          diag);
    } else if (status == RE_OK && stats.clipped > 0
             && re_diag_add(diag, music->script, spec->line, spec->col, "warning: music '%s': "
                            "speech and bed sum past full scale in %llu samples, saturated there "
                            "(with --loudness off the levels are the script's): lower "
                            "music_level", spec->file,
                            (unsigned long long)stats.clipped) != RE_OK)
        status = RE_ERR_NOMEM;
    music->facts = (re_sidecar_music){
        .file = spec->file, .sha256 = music->sha256_hex, .level_lufs = spec->level_lufs,
        .duck_db = spec->duck_db, .fade_s = (double)spec->fade_us / 1e6,
        .bed_lufs = music->bed_lufs, .speech_lufs = speech_loudness->integrated_lufs,
        .gain_db = settings.gain_db,
    };
    free(in);
    free(out);
    return status;
}

void re_episode_music_free(episode_music *music)
{
    if (!music)
        return;
    re_sound_free(&music->sound);
    free(music->path);
    memset(music, 0, sizeof *music);
}
