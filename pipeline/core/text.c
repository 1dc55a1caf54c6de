/* text.c - shared text checks (text.h). */
#include "text.h"

void re_trim(const char **s, size_t *len)
{
    while (*len > 0 && re_is_line_blank(**s)) {
        (*s)++;
        (*len)--;
    }
    while (*len > 0 && re_is_line_blank((*s)[*len - 1]))
        (*len)--;
}

int re_language_valid(const char *s, size_t len)
{
    size_t i = 0;

    while (i < len && re_is_letter(s[i]))
        i++;
    if (i < 2 || i > 3)
        return 0;
    while (i < len) {
        size_t start = ++i;   /* past the '-' */
        if (s[start - 1] != '-')
            return 0;
        while (i < len && re_is_alnum(s[i]))
            i++;
        if (i == start || i - start > 8)
            return 0;
    }
    return 1;
}
