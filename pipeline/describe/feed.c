/* SPDX-License-Identifier: GPL-3.0-or-later */
/* feed.c - show file, sidecars in a folder, and the RSS 2.0 feed written with libxml2's
 * xmlTextWriter (see feed.h, docs/feed.md). */
#define _GNU_SOURCE
#include "feed.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>
#include <libxml/xmlwriter.h>
#include <nettle/sha1.h>

#include "artwork.h"
#include "datetime.h"
#include "disclosure.h"
#include "duration.h"
#include "files.h"
#include "sidecar.h"
#include "text.h"
#include "url.h"
#include "utf8.h"

static int has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static char *dup_n(const char *s, size_t n)
{
    char *p = malloc(n + 1);
    if (p) {
        memcpy(p, s, n);
        p[n] = '\0';
    }
    return p;
}

/* Printable ASCII that may appear in a URL as written in a feed. */
static int url_char(char c)
{
    return c > ' ' && c < 0x7f && !strchr("\"<>\\^`{|}", c);
}

/* An absolute http(s) URL with a host; `allow_query` lets ? and # through. */
static int url_valid(const char *url, int allow_query, const char **why)
{
    return re_url_check(url, allow_query, why);
}

int re_feed_base_url_ok(const char *url, const char **why)
{
    return url_valid(url, 0, why);
}

char *re_feed_url(const char *base_url, const char *file_name)
{
    return re_url_join(base_url, file_name);
}

/* ======================================================================================
 * GUIDs
 * ====================================================================================== */

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int re_uuid_valid(const char *text)
{
    for (int i = 0; i < 36; i++) {
        int dash = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash ? text[i] != '-' : hex_value(text[i]) < 0)
            return 0;
    }
    return text[36] == '\0';
}

re_status re_uuid5(const char *namespace_text, const char *name, char out[RE_UUID_TEXT_SIZE])
{
    unsigned char ns[16], digest[SHA1_DIGEST_SIZE];
    if (!re_uuid_valid(namespace_text))
        return RE_ERR_INVALID;
    for (int i = 0, k = 0; i < 36; i++)
        if (namespace_text[i] != '-') {
            ns[k / 2] = (unsigned char)(k % 2 ? ns[k / 2] | hex_value(namespace_text[i])
                                              : hex_value(namespace_text[i]) << 4);
            k++;
        }
    struct sha1_ctx ctx;
    sha1_init(&ctx);
    sha1_update(&ctx, sizeof ns, ns);
    sha1_update(&ctx, strlen(name), (const uint8_t *)name);
    sha1_digest(&ctx, sizeof digest, digest);
    digest[6] = (unsigned char)((digest[6] & 0x0f) | 0x50);   /* version 5 */
    digest[8] = (unsigned char)((digest[8] & 0x3f) | 0x80);   /* RFC 4122 variant */
    static const char hex[] = "0123456789abcdef";
    char *o = out;
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            *o++ = '-';
        *o++ = hex[digest[i] >> 4];
        *o++ = hex[digest[i] & 15];
    }
    *o = '\0';
    return RE_OK;
}

void re_feed_podcast_guid(const char *feed_url, char out[RE_UUID_TEXT_SIZE])
{
    const char *rest = strstr(feed_url, "://");
    rest = rest ? rest + 3 : feed_url;
    size_t n = strlen(rest);
    while (n > 0 && rest[n - 1] == '/')
        n--;
    char *name = dup_n(rest, n);
    if (!name || re_uuid5(RE_PODCAST_GUID_NAMESPACE, name, out) != RE_OK)
        out[0] = '\0';
    free(name);
}

char *re_feed_item_guid(const re_feed_episode *episode, const char *channel_guid)
{
    if (episode->guid)
        return strdup(episode->guid);
    char uuid[RE_UUID_TEXT_SIZE];
    if (!channel_guid || re_uuid5(channel_guid, episode->stem, uuid) != RE_OK)
        return NULL;
    return strdup(uuid);
}

/* ======================================================================================
 * The show file
 * ====================================================================================== */

enum show_key { K_TITLE, K_DESCRIPTION, K_AUTHOR, K_LANGUAGE, K_LINK, K_IMAGE, K_CATEGORY,
                K_EXPLICIT, K_OWNER_NAME, K_OWNER_EMAIL, K_GUID, K_LOCKED, K_MEDIUM,
                K_DISCLOSURE, K_COUNT };

static const char *const show_keys[K_COUNT] = {
    "title", "description", "author", "language", "link", "image", "category", "explicit",
    "owner_name", "owner_email", "guid", "locked", "medium", "disclosure",
};

/* Apple Podcasts' categories and their subcategories, as Apple lists them in "Apple Podcasts
 * categories" (https://podcasters.apple.com/support/1691-apple-podcasts-categories). */
static const struct {
    const char *name;
    const char *const *subs;
} apple_categories[] = {
#define SUBS(...) (const char *const[]){ __VA_ARGS__, NULL }
    { "Arts", SUBS("Books", "Design", "Fashion & Beauty", "Food", "Performing Arts",
                   "Visual Arts") },
    { "Business", SUBS("Careers", "Entrepreneurship", "Investing", "Management", "Marketing",
                       "Non-Profit") },
    { "Comedy", SUBS("Comedy Interviews", "Improv", "Stand-Up") },
    { "Education", SUBS("Courses", "How To", "Language Learning", "Self-Improvement") },
    { "Fiction", SUBS("Comedy Fiction", "Drama", "Science Fiction") },
    { "Government", NULL },
    { "History", NULL },
    { "Health & Fitness", SUBS("Alternative Health", "Fitness", "Medicine", "Mental Health",
                               "Nutrition", "Sexuality") },
    { "Kids & Family", SUBS("Education for Kids", "Parenting", "Pets & Animals",
                            "Stories for Kids") },
    { "Leisure", SUBS("Animation & Manga", "Automotive", "Aviation", "Crafts", "Games",
                      "Hobbies", "Home & Garden", "Video Games") },
    { "Music", SUBS("Music Commentary", "Music History", "Music Interviews") },
    { "News", SUBS("Business News", "Daily News", "Entertainment News", "News Commentary",
                   "Politics", "Sports News", "Tech News") },
    { "Religion & Spirituality", SUBS("Buddhism", "Christianity", "Hinduism", "Islam",
                                      "Judaism", "Religion", "Spirituality") },
    { "Science", SUBS("Astronomy", "Chemistry", "Earth Sciences", "Life Sciences",
                      "Mathematics", "Natural Sciences", "Nature", "Physics",
                      "Social Sciences") },
    { "Society & Culture", SUBS("Documentary", "Personal Journals", "Philosophy",
                                "Places & Travel", "Relationships") },
    { "Sports", SUBS("Baseball", "Basketball", "Cricket", "Fantasy Sports", "Football", "Golf",
                     "Hockey", "Rugby", "Running", "Soccer", "Swimming", "Tennis", "Volleyball",
                     "Wilderness", "Wrestling") },
    { "Technology", NULL },
    { "True Crime", NULL },
    { "TV & Film", SUBS("After Shows", "Film History", "Film Interviews", "Film Reviews",
                        "TV Reviews") },
#undef SUBS
};

/* Podcasting 2.0's podcast:medium values for a feed of items (the list mediums aside). */
static const char *const mediums[] = {
    "podcast", "music", "video", "film", "audiobook", "newsletter", "blog",
};

/* NULL when main (and sub, may be NULL) are in Apple's list, else why. */
static const char *apple_category_problem(const char *main_name, const char *sub)
{
    for (size_t i = 0; i < sizeof apple_categories / sizeof apple_categories[0]; i++) {
        if (strcmp(apple_categories[i].name, main_name) != 0)
            continue;
        if (!sub)
            return NULL;
        for (const char *const *s = apple_categories[i].subs; s && *s; s++)
            if (strcmp(*s, sub) == 0)
                return NULL;
        return "is not one of Apple's subcategories of it";
    }
    return "is not one of Apple's categories (Arts, Business, Comedy, Education, Fiction, "
           "Government, History, Health & Fitness, Kids & Family, Leisure, Music, News, "
           "Religion & Spirituality, Science, Society & Culture, Sports, Technology, "
           "True Crime, TV & Film; see docs/feed.md)";
}

/* A local image: a file name in the episodes' folder (no folder part, not hidden). */
static int local_name_valid(const char *v)
{
    return v[0] != '.' && !strchr(v, '/') && !strchr(v, '\\') && !re_utf8_name_problem(v);
}

void re_show_init(re_show *show)
{
    memset(show, 0, sizeof *show);
    show->explicit_content = -1;
    show->locked = -1;
    show->disclosure = 1;
}

void re_show_free(re_show *show)
{
    if (!show)
        return;
    char **fields[] = { &show->title, &show->description, &show->author, &show->language,
                        &show->link, &show->image, &show->category, &show->subcategory,
                        &show->owner_name, &show->owner_email, &show->guid, &show->medium };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        free(*fields[i]);
        *fields[i] = NULL;
    }
    show->explicit_content = -1;
    show->locked = -1;
    show->disclosure = 1;
}

static int email_valid(const char *s)
{
    const char *at = strchr(s, '@');
    if (!at || at == s || at[1] == '\0' || strchr(at + 1, '@'))
        return 0;
    for (; *s; s++)
        if (!url_char(*s))
            return 0;
    return 1;
}

/* Splits "Technology > Podcasting" into its two trimmed names; NULL when invalid. */
static const char *split_category(const char *v, char **main_out, char **sub_out)
{
    const char *gt = strchr(v, '>');
    if (gt && strchr(gt + 1, '>'))
        return "category allows one level below the main category: 'Main > Sub'";
    size_t n = gt ? (size_t)(gt - v) : strlen(v);
    while (n > 0 && re_is_blank(v[n - 1]))
        n--;
    const char *sub = gt ? gt + 1 : NULL;
    while (sub && re_is_blank(*sub))
        sub++;
    if (n == 0 || (sub && *sub == '\0'))
        return "category needs a name on each side of '>': 'Main > Sub'";
    *main_out = dup_n(v, n);
    *sub_out = sub ? strdup(sub) : NULL;
    return NULL;
}

typedef struct show_parser {
    const char *file;
    re_diagnostics *diag;
    re_show values;
    unsigned key_line[K_COUNT];
    int errors;
    int nomem;
} show_parser;

static void show_error(show_parser *p, unsigned line, unsigned col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void show_error(show_parser *p, unsigned line, unsigned col, const char *fmt, ...)
{
    char message[512];
    va_list args;
    va_start(args, fmt);
    vsnprintf(message, sizeof message, fmt, args);
    va_end(args);
    p->errors++;
    if (re_diag_add(p->diag, p->file, line, col, "%s", message) != RE_OK)
        p->nomem = 1;
}

static void set_field(show_parser *p, char **field, const char *value)
{
    free(*field);
    *field = strdup(value);
    if (!*field)
        p->nomem = 1;
}

/* Stores a key's value (NUL-terminated, trimmed, not empty) or reports why it is invalid. */
static void show_value(show_parser *p, enum show_key key, const char *v, unsigned line,
                       unsigned col)
{
    const char *why = NULL;
    uint32_t bad = re_utf8_xml_unsafe(v);
    re_show *s = &p->values;
    int q = (int)re_utf8_prefix(v, strlen(v), 60);   /* how much of v a message quotes */
    if (bad) {
        show_error(p, line, col, "%s holds U+%04X, which XML cannot carry", show_keys[key],
                   (unsigned)bad);
        return;
    }
    switch (key) {
    case K_TITLE: set_field(p, &s->title, v); break;
    case K_DESCRIPTION: set_field(p, &s->description, v); break;
    case K_AUTHOR: set_field(p, &s->author, v); break;
    case K_OWNER_NAME: set_field(p, &s->owner_name, v); break;
    case K_LANGUAGE:
        if (!re_language_valid(v, strlen(v)))
            show_error(p, line, col, "language '%.*s' is not a BCP 47 tag like en-us, en-GB or de",
                       q, v);
        else
            set_field(p, &s->language, v);
        break;
    case K_IMAGE:
        if (strstr(v, "://") ? !url_valid(v, 1, &why) : !local_name_valid(v))
            show_error(p, line, col, "image '%.*s' is neither an http(s) URL nor the name of a "
                       "file in the episodes' folder%s%s", q, v, why ? ": " : "", why ? why : "");
        else
            set_field(p, &s->image, v);
        break;
    case K_GUID:
        if (!re_uuid_valid(v))
            show_error(p, line, col, "guid '%.*s' is not a UUID like "
                       "917393e3-1b1e-5cef-ace4-edaa54e1f810", q, v);
        else
            set_field(p, &s->guid, v);
        break;
    case K_MEDIUM: {
        int known = 0;
        for (size_t i = 0; i < sizeof mediums / sizeof mediums[0]; i++)
            known |= strcmp(mediums[i], v) == 0;
        if (!known)
            show_error(p, line, col, "medium '%.*s' is not one of podcast, music, video, film, "
                       "audiobook, newsletter, blog", q, v);
        else
            set_field(p, &s->medium, v);
        break;
    }
    case K_LOCKED:
        if (strcmp(v, "yes") == 0 || strcmp(v, "no") == 0)
            s->locked = v[0] == 'y';
        else
            show_error(p, line, col, "locked must be yes or no, not '%.*s'", q, v);
        break;
    case K_DISCLOSURE:
        if (strcmp(v, "true") == 0 || strcmp(v, "false") == 0)
            s->disclosure = v[0] == 't';
        else
            show_error(p, line, col, "disclosure must be true or false, not '%.*s'", q, v);
        break;
    case K_LINK:
        if (!url_valid(v, 1, &why))
            show_error(p, line, col, "%s '%.*s' is not a usable URL: %s", show_keys[key], q, v,
                       why);
        else
            set_field(p, key == K_LINK ? &s->link : &s->image, v);
        break;
    case K_CATEGORY: {
        char *main_name = NULL, *sub_name = NULL;
        why = split_category(v, &main_name, &sub_name);
        const char *apple = why || !main_name ? NULL
                          : apple_category_problem(main_name, sub_name);
        if (why) {
            show_error(p, line, col, "%s", why);
        } else if (apple) {
            show_error(p, line, col, "category '%.*s' %s", q, v, apple);
        } else if (!main_name || (strchr(v, '>') && !sub_name)) {
            p->nomem = 1;
        } else {
            free(s->category);
            free(s->subcategory);
            s->category = main_name;
            s->subcategory = sub_name;
            main_name = sub_name = NULL;
        }
        free(main_name);
        free(sub_name);
        break;
    }
    case K_EXPLICIT:
        if (strcmp(v, "true") == 0 || strcmp(v, "false") == 0)
            s->explicit_content = v[0] == 't';
        else
            show_error(p, line, col, "explicit must be true or false, not '%.*s'", q, v);
        break;
    case K_OWNER_EMAIL:
        if (!email_valid(v))
            show_error(p, line, col, "owner_email '%.*s' is not an e-mail address like "
                       "name@example.org", q, v);
        else
            set_field(p, &s->owner_email, v);
        break;
    case K_COUNT:
        break;
    }
}

/* One line (without its end of line). */
static void show_line(show_parser *p, const char *line_text, size_t n, unsigned line)
{
    size_t i = 0;
    while (i < n && re_is_blank(line_text[i]))
        i++;
    if (i == n || line_text[i] == '#')
        return;
    if (i > 0) {
        show_error(p, line, 1, "a line must start with its key (`key: value`)");
        return;
    }
    size_t key_end = 0;
    while (key_end < n && ((line_text[key_end] >= 'a' && line_text[key_end] <= 'z')
                           || line_text[key_end] == '_'))
        key_end++;
    if (key_end == 0 || key_end >= n || line_text[key_end] != ':') {
        show_error(p, line, (unsigned)key_end + 1,
                   "expected `key: value` (a lowercase key, a colon, its value)");
        return;
    }
    char key_text[40];
    snprintf(key_text, sizeof key_text, "%.*s", (int)(key_end < 32 ? key_end : 32), line_text);
    int key = -1;
    for (int k = 0; k < K_COUNT; k++)
        if (strlen(show_keys[k]) == key_end && memcmp(show_keys[k], line_text, key_end) == 0)
            key = k;
    if (key < 0) {
        show_error(p, line, 1, "unknown key '%s' (known: title, description, author, language, "
                   "link, image, category, explicit, owner_name, owner_email, guid, locked, "
                   "medium, disclosure)", key_text);
        return;
    }
    size_t v = key_end + 1, e = n;
    while (v < n && re_is_blank(line_text[v]))
        v++;
    while (e > v && re_is_blank(line_text[e - 1]))
        e--;
    if (p->key_line[key]) {
        show_error(p, line, 1, "duplicate key '%s' (first on line %u)", key_text,
                   p->key_line[key]);
        return;
    }
    p->key_line[key] = line;
    if (e == v) {
        show_error(p, line, (unsigned)v + 1, "%s needs a value", key_text);
        return;
    }
    char *value = dup_n(line_text + v, e - v);
    if (!value) {
        p->nomem = 1;
        return;
    }
    show_value(p, (enum show_key)key, value, line, (unsigned)v + 1);
    free(value);
}

static int has_control(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (((unsigned char)s[i] < 0x20 && s[i] != '\t') || s[i] == 0x7f)
            return 1;
    return 0;
}

static void move_string(char **to, char **from)
{
    if (*from) {
        free(*to);
        *to = *from;
        *from = NULL;
    }
}

re_status re_show_parse(const char *file, const char *buf, size_t len, re_show *show,
                        re_diagnostics *diag)
{
    size_t bom = re_utf8_bom_length(buf, len);
    buf += bom;
    len -= bom;
    int decodable = 0;
    re_status st = re_utf8_check_text(file, buf, len, &decodable, diag);
    if (st == RE_ERR_NOMEM || (st != RE_OK && !decodable))
        return st;
    show_parser p = { .file = file, .diag = diag, .errors = st != RE_OK };
    re_show_init(&p.values);
    unsigned line = 1;
    for (size_t i = 0; i < len && !p.nomem; line++) {
        size_t eol = i;
        while (eol < len && buf[eol] != '\n')
            eol++;
        size_t n = eol - i;
        if (n > 0 && buf[i + n - 1] == '\r')
            n--;
        if (!has_control(buf + i, n))   /* re_utf8_check_text reported those already */
            show_line(&p, buf + i, n, line);
        i = eol + 1;
    }
    if (p.nomem || p.errors) {
        re_show_free(&p.values);
        return p.nomem ? RE_ERR_NOMEM : RE_ERR_INPUT;
    }
    move_string(&show->title, &p.values.title);
    move_string(&show->description, &p.values.description);
    move_string(&show->author, &p.values.author);
    move_string(&show->language, &p.values.language);
    move_string(&show->link, &p.values.link);
    move_string(&show->image, &p.values.image);
    if (p.values.category) {
        free(show->subcategory);
        show->subcategory = NULL;
    }
    move_string(&show->category, &p.values.category);
    move_string(&show->subcategory, &p.values.subcategory);
    move_string(&show->owner_name, &p.values.owner_name);
    move_string(&show->owner_email, &p.values.owner_email);
    move_string(&show->guid, &p.values.guid);
    move_string(&show->medium, &p.values.medium);
    if (p.values.explicit_content >= 0)
        show->explicit_content = p.values.explicit_content;
    if (p.values.locked >= 0)
        show->locked = p.values.locked;
    if (p.key_line[K_DISCLOSURE])
        show->disclosure = p.values.disclosure;
    re_show_free(&p.values);
    return RE_OK;
}

re_status re_show_load(const char *path, re_show *show, re_diagnostics *diag)
{
    char *buf = NULL;
    size_t len = 0;
    re_status st = re_file_read(path, RE_SHOW_MAX_SIZE, RE_READ_ANY, &buf, &len, diag);
    if (st == RE_OK)
        st = re_show_parse(path, buf, len, show, diag);
    free(buf);
    return st;
}

/* ======================================================================================
 * Sidecars
 * ====================================================================================== */

void re_feed_episode_free(re_feed_episode *e)
{
    if (!e)
        return;
    free(e->stem);
    free(e->audio_name);
    free(e->sidecar_name);
    free(e->title);
    free(e->show);
    free(e->summary);
    free(e->author);
    free(e->language);
    free(e->published);
    free(e->guid);
    for (size_t i = 0; i < e->person_count; i++) {
        free(e->persons[i].name);
        free(e->persons[i].role);
    }
    free(e->persons);
    for (size_t i = 0; i < e->file_count; i++)
        free(e->files[i].name);
    free(e->files);
    memset(e, 0, sizeof *e);
}

/* Moves a string out of the sidecar into the episode. */
static char *take(char **from)
{
    char *s = *from;
    *from = NULL;
    return s;
}

/* The schema is read by sidecar.c; here an MP3 sidecar becomes a feed item: its file names
 * and its date as RSS writes it. */
re_status re_feed_episode_read(const char *path, const char *buf, size_t len,
                               re_feed_episode *episode, re_sidecar_kind *kind,
                               re_diagnostics *diag)
{
    memset(episode, 0, sizeof *episode);
    *kind = RE_SIDECAR_NONE;
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    if (!has_suffix(name, ".json") || strlen(name) == 5)
        return RE_ERR_INVALID;
    re_sidecar side;
    re_sidecar_found found;
    re_status status = re_sidecar_read(path, buf, len, "mp3", &side, &found, diag);
    if (status != RE_OK || found != RE_SIDECAR_FOUND) {
        *kind = found == RE_SIDECAR_OTHER_FORMAT ? RE_SIDECAR_OTHER : RE_SIDECAR_NONE;
        return status;
    }
    re_feed_episode e = {
        .title = take(&side.title), .show = take(&side.show), .summary = take(&side.summary),
        .author = take(&side.author), .language = take(&side.language),
        .published = take(&side.published), .number = side.episode, .samples = side.samples,
        .sample_rate = side.sample_rate, .bytes = side.bytes, .dated = side.dated,
        .instant_ms = side.published_ms, .season = side.season, .guid = take(&side.guid),
        .has_files = side.has_files, .files = side.files, .file_count = side.file_count,
    };
    side.files = NULL;
    side.file_count = 0;
    int nomem = 0;
    if (side.person_count && !(e.persons = calloc(side.person_count, sizeof *e.persons)))
        nomem = 1;
    for (size_t i = 0; !nomem && i < side.person_count; i++) {
        int seen = 0;   /* one podcast:person per speaker and role */
        for (size_t k = 0; k < e.person_count; k++)
            seen |= strcmp(e.persons[k].name, side.persons[i].speaker) == 0
                    && strcmp(e.persons[k].role, side.persons[i].role) == 0;
        if (seen)
            continue;
        e.persons[e.person_count].name = take(&side.persons[i].speaker);
        e.persons[e.person_count++].role = take(&side.persons[i].role);
    }
    re_sidecar_free(&side);
    if (nomem) {
        re_feed_episode_free(&e);
        return RE_ERR_NOMEM;
    }
    if (e.dated)
        re_rfc822_from_iso(e.published, e.pub_date, NULL);   /* valid: the reader checked it */
    e.sidecar_name = strdup(name);
    e.stem = dup_n(name, strlen(name) - 5);
    if (e.stem && asprintf(&e.audio_name, "%s.mp3", e.stem) < 0)
        e.audio_name = NULL;
    if (!e.sidecar_name || !e.stem || !e.audio_name) {
        re_feed_episode_free(&e);
        return RE_ERR_NOMEM;
    }
    *episode = e;
    *kind = RE_SIDECAR_MP3;
    return RE_OK;
}

static int by_recency(const void *a, const void *b)
{
    const re_feed_episode *x = a, *y = b;
    if (x->dated != y->dated)
        return x->dated ? -1 : 1;
    if (x->dated && x->instant_ms != y->instant_ms)
        return x->instant_ms > y->instant_ms ? -1 : 1;
    return strcmp(x->sidecar_name, y->sidecar_name);
}

void re_feed_sort(re_feed_episode *episodes, size_t count)
{
    if (count > 1)
        qsort(episodes, count, sizeof *episodes, by_recency);
}

/* ======================================================================================
 * The folder
 * ====================================================================================== */

void re_feed_init(re_feed *feed)
{
    memset(feed, 0, sizeof *feed);
    re_show_init(&feed->show);
}

void re_feed_free(re_feed *feed)
{
    if (!feed)
        return;
    re_show_free(&feed->show);
    free(feed->feed_url);
    free(feed->image_url);
    free(feed->missing);
    feed->feed_url = feed->image_url = feed->missing = NULL;
    for (size_t i = 0; i < feed->count; i++)
        re_feed_episode_free(&feed->episodes[i]);
    free(feed->episodes);
    feed->episodes = NULL;
    feed->count = feed->capacity = 0;
}

re_status re_feed_add(re_feed *feed, re_feed_episode *episode)
{
    if (re_array_grow(&feed->episodes, &feed->capacity, feed->count,
                      sizeof *feed->episodes) != RE_OK)
        return RE_ERR_NOMEM;
    feed->episodes[feed->count++] = *episode;
    memset(episode, 0, sizeof *episode);
    return RE_OK;
}

static const struct {
    re_feed_asset asset;
    const char *suffix;
} asset_files[] = {
    { RE_ASSET_VTT, ".vtt" },
    { RE_ASSET_SRT, ".srt" },
    { RE_ASSET_TRANSCRIPT_JSON, ".transcript.json" },
    { RE_ASSET_CHAPTERS, ".chapters.json" },
    { RE_ASSET_PAGE, ".html" },
};

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* The candidate sidecar names in dir, sorted. */
static re_status list_json(const char *dir, char ***out, size_t *count, re_diagnostics *errors)
{
    *out = NULL;
    *count = 0;
    DIR *d = opendir(dir);
    if (!d)
        return re_diag_add(errors, dir, 0, 0, "cannot read the folder: %s", strerror(errno))
                       == RE_OK ? RE_ERR_READ : RE_ERR_NOMEM;
    char **names = NULL;
    size_t n = 0, cap = 0;
    re_status st = RE_OK;
    struct dirent *entry;
    while (st == RE_OK && (entry = readdir(d)) != NULL) {
        const char *name = entry->d_name;
        if (name[0] == '.' || !has_suffix(name, ".json") || strlen(name) == 5
            || has_suffix(name, ".chapters.json") || has_suffix(name, ".transcript.json"))
            continue;
        /* Names go into the feed's URLs and GUIDs: one that XML cannot carry as it is (not
         * UTF-8, a control character) is refused, shown escaped. */
        const char *problem = re_utf8_name_problem(name);
        if (problem) {
            char *shown = re_utf8_shown(name);
            char *where = shown ? re_path_join(dir, shown) : NULL;
            st = where && re_diag_add(errors, where, 0, 0, "cannot be published: %s; rename the "
                                      "episode's files", problem) == RE_OK ? RE_ERR_INPUT : RE_ERR_NOMEM;
            free(shown);
            free(where);
            break;
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 32;
            char **grown = realloc(names, cap * sizeof *grown);
            if (!grown) {
                st = RE_ERR_NOMEM;
                break;
            }
            names = grown;
        }
        if (!(names[n] = strdup(name)))
            st = RE_ERR_NOMEM;
        else
            n++;
    }
    closedir(d);
    if (st != RE_OK) {
        free_names(names, n);
        return st;
    }
    if (n > 1)
        qsort(names, n, sizeof *names, compare_names);
    *out = names;
    *count = n;
    return RE_OK;
}

static int regular_file(const char *dir, const char *name, struct stat *st, re_status *status)
{
    char *path = re_path_join(dir, name);
    if (!path) {
        *status = RE_ERR_NOMEM;
        return 0;
    }
    int ok = stat(path, st) == 0 && S_ISREG(st->st_mode);
    free(path);
    return ok;
}

/* Apple's limits on a description: at most RE_APPLE_DESCRIPTION_MAX bytes, no blank at
 * either end. An error at `where` names the key. */
static re_status check_description(const char *where, const char *key, const char *text,
                                   int *input_errors, re_diagnostics *errors)
{
    size_t n = strlen(text);
    const char *problem = NULL;
    if (n > RE_APPLE_DESCRIPTION_MAX)
        problem = "is longer than Apple's limit of 4000 bytes";
    else if (n > 0 && (re_is_blank(text[0]) || re_is_blank(text[n - 1]) || text[0] == '\n'
                       || text[n - 1] == '\n'))
        problem = "starts or ends with a blank, which Apple refuses";
    if (!problem)
        return RE_OK;
    (*input_errors)++;
    return re_diag_add(errors, where, 0, 0, "the %s %s (%zu bytes)", key, problem, n) == RE_OK
           ? RE_OK : RE_ERR_NOMEM;
}

/* Which files beside the MP3 the item links: those the sidecar lists as written by the same
 * render, still with those bytes. The MP3 itself must match its entry (else the sidecar is
 * stale: an error); a listed file that changed is an error, a listed one that is gone a
 * warning, and a file by the name of one that the render did not write (left by an earlier
 * render) is not linked, with a warning. A sidecar of an older version, without the list,
 * links no file. */
static re_status episode_files(const char *dir, const char *path, re_feed_episode *e,
                               int *input_errors, re_diagnostics *errors,
                               re_diagnostics *warnings)
{
    if (!e->has_files)
        return re_diag_add(warnings, path, 0, 0, "written by an older render-episode (no "
                           "\"files\" list): its transcripts, chapters and page are not "
                           "linked; render the episode again");
    re_sidecar side = { .files = e->files, .file_count = e->file_count };
    const re_sidecar_file *audio = re_sidecar_file_find(&side, e->audio_name);
    char *audio_path = re_path_join(dir, e->audio_name);
    if (!audio_path)
        return RE_ERR_NOMEM;
    int audio_same = audio && re_sidecar_file_match(audio_path, audio) == RE_SIDECAR_MATCH;
    free(audio_path);
    if (!audio_same) {
        (*input_errors)++;
        return re_diag_add(errors, path, 0, 0, "the sidecar is stale: %s is not the file its "
                           "render wrote (%s); render the episode again", e->audio_name,
                           audio ? "its SHA-256 differs" : "the sidecar does not list it");
    }
    re_status status = RE_OK;
    for (size_t k = 0; status == RE_OK && k < sizeof asset_files / sizeof asset_files[0]; k++) {
        char *name = NULL, *file = NULL;
        if (asprintf(&name, "%s%s", e->stem, asset_files[k].suffix) < 0)
            name = NULL;
        if (!name || !(file = re_path_join(dir, name))) {
            free(name);
            return RE_ERR_NOMEM;
        }
        const re_sidecar_file *entry = re_sidecar_file_find(&side, name);
        re_sidecar_match m = entry ? re_sidecar_file_match(file, entry) : RE_SIDECAR_GONE;
        struct stat st;
        if (entry && m == RE_SIDECAR_MATCH) {
            e->assets |= asset_files[k].asset;
        } else if (entry && m == RE_SIDECAR_CHANGED) {
            (*input_errors)++;
            status = re_diag_add(errors, path, 0, 0, "%s is not what the render wrote (its size "
                                 "or SHA-256 differs from the sidecar's): it is stale; render "
                                 "the episode again", name);
        } else if (entry) {
            status = re_diag_add(warnings, path, 0, 0, "%s, which the render wrote, is gone: "
                                 "not linked", name);
        } else if (regular_file(dir, name, &st, &status)) {
            status = re_diag_add(warnings, path, 0, 0, "%s was not written by the render that "
                                 "made %s (an earlier one?): not linked", name, e->audio_name);
        }
        free(name);
        free(file);
    }
    return status;
}

/* Reads one candidate; appends the episode when it is one. Problems go to the lists. */
static re_status scan_one(re_feed *feed, const char *dir, const char *name, int *input_errors,
                          re_diagnostics *errors, re_diagnostics *warnings)
{
    struct stat st;
    re_status status = RE_OK;
    if (!regular_file(dir, name, &st, &status))
        return status;
    char *path = re_path_join(dir, name), *buf = NULL;
    size_t len = 0;
    if (!path)
        return RE_ERR_NOMEM;
    status = re_file_read(path, RE_SIDECAR_MAX_SIZE, RE_READ_ANY, &buf, &len, errors);
    re_feed_episode e;
    re_sidecar_kind kind = RE_SIDECAR_NONE;
    if (status == RE_OK)
        status = re_feed_episode_read(path, buf, len, &e, &kind, errors);
    free(buf);
    if (status != RE_OK || kind != RE_SIDECAR_MP3) {
        free(path);
        if (status == RE_ERR_NOMEM)
            return status;
        *input_errors += status != RE_OK;
        return RE_OK;
    }
    if (!regular_file(dir, e.audio_name, &st, &status)) {
        if (status == RE_OK && re_diag_add(warnings, path, 0, 0, "%s is missing; not in the feed",
                                           e.audio_name) != RE_OK)
            status = RE_ERR_NOMEM;
    } else if ((uint64_t)st.st_size != e.bytes) {
        (*input_errors)++;
        if (re_diag_add(errors, path, 0, 0, "the sidecar is stale: it says %llu bytes, but %s has "
                        "%llu; render the episode again", (unsigned long long)e.bytes,
                        e.audio_name, (unsigned long long)st.st_size) != RE_OK)
            status = RE_ERR_NOMEM;
    } else {
        int before = *input_errors;
        status = episode_files(dir, path, &e, input_errors, errors, warnings);
        if (status == RE_OK && e.summary)
            status = check_description(path, "summary", e.summary, input_errors, errors);
        if (status == RE_OK && !e.dated
            && re_diag_add(warnings, path, 0, 0, "no \"published\" date: the item has no pubDate "
                           "and comes last") != RE_OK)
            status = RE_ERR_NOMEM;
        if (status == RE_OK && *input_errors == before)
            status = re_feed_add(feed, &e);
    }
    re_feed_episode_free(&e);
    free(path);
    return status;
}

re_status re_feed_scan(re_feed *feed, const char *dir, re_diagnostics *errors,
                       re_diagnostics *warnings)
{
    char **names = NULL;
    size_t n = 0;
    re_status st = list_json(dir, &names, &n, errors);
    if (st != RE_OK)
        return st;
    int input_errors = 0;
    size_t before = feed->count;
    for (size_t i = 0; st == RE_OK && i < n; i++)
        st = scan_one(feed, dir, names[i], &input_errors, errors, warnings);
    free_names(names, n);
    if (st != RE_OK)
        return st;
    re_feed_sort(feed->episodes, feed->count);
    if (input_errors)
        return RE_ERR_INPUT;
    if (feed->count == before) {
        if (re_diag_add(errors, dir, 0, 0, "no rendered MP3 episode here (an episode is NAME.mp3 "
                        "with the sidecar NAME.json that render-episode wrote beside it)") != RE_OK)
            return RE_ERR_NOMEM;
        return RE_ERR_INPUT;
    }
    return RE_OK;
}

/* ======================================================================================
 * The channel's defaults
 * ====================================================================================== */

/* The value every episode that has one agrees on: *value (NULL when none has it); returns 0
 * and sets *a, *b to two disagreeing episodes when they differ. */
static int common_value(const re_feed *feed, size_t field_offset, const char **value,
                        const re_feed_episode **a, const re_feed_episode **b)
{
    *value = NULL;
    const re_feed_episode *first = NULL;
    for (size_t i = 0; i < feed->count; i++) {
        const re_feed_episode *e = &feed->episodes[i];
        const char *v = *(char *const *)((const char *)e + field_offset);
        if (!v)
            continue;
        if (!first) {
            first = e;
            *value = v;
        } else if (strcmp(v, *value) != 0) {
            *a = first;
            *b = e;
            return 0;
        }
    }
    return 1;
}

/* Defaults one channel field from the episodes. Returns -1 when they disagree. */
static int default_from_episodes(const re_feed *feed, char **field, size_t offset,
                                 const re_feed_episode **a, const re_feed_episode **b,
                                 int *nomem)
{
    const char *value;
    if (*field)
        return 0;
    if (!common_value(feed, offset, &value, a, b))
        return -1;
    if (value && !(*field = strdup(value)))
        *nomem = 1;
    return 0;
}

/* The feed's URL, the channel guid, the artwork, and what Apple and Podcast Index require:
 * image, category, explicit, guid (one message naming each one missing and its line). */
static re_status complete_publishing(re_feed *feed, const char *base_url, const char *show_file,
                                     int *missing, re_diagnostics *errors,
                                     re_diagnostics *warnings)
{
    re_show *s = &feed->show;
    free(feed->feed_url);
    free(feed->image_url);
    free(feed->missing);
    feed->feed_url = feed->image_url = feed->missing = NULL;
    if (!(feed->feed_url = re_feed_url(base_url, feed->feed_name ? feed->feed_name : "feed.xml")))
        return RE_ERR_NOMEM;
    char computed[RE_UUID_TEXT_SIZE];
    re_feed_podcast_guid(feed->feed_url, computed);
    snprintf(feed->channel_guid, sizeof feed->channel_guid, "%s", s->guid ? s->guid : computed);

    re_status st = RE_OK;
    if (s->image && strstr(s->image, "://")) {
        if (!(feed->image_url = strdup(s->image)))
            return RE_ERR_NOMEM;
        st = re_diag_add(warnings, show_file, 0, 0, "the image is a remote URL, not checked: "
                         "make sure it is a %u to %u px square RGB JPEG or PNG",
                         RE_ARTWORK_MIN_PX, RE_ARTWORK_MAX_PX);
    } else if (s->image) {
        if (!(feed->image_url = re_feed_url(base_url, s->image)))
            return RE_ERR_NOMEM;
        st = re_artwork_check(feed->dir ? feed->dir : ".", s->image, errors);
        if (st == RE_ERR_INPUT) {
            (*missing)++;
            st = RE_OK;
        }
    }
    if (st != RE_OK)
        return st;

    /* What a directory would refuse the feed for: one message naming each, with its line. */
    char *names = NULL, *lines = NULL;
    struct { int absent; const char *name, *line; } required[] = {
        { !s->image, "image", "image: cover.jpg   (a 1400-3000 px square RGB JPEG or PNG here, "
                              "or its https:// URL)" },
        { !s->category, "category", "category: Technology   (from Apple's list, "
                                    "docs/feed.md)" },
        { s->explicit_content < 0, "explicit", "explicit: false" },
        { !s->guid, "guid", NULL },
    };
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++) {
        if (!required[i].absent)
            continue;
        char *more_names = NULL, *more_lines = NULL;
        int a = asprintf(&more_names, "%s%s%s", names ? names : "", names ? ", " : "",
                         required[i].name);
        int b = required[i].line
                ? asprintf(&more_lines, "%s\n    %s", lines ? lines : "", required[i].line)
                : asprintf(&more_lines, "%s\n    guid: %s   (podcast:guid of %s; keep it for "
                           "the show's life)", lines ? lines : "", computed, feed->feed_url);
        free(names);
        free(lines);
        names = a < 0 ? NULL : more_names;
        lines = b < 0 ? NULL : more_lines;
        if (!names || !lines) {
            free(names);
            free(lines);
            return RE_ERR_NOMEM;
        }
    }
    if (names) {
        re_diagnostics *to = feed->draft ? warnings : errors;
        st = re_diag_add(to, show_file, 0, 0, "%s: the channel has no %s, which Apple Podcasts "
                         "and Podcast Index require; add to the show file:%s", feed->draft
                         ? "a draft feed (--draft)" : "not ready to publish", names, lines);
        if (!feed->draft) {
            (*missing)++;
        } else {
            feed->missing = names;   /* the draft comment names them */
            names = NULL;
        }
    }
    free(names);
    free(lines);
    return st;
}

re_status re_feed_complete_channel(re_feed *feed, const char *base_url, const char *show_file,
                                   re_diagnostics *errors, re_diagnostics *warnings)
{
    re_show *s = &feed->show;
    const re_feed_episode *a = NULL, *b = NULL;
    int nomem = 0, missing = 0;
    re_status st = RE_OK;

    if (default_from_episodes(feed, &s->title, offsetof(re_feed_episode, show), &a, &b,
                              &nomem) < 0) {
        missing++;
        st = re_diag_add(errors, show_file, 0, 0, "the episodes name different shows ('%s' in "
                         "%s, '%s' in %s): add `title: ...` to the show file", a->show,
                         a->sidecar_name, b->show, b->sidecar_name);
    } else if (!s->title && !nomem) {
        missing++;
        st = re_diag_add(errors, show_file, 0, 0, "the channel has no title: add `title: ...` "
                         "to the show file (or `show:` to the episodes' scripts)");
    }
    if (st == RE_OK && !s->description) {
        missing++;
        st = re_diag_add(errors, show_file, 0, 0, "the channel has no description: add "
                         "`description: ...` to the show file");
    }
    if (st == RE_OK && default_from_episodes(feed, &s->language,
                                             offsetof(re_feed_episode, language), &a, &b,
                                             &nomem) < 0) {
        missing++;
        st = re_diag_add(errors, show_file, 0, 0, "the episodes are in different languages "
                         "('%s' in %s, '%s' in %s): add `language: ...` to the show file",
                         a->language, a->sidecar_name, b->language, b->sidecar_name);
    } else if (st == RE_OK && !s->language && !nomem) {
        missing++;
        st = re_diag_add(errors, show_file, 0, 0, "the channel has no language: add "
                         "`language: ...` to the show file");
    }
    if (st == RE_OK && default_from_episodes(feed, &s->author, offsetof(re_feed_episode, author),
                                             &a, &b, &nomem) < 0)
        st = re_diag_add(warnings, show_file, 0, 0, "the episodes have different authors ('%s' "
                         "in %s, '%s' in %s): the channel has no itunes:author; add `author: ...` "
                         "to the show file", a->author, a->sidecar_name, b->author,
                         b->sidecar_name);
    if (st == RE_OK && !s->link) {   /* the folder's URL, ending in exactly one '/' */
        size_t n = strlen(base_url);
        while (n > 0 && base_url[n - 1] == '/')
            n--;
        if (asprintf(&s->link, "%.*s/", (int)n, base_url) < 0) {
            s->link = NULL;
            nomem = 1;
        }
    }
    if (st == RE_OK && !nomem && s->description
        && check_description(show_file, "description", s->description, &missing, errors) != RE_OK)
        nomem = 1;
    if (st == RE_OK && !nomem)
        st = complete_publishing(feed, base_url, show_file, &missing, errors, warnings);
    if (nomem || (st != RE_OK && st != RE_ERR_INPUT))
        return RE_ERR_NOMEM;
    return missing || st != RE_OK ? RE_ERR_INPUT : RE_OK;
}

/* ======================================================================================
 * Writing the feed
 * ====================================================================================== */

typedef struct writer {
    xmlTextWriterPtr w;
    int failed;
} writer;

static void check(writer *x, int rc)
{
    if (rc < 0)
        x->failed = 1;
}

static void start(writer *x, const char *name)
{
    check(x, xmlTextWriterStartElement(x->w, BAD_CAST name));
}

static void end(writer *x)
{
    check(x, xmlTextWriterEndElement(x->w));
}

static void attribute(writer *x, const char *name, const char *value)
{
    check(x, xmlTextWriterWriteAttribute(x->w, BAD_CAST name, BAD_CAST value));
}

static void element(writer *x, const char *name, const char *text)
{
    check(x, xmlTextWriterWriteElement(x->w, BAD_CAST name, BAD_CAST text));
}

/* <name url="BASE/FILE" type="TYPE" .../> for a file beside the audio. */
static void file_link(writer *x, const char *base_url, const char *name, const char *stem,
                      const char *suffix, const char *type, const char *language, const char *rel)
{
    char *file = NULL, *url = NULL;
    if (asprintf(&file, "%s%s", stem, suffix) < 0)
        file = NULL;
    if (!file || !(url = re_feed_url(base_url, file))) {
        free(file);
        x->failed = 1;
        return;
    }
    start(x, name);
    attribute(x, "url", url);
    attribute(x, "type", type);
    if (language)
        attribute(x, "language", language);
    if (rel)
        attribute(x, "rel", rel);
    end(x);
    free(url);
    free(file);
}

static void write_channel_head(writer *x, const re_feed *feed)
{
    const re_show *s = &feed->show;
    char generator[64];
    snprintf(generator, sizeof generator, "render-episode %s", RE_VERSION);
    element(x, "title", s->title);
    element(x, "link", s->link);
    element(x, "description", s->description);
    element(x, "language", s->language);
    element(x, "generator", generator);
    if (feed->count > 0 && feed->episodes[0].dated)
        element(x, "lastBuildDate", feed->episodes[0].pub_date);
    start(x, "atom:link");
    attribute(x, "href", feed->feed_url);
    attribute(x, "rel", "self");
    attribute(x, "type", "application/rss+xml");
    end(x);
    element(x, "podcast:guid", feed->channel_guid);
    element(x, "podcast:medium", s->medium ? s->medium : "podcast");
    if (s->locked >= 0) {
        start(x, "podcast:locked");
        if (s->owner_email)
            attribute(x, "owner", s->owner_email);
        check(x, xmlTextWriterWriteString(x->w, BAD_CAST(s->locked ? "yes" : "no")));
        end(x);
    }
    if (s->disclosure) {
        start(x, "podcast:txt");
        attribute(x, "purpose", "disclosure");
        check(x, xmlTextWriterWriteString(x->w, BAD_CAST RE_DISCLOSURE_TEXT));
        end(x);
    }
    if (feed->image_url) {
        start(x, "image");
        element(x, "url", feed->image_url);
        element(x, "title", s->title);
        element(x, "link", s->link);
        end(x);
        start(x, "itunes:image");
        attribute(x, "href", feed->image_url);
        end(x);
    }
    if (s->author)
        element(x, "itunes:author", s->author);
    if (s->owner_email) {
        start(x, "itunes:owner");
        if (s->owner_name || s->author)
            element(x, "itunes:name", s->owner_name ? s->owner_name : s->author);
        element(x, "itunes:email", s->owner_email);
        end(x);
    }
    if (s->category) {
        start(x, "itunes:category");
        attribute(x, "text", s->category);
        if (s->subcategory) {
            start(x, "itunes:category");
            attribute(x, "text", s->subcategory);
            end(x);
        }
        end(x);
    }
    if (s->explicit_content >= 0)
        element(x, "itunes:explicit", s->explicit_content ? "true" : "false");
}

static void write_item(writer *x, const re_feed *feed, const re_feed_episode *e,
                       const char *base_url)
{
    char number[32], length[32], seconds[32];
    char *guid = re_feed_item_guid(e, feed->channel_guid);
    char *url = re_feed_url(base_url, e->audio_name);
    if (!guid || !url) {
        free(guid);
        free(url);
        x->failed = 1;
        return;
    }
    snprintf(length, sizeof length, "%llu", (unsigned long long)e->bytes);
    snprintf(seconds, sizeof seconds, "%llu",
             (unsigned long long)re_samples_to_seconds(e->samples, e->sample_rate));
    start(x, "item");
    element(x, "title", e->title);
    if (e->summary)
        element(x, "description", e->summary);
    if (e->assets & RE_ASSET_PAGE) {
        char *file = NULL, *page = NULL;
        if (asprintf(&file, "%s.html", e->stem) < 0 || !(page = re_feed_url(base_url, file)))
            x->failed = 1;
        else
            element(x, "link", page);
        free(file);
        free(page);
    }
    start(x, "guid");
    attribute(x, "isPermaLink", "false");
    check(x, xmlTextWriterWriteString(x->w, BAD_CAST guid));
    end(x);
    if (e->dated)
        element(x, "pubDate", e->pub_date);
    start(x, "enclosure");
    attribute(x, "url", url);
    attribute(x, "length", length);
    attribute(x, "type", "audio/mpeg");
    end(x);
    element(x, "itunes:duration", seconds);
    const char *author = e->author ? e->author : feed->show.author;
    if (author)
        element(x, "itunes:author", author);
    element(x, "itunes:episodeType", "full");
    if (e->number > 0) {
        snprintf(number, sizeof number, "%ld", e->number);
        element(x, "itunes:episode", number);
    }
    if (e->season > 0) {
        snprintf(number, sizeof number, "%ld", e->season);
        element(x, "itunes:season", number);
        element(x, "podcast:season", number);
    }
    if (e->number > 0) {
        snprintf(number, sizeof number, "%ld", e->number);
        element(x, "podcast:episode", number);
    }
    for (size_t i = 0; i < e->person_count; i++) {
        start(x, "podcast:person");
        attribute(x, "role", e->persons[i].role);
        attribute(x, "group", "cast");
        check(x, xmlTextWriterWriteString(x->w, BAD_CAST e->persons[i].name));
        end(x);
    }
    if (e->assets & RE_ASSET_VTT)
        file_link(x, base_url, "podcast:transcript", e->stem, ".vtt", "text/vtt", e->language,
                  "captions");
    if (e->assets & RE_ASSET_SRT)
        file_link(x, base_url, "podcast:transcript", e->stem, ".srt", "application/x-subrip",
                  e->language, "captions");
    if (e->assets & RE_ASSET_TRANSCRIPT_JSON)
        file_link(x, base_url, "podcast:transcript", e->stem, ".transcript.json",
                  "application/json", e->language, NULL);
    if (e->assets & RE_ASSET_CHAPTERS)
        file_link(x, base_url, "podcast:chapters", e->stem, ".chapters.json",
                  "application/json+chapters", NULL, NULL);
    end(x);
    free(guid);
    free(url);
}

re_status re_feed_write(FILE *out, const re_feed *feed, const char *base_url)
{
    const re_show *s = &feed->show;
    if (!s->title || !s->description || !s->link || !s->language || !feed->feed_url
        || !re_uuid_valid(feed->channel_guid) || !re_feed_base_url_ok(base_url, NULL))
        return RE_ERR_INVALID;
    for (size_t i = 0; i < feed->count; i++)
        if (!feed->episodes[i].title || !feed->episodes[i].stem || !feed->episodes[i].audio_name
            || feed->episodes[i].sample_rate == 0)
            return RE_ERR_INVALID;
    xmlBufferPtr buf = xmlBufferCreate();
    if (!buf)
        return RE_ERR_NOMEM;
    writer x = { xmlNewTextWriterMemory(buf, 0), 0 };
    if (!x.w) {
        xmlBufferFree(buf);
        return RE_ERR_NOMEM;
    }
    check(&x, xmlTextWriterSetIndent(x.w, 1));
    check(&x, xmlTextWriterSetIndentString(x.w, BAD_CAST "  "));
    check(&x, xmlTextWriterStartDocument(x.w, "1.0", "UTF-8", NULL));
    if (feed->missing) {   /* a comment may not hold "--": no option name in it */
        char *note = NULL;
        if (asprintf(&note, " DRAFT, not ready to publish (written by render-episode feed as a "
                     "draft): the channel has no %s ", feed->missing) < 0) {
            x.failed = 1;
        } else {
            check(&x, xmlTextWriterWriteComment(x.w, BAD_CAST note));
            free(note);
        }
    }
    start(&x, "rss");
    attribute(&x, "version", "2.0");
    attribute(&x, "xmlns:itunes", RE_ITUNES_NS);
    attribute(&x, "xmlns:podcast", RE_PODCAST_NS);
    attribute(&x, "xmlns:atom", RE_ATOM_NS);
    start(&x, "channel");
    write_channel_head(&x, feed);
    for (size_t i = 0; i < feed->count && !x.failed; i++)
        write_item(&x, feed, &feed->episodes[i], base_url);
    check(&x, xmlTextWriterEndDocument(x.w));   /* closes every open element */
    xmlFreeTextWriter(x.w);                     /* flushes into buf */
    re_status st = x.failed ? RE_ERR_NOMEM : RE_OK;
    if (st == RE_OK) {
        size_t n = (size_t)xmlBufferLength(buf);
        if (fwrite(xmlBufferContent(buf), 1, n, out) != n || fflush(out) == EOF || ferror(out))
            st = RE_ERR_WRITE;
    }
    xmlBufferFree(buf);
    return st;
}
