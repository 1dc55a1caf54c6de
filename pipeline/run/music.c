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
#include "spool_pass.h"

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
    if (status == RE_OK)   /* an offset is no sound (sound_file.h) */
        re_sound_remove_offset(&out->sound);
    if (status == RE_OK)
        status = re_sound_measure_looped(&out->sound, rate, RE_MUSIC_METER_MIN_S,
                                         &out->bed_lufs);
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

/* One mix of the whole episode with the bed's `settings` into a new finished spool
 * mix->spool, measured by a planning meter while written; *stats from the mixer. */
static re_status mix_pass(episode_music *music, const episode_mix_settings *mix_settings,
                          re_spool *speech, const re_bed_settings *settings,
                          episode_track *mix, re_bed_stats *stats, re_diagnostics *diag)
{
    unsigned rate = mix_settings->rate;
    re_spool **mixed = &mix->spool;
    re_bed *bed = NULL;
    *mixed = NULL;
    re_status status = re_bed_create(music->sound.samples, music->sound.frames, rate,
                                     re_spool_frames(speech), settings, &bed);
    if (status == RE_OK)
        status = re_spool_create(rate, mixed, diag);
    re_processor mixer = re_bed_processor(bed);
    re_spool_pass pass = { .input = speech, .chain = &mixer, .chain_length = 1,
                           .output = *mixed, .sample_rate = rate, .measured = &mix->loudness,
                           .stop = mix_settings->stop };
    if (status == RE_OK)
        status = re_spool_pass_run(&pass, diag);
    if (status == RE_OK)
        status = re_spool_finish(*mixed, diag);
    if (status == RE_OK && re_spool_frames(*mixed) != re_spool_frames(speech))
        status = RE_ERR_INVALID;   /* the mixer keeps the length: never seen */
    re_bed_get_stats(bed, stats);
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
    mix->spool = NULL;
    re_bed_stats stats = { 0 };
    re_status status = mix_pass(music, mix_settings, speech->spool, &settings, mix, &stats, diag);
    /* A loud bed on loud speech can go past int16: saturated there, its flattened peaks would
     * stay in the episode after normalization. When the mix is normalized afterwards (which
     * makes its level free), it is mixed again lowered by just enough that nothing saturates;
     * with --loudness off the levels are the script's and the saturation stays (documented). */
    if (status == RE_OK && normalized && stats.clipped > 0) {
        settings.headroom_db = 20.0 * log10(stats.peak / 32767.0) + 0.01;
        if (settings.headroom_db > RE_BED_MAX_HEADROOM_DB)
            settings.headroom_db = RE_BED_MAX_HEADROOM_DB;
        re_spool_free(mix->spool);
        status = mix_pass(music, mix_settings, speech->spool, &settings, mix, &stats, diag);
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
