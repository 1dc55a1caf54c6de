/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sounds.c - the sound files an episode names, loaded before anything is spoken (sounds.h). */
#include "sounds.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "assemble.h"
#include "files.h"

const char *re_sound_use_kind_name(sound_use_kind kind)
{
    return kind == SOUND_INTRO ? "intro" : kind == SOUND_OUTRO ? "outro" : "sound";
}

/* The loaded sound of `path` (resolved), open as fd (closed here), loading it on first use;
 * *index is its place. */
static re_status load_once(episode_sounds *s, char *path, int fd, unsigned rate,
                           volatile sig_atomic_t *stop, unsigned line, unsigned col,
                           size_t *index, re_diagnostics *diag)
{
    struct stat st;
    uint64_t id[2] = { 0, 0 }, bytes = 0;
    if (fstat(fd, &st) == 0) {   /* else the load says why (and st is not to be read) */
        bytes = S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
        id[0] = (uint64_t)st.st_dev;
        id[1] = (uint64_t)st.st_ino;
        for (size_t k = 0; k < s->loaded_count; k++)
            if (s->file_ids[k][0] == id[0] && s->file_ids[k][1] == id[1]) {
                (void)close(fd);
                free(path);
                *index = k;
                return RE_OK;
            }
        /* refused once: not read again (a file refused after a full decode costs that much
         * at every use) */
        for (size_t k = 0; k < s->failed_count; k++)
            if (s->failed[k].id[0] == id[0] && s->failed[k].id[1] == id[1]) {
                re_status again = re_diag_fail(diag, RE_ERR_FORMAT, NULL, 0, 0, "sound file "
                                               "'%s': refused at %u:%u, not read again", path,
                                               s->failed[k].line, s->failed[k].col);
                (void)close(fd);
                free(path);
                return again;
            }
    }
    if (id[1] && s->total_bytes + bytes > SOUNDS_MAX_TOTAL_BYTES) {
        re_status limit = re_diag_fail(diag, RE_ERR_LIMIT, NULL, 0, 0, "sound file '%s': the "
                                       "episode's sound files would be more than %llu bytes "
                                       "(4 GiB) together here, the limit (every byte is read)",
                                       path, (unsigned long long)SOUNDS_MAX_TOTAL_BYTES);
        (void)close(fd);
        free(path);
        return limit;
    }
    s->total_bytes += bytes;   /* read even when the load fails: the work is done */
    re_sound sound;
    re_status status = re_sound_load_fd_budget(fd, path, rate, stop, &s->decode_budget_us,
                                               &sound, diag);
    if (status != RE_OK) {
        if (id[1] && status != RE_ERR_NOMEM && status != RE_ERR_INTERRUPTED) {
            s->failed[s->failed_count].id[0] = id[0];
            s->failed[s->failed_count].id[1] = id[1];
            s->failed[s->failed_count].line = line;
            s->failed[s->failed_count++].col = col;
        }
        free(path);
        return status;
    }
    /* paths and loaded grow together: capacity is the use count, known up front */
    s->paths[s->loaded_count] = path;
    s->loaded[s->loaded_count] = sound;
    memcpy(s->file_ids[s->loaded_count], id, sizeof id);
    *index = s->loaded_count++;
    return RE_OK;
}

/* One name: resolved beside the script, opened beneath its folder (files.h), loaded; failures
 * at line:col. */
static re_status load_use(episode_sounds *s, const re_episode *ep, const char *script_path,
                          const char *const *allowed_dirs, size_t allowed_dir_count,
                          unsigned rate, volatile sig_atomic_t *stop, const char *file,
                          unsigned line, unsigned col, size_t *index, re_diagnostics *diag)
{
    char *path = NULL;
    int fd = -1, error = 0;
    re_status status = re_path_beside(script_path, file, &path);
    if (status == RE_OK)
        status = re_path_open_confined(script_path, path, allowed_dirs, allowed_dir_count,
                                       O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, &fd, &error);
    if (status != RE_OK) {
        free(path);
        return status;
    }
    if (fd < 0 && error) {
        status = re_diag_fail(diag, RE_ERR_INPUT, ep->file, line, col, "sound file '%s': cannot "
                              "open: %s", path, strerror(error));
        free(path);
        return status;
    }
    if (fd < 0) {
        free(path);
        return re_diag_fail(diag, RE_ERR_INPUT, ep->file, line, col, "sound file '%s' is outside "
                            "the script's folder; a script may name only files in its own "
                            "folder tree (allow another folder with --allow-path DIR)", file);
    }
    size_t from = diag ? diag->count : 0, loaded = s->loaded_count;
    status = load_once(s, path, fd, rate, stop, line, col, index, diag);
    re_diag_place(diag, from, ep->file, line, col);
    if (status == RE_OK && s->loaded_count > loaded) {
        s->total_frames += s->loaded[*index].frames;
        if (s->total_frames > (uint64_t)SOUNDS_MAX_TOTAL_SECONDS * rate)
            return re_diag_fail(diag, RE_ERR_LIMIT, ep->file, line, col, "sound file '%s': the "
                                "episode's sound files would hold more than %u minutes of audio "
                                "together here, the limit (they are held in memory)", file,
                                SOUNDS_MAX_TOTAL_SECONDS / 60);
    }
    return status == RE_OK || status == RE_ERR_NOMEM || status == RE_ERR_INTERRUPTED
           ? status : RE_ERR_INPUT;
}

/* How many samples use u plays: all of the file, or its cut. */
static uint64_t played_frames(const episode_sounds *s, const re_episode *ep, size_t u,
                              unsigned rate)
{
    const sound_use *use = &s->uses[u];
    uint64_t frames = use->sound->frames;
    if (use->kind == SOUND_INSERT && ep->items[use->item].pause_us) {
        uint64_t cut = re_us_to_frames(ep->items[use->item].pause_us, rate);
        frames = cut < frames ? cut : frames;
    }
    return frames;
}

/* The sound files and pauses are known before anything is spoken: when they alone make the
 * episode longer than RE_EPISODE_MAX_US, that is an error at the one that crosses it, now,
 * instead of after hours of audio were assembled (one 10-minute file played 100 times). */
static re_status check_known_length(const episode_sounds *s, const re_episode *ep,
                                    unsigned rate, re_diagnostics *diag)
{
    uint64_t max = re_us_to_frames(RE_EPISODE_MAX_US, rate), total = 0;
    size_t u = 0;
    if (ep->intro)
        total += played_frames(s, ep, u++, rate) - s->intro_overlap;
    for (size_t i = 0; i <= ep->item_count; i++) {
        const re_item *item = i < ep->item_count ? &ep->items[i] : NULL;
        unsigned line, col;
        if (item && item->kind == RE_ITEM_PAUSE) {
            total += re_us_to_frames(item->pause_us, rate);
        } else if (item && item->kind == RE_ITEM_SOUND) {
            total += played_frames(s, ep, u++, rate);
        } else if (!item && ep->outro) {
            total += played_frames(s, ep, u++, rate);
        } else {
            continue;
        }
        line = item ? item->line : ep->outro_line;
        col = item ? item->col : ep->outro_col;
        if (total > max)
            return re_diag_fail(diag, RE_ERR_LIMIT, ep->file, line, col, "the sound files and "
                                "pauses add up to more than %llu hours here, the longest episode "
                                "that can be rendered", RE_EPISODE_MAX_US / 3600000000ULL);
    }
    return RE_OK;
}

re_status re_episode_sounds_load(const re_episode *ep, const char *script_path,
                                 const char *const *allowed_dirs, size_t allowed_dir_count,
                                 unsigned rate, volatile sig_atomic_t *stop, episode_sounds *s,
                                 re_diagnostics *diag)
{
    memset(s, 0, sizeof *s);
    size_t count = (ep->intro != NULL) + (ep->outro != NULL);
    for (size_t i = 0; i < ep->item_count; i++)
        count += ep->items[i].kind == RE_ITEM_SOUND;
    if (count == 0)
        return RE_OK;
    s->uses = calloc(count, sizeof *s->uses);
    s->paths = calloc(count, sizeof *s->paths);
    s->loaded = calloc(count, sizeof *s->loaded);
    s->file_ids = calloc(count, sizeof *s->file_ids);
    s->failed = calloc(count, sizeof *s->failed);
    if (!s->uses || !s->paths || !s->loaded || !s->file_ids || !s->failed)
        return RE_ERR_NOMEM;
    s->decode_budget_us = (uint64_t)RE_SOUNDS_DECODE_BUDGET_SECONDS * 1000000u;

    re_status first = RE_OK;
    for (size_t u = 0; u < count; u++) {
        sound_use use = { .kind = SOUND_INSERT };
        unsigned line, col;
        if (u == 0 && ep->intro) {
            use = (sound_use){ .kind = SOUND_INTRO, .file = ep->intro };
            line = ep->intro_line;
            col = ep->intro_col;
        } else if (u == count - 1 && ep->outro) {
            use = (sound_use){ .kind = SOUND_OUTRO, .file = ep->outro };
            line = ep->outro_line;
            col = ep->outro_col;
        } else {
            size_t i = u == 0 ? 0 : s->uses[u - 1].kind == SOUND_INSERT ? s->uses[u - 1].item + 1 : 0;
            while (ep->items[i].kind != RE_ITEM_SOUND)
                i++;
            use.item = i;
            use.file = ep->items[i].text;
            line = ep->items[i].line;
            col = ep->items[i].col;
        }
        size_t index = 0;
        re_status status = load_use(s, ep, script_path, allowed_dirs, allowed_dir_count, rate,
                                    stop, use.file, line, col, &index, diag);
        if (status == RE_ERR_NOMEM || status == RE_ERR_INTERRUPTED || status == RE_ERR_LIMIT)
            return status;
        if (status != RE_OK && first == RE_OK)
            first = status;
        use.sound = status == RE_OK ? &s->loaded[index] : NULL;
        s->uses[s->use_count++] = use;
    }
    if (first == RE_OK && ep->intro && ep->intro_overlap_us) {
        uint64_t overlap = re_us_to_frames(ep->intro_overlap_us, rate);
        const re_sound *intro = s->uses[0].sound;
        if (overlap > intro->frames)
            return re_diag_fail(diag, RE_ERR_INPUT, ep->file, ep->intro_overlap_line,
                                ep->intro_overlap_col, "intro_overlap (%.3f s) is longer than "
                                "the intro '%s' (%.3f s): speech may start at the intro's "
                                "first sample at the earliest", ep->intro_overlap_us / 1e6,
                                ep->intro, (double)intro->frames / rate);
        s->intro_overlap = (size_t)overlap;
    }
    return first == RE_OK ? check_known_length(s, ep, rate, diag) : first;
}

void re_episode_sounds_free(episode_sounds *s)
{
    if (!s)
        return;
    for (size_t k = 0; k < s->loaded_count; k++) {
        free(s->paths[k]);
        re_sound_free(&s->loaded[k]);
    }
    free(s->paths);
    free(s->loaded);
    free(s->file_ids);
    free(s->failed);
    free(s->uses);
    memset(s, 0, sizeof *s);
}
