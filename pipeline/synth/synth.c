/* SPDX-License-Identifier: GPL-3.0-or-later */
/* synth.c - the engines in a warm parent, one forked child per segment (see synth.h for why);
 * each engine behind engine_backend.h.
 *
 * A child writes its samples into one anonymous memory file and its events (and, on failure,
 * a message) into another; the parent reads both after the child exits. Memory files instead
 * of pipes let several children run at once without the parent draining them in turn. */
#define _GNU_SOURCE
#include "synth.h"
#include "sentences.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "engine_backend.h"

/* Indexed by re_voice_engine, whose names (re_voice_engine_name) they go by. */
static const engine_backend *const backends[] = { &re_espeak_backend, &re_flite_backend };
#define BACKEND_COUNT (sizeof backends / sizeof backends[0])
_Static_assert(BACKEND_COUNT == RE_VOICE_ENGINE_COUNT, "an engine for every profile's engine");

struct re_engine {
    volatile sig_atomic_t *stop;
    char names[BACKEND_COUNT][48];   /* "espeak-ng 1.51", "flite 2.2" */
};

struct re_synth_job {
    re_engine *engine;
    unsigned rate;  /* of the audio the child makes */
    pid_t pid;
    int life_fd;    /* read end of a pipe whose write end only the child holds: it closes
                     * when the child ends (valgrind-friendly, unlike pidfd_open) */
    int pcm_fd;
    int meta_fd;
    int err_fd;     /* the child's stderr: glibc's and the engine's last words before a crash */
};

/* What a child writes into its meta file: events, then at most one message. */
enum { META_EVENT = 1, META_MESSAGE = 2 };
typedef struct meta_record {
    uint32_t kind;
    uint32_t type_or_len;   /* event type, or the message length that follows */
    uint32_t text_pos;
    uint32_t length;
    uint64_t sample;
} meta_record;

/* What a child is asked to do. */
typedef enum job_kind { JOB_SPEAK, JOB_CHECK_VOICE, JOB_PHONEMES } job_kind;

/* Child exit codes. */
enum { CHILD_OK = 0, CHILD_ENGINE_ERROR = 3, CHILD_WRITE_ERROR = 4 };

/* Bytes kept of the message a child reports about its failure (one line of the engine's). */
#define CHILD_MESSAGE_MAX 512

/* A child's output to one of its memory files, written a buffer at a time: the engines hand
 * over their audio a few hundred samples per call (espeak-ng: 45,000 calls for a 34-minute
 * episode), and a system call for each was 5 % of synthesis's CPU. */
typedef struct child_out {
    int fd;
    size_t used;
    unsigned char buf[1 << 16];
} child_out;

/* Only ever set inside a child, where this process's copy of the engine is about to speak. */
static child_out child_pcm = { .fd = -1 };
static child_out child_meta = { .fd = -1 };
static int child_write_failed;
static uint64_t child_samples;
static uint64_t child_max_samples;   /* a paragraph longer than this is stopped */
static int child_too_long;
static uint64_t child_sentence_sample;   /* where the sentence being spoken starts */
static uint32_t child_sentence_chars;    /* characters of the paragraph before it */

static int write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static void child_flush(child_out *out)
{
    if (out->used > 0 && write_all(out->fd, out->buf, out->used) != 0)
        child_write_failed = 1;
    out->used = 0;
}

static void child_write(child_out *out, const void *data, size_t len)
{
    const unsigned char *p = data;
    while (len > 0) {
        if (out->used == sizeof out->buf)
            child_flush(out);
        size_t n = sizeof out->buf - out->used < len ? sizeof out->buf - out->used : len;
        memcpy(out->buf + out->used, p, n);
        out->used += n;
        p += n;
        len -= n;
    }
}

/* A child's end: what it buffered written out, then _exit(code), or CHILD_WRITE_ERROR when
 * any of its output could not be written. */
static _Noreturn void child_exit(int code)
{
    child_flush(&child_pcm);
    child_flush(&child_meta);
    _exit(child_write_failed ? CHILD_WRITE_ERROR : code);
}

static const engine_backend *backend_of(const re_voice_profile *profile)
{
    return backends[profile->engine < BACKEND_COUNT ? profile->engine : 0];
}

/* The on_demand engines started in this process (engine_backend.h): a job may be started from
 * more than one thread. */
static pthread_mutex_t on_demand_lock = PTHREAD_MUTEX_INITIALIZER;
static int on_demand_started[BACKEND_COUNT];

/* Starts the profile's engine in this process if it is on_demand and not yet started: here, in
 * the parent, before the job's child forks, so that every child inherits it started. */
static re_status engine_ready(const re_voice_profile *profile, re_diagnostics *diag)
{
    size_t i = profile->engine < BACKEND_COUNT ? profile->engine : 0;
    if (!backends[i]->on_demand)
        return RE_OK;
    re_status status = RE_OK;
    pthread_mutex_lock(&on_demand_lock);
    if (!on_demand_started[i]) {
        status = backends[i]->start(diag);
        on_demand_started[i] = status == RE_OK;
    }
    pthread_mutex_unlock(&on_demand_lock);
    return status;
}

int re_synth_child_pcm(const int16_t *pcm, size_t frames)
{
    if (frames > 0)
        child_write(&child_pcm, pcm, frames * sizeof *pcm);
    if (frames > 0 && (child_samples += (uint64_t)frames) > child_max_samples) {
        child_too_long = 1;   /* bounded: a paragraph cannot fill the disk or the memory */
        return 1;
    }
    return 0;
}

void re_synth_child_word(uint32_t text_pos, uint32_t length, uint64_t sample)
{
    meta_record rec = {
        .kind = META_EVENT,
        .type_or_len = RE_EVENT_WORD,
        .text_pos = text_pos > 0 ? child_sentence_chars + text_pos : 0,
        .length = length,
        .sample = child_sentence_sample + sample,
    };
    child_write(&child_meta, &rec, sizeof rec);
}

int re_synth_child_failed(void)
{
    return child_write_failed || child_too_long;
}

void re_synth_child_message(const char *text)
{
    meta_record rec = { .kind = META_MESSAGE, .type_or_len = (uint32_t)strlen(text) };
    child_write(&child_meta, &rec, sizeof rec);
    child_write(&child_meta, text, rec.type_or_len);
}

/* The child side: make sure it cannot outlive us or leave a core file, then speak. */
static void child_prepare(pid_t parent)
{
    struct rlimit no_core = { 0, 0 };
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    (void)setrlimit(RLIMIT_CORE, &no_core);
    (void)prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(CHILD_WRITE_ERROR);
}

/* Writes the engine's phonemes for the text into the output file. */
static void child_phonemes(const engine_backend *engine, const char *text, unsigned text_flags)
{
    int fd = dup(child_pcm.fd);
    FILE *trace = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!trace)
        _exit(CHILD_WRITE_ERROR);
    int failed = engine->phonemes(text, text_flags, trace);
    if (fclose(trace) != 0)
        _exit(CHILD_WRITE_ERROR);
    child_exit(failed ? CHILD_ENGINE_ERROR : CHILD_OK);
}

static uint32_t utf8_chars(const char *s, size_t len)
{
    uint32_t n = 0;
    for (size_t i = 0; i < len; i++)
        n += ((unsigned char)s[i] & 0xC0) != 0x80;
    return n;
}

/* Speaks the paragraph sentence by sentence (sentences.h), one call of the engine each, so
 * that each sentence's audio is exactly what the engine makes of that sentence after the ones
 * before it: a SENTENCE event at the first sample of each call, never inside one. The first
 * sentence's audio is the same as that sentence spoken alone. 0, or -1 after a message. */
static int child_speak(const engine_backend *engine, const char *text, unsigned text_flags)
{
    size_t len = strlen(text), pos = 0;
    char *sentence = malloc(len + 1);
    if (!sentence)
        _exit(CHILD_WRITE_ERROR);
    int failed = 0;
    while (pos < len && (text[pos] == ' ' || text[pos] == '\t'))
        pos++;
    while (!failed && pos < len && !child_too_long && !child_write_failed) {
        size_t end = re_sentence_end(text, pos, text_flags);
        memcpy(sentence, text + pos, end - pos);
        sentence[end - pos] = '\0';
        child_sentence_sample = child_samples;
        child_sentence_chars = utf8_chars(text, pos);
        meta_record rec = { .kind = META_EVENT, .type_or_len = RE_EVENT_SENTENCE,
                            .text_pos = child_sentence_chars + 1, .sample = child_samples };
        child_write(&child_meta, &rec, sizeof rec);
        failed = engine->speak(sentence, end - pos, text_flags) != 0;
        pos = end;
        while (pos < len && (text[pos] == ' ' || text[pos] == '\t'))
            pos++;
    }
    free(sentence);
    return failed ? -1 : 0;
}

static void child_run(const char *text, unsigned text_flags, const re_voice_profile *profile,
                      job_kind kind)
{
    const engine_backend *engine = backend_of(profile);
    if (engine->select(profile) != 0)
        child_exit(CHILD_ENGINE_ERROR);
    if (kind == JOB_CHECK_VOICE)
        child_exit(CHILD_OK);
    if (kind == JOB_PHONEMES)
        child_phonemes(engine, text, text_flags);
    child_max_samples = (uint64_t)engine->rate(profile) * RE_SEGMENT_MAX_SECONDS;
    int failed = child_speak(engine, text, text_flags);
    if (child_write_failed)
        _exit(CHILD_WRITE_ERROR);
    if (child_too_long) {
        char message[128];
        snprintf(message, sizeof message, "this paragraph would be more than %d minutes of audio; "
                 "split it", RE_SEGMENT_MAX_SECONDS / 60);
        re_synth_child_message(message);
        child_exit(CHILD_ENGINE_ERROR);
    }
    child_exit(failed ? CHILD_ENGINE_ERROR : CHILD_OK);
}

re_status re_engine_create(volatile sig_atomic_t *stop, re_engine **out, re_diagnostics *diag)
{
    *out = NULL;
    re_engine *engine = calloc(1, sizeof *engine);
    if (!engine)
        return RE_ERR_NOMEM;
    engine->stop = stop;
    for (size_t i = 0; i < BACKEND_COUNT; i++) {
        re_status status = backends[i]->on_demand ? RE_OK : backends[i]->start(diag);
        if (status != RE_OK) {
            free(engine);
            return status;
        }
        snprintf(engine->names[i], sizeof engine->names[i], "%s %s",
                 re_voice_engine_name((re_voice_engine)i), backends[i]->version());
    }
    *out = engine;
    return RE_OK;
}

void re_engine_free(re_engine *engine)
{
    /* espeak_ng_Terminate is not called: Terminate + Initialize was measured to hang
     * (docs/design.md, "The speech engine"), and the engines' memory goes with the process. */
    free(engine);
}

unsigned re_engine_rate(const re_engine *engine, const re_voice_profile *profile)
{
    (void)engine;
    return backend_of(profile)->rate(profile);
}

const char *re_engine_name(const re_engine *engine, const re_voice_profile *profile)
{
    return engine->names[profile->engine < BACKEND_COUNT ? profile->engine : 0];
}

static void job_close(re_synth_job *job)
{
    if (job->life_fd >= 0)
        close(job->life_fd);
    if (job->pcm_fd >= 0)
        close(job->pcm_fd);
    if (job->meta_fd >= 0)
        close(job->meta_fd);
    if (job->err_fd >= 0)
        close(job->err_fd);
    free(job);
}

static re_status job_spawn(re_engine *engine, const char *text, unsigned text_flags,
                           const re_voice_profile *profile, job_kind kind, re_synth_job **out,
                           re_diagnostics *diag)
{
    *out = NULL;
    re_status ready = engine_ready(profile, diag);
    if (ready != RE_OK)
        return ready;
    re_synth_job *job = calloc(1, sizeof *job);
    if (!job)
        return RE_ERR_NOMEM;
    job->engine = engine;
    job->rate = re_engine_rate(engine, profile);
    job->life_fd = job->pcm_fd = job->meta_fd = job->err_fd = -1;
    int life[2] = { -1, -1 };
    job->pcm_fd = memfd_create("re-speech-pcm", MFD_CLOEXEC);
    job->meta_fd = memfd_create("re-speech-meta", MFD_CLOEXEC);
    job->err_fd = memfd_create("re-speech-stderr", MFD_CLOEXEC);
    if (job->pcm_fd < 0 || job->meta_fd < 0 || job->err_fd < 0 || pipe2(life, O_CLOEXEC) != 0)
        goto fail;
    job->life_fd = life[0];
    pid_t parent = getpid();
    fflush(NULL);   /* a child must not write out our buffered output a second time */
    job->pid = fork();
    if (job->pid < 0) {
        int err = errno;
        close(life[1]);
        errno = err;
        goto fail;
    }
    if (job->pid == 0) {
        close(life[0]);   /* life[1] stays open until this child ends */
        child_prepare(parent);
        /* an engine's own words (flite prints some to stdout) are kept, unbuffered, for a
         * crash's message, and never reach our output */
        if (dup2(job->err_fd, STDERR_FILENO) < 0 || dup2(job->err_fd, STDOUT_FILENO) < 0)
            _exit(CHILD_WRITE_ERROR);
        setvbuf(stdout, NULL, _IONBF, 0);
        child_pcm.fd = job->pcm_fd;
        child_meta.fd = job->meta_fd;
        free(job);   /* the child's copy: what it needs is in child_*_fd */
        child_run(text, text_flags, profile, kind);
    }
    close(life[1]);
    *out = job;
    return RE_OK;
fail:;
    /* EAGAIN: a process limit, which another process's end can lift (batch.c waits for one) */
    re_status status = errno == EAGAIN ? RE_ERR_LIMIT : RE_ERR_ENGINE;
    re_diag_add(diag, NULL, 0, 0, "cannot start a speech process: %s", strerror(errno));
    job_close(job);
    return status;
}

re_status re_engine_start(re_engine *engine, const char *text, unsigned text_flags,
                          const re_voice_profile *profile, re_synth_job **job,
                          re_diagnostics *diag)
{
    return job_spawn(engine, text, text_flags, profile, JOB_SPEAK, job, diag);
}

void re_engine_cancel(re_synth_job *job)
{
    if (!job)
        return;
    kill(job->pid, SIGKILL);
    while (waitpid(job->pid, NULL, 0) < 0 && errno == EINTR)
        ;
    job_close(job);
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits for the child to end; returns RE_OK with its wait status, or kills it. */
static re_status job_wait_exit(re_synth_job *job, unsigned timeout_ms, int *wstatus,
                               re_diagnostics *diag)
{
    int64_t deadline = timeout_ms ? now_ms() + timeout_ms : 0;
    for (;;) {
        if (job->engine->stop && *job->engine->stop)
            return RE_ERR_INTERRUPTED;
        int slice = 100;   /* short, so that `stop` is seen promptly */
        if (deadline) {
            int64_t left = deadline - now_ms();
            if (left <= 0) {
                re_diag_add(diag, NULL, 0, 0,
                            "the speech engine hung (no result after %u ms); stopped it",
                            timeout_ms);
                return RE_ERR_ENGINE;
            }
            if (left < slice)
                slice = (int)left;
        }
        struct pollfd p = { .fd = job->life_fd, .events = POLLIN };
        int n = poll(&p, 1, slice);
        if (n < 0 && errno != EINTR) {
            re_diag_add(diag, NULL, 0, 0, "cannot wait for the speech process: %s",
                        strerror(errno));
            return RE_ERR_ENGINE;
        }
        if (n > 0)
            break;
    }
    while (waitpid(job->pid, wstatus, 0) < 0) {
        if (errno != EINTR) {
            re_diag_add(diag, NULL, 0, 0, "cannot reap the speech process: %s", strerror(errno));
            return RE_ERR_ENGINE;
        }
    }
    job->pid = 0;
    return RE_OK;
}

static void *read_whole_fd(int fd, size_t *len)
{
    struct stat st;
    *len = 0;
    if (fstat(fd, &st) != 0 || st.st_size < 0)
        return NULL;
    size_t size = (size_t)st.st_size;
    char *buf = malloc(size ? size : 1);
    if (!buf)
        return NULL;
    size_t done = 0;
    while (done < size) {
        ssize_t n = pread(fd, buf + done, size - done, (off_t)done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            free(buf);
            return NULL;
        }
        done += (size_t)n;
    }
    *len = size;
    return buf;
}

/* The child's samples: its memory file mapped read-only, all at once (MAP_POPULATE), rather
 * than read into a copy: for a 34-minute episode that copy was 84 MB and a page fault on
 * every page of it, 2.5 % of a render's CPU (perf). The mapping outlives the descriptor. */
static re_status map_samples(int fd, re_speech *out)
{
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size < 0)
        return RE_ERR_NOMEM;
    size_t len = (size_t)st.st_size / sizeof(int16_t) * sizeof(int16_t);
    if (len == 0)
        return RE_OK;
    void *pcm = mmap(NULL, len, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0);
    if (pcm == MAP_FAILED)
        return RE_ERR_NOMEM;
    out->pcm = pcm;
    out->frames = len / sizeof(int16_t);
    out->mapped = len;
    return RE_OK;
}

/* Reads the child's events into out and its message (if any) into said. */
static re_status read_meta(int fd, re_speech *out, char *said, size_t said_len)
{
    size_t len;
    char *buf = read_whole_fd(fd, &len);
    if (!buf)
        return RE_ERR_NOMEM;
    size_t capacity = len / sizeof(meta_record);
    out->events = capacity ? calloc(capacity, sizeof *out->events) : NULL;
    if (capacity && !out->events) {
        free(buf);
        return RE_ERR_NOMEM;
    }
    size_t pos = 0;
    while (pos + sizeof(meta_record) <= len) {
        meta_record rec;
        memcpy(&rec, buf + pos, sizeof rec);
        pos += sizeof rec;
        if (rec.kind == META_EVENT) {
            out->events[out->event_count++] = (re_speech_event){
                (re_speech_event_type)rec.type_or_len, rec.text_pos, rec.length, rec.sample };
        } else if (rec.kind == META_MESSAGE) {
            size_t n = rec.type_or_len <= len - pos ? rec.type_or_len : len - pos;
            snprintf(said, said_len, "%.*s", (int)n, buf + pos);
            pos += n;
        }
    }
    free(buf);
    return RE_OK;
}

/* The first line the child wrote to stderr, cleaned of control characters. */
static void first_stderr_line(int fd, char *line, size_t line_len)
{
    size_t len;
    char *text = read_whole_fd(fd, &len);
    size_t n = 0;
    for (size_t i = 0; text && i < len && text[i] != '\n' && n + 1 < line_len; i++)
        line[n++] = (unsigned char)text[i] < 0x20 ? ' ' : text[i];
    line[n] = '\0';
    free(text);
}

/* How the child ended, as an error with its message in diag; `said` is what the child itself
 * reported (may be empty). */
static re_status describe_exit(const re_synth_job *job, int wstatus, const char *said,
                               re_diagnostics *diag)
{
    if (WIFSIGNALED(wstatus)) {
        int sig = WTERMSIG(wstatus);
        char line[160];
        first_stderr_line(job->err_fd, line, sizeof line);
        re_diag_add(diag, NULL, 0, 0, "the speech engine crashed on this text (SIG%s%s%s)",
                    sigabbrev_np(sig) ? sigabbrev_np(sig) : "?", line[0] ? ": " : "", line);
        return RE_ERR_ENGINE;
    }
    int code = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;
    if (code == CHILD_OK)
        return RE_OK;
    if (code == CHILD_WRITE_ERROR)
        re_diag_add(diag, NULL, 0, 0,
                    "the speech process could not store its audio (memory or disk full?)");
    else if (said[0])
        re_diag_add(diag, NULL, 0, 0, "%s", said);
    else
        re_diag_add(diag, NULL, 0, 0, "the speech process failed (exit status %d)", code);
    return RE_ERR_ENGINE;
}

/* Waits for the job and takes its results; frees the job. With `raw`, the child's output
 * file is returned as bytes (NUL-terminated) instead of as samples. */
static re_status job_collect(re_synth_job *job, unsigned timeout_ms, re_speech *out, char **raw,
                             re_diagnostics *diag)
{
    memset(out, 0, sizeof *out);
    int wstatus = 0;
    re_status status = job_wait_exit(job, timeout_ms, &wstatus, diag);
    if (status != RE_OK) {
        re_engine_cancel(job);
        return status;
    }
    /* A child killed by the same Ctrl-C that stops us did not crash: we were interrupted. */
    int killed_by_stop = WIFSIGNALED(wstatus) && (WTERMSIG(wstatus) == SIGINT
                                                  || WTERMSIG(wstatus) == SIGTERM
                                                  || WTERMSIG(wstatus) == SIGHUP);
    if ((job->engine->stop && *job->engine->stop) || killed_by_stop) {
        job_close(job);
        return RE_ERR_INTERRUPTED;
    }
    char said[CHILD_MESSAGE_MAX] = "";
    status = read_meta(job->meta_fd, out, said, sizeof said);
    if (status == RE_OK)
        status = describe_exit(job, wstatus, said, diag);
    if (status == RE_OK && raw) {
        size_t len;
        char *bytes = read_whole_fd(job->pcm_fd, &len);
        char *grown = bytes ? realloc(bytes, len + 1) : NULL;
        if (!grown) {
            free(bytes);
            status = RE_ERR_NOMEM;
        } else {
            grown[len] = '\0';
            *raw = grown;
        }
    } else if (status == RE_OK) {
        status = map_samples(job->pcm_fd, out);
        out->rate = job->rate;
    }
    if (status != RE_OK || raw)
        re_speech_free(out);
    job_close(job);
    return status;
}

re_status re_engine_wait(re_synth_job *job, unsigned timeout_ms, re_speech *out,
                         re_diagnostics *diag)
{
    return job_collect(job, timeout_ms, out, NULL, diag);
}

re_status re_engine_check_voice(re_engine *engine, const re_voice_profile *profile,
                                re_diagnostics *diag)
{
    re_synth_job *job;
    re_status status = job_spawn(engine, "", RE_TEXT_PLAIN, profile, JOB_CHECK_VOICE, &job, diag);
    if (status != RE_OK)
        return status;
    re_speech unused;
    status = re_engine_wait(job, 10000, &unused, diag);
    re_speech_free(&unused);
    return status;
}

re_status re_engine_phonemes(re_engine *engine, const char *text, unsigned text_flags,
                             const re_voice_profile *profile, char **phonemes,
                             re_diagnostics *diag)
{
    *phonemes = NULL;
    re_synth_job *job;
    re_status status = job_spawn(engine, text, text_flags, profile, JOB_PHONEMES, &job, diag);
    if (status != RE_OK)
        return status;
    re_speech unused;
    status = job_collect(job, RE_PHONEMES_TIMEOUT_MS, &unused, phonemes, diag);
    if (status != RE_OK)
        return status;
    /* One line per clause, as the program prints them: join with single spaces. */
    char *in = *phonemes, *out = *phonemes;
    for (; *in; in++) {
        char c = (*in == '\n' || *in == '\r') ? ' ' : *in;
        if (c == ' ' && (out == *phonemes || out[-1] == ' '))
            continue;
        *out++ = c;
    }
    if (out > *phonemes && out[-1] == ' ')
        out--;
    *out = '\0';
    return RE_OK;
}
