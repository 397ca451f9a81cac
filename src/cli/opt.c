/*
 * Table-driven option parsing.  Each command declares a static table of
 * struct opt; the same table parses argv and prints --help, so the two
 * cannot drift apart.  GNU-style: options and positionals may mix, "--"
 * ends options, "--name=value", "-xVALUE" and clustered flags ("-vt
 * FILE") are accepted.  A number
 * outside its option's range (the ranges table) is a usage error at parse
 * time, before any command runs.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "upskill/near.h"

static const struct opt common[] = {
    {'h', "help", OPT_FLAG, NULL, NULL, "show this help and exit"},
    {0, "no-color", OPT_FLAG, NULL, NULL, "never use colour"},
    {0, NULL, OPT_FLAG, NULL, NULL, NULL},
};

/*
 * Allowed values of the numeric options, by command (NULL: any command)
 * and long name; the first matching row wins.  Defaults set by a command
 * before parsing (-1 for "no gate") are not checked, only given values.
 */
static const struct opt_range {
    const char *cmd;  /* command name, or NULL for every command */
    const char *name; /* long option name */
    double min, max;  /* inclusive */
} ranges[] = {
    {"generate", "runs", 1, 100},      {"generate", "max-refine", 1, 20},
    {"generate", "min-tests", 1, 100}, {"generate", "max-tests", 1, 100},
    {"generate", "holdout", 0, 90},    {NULL, "runs", 1, UP_EVAL_MAX_RUNS},
    {NULL, "jobs", 1, 10000},          {NULL, "fail-under", 0, 1},
    {NULL, "budget", 1, 1e9},          {NULL, "margin", 0, 50},
    {NULL, "baseline-rate", 0, 1},     {NULL, "target-lift", 0.1, 100},
    {NULL, "max-turns", 1, 10000},     {NULL, "token-budget", 0, 1e12},
    {NULL, "time-limit", 0, 86400},    {NULL, "older-than", 0, 36500},
};

static const struct opt_range *find_range(const struct cmd_spec *spec,
                                          const struct opt *o)
{
    for (size_t i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++)
        if ((!ranges[i].cmd || !strcmp(ranges[i].cmd, spec->name)) &&
            !strcmp(ranges[i].name, o->longname))
            return &ranges[i];
    return NULL;
}

void strlist_release(struct strlist *l)
{
    free(l->v);
    l->v = NULL;
    l->n = l->cap = 0;
}

static const struct opt *find_long(const struct opt *t, const char *name,
                                   size_t len)
{
    for (; t->longname; t++)
        if (strlen(t->longname) == len && !strncmp(t->longname, name, len))
            return t;
    return NULL;
}

/* The long option of spec (or a common one) nearest to name[0..len), as
 * " (did you mean '--NAME'?)" in out, or "" when none is near. */
static void did_you_mean(char *out, size_t size, const struct cmd_spec *spec,
                         const char *name, size_t len)
{
    const char *v[128], *pick;
    char word[UP_NEAR_MAX + 1];
    size_t n = 0;

    *out = '\0';
    if (len > UP_NEAR_MAX)
        return;
    memcpy(word, name, len);
    word[len] = '\0';
    for (const struct opt *t = spec->opts; t->longname && n < 120; t++)
        v[n++] = t->longname;
    for (const struct opt *t = common; t->longname && n < 128; t++)
        v[n++] = t->longname;
    pick = up_nearest(word, v, n);
    if (pick)
        snprintf(out, size, " (did you mean '--%s'?)", pick);
}

static const struct opt *find_short(const struct opt *t, char c)
{
    for (; t->longname; t++)
        if (t->shortname && t->shortname == c)
            return t;
    return NULL;
}

static int usage_err(const struct cmd_spec *spec, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int usage_err(const struct cmd_spec *spec, const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "upskill %s: error: ", spec->name);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\ntry 'upskill %s --help'\n", spec->name);
    return -1;
}

static int unknown_long(const struct cmd_spec *spec, const char *a, size_t len)
{
    char hint[UP_NEAR_MAX + 32];

    did_you_mean(hint, sizeof(hint), spec, a + 2, len);
    return usage_err(spec, "unknown option '%s'%s", out_safe(a), hint);
}

/* "--jobs expects a whole number from 1 to 10000, got '0'" */
static int range_err(const struct cmd_spec *spec, const struct opt *o,
                     const struct opt_range *r, const char *val)
{
    return usage_err(spec, "--%s expects a %s from %.15g to %.15g, got '%s'",
                     o->longname,
                     o->kind == OPT_INT ? "whole number" : "number", r->min,
                     r->max, out_safe(val));
}

static int set_number(const struct cmd_spec *spec, const struct opt *o,
                      const char *val)
{
    const struct opt_range *r = find_range(spec, o);
    char *end = NULL;
    double v;

    errno = 0;
    if (o->kind == OPT_INT) {
        long l = strtol(val, &end, 10);

        if (errno || end == val || *end)
            return usage_err(spec, "--%s expects a whole number", o->longname);
        *(long *)o->value = l;
        v = (double)l;
    } else {
        v = strtod(val, &end);
        if (errno || end == val || *end || !isfinite(v))
            return usage_err(spec, "--%s expects a number", o->longname);
        *(double *)o->value = v;
    }
    if (r && (v < r->min || v > r->max))
        return range_err(spec, o, r, val);
    return 0;
}

static int set_value(const struct cmd_spec *spec, const struct opt *o,
                     const char *val)
{
    struct strlist *l;

    switch (o->kind) {
    case OPT_FLAG:
        if (o->value)
            *(int *)o->value = 1;
        return 0;
    case OPT_STRING:
        if (!*val) /* --base-url '' would quietly mean "not given" */
            return usage_err(spec, "--%s needs a non-empty value", o->longname);
        *(const char **)o->value = val;
        return 0;
    case OPT_LIST:
        l = o->value;
        UP_GROW(l->v, l->cap, l->n + 1);
        l->v[l->n++] = val;
        return 0;
    case OPT_INT:
    case OPT_DOUBLE:
        return set_number(spec, o, val);
    }
    return 0;
}

/* Apply an option and its value; returns 1 for help, -1 on error. */
static int apply(const struct cmd_spec *spec, const struct opt *o,
                 const char *val)
{
    if (!strcmp(o->longname, "help"))
        return 1;
    if (!strcmp(o->longname, "no-color"))
        out_disable_color();
    return set_value(spec, o, val);
}

/*
 * A short-option word, clustered as click and getopt read it: "-vt FILE"
 * is "-v -t FILE" and "-vtFILE" is "-v -tFILE".  The flags before the
 * last option are applied here; *o is the last one and *val the text
 * after it in the word (NULL when none).  Returns 1 for help, -1 on
 * error.
 */
static int parse_short(const struct cmd_spec *spec, const char *a,
                       const struct opt **o, const char **val)
{
    *val = NULL;
    for (const char *c = a + 1; *c; c++) {
        int rc;

        *o = find_short(spec->opts, *c);
        if (!*o)
            *o = find_short(common, *c);
        if (!*o && (c == a + 1 || !isalnum((unsigned char)*c)))
            return usage_err(spec, "unknown option '%s'", out_safe(a));
        if (!*o)
            return usage_err(spec, "unknown option '-%c' in '%s'", *c,
                             out_safe(a));
        if ((*o)->kind != OPT_FLAG) {
            *val = c[1] ? c + 1 : NULL;
            return 0;
        }
        if (c[1] && (rc = apply(spec, *o, NULL)))
            return rc;
    }
    return 0;
}

/* Handle one option word at argv[*i]; returns 1 for help, -1 on error. */
static int parse_one(const struct cmd_spec *spec, int argc, char **argv, int *i)
{
    const char *a = argv[*i], *val = NULL;
    const struct opt *o;

    if (a[1] == '-') {
        const char *eq = strchr(a + 2, '=');
        size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);

        o = find_long(spec->opts, a + 2, len);
        if (!o)
            o = find_long(common, a + 2, len);
        if (!o)
            return unknown_long(spec, a, len);
        if (eq && o->kind == OPT_FLAG)
            return usage_err(spec, "option '%s' takes no value", out_safe(a));
        val = eq ? eq + 1 : NULL;
    } else {
        int rc = parse_short(spec, a, &o, &val);

        if (rc)
            return rc;
    }
    if (o->kind != OPT_FLAG && !val) {
        if (*i + 1 >= argc)
            return usage_err(spec, "option '--%s' needs a value", o->longname);
        val = argv[++*i];
    }
    return apply(spec, o, val);
}

int opt_need_path(const struct cmd_spec *spec, const char *what,
                  const char *path)
{
    struct stat st;

    if (!path || stat(path, &st) == 0)
        return 0;
    return usage_err(spec, "%s '%s' does not exist", what, out_safe(path));
}

int opt_parse(const struct cmd_spec *spec, int argc, char **argv, char ***args,
              int *nargs)
{
    char **pos = calloc((size_t)argc + 1, sizeof(*pos));
    int n = 0, only_pos = 0;

    if (!pos)
        abort();
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int rc;

        if (only_pos || a[0] != '-' || !a[1]) {
            pos[n++] = argv[i];
            continue;
        }
        if (!strcmp(a, "--")) {
            only_pos = 1;
            continue;
        }
        rc = parse_one(spec, argc, argv, &i);
        if (rc == 1)
            opt_help(spec, stdout);
        if (rc) {
            free(pos);
            return rc;
        }
    }
    if (n < spec->min_args || (spec->max_args >= 0 && n > spec->max_args)) {
        free(pos);
        return usage_err(spec, "%s",
                         n < spec->min_args ? "missing argument"
                                            : "too many arguments");
    }
    *args = pos;
    *nargs = n;
    return 0;
}

static void help_line(const struct cmd_spec *spec, const struct opt *o,
                      FILE *fp)
{
    const struct opt_range *r = o->kind == OPT_INT || o->kind == OPT_DOUBLE
                                    ? find_range(spec, o)
                                    : NULL;
    char left[64], range[64] = "";
    int n;

    if (o->shortname)
        n = snprintf(left, sizeof(left), "-%c, --%s", o->shortname,
                     o->longname);
    else
        n = snprintf(left, sizeof(left), "    --%s", o->longname);
    if (o->argname && n > 0 && (size_t)n < sizeof(left))
        snprintf(left + n, sizeof(left) - (size_t)n, " %s", o->argname);
    if (r)
        snprintf(range, sizeof(range), " [%.15g to %.15g]", r->min, r->max);
    fprintf(fp, "  %-28s %s%s%s\n", left, o->help,
            o->kind == OPT_LIST ? " (repeatable)" : "", range);
}

void opt_help(const struct cmd_spec *spec, FILE *fp)
{
    fprintf(fp, "usage: upskill %s [options]%s%s\n\n%s\n\noptions:\n",
            spec->name, spec->args ? " " : "", spec->args ? spec->args : "",
            spec->summary);
    for (const struct opt *o = spec->opts; o->longname; o++)
        help_line(spec, o, fp);
    for (const struct opt *o = common; o->longname; o++)
        help_line(spec, o, fp);
    if (spec->details)
        fprintf(fp, "\n%s\n", spec->details);
}
