/* SPDX-License-Identifier: GPL-3.0-or-later */
/* show.c - the show file (show.h): its keys, read by the key-file reader, and the checks of
 * their values (docs/feed.md). */
#include "show.h"

#include <stdlib.h>
#include <string.h>

#include "files.h"
#include "keyfile.h"
#include "parse_errors.h"
#include "text.h"
#include "url.h"
#include "utf8.h"

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
    "podcast", "music", "video", "film", "audiobook", "newsletter", "blog", NULL,
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
        if (!re_url_char(*s))
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
    *main_out = strndup(v, n);
    *sub_out = sub ? strdup(sub) : NULL;
    return NULL;
}

static re_show *show_of(keyfile *kf)
{
    return re_keyfile_context(kf);
}

/* XML 1.0 cannot carry some characters at all: no value may hold one. */
static int xml_safe(keyfile *kf, const keyfile_value *v)
{
    uint32_t bad = re_utf8_xml_unsafe(v->text);

    if (bad)
        re_parse_error(re_keyfile_errors(kf), v->line, v->col, "%s holds U+%04X, which XML cannot carry",
                       v->key->name, (unsigned)bad);
    return !bad;
}

static void read_language(keyfile *kf, const keyfile_value *v)
{
    char q[QUOTE_SIZE];

    if (!re_language_valid(v->text, v->len))
        re_parse_error(re_keyfile_errors(kf), v->line, v->col, "language '%s' is not a BCP 47 tag like "
                       "en-us, en-GB or de", re_quote(q, v->text, v->len));
    else
        re_keyfile_copy(kf, &show_of(kf)->language, v, 0);
}

static void read_link(keyfile *kf, const keyfile_value *v)
{
    char q[QUOTE_SIZE];
    const char *why = NULL;
    if (!re_url_check(v->text, 1, &why))
        re_parse_error(re_keyfile_errors(kf), v->line, v->col, "link '%s' is not a usable URL: %s",
                       re_quote(q, v->text, v->len), why);
    else
        re_keyfile_copy(kf, &show_of(kf)->link, v, 0);
}

static void read_image(keyfile *kf, const keyfile_value *v)
{
    char q[QUOTE_SIZE];
    const char *why = NULL;
    int ok = strstr(v->text, "://") ? re_url_check(v->text, 1, &why)
                                    : local_name_valid(v->text);

    if (!ok)
        re_parse_error(re_keyfile_errors(kf), v->line, v->col, "image '%s' is neither an http(s) URL "
                       "nor the name of a file in the episodes' folder%s%s", re_quote(q, v->text, v->len),
                       why ? ": " : "", why ? why : "");
    else
        re_keyfile_copy(kf, &show_of(kf)->image, v, 0);
}

static void read_guid(keyfile *kf, const keyfile_value *v)
{
    char q[QUOTE_SIZE];

    if (!re_uuid_valid(v->text))
        re_parse_error(re_keyfile_errors(kf), v->line, v->col, "guid '%s' is not a UUID like "
                       "917393e3-1b1e-5cef-ace4-edaa54e1f810", re_quote(q, v->text, v->len));
    else
        re_keyfile_copy(kf, &show_of(kf)->guid, v, 0);
}

static void read_category(keyfile *kf, const keyfile_value *v)
{
    re_show *s = show_of(kf);
    char q[QUOTE_SIZE], *main_name = NULL, *sub_name = NULL;
    const char *why = split_category(v->text, &main_name, &sub_name);
    const char *apple = why || !main_name ? NULL
                      : apple_category_problem(main_name, sub_name);

    if (why) {
        re_parse_error(re_keyfile_errors(kf), v->line, v->col, "%s", why);
    } else if (apple) {
        re_parse_error(re_keyfile_errors(kf), v->line, v->col, "category '%s' %s",
                       re_quote(q, v->text, v->len), apple);
    } else if (!main_name || (strchr(v->text, '>') && !sub_name)) {
        re_keyfile_errors(kf)->nomem = 1;
    } else {
        free(s->category);
        free(s->subcategory);
        s->category = main_name;
        s->subcategory = sub_name;
        main_name = sub_name = NULL;
    }
    free(main_name);
    free(sub_name);
}

static void read_owner_email(keyfile *kf, const keyfile_value *v)
{
    char q[QUOTE_SIZE];

    if (!email_valid(v->text))
        re_parse_error(re_keyfile_errors(kf), v->line, v->col, "owner_email '%s' is not an e-mail "
                       "address like name@example.org", re_quote(q, v->text, v->len));
    else
        re_keyfile_copy(kf, &show_of(kf)->owner_email, v, 0);
}

/* `type:` (itunes:type): episodic, the default, or serial. */
static void read_type(keyfile *kf, const keyfile_value *v)
{
    char q[QUOTE_SIZE];

    if (strcmp(v->text, "episodic") == 0 || strcmp(v->text, "serial") == 0)
        show_of(kf)->serial = v->text[0] == 's';
    else
        re_parse_error(re_keyfile_errors(kf), v->line, v->col, "type must be episodic or serial, not "
                       "'%s'", re_quote(q, v->text, v->len));
}

static const char *const true_false[] = { "true", "false" };
static const char *const yes_no[] = { "yes", "no" };

#define TEXT_KEY(name, field) { name, KEY_TEXT, offsetof(re_show, field), 0, 0, 0, NULL, NULL }
#define CALL_KEY(name, reader) { name, KEY_CALL, 0, 0, 0, 0, NULL, reader }
#define BOOL_KEY(name, field, words) \
    { name, KEY_BOOL, offsetof(re_show, field), 0, 0, 0, words, NULL }

static const keyfile_key show_keys[] = {
    TEXT_KEY("title", title),
    TEXT_KEY("description", description),
    TEXT_KEY("author", author),
    CALL_KEY("language", read_language),
    CALL_KEY("link", read_link),
    CALL_KEY("image", read_image),
    CALL_KEY("category", read_category),
    BOOL_KEY("explicit", explicit_content, true_false),
    TEXT_KEY("owner_name", owner_name),
    CALL_KEY("owner_email", read_owner_email),
    CALL_KEY("guid", read_guid),
    BOOL_KEY("locked", locked, yes_no),
    { "medium", KEY_WORD, offsetof(re_show, medium), 0, 0, 0, mediums, NULL },
    BOOL_KEY("disclosure", disclosure, true_false),
    CALL_KEY("type", read_type),
    TEXT_KEY("copyright", copyright),
};

static const keyfile_syntax show_syntax = {
    .keys = show_keys,
    .key_count = sizeof show_keys / sizeof show_keys[0],
    .separator = ':',
    .key_noun = "key",
    .pair_hint = "`key: value` (a lowercase key, a colon, its value)",
    .keys_start_lines = 1,
    .skip_control_lines = 1,   /* re_utf8_check_text reports those */
    .accept = xml_safe,
};

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
    parse_errors err = { .file = file, .diag = diag, .count = st != RE_OK };
    re_show values;
    keyfile kf;
    re_show_init(&values);
    re_keyfile_init(&kf, &show_syntax, &err, &values, &values);
    re_keyfile_lines(&kf, buf, len);
    if (err.nomem || err.count) {
        re_show_free(&values);
        return err.nomem ? RE_ERR_NOMEM : RE_ERR_INPUT;
    }
    move_string(&show->title, &values.title);
    move_string(&show->description, &values.description);
    move_string(&show->author, &values.author);
    move_string(&show->language, &values.language);
    move_string(&show->link, &values.link);
    move_string(&show->image, &values.image);
    if (values.category) {
        free(show->subcategory);
        show->subcategory = NULL;
    }
    move_string(&show->category, &values.category);
    move_string(&show->subcategory, &values.subcategory);
    move_string(&show->owner_name, &values.owner_name);
    move_string(&show->owner_email, &values.owner_email);
    move_string(&show->guid, &values.guid);
    move_string(&show->medium, &values.medium);
    if (values.explicit_content >= 0)
        show->explicit_content = values.explicit_content;
    if (values.locked >= 0)
        show->locked = values.locked;
    if (re_keyfile_where(&kf, "disclosure", NULL, NULL))
        show->disclosure = values.disclosure;
    move_string(&show->copyright, &values.copyright);
    if (re_keyfile_where(&kf, "type", NULL, NULL))
        show->serial = values.serial;
    re_show_free(&values);
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
