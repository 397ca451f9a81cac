/*
 * Skill names that YAML reads as something other than text.
 *
 * Upstream upskill reads SKILL.md's frontmatter line by line and keeps a
 * value exactly as written, quotes included, then requires the name to
 * match ^[a-z0-9]+(-[a-z0-9]+)*$.  A YAML reader (Claude Code's, PyYAML)
 * types plain scalars.  So a name of letters, digits and hyphens is
 * written plain, which both read as the same text, unless YAML would type
 * it: then no spelling serves both (quoted, upstream sees the quotes;
 * plain, YAML sees a number), and validate refuses the name.  The rules
 * here are YAML 1.1's and 1.2 core's for the characters a name may hold.
 */
#include <string.h>
#include <strings.h>

#include "lib/skill/skill_lib.h"
#include "upskill/skill.h"

#define DIGITS "0123456789"

/* s is one or more characters of set and nothing else. */
static int all_of(const char *s, const char *set)
{
    return *s && strspn(s, set) == strlen(s);
}

/* Integers: 123, 0x1f, 0o17, 0b101 (a sign before any of them). */
static int is_int(const char *s)
{
    static const struct {
        const char *prefix, *digits;
    } forms[] = {
        {"0x", DIGITS "abcdefABCDEF"}, {"0o", "01234567"}, {"0b", "01"}};

    s += *s == '-' || *s == '+';
    for (size_t i = 0; i < sizeof(forms) / sizeof(*forms); i++)
        if (!strncmp(s, forms[i].prefix, 2))
            return all_of(s + 2, forms[i].digits);
    return all_of(s, DIGITS);
}

/* Floats without a dot: 1e5, 12e-3 (YAML 1.2 core). */
static int is_exp(const char *s)
{
    size_t n;

    s += *s == '-' || *s == '+';
    n = strspn(s, DIGITS);
    if (!n || (s[n] != 'e' && s[n] != 'E'))
        return 0;
    s += n + 1;
    s += *s == '-' || *s == '+';
    return all_of(s, DIGITS);
}

/* Dates: 2024-01-01 (YAML 1.1 timestamps; one-digit month and day too). */
static int is_date(const char *s)
{
    size_t m, d;

    if (strspn(s, DIGITS) != 4 || s[4] != '-')
        return 0;
    m = strspn(s + 5, DIGITS);
    if (m < 1 || m > 2 || s[5 + m] != '-')
        return 0;
    d = strspn(s + 6 + m, DIGITS);
    return d >= 1 && d <= 2 && !s[6 + m + d];
}

static const struct {
    const char *word, *what;
} words[] = {
    {"y", "a boolean"},    {"n", "a boolean"},     {"yes", "a boolean"},
    {"no", "a boolean"},   {"on", "a boolean"},    {"off", "a boolean"},
    {"true", "a boolean"}, {"false", "a boolean"}, {"null", "null"},
    {"~", "null"},
};

const char *up_skill_name_yaml_type(const char *name)
{
    for (size_t i = 0; i < sizeof(words) / sizeof(*words); i++)
        if (!strcasecmp(name, words[i].word))
            return words[i].what;
    if (is_int(name) || is_exp(name))
        return "a number";
    if (is_date(name))
        return "a date";
    return NULL;
}

int up_skill_name_plain(const char *name)
{
    return name[0] != '-' &&
           all_of(name, DIGITS "abcdefghijklmnopqrstuvwxyz-") &&
           !up_skill_name_yaml_type(name);
}
