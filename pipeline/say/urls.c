/* SPDX-License-Identifier: GPL-3.0-or-later */
/* urls.c - URLs (the site, and the pull request, issue or commit a path names), paths, file
 * names with their extensions said, and dotted identifiers. */
#include "normalize_internal.h"

#include <string.h>

/* What a host says of a URL's path: "pull request N" (.../pull/N, GitLab's merge_requests),
 * "issue N" (.../issues/N), "commit" and a hash's first 7 characters (.../commit/HASH,
 * .../commits/HASH); 0 (nothing said) for any other path. */
static int say_url_tail(normalizer *n, const char *s, size_t len)
{
    static const struct tail {
        const char *segment, *spoken, *decision;
        int hash;
    } tails[] = {
        { "pull", "pull request", "URL: the site and the pull request", 0 },
        { "merge_requests", "merge request", "URL: the site and the merge request", 0 },
        { "issues", "issue", "URL: the site and the issue", 0 },
        { "commit", "commit", "URL: the site and the commit's first 7 characters", 1 },
        { "commits", "commit", "URL: the site and the commit's first 7 characters", 1 },
    };
    size_t end = 0;
    while (end < len && s[end] != '?' && s[end] != '#')
        end++;
    for (size_t i = 0; i < end;) {
        size_t j = i + find(s + i, end - i, "/");
        size_t k = j + 1 + (j < end ? find(s + j + 1, end - j - 1, "/") : 0);
        if (k > end)
            k = end;
        const char *next = s + j + 1;
        size_t next_len = j < end ? k - j - 1 : 0;
        for (size_t t = 0; next_len && t < sizeof tails / sizeof tails[0]; t++) {
            if (!equals(s + i, j - i, tails[t].segment))
                continue;
            if (tails[t].hash ? !re_is_hash(next, next_len) : !all_of(next, next_len, re_is_digit))
                continue;
            re_says(n, " ");
            re_says(n, tails[t].spoken);
            re_says(n, " ");
            if (tails[t].hash)
                re_say_hash_start(n, next);
            else
                re_say_reference_number(n, next, next_len);
            re_detail(n, tails[t].decision);
            return 1;
        }
        i = j + 1;
    }
    return 0;
}

int re_url_host(const char *s, size_t len, size_t *host_start, size_t *host_end)
{
    size_t scheme = find(s, len, "://"), host;
    if (scheme < len && scheme > 0 && all_of(s, scheme, re_is_letter))
        host = scheme + 3;
    else if (len > 4 && equals_fold(s, 4, "www."))
        host = 0;
    else
        return 0;
    size_t end = host;
    while (end < len && !strchr("/:?#", s[end]))
        end++;
    size_t at = find(s + host, end - host, "@");
    if (at < end - host)
        host += at + 1;
    if (end - host > 4 && equals_fold(s + host, 4, "www."))
        host += 4;
    if (end == host || !is_ascii(s + host, end - host))
        return 0;
    *host_start = host;
    *host_end = end;
    return 1;
}

int re_say_url(normalizer *n, const char *s, size_t len)
{
    size_t host, end;
    if (!re_url_host(s, len, &host, &end))
        return 0;
    for (size_t i = host; i < end;) {
        size_t j = i + find(s + i, end - i, ".");
        re_lexicon_hit hit;
        if (i > host)
            re_says(n, " dot ");
        if (j > i && n->lexicon && re_lexicon_lookup(n->lexicon, s + i, j - i, &hit)) {
            re_decide(n, s + i, j - i, "lexicon entry");
            re_say_replacement(n, &hit);
        } else {
            re_say(n, s + i, j - i);
        }
        i = j + (j < end);
        if (i == end && j < end)
            re_says(n, " dot ");   /* a host ending in a dot */
    }
    size_t path = end;
    while (path < len && s[path] == ':')   /* a port: not said */
        for (path++; path < len && re_is_digit(s[path]); path++)
            ;
    if (path < len && s[path] == '/')
        say_url_tail(n, s + path + 1, len - path - 1);
    return 1;
}

static const struct extension {
    const char *name, *spoken;
} extensions[] = {
    { "c", "C" }, { "h", "H" }, { "cc", "C.C" }, { "cpp", "C.P.P" }, { "cxx", "C.X.X" },
    { "hpp", "H.P.P" }, { "cu", "C.U" }, { "cuh", "C.U.H" }, { "py", "pie" },
    { "pyi", "P.Y.I" }, { "pyx", "P.Y.X" }, { "ipynb", "I.P.Y.N.B" }, { "md", "M.D" },
    { "rst", "R.S.T" }, { "txt", "text" }, { "json", "json" }, { "yaml", "yaml" },
    { "yml", "Y.M.L" }, { "toml", "toml" }, { "ini", "I.N.I" }, { "cfg", "config" },
    { "js", "J.S" }, { "mjs", "M.J.S" }, { "ts", "T.S" }, { "tsx", "T.S.X" }, { "jsx", "J.S.X" },
    { "rs", "R.S" }, { "java", "java" }, { "kt", "K.T" }, { "rb", "R.B" }, { "php", "P.H.P" },
    { "swift", "swift" }, { "lua", "lua" }, { "sh", "S.H" }, { "bash", "bash" },
    { "zsh", "Z.S.H" }, { "sql", "S.Q.L" }, { "html", "H.T.M.L" }, { "css", "C.S.S" },
    { "xml", "X.M.L" }, { "svg", "S.V.G" }, { "csv", "C.S.V" }, { "tsv", "T.S.V" },
    { "pdf", "P.D.F" }, { "png", "P.N.G" }, { "jpg", "J.P.G" }, { "gif", "gif" },
    { "mp3", "M.P 3" }, { "mp4", "M.P 4" }, { "wav", "wave" }, { "ogg", "ogg" },
    { "flac", "flac" }, { "log", "log" }, { "lock", "lock" }, { "zip", "zip" },
    { "gz", "G.Z" }, { "tgz", "T.G.Z" }, { "tar", "tar" }, { "xz", "X.Z" }, { "whl", "wheel" },
    { "dll", "D.L.L" }, { "exe", "E.X.E" }, { "pt", "P.T" }, { "pth", "P.T.H" },
    { "onnx", "onyx" }, { "safetensors", "safe tensors" }, { "cmake", "C make" },
    { "diff", "diff" }, { "patch", "patch" }, { "proto", "proto" }, { "lexicon", "lexicon" },
    { "voice", "voice" }, { "vtt", "V.T.T" }, { "srt", "S.R.T" },
};

static const struct extension *find_extension(const char *s, size_t len)
{
    for (size_t i = 0; i < sizeof extensions / sizeof extensions[0]; i++)
        if (equals(s, len, extensions[i].name))
            return &extensions[i];
    return NULL;
}

static int is_name_char(char c)
{
    return re_is_alnum(c) || c == '_' || c == '-';
}

/* A file name: a known extension after a name. */
static int is_file_name(const char *s, size_t len)
{
    size_t dot = len;
    while (dot > 0 && s[dot - 1] != '.')
        dot--;
    if (dot < 2 || !find_extension(s + dot, len - dot))
        return 0;
    for (size_t i = 0; i + 1 < dot; i++)
        if (!is_name_char(s[i]) && !(s[i] == '.' && i > 0 && s[i - 1] != '.'))
            return 0;
    return 1;
}

int re_say_dotted(normalizer *n, const char *s, size_t len)
{
    size_t dot = len;
    while (dot > 0 && s[dot - 1] != '.')
        dot--;
    if (dot == 0 || dot == len || !is_ascii(s, len))
        return 0;
    const struct extension *ext = find_extension(s + dot, len - dot);
    if (ext && (dot == 1 || is_file_name(s, len))) {
        re_detail(n, "file name: its parts and its extension");
        if (dot > 1) {
            re_say_split(n, s, dot - 1, ".", " dot ");
            re_says(n, " ");
        }
        re_says(n, "dot ");
        re_says(n, ext->spoken);
        return 1;
    }
    size_t part_len = 0, longest = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i == len || s[i] == '.') {
            if (part_len == 0 || re_is_digit(s[i - part_len]))
                return 0;
            longest = part_len > longest ? part_len : longest;
            part_len = 0;
        } else if (re_is_alnum(s[i]) || s[i] == '_') {
            part_len++;
        } else {
            return 0;
        }
    }
    if (longest < 3)
        return 0;
    /* The engine says "torch.compile" well; only an identifier with a part to rewrite
     * (torch.nn.AOTModule) is taken apart, and a missing space (it.The) is left alone. */
    int changed = 0;
    for (size_t i = 0; i < len;) {
        size_t j = i + find(s + i, len - i, ".");
        if (i)
            re_says(n, " dot ");
        mark part = re_mark_here(n);
        re_say_core(n, s + i, j - i);
        changed |= !re_said_as_is(n, part, s + i, j - i);
        i = j + 1;
    }
    return changed;
}

int re_say_slashed(normalizer *n, const char *s, size_t len)
{
    if (find(s, len, "/") == len || !is_ascii(s, len))
        return 0;
    size_t last = len;
    while (last > 0 && s[last - 1] != '/')
        last--;
    int path = s[0] == '/' || (len > 2 && (memcmp(s, "./", 2) == 0 || memcmp(s, "~/", 2) == 0))
               || (len > 3 && memcmp(s, "../", 3) == 0) || is_file_name(s + last, len - last);
    if (!path) {
        re_say_split(n, s, len, "/", "/");
        return 1;
    }
    size_t i = s[0] == '/', parts = 0;
    if (i)
        re_says(n, "slash");
    while (i < len) {
        size_t j = i + find(s + i, len - i, "/");
        if (j > i) {
            re_says(n, parts ? " slash " : s[0] == '/' ? " " : "");
            if (equals(s + i, j - i, "~"))
                re_says(n, "home");
            else if (equals(s + i, j - i, ".") || equals(s + i, j - i, ".."))
                re_says(n, j - i == 1 ? "dot" : "dot dot");
            else
                re_say_core(n, s + i, j - i);
            parts++;
        }
        i = j + 1;
    }
    return 1;
}
