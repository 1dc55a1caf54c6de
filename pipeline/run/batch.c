/* SPDX-License-Identifier: GPL-3.0-or-later */
/* batch.c - scripts in, one worker process per episode (see batch.h). */
#define _GNU_SOURCE
#include "batch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "outputs.h"
#include "show.h"
#include "remote.h"
#include "synth.h"
#include "utf8.h"

/* What a worker hands back through its result file, followed by its error text. */
typedef struct worker_result {
    int32_t status;
    int32_t state;
    re_render_result result;
} worker_result;

typedef struct worker {
    size_t episode;
    pid_t pid;
    int life_fd;    /* closes when the worker ends (see synth.c) */
    int result_fd;
    double started;
    off_t size;     /* its script's bytes (start_order) */
} worker;

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void re_batch_free(re_batch *batch)
{
    for (size_t i = 0; i < batch->count; i++) {
        re_batch_episode *ep = &batch->episodes[i];
        free(ep->script);
        free(ep->name);
        free(ep->output);
        free(ep->errors);
    }
    free(batch->episodes);
    for (size_t i = 0; i < batch->skipped_count; i++)
        free(batch->skipped[i].path);
    free(batch->skipped);
    memset(batch, 0, sizeof *batch);
}

static re_status add_script(re_batch *batch, size_t *capacity, const char *path)
{
    if (batch->count == *capacity) {
        size_t cap = *capacity ? *capacity * 2 : 16;
        re_batch_episode *grown = realloc(batch->episodes, cap * sizeof *grown);
        if (!grown)
            return RE_ERR_NOMEM;
        batch->episodes = grown;
        *capacity = cap;
    }
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t len = strlen(base);
    if (len > 4 && strcmp(base + len - 4, ".txt") == 0)
        len -= 4;
    else if (re_script_is_markdown(base))
        len = (size_t)(strrchr(base, '.') - base);
    re_batch_episode ep = { .script = strdup(path), .name = strndup(base, len) };
    if (!ep.script || !ep.name) {
        free(ep.script);
        free(ep.name);
        return RE_ERR_NOMEM;
    }
    batch->episodes[batch->count++] = ep;
    return RE_OK;
}

static int ends_in_txt(const char *name)
{
    size_t len = strlen(name);
    return len > 4 && strcmp(name + len - 4, ".txt") == 0 && name[0] != '.';
}

/* A Markdown file in a folder is a script only when it starts with front matter (a line
 * `---`), so that a folder's README.md is never rendered by surprise. */
static int markdown_script(const char *path)
{
    char head[8] = "";
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(head, 1, sizeof head - 1, f) : 0;
    if (f)
        fclose(f);
    head[n] = '\0';
    size_t i = strncmp(head, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    if (strncmp(head + i, "---", 3) != 0)
        return 0;
    i += 3;
    while (head[i] == ' ' || head[i] == '\t')
        i++;
    return head[i] == '\n' || head[i] == '\r' || (head[i] == '\0' && n < sizeof head - 1);
}

static re_status add_skipped(re_batch *batch, const char *path, const char *reason)
{
    re_batch_skip *grown = realloc(batch->skipped, (batch->skipped_count + 1) * sizeof *grown);
    if (!grown)
        return RE_ERR_NOMEM;
    batch->skipped = grown;
    char *copy = strdup(path);
    if (!copy)
        return RE_ERR_NOMEM;
    batch->skipped[batch->skipped_count++] = (re_batch_skip){ copy, reason };
    return RE_OK;
}

static re_status add_folder(re_batch *batch, size_t *capacity, const char *dir, re_diagnostics *diag)
{
    DIR *d = opendir(dir);
    if (!d) {
        re_status s = re_diag_add(diag, dir, 0, 0, "cannot read the folder: %s", strerror(errno));
        return s == RE_OK ? RE_ERR_INPUT : s;
    }
    re_status status = RE_OK;
    struct dirent *entry;
    while (status == RE_OK && (entry = readdir(d)) != NULL) {
        int markdown = entry->d_name[0] != '.' && re_script_is_markdown(entry->d_name);
        if ((!ends_in_txt(entry->d_name) && !markdown)
            || strcmp(entry->d_name, RE_SHOW_FILE_NAME) == 0)   /* the show's, not a script */
            continue;
        char *path = NULL;
        if (asprintf(&path, "%s/%s", dir, entry->d_name) < 0)
            status = RE_ERR_NOMEM;
        struct stat st;
        if (status == RE_OK && (stat(path, &st) != 0 || !S_ISREG(st.st_mode)))
            status = add_skipped(batch, path, "not a regular file (a folder, a device or a "
                                 "link to nothing); name a script file instead");
        else if (status == RE_OK && markdown && !markdown_script(path))
            status = add_skipped(batch, path, "Markdown without front matter is not taken "
                                 "from a folder (a README); start it with a '---' line and "
                                 "front matter, or name the file itself to render it");
        else if (status == RE_OK)
            status = add_script(batch, capacity, path);
        free(path);
    }
    closedir(d);
    return status;
}

typedef struct file_name {
    char *name;        /* an episode's file in the output folder, e.g. "x.chapters.json" */
    size_t episode;
} file_name;

static int by_file_name(const void *a, const void *b)
{
    const file_name *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->episode > y->episode) - (x->episode < y->episode);
}

/* No two episodes may write the same file: not only NAME.mp3, but any of an episode's files
 * (x.txt and x.chapters.txt would both write x.chapters.json). Refused before anything runs. */
static re_status refuse_collisions(re_batch *batch, re_diagnostics *diag, re_status *failed)
{
    size_t per = OUTPUT_KINDS, n = 0;
    file_name *names = calloc(batch->count * per + 1, sizeof *names);
    re_status status = names ? RE_OK : RE_ERR_NOMEM;
    for (size_t i = 0; status == RE_OK && i < batch->count; i++) {
        for (int k = 0; status == RE_OK && k < OUTPUT_KINDS; k++) {
            const char *suffix = re_output_suffix((output_kind)k);
            if (asprintf(&names[n].name, "%s%s", batch->episodes[i].name, suffix ? suffix : ".mp3") < 0) {
                names[n].name = NULL;
                status = RE_ERR_NOMEM;
            } else {
                names[n++].episode = i;
            }
        }
    }
    if (status == RE_OK)
        qsort(names, n, sizeof *names, by_file_name);
    /* one message per episode that collides, naming the first it collides with */
    char *reported = calloc(batch->count + 1, 1);
    if (!reported)
        status = RE_ERR_NOMEM;
    for (size_t i = 1; status == RE_OK && i < n; i++) {
        const re_batch_episode *a = &batch->episodes[names[i - 1].episode];
        const re_batch_episode *b = &batch->episodes[names[i].episode];
        if (strcmp(names[i].name, names[i - 1].name) != 0 || a == b || reported[names[i].episode])
            continue;
        reported[names[i].episode] = 1;
        *failed = RE_ERR_INPUT;
        if (strcmp(a->name, b->name) == 0)
            status = re_diag_add(diag, b->script, 0, 0, "would be written to the same output as %s "
                                 "(%s.mp3)", a->script, b->name);
        else
            status = re_diag_add(diag, b->script, 0, 0, "would write %s, as %s does; rename one "
                                 "of them", names[i].name, a->script);
    }
    free(reported);
    for (size_t i = 0; i < n; i++)
        free(names[i].name);
    free(names);
    return status;
}

static int by_name(const void *a, const void *b)
{
    const re_batch_episode *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : strcmp(x->script, y->script);
}

static int by_skipped_path(const void *a, const void *b)
{
    return strcmp(((const re_batch_skip *)a)->path, ((const re_batch_skip *)b)->path);
}

/* Keeps every shard_count-th episode starting at shard_index (1-based). */
static void keep_shard(re_batch *batch, unsigned index, unsigned count)
{
    size_t kept = 0;
    for (size_t i = 0; i < batch->count; i++) {
        re_batch_episode *ep = &batch->episodes[i];
        if (i % count == index - 1) {
            batch->episodes[kept++] = *ep;
        } else {
            free(ep->script);
            free(ep->name);
        }
    }
    batch->count = kept;
}

re_status re_batch_collect(const char *const *inputs, size_t input_count, const re_batch_options *options,
                           re_batch *batch, re_diagnostics *diag)
{
    memset(batch, 0, sizeof *batch);
    size_t capacity = 0;
    re_status status = RE_OK, failed = RE_OK;
    for (size_t i = 0; status == RE_OK && i < input_count; i++) {
        struct stat st;
        if (stat(inputs[i], &st) != 0) {
            status = re_diag_add(diag, inputs[i], 0, 0, "cannot read: %s", strerror(errno));
            failed = RE_ERR_INPUT;
        } else if (S_ISDIR(st.st_mode)) {
            status = add_folder(batch, &capacity, inputs[i], diag);
            if (status == RE_ERR_INPUT) {
                failed = status;
                status = RE_OK;
            }
        } else if (!S_ISREG(st.st_mode)) {
            status = re_diag_add(diag, inputs[i], 0, 0, "cannot read: not a regular file");
            failed = RE_ERR_INPUT;
        } else {
            status = add_script(batch, &capacity, inputs[i]);
        }
    }
    /* A script's name goes into the table, the reports and the feed as it is: one that is not
     * plain text is refused, shown escaped, before anything runs. */
    for (size_t i = 0; status == RE_OK && i < batch->count; i++) {
        const char *problem = re_utf8_name_problem(batch->episodes[i].script);
        if (!problem)
            continue;
        char *shown = re_utf8_shown(batch->episodes[i].script);
        status = shown ? re_diag_add(diag, shown, 0, 0, "cannot be an episode's name: %s; "
                                     "rename the file", problem) : RE_ERR_NOMEM;
        free(shown);
        failed = RE_ERR_INPUT;
    }
    if (status == RE_OK && failed == RE_OK && batch->count > 1)
        qsort(batch->episodes, batch->count, sizeof *batch->episodes, by_name);
    if (status == RE_OK && batch->skipped_count > 1)
        qsort(batch->skipped, batch->skipped_count, sizeof *batch->skipped, by_skipped_path);
    if (status == RE_OK && failed == RE_OK)
        status = refuse_collisions(batch, diag, &failed);
    if (status == RE_OK && failed == RE_OK && options->shard_count > 1)
        keep_shard(batch, options->shard_index, options->shard_count);
    for (size_t i = 0; status == RE_OK && failed == RE_OK && i < batch->count; i++) {
        re_batch_episode *ep = &batch->episodes[i];
        if (asprintf(&ep->output, "%s/%s.mp3", options->outdir, ep->name) < 0) {
            ep->output = NULL;
            status = RE_ERR_NOMEM;
        }
    }
    if (status == RE_OK)
        status = failed;
    if (status != RE_OK)
        re_batch_free(batch);
    return status;
}

/* The worker side: render one episode and leave the result in the result file. */
static void worker_main(re_batch_episode *ep, const re_batch_options *options, re_engine *engine,
                        unsigned encode_threads, unsigned speech_jobs, int result_fd)
{
    re_render_options ro = options->render;
    ro.jobs = speech_jobs;
    if (!ro.encode_threads || encode_threads < ro.encode_threads)
        ro.encode_threads = encode_threads;
    ro.script_path = ep->script;
    ro.output_path = ep->output;
    ro.engine = engine;
    ro.progress = NULL;
    re_diagnostics diag;
    re_diagnostics_init(&diag, RE_DIAG_DEFAULT_LIMIT);
    worker_result wr = { 0 };
    wr.status = re_render(&ro, &wr.result, &diag);
    wr.state = wr.status == RE_OK ? RE_EPISODE_RENDERED : RE_EPISODE_FAILED;
    if (wr.status == RE_OK && wr.result.up_to_date)
        wr.state = RE_EPISODE_UP_TO_DATE;
    FILE *out = fdopen(result_fd, "wb");
    if (!out)
        _exit(3);
    fwrite(&wr, sizeof wr, 1, out);
    for (size_t i = 0; i < diag.count; i++) {
        char line[2048];
        re_diag_format(&diag.items[i], line, sizeof line);
        fprintf(out, "%s\n", line);
    }
    if (diag.count == 0 && wr.status != RE_OK)
        fprintf(out, "%s: %s\n", ep->script, re_strerror((re_status)wr.status));
    _exit(fclose(out) == 0 ? 0 : 3);
}

static re_status start_worker(re_batch *batch, size_t i, const re_batch_options *options,
                              re_engine *engine, unsigned encode_threads, unsigned speech_jobs,
                              worker *w)
{
    memset(w, 0, sizeof *w);
    w->episode = i;
    w->life_fd = -1;
    int life[2];
    w->result_fd = memfd_create("re-batch-result", MFD_CLOEXEC);
    if (w->result_fd < 0)
        return RE_ERR_NOMEM;
    if (pipe2(life, O_CLOEXEC) != 0) {
        close(w->result_fd);
        return RE_ERR_NOMEM;
    }
    fflush(NULL);
    pid_t parent = getpid();
    w->started = now_seconds();
    w->pid = fork();
    if (w->pid < 0) {
        int err = errno;
        close(life[0]);
        close(life[1]);
        close(w->result_fd);
        errno = err;
        return RE_ERR_LIMIT;   /* a process limit (EAGAIN) or no memory for one (ENOMEM) */
    }
    if (w->pid == 0) {
        close(life[0]);
        /* A worker must not outlive the batch (a cancelled CI job): it would go on writing. */
        if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != parent)
            _exit(3);
        worker_main(&batch->episodes[i], options, engine, encode_threads, speech_jobs,
                    dup(w->result_fd));
    }
    close(life[1]);
    w->life_fd = life[0];
    return RE_OK;
}

/* Reads a finished worker's result into its episode. */
static void collect_worker(re_batch *batch, worker *w, int wstatus)
{
    re_batch_episode *ep = &batch->episodes[w->episode];
    ep->seconds = now_seconds() - w->started;
    ep->state = RE_EPISODE_FAILED;
    ep->status = RE_ERR_ENGINE;
    struct stat st;
    worker_result wr;
    int have = fstat(w->result_fd, &st) == 0 && (size_t)st.st_size >= sizeof wr
               && pread(w->result_fd, &wr, sizeof wr, 0) == (ssize_t)sizeof wr;
    if (!have || !WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0) {
        const char *how = WIFSIGNALED(wstatus) ? sigabbrev_np(WTERMSIG(wstatus)) : NULL;
        if (asprintf(&ep->errors, "%s: the worker rendering it died (%s%s)", ep->script,
                     how ? "SIG" : "exit status ", how ? how : "?") < 0)
            ep->errors = NULL;
    } else {
        ep->state = (re_episode_state)wr.state;
        ep->status = (re_status)wr.status;
        ep->result = wr.result;
        size_t len = (size_t)st.st_size - sizeof wr;
        if (len > 0 && (ep->errors = malloc(len + 1)) != NULL) {
            ssize_t n = pread(w->result_fd, ep->errors, len, sizeof wr);
            ep->errors[n > 0 ? (size_t)n : 0] = '\0';
        }
    }
    close(w->result_fd);
    close(w->life_fd);
}

static void report_progress(const re_batch *batch, const re_batch_options *options, size_t done,
                            double started)
{
    if (!options->progress)
        return;
    re_batch_progress p = { .done = done, .total = batch->count, .elapsed = now_seconds() - started };
    for (size_t i = 0; i < batch->count; i++) {
        const re_batch_episode *ep = &batch->episodes[i];
        if (ep->state == RE_EPISODE_FAILED)
            p.failed++;
        if ((ep->state == RE_EPISODE_RENDERED || ep->state == RE_EPISODE_UP_TO_DATE)
            && ep->result.sample_rate)
            p.audio_ms += ep->result.samples * 1000 / ep->result.sample_rate;
    }
    options->progress(options->progress_context, &p);
}

/* Episodes whose worker met a process limit while other workers of the batch were running:
 * they start again, first, once one of those has ended (and the batch runs no more workers at
 * once than it did when the limit was met). */
typedef struct deferred_starts {
    size_t count;
    size_t episodes[64];
    off_t sizes[64];
} deferred_starts;

/* Waits until at least one worker ends (or a short while passes) and collects it: the number
 * of episodes finished. A worker that could not start a process for a limit while others ran
 * finishes nothing: its episode goes to `later` and *workers drops to what did run. */
static size_t reap_some(re_batch *batch, const re_batch_options *options, worker *running,
                        size_t *running_count, deferred_starts *later, unsigned *workers)
{
    struct pollfd fds[64];
    size_t n = *running_count;
    for (size_t i = 0; i < n; i++)
        fds[i] = (struct pollfd){ .fd = running[i].life_fd, .events = POLLIN };
    if (poll(fds, n, 100) <= 0)
        return 0;
    size_t reaped = 0;
    for (size_t i = 0; i < n;) {
        int wstatus;
        if (!(fds[i].revents & (POLLIN | POLLHUP)) || waitpid(running[i].pid, &wstatus, 0) <= 0) {
            i++;
            continue;
        }
        collect_worker(batch, &running[i], wstatus);
        re_batch_episode *ep = &batch->episodes[running[i].episode];
        if (ep->state == RE_EPISODE_FAILED && ep->status == RE_ERR_LIMIT && n > 1
            && later->count < sizeof later->episodes / sizeof later->episodes[0]) {
            /* nothing was written (a failed render leaves its outputs as they were) */
            free(ep->errors);
            ep->errors = NULL;
            ep->state = RE_EPISODE_NOT_RUN;
            ep->status = RE_OK;
            memset(&ep->result, 0, sizeof ep->result);
            later->episodes[later->count] = running[i].episode;
            later->sizes[later->count++] = running[i].size;
            if (*workers > n - 1)
                *workers = (unsigned)(n - 1);
        } else {
            if (options->finished)
                options->finished(options->finished_context, ep);
            reaped++;
        }
        running[i] = running[n - 1];
        fds[i] = fds[n - 1];
        n--;
    }
    *running_count = n;
    return reaped;
}

/* Memory every worker of the batch sees: what one learns about the remote cache (down,
 * refusing writes) holds for all, so a dead server costs one timeout and one warning per
 * batch, not per episode. */
static re_remote_state *share_remote_state(void)
{
    void *page = mmap(NULL, sizeof(re_remote_state), PROT_READ | PROT_WRITE,
                      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    return page == MAP_FAILED ? NULL : memset(page, 0, sizeof(re_remote_state));
}

static re_status run_batch(re_batch *batch, const re_batch_options *options, re_diagnostics *diag);

typedef struct start_order {
    size_t episode;
    off_t size;       /* the script's bytes: how long its episode will take, roughly */
} start_order;

static int longest_first(const void *a, const void *b)
{
    const start_order *x = a, *y = b;
    if (x->size != y->size)
        return x->size < y->size ? 1 : -1;
    return (x->episode > y->episode) - (x->episode < y->episode);
}

/* The order episodes start in: longest script first, so that the episodes left when the
 * other workers have nothing more to take are the shortest (the batch's tail, when cores sit
 * idle, is at most the shortest episodes' length, not a long one started last). The table,
 * the report and the outputs keep the name order; nothing in an output depends on when it ran. */
static start_order *plan_starts(const re_batch *batch)
{
    start_order *order = malloc((batch->count + 1) * sizeof *order);
    if (!order)
        return NULL;
    for (size_t i = 0; i < batch->count; i++) {
        struct stat st;
        order[i] = (start_order){ .episode = i,
                                  .size = stat(batch->episodes[i].script, &st) == 0 ? st.st_size : 0 };
    }
    qsort(order, batch->count, sizeof *order, longest_first);
    return order;
}

re_status re_batch_run(re_batch *batch, const re_batch_options *options, re_diagnostics *diag)
{
    re_step_time start = re_step_clock();
    re_batch_options shared = *options;
    if (shared.render.cache_url && !shared.render.remote_state) {
        shared.render.remote_state = share_remote_state();
        if (!shared.render.remote_state)
            return RE_ERR_NOMEM;
    }
    re_status status = run_batch(batch, &shared, diag);
    re_step_time end = re_step_clock();
    batch->whole = (re_step_time){ end.wall_s - start.wall_s, end.cpu_s - start.cpu_s };
    if (shared.render.remote_state != options->render.remote_state)
        munmap(shared.render.remote_state, sizeof(re_remote_state));
    return status;
}

/* Encoder threads for an episode about to start: its share of the cores among the episodes
 * that will run beside it (all of them once the batch is down to its last). The count holds
 * for the episode's life, so one that will outlast the rest by a quarter of its length or
 * more (its script against what the other workers still have to share: the episodes not
 * started and the running ones, whole) gets every core from the start: while the others run,
 * its threads and theirs share the cores (the same work, no core idle), and once they are
 * done its encoder is not left on one core beside idle ones. Only threads: the speech
 * processes stay within -j. The bytes do not depend on the thread count (mp3_parallel.h). */
static unsigned encoder_threads(long cpus, size_t beside, unsigned workers, off_t size, off_t others)
{
    if (workers > 1 && cpus > 1 && 4 * others <= 3 * (off_t)(workers - 1) * size)
        return (unsigned)cpus;
    return cpus > (long)beside ? (unsigned)(cpus / (long)beside) : 1;
}

static re_status run_batch(re_batch *batch, const re_batch_options *options, re_diagnostics *diag)
{
    int created = mkdir(options->outdir, 0777) == 0;
    if (!created && errno != EEXIST) {
        re_status s = re_diag_add(diag, options->outdir, 0, 0, "cannot create the output folder: %s",
                                  strerror(errno));
        return s == RE_OK ? RE_ERR_WRITE : s;
    }
    re_status ready = options->ready ? options->ready(options->ready_context, diag) : RE_OK;
    if (ready != RE_OK) {
        if (created)
            (void)rmdir(options->outdir);   /* still empty: nothing was rendered into it */
        return ready;
    }
    re_engine *engine;
    size_t from = diag->count;
    re_status status = re_engine_create(options->stop, &engine, diag);
    if (status != RE_OK) {
        re_diag_place(diag, from, "render-episode", 0, 0);
        return status;
    }
    start_order *order = plan_starts(batch);
    if (!order) {
        re_engine_free(engine);
        return RE_ERR_NOMEM;
    }
    off_t unstarted = 0;   /* the scripts' bytes not started yet */
    for (size_t i = 0; i < batch->count; i++)
        unstarted += order[i].size;
    unsigned workers = options->workers ? options->workers : 1;
    if (workers > 64)
        workers = 64;
    worker running[64];
    size_t running_count = 0, next = 0, done = 0;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    double started = now_seconds();
    int forwarded = 0;
    deferred_starts later = { 0 };
    while (done < batch->count) {
        int stopping = options->stop && *options->stop;
        while (!stopping && status == RE_OK && running_count < workers && later.count > 0) {
            size_t k = later.count - 1;
            unsigned beside = (unsigned)running_count + 1;
            unsigned speech = workers > beside ? workers / beside : 1;
            unsigned threads = cpus > (long)beside ? (unsigned)(cpus / (long)beside) : 1;
            status = start_worker(batch, later.episodes[k], options, engine, threads, speech,
                                  &running[running_count]);
            if (status == RE_OK) {
                running[running_count++].size = later.sizes[k];
                later.count--;
            } else if (status == RE_ERR_LIMIT && running_count > 0) {
                status = RE_OK;
                break;
            } else if (status == RE_ERR_LIMIT) {
                /* nothing to wait for: the next pass fails it as a first start would */
                unstarted += later.sizes[k];
                order[--next] = (start_order){ .episode = later.episodes[k], .size = later.sizes[k] };
                later.count--;
                status = RE_OK;
            }
        }
        while (!stopping && status == RE_OK && running_count < workers && later.count == 0
               && next < batch->count) {
            size_t beside = running_count + (batch->count - next);
            if (beside > workers)
                beside = workers;
            off_t others = unstarted - order[next].size;
            for (size_t k = 0; k < running_count; k++)
                others += running[k].size;
            unsigned threads = encoder_threads(cpus, beside, workers, order[next].size, others);
            /* Its share of the -j speech processes, so that the batch as a whole never has
             * more than -j of them (not -j per episode). */
            unsigned speech = workers > beside ? workers / (unsigned)beside : 1;
            status = start_worker(batch, order[next].episode, options, engine, threads, speech,
                                  &running[running_count]);
            if (status == RE_OK) {
                running[running_count++].size = order[next].size;
                unstarted -= order[next++].size;
            } else if (status == RE_ERR_LIMIT && running_count > 0) {
                status = RE_OK;   /* no process to be had now: try again when a worker ends */
                break;
            } else if (status == RE_ERR_LIMIT) {
                /* none running and none to be had: this episode fails, the batch goes on and
                 * reports what it did */
                unstarted -= order[next].size;
                re_batch_episode *ep = &batch->episodes[order[next++].episode];
                ep->state = RE_EPISODE_FAILED;
                ep->status = RE_ERR_LIMIT;
                if (asprintf(&ep->errors, "%s: cannot start a worker process: %s\n", ep->script,
                             strerror(errno)) < 0)
                    ep->errors = NULL;
                if (options->finished)
                    options->finished(options->finished_context, ep);
                done++;
                status = RE_OK;
            }
        }
        if (running_count == 0
            && (stopping || status != RE_OK || (later.count == 0 && next >= batch->count)))
            break;
        if (running_count == 0)
            continue;   /* an episode that could not start was counted: start the next */
        if (stopping && !forwarded) {
            /* Ctrl-C reaches every worker by itself; a SIGTERM sent to us alone must be passed on. */
            for (size_t i = 0; i < running_count; i++)
                kill(running[i].pid, (int)*options->stop);
            forwarded = 1;
        }
        size_t reaped = reap_some(batch, options, running, &running_count, &later, &workers);
        done += reaped;
        if (reaped)
            report_progress(batch, options, done, started);
    }
    free(order);
    re_engine_free(engine);
    if (options->stop && *options->stop)
        return RE_ERR_INTERRUPTED;
    if (status != RE_OK)
        re_diag_add(diag, "render-episode", 0, 0, "cannot start a worker process: %s", strerror(errno));
    return status;
}
