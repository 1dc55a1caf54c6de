/* output.c - temporary file beside the target, rename on success (see output.h). */
#define _GNU_SOURCE
#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct re_output {
    char *target;
    char *temp;
    FILE *stream;
};

static void output_free(re_output *output)
{
    free(output->target);
    free(output->temp);
    free(output);
}

static char *temp_name_for(const char *target)
{
    char *dir_copy = strdup(target), *base_copy = strdup(target), *name = NULL;
    if (dir_copy && base_copy
        && asprintf(&name, "%s/.%s.XXXXXX.part", dirname(dir_copy), basename(base_copy)) < 0)
        name = NULL;
    free(dir_copy);
    free(base_copy);
    return name;
}

re_status re_output_open(const char *target, re_output **out, char *why, size_t why_len)
{
    *out = NULL;
    struct stat st;
    int have_target = stat(target, &st) == 0;
    if (have_target && S_ISDIR(st.st_mode)) {
        snprintf(why, why_len, "%s is a directory", target);
        return RE_ERR_WRITE;
    }
    re_output *output = calloc(1, sizeof *output);
    if (!output)
        return RE_ERR_NOMEM;
    output->target = strdup(target);
    output->temp = temp_name_for(target);
    if (!output->target || !output->temp) {
        output_free(output);
        return RE_ERR_NOMEM;
    }
    int fd = mkstemps(output->temp, 5);
    if (fd < 0) {
        snprintf(why, why_len, "cannot create a file beside %s: %s", target, strerror(errno));
        output_free(output);
        return RE_ERR_WRITE;
    }
    mode_t mode;
    if (have_target) {
        mode = st.st_mode & 07777;
    } else {
        mode_t mask = umask(0);
        umask(mask);
        mode = 0666 & ~mask;
    }
    (void)fchmod(fd, mode);   /* best effort: the content matters, the mode is a courtesy */
    output->stream = fdopen(fd, "w+b");
    if (!output->stream) {
        snprintf(why, why_len, "cannot open %s: %s", output->temp, strerror(errno));
        close(fd);
        unlink(output->temp);
        output_free(output);
        return RE_ERR_WRITE;
    }
    *out = output;
    return RE_OK;
}

FILE *re_output_stream(re_output *output) { return output->stream; }
const char *re_output_target(const re_output *output) { return output->target; }

re_status re_output_size(re_output *output, unsigned long long *size, char *why, size_t why_len)
{
    struct stat st;
    if (fflush(output->stream) != 0 || fstat(fileno(output->stream), &st) != 0) {
        snprintf(why, why_len, "cannot write %s: %s", output->target, strerror(errno));
        return RE_ERR_WRITE;
    }
    *size = (unsigned long long)st.st_size;
    return RE_OK;
}

re_status re_output_restart(re_output *output, char *why, size_t why_len)
{
    if (fflush(output->stream) != 0 || ftruncate(fileno(output->stream), 0) != 0
        || fseeko(output->stream, 0, SEEK_SET) != 0) {
        snprintf(why, why_len, "cannot rewrite %s: %s", output->target, strerror(errno));
        return RE_ERR_WRITE;
    }
    return RE_OK;
}

re_status re_output_commit(re_output *output, char *why, size_t why_len)
{
    const char *failed = NULL;
    if (fflush(output->stream) != 0 || ferror(output->stream))
        failed = "write";
    else if (fsync(fileno(output->stream)) != 0)
        failed = "sync";
    int saved = errno;
    if (fclose(output->stream) != 0 && !failed) {
        failed = "close";
        saved = errno;
    }
    output->stream = NULL;
    if (!failed && rename(output->temp, output->target) != 0) {
        failed = "rename onto";
        saved = errno;
    }
    if (failed) {
        snprintf(why, why_len, "cannot %s %s: %s", failed, output->target, strerror(saved));
        unlink(output->temp);
        output_free(output);
        return RE_ERR_WRITE;
    }
    output_free(output);
    return RE_OK;
}

void re_output_discard(re_output *output)
{
    if (!output)
        return;
    if (output->stream)
        fclose(output->stream);
    unlink(output->temp);
    output_free(output);
}

char *re_output_sibling(const char *output_path, const char *suffix)
{
    const char *slash = strrchr(output_path, '/');
    const char *dot = strrchr(output_path, '.');
    size_t stem = (dot && (!slash || dot > slash + 1)) ? (size_t)(dot - output_path)
                                                       : strlen(output_path);
    char *path = NULL;
    if (asprintf(&path, "%.*s%s", (int)stem, output_path, suffix) < 0)
        return NULL;
    return path;
}
