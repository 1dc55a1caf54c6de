/* SPDX-License-Identifier: GPL-3.0-or-later */
/* feed.c - the feed's URLs, the show file, and the channel completed from it and the episodes
 * (see feed.h, docs/feed.md); guid.c makes the GUIDs, feed_scan.c reads the folder,
 * feed_write.c writes the RSS. */
#define _GNU_SOURCE
#include "feed.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "artwork.h"
#include "datetime.h"
#include "feed_internal.h"
#include "files.h"
#include "text.h"
#include "utf8.h"

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
    const char *host = NULL;
    if (strncmp(url, "https://", 8) == 0)
        host = url + 8;
    else if (strncmp(url, "http://", 7) == 0)
        host = url + 7;
    const char *reason = NULL;
    if (!host)
        reason = "it must start with http:// or https://";
    else if (*host == '\0' || *host == '/' || *host == '?' || *host == '#')
        reason = "it has no host name";
    for (const char *p = url; !reason && *p; p++) {
        if (!url_char(*p))
            reason = "it may hold only printable ASCII without blanks, quotes and <>\\^`{|} "
                     "(percent-encode the others)";
        else if (!allow_query && (*p == '?' || *p == '#'))
            reason = "a base URL cannot have a query (?) or fragment (#)";
    }
    if (why)
        *why = reason;
    return reason == NULL;
}

int re_feed_base_url_ok(const char *url, const char **why)
{
    return url_valid(url, 0, why);
}

char *re_feed_url(const char *base_url, const char *file_name)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t base = strlen(base_url);
    while (base > 0 && base_url[base - 1] == '/')
        base--;
    char *url = malloc(base + 1 + 3 * strlen(file_name) + 1);
    if (!url)
        return NULL;
    memcpy(url, base_url, base);
    char *p = url + base;
    *p++ = '/';
    for (const unsigned char *s = (const unsigned char *)file_name; *s; s++) {
        if (re_is_letter((char)*s) || re_is_digit((char)*s) || strchr("-._~", *s)) {
            *p++ = (char)*s;
        } else {
            *p++ = '%';
            *p++ = hex[*s >> 4];
            *p++ = hex[*s & 15];
        }
    }
    *p = '\0';
    return url;
}

/* ======================================================================================
 * The show file
 * ====================================================================================== */

enum show_key { K_TITLE, K_DESCRIPTION, K_AUTHOR, K_LANGUAGE, K_LINK, K_IMAGE, K_CATEGORY,
                K_EXPLICIT, K_OWNER_NAME, K_OWNER_EMAIL, K_GUID, K_LOCKED, K_MEDIUM,
                K_DISCLOSURE,
                K_TYPE, K_COPYRIGHT,   /* itunes:type, copyright */
                K_COUNT };

static const char *const show_keys[K_COUNT] = {
    "title", "description", "author", "language", "link", "image", "category", "explicit",
    "owner_name", "owner_email", "guid", "locked", "medium", "disclosure",
    "type", "copyright",
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
    show->serial = 0;
}

void re_show_free(re_show *show)
{
    if (!show)
        return;
    char **fields[] = { &show->title, &show->description, &show->author, &show->language,
                        &show->link, &show->image, &show->category, &show->subcategory,
                        &show->owner_name, &show->owner_email, &show->guid, &show->medium,
                        &show->copyright };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        free(*fields[i]);
        *fields[i] = NULL;
    }
    show->explicit_content = -1;
    show->locked = -1;
    show->disclosure = 1;
    show->serial = 0;
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
    case K_TYPE:
        if (strcmp(v, "episodic") == 0 || strcmp(v, "serial") == 0)
            s->serial = v[0] == 's';
        else
            show_error(p, line, col, "type must be episodic or serial, not '%.*s'", q, v);
        break;
    case K_COPYRIGHT: set_field(p, &s->copyright, v); break;
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
                   "medium, disclosure, type, copyright)", key_text);
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
    move_string(&show->copyright, &p.values.copyright);
    if (p.key_line[K_TYPE])
        show->serial = p.values.serial;
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
        && re_feed_check_description(show_file, "description", s->description, &missing, errors) != RE_OK)
        nomem = 1;
    if (st == RE_OK && !nomem)
        st = complete_publishing(feed, base_url, show_file, &missing, errors, warnings);
    if (nomem || (st != RE_OK && st != RE_ERR_INPUT))
        return RE_ERR_NOMEM;
    return missing || st != RE_OK ? RE_ERR_INPUT : RE_OK;
}
