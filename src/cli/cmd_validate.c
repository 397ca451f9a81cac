/*
 * upskill validate PATH...: check skills against the Agent Skills spec
 * (docs/validate.md).  Parse, run the library validator on every path,
 * then print one line per finding and a summary, or one JSON document.
 */
#include <stdlib.h>

#include <jansson.h>

#include "cli.h"

static const char *profile_name = "spec";
static int as_json;

static const struct opt opts[] = {
    {0, "profile", OPT_STRING, &profile_name, "NAME",
     "spec (default) or claude-code (also Claude Code's keys)"},
    {0, "json", OPT_FLAG, &as_json, NULL, "print one JSON document"},
    {0, NULL, OPT_FLAG, NULL, NULL, NULL},
};

const struct cmd_spec cmd_validate_spec = {
    "validate",
    "PATH...",
    "check skills against the Agent Skills spec",
    "PATH is a skill folder, its SKILL.md, or a folder of skill folders.\n"
    "Exit codes: 0 every skill valid (warnings allowed), 3 errors found,\n"
    "2 usage.",
    opts,
    1,
    -1};

static const char *plural(size_t n)
{
    return n == 1 ? "" : "s";
}

static void print_finding(const up_vfinding *f)
{
    enum color c = f->sev == UP_V_ERROR ? C_RED : C_YELLOW;

    printf("%s%s", out_c(C_BOLD), out_safe(f->file));
    if (f->line)
        printf(":%d", f->line);
    printf(":%s %s%s%s: %s\n", out_c(C_RESET), out_c(c),
           up_validate_sev_name(f->sev), out_c(C_RESET), out_safe(f->msg));
}

static void print_text(const up_vreport *r)
{
    for (size_t i = 0; i < r->nskills; i++)
        for (size_t j = 0; j < r->skills[i].nfindings; j++)
            print_finding(&r->skills[i].findings[j]);
    printf("%zu skill%s checked: %s%zu valid%s, %s%zu invalid%s "
           "(%zu error%s, %zu warning%s)\n",
           r->nskills, plural(r->nskills), out_c(C_GREEN), r->nvalid,
           out_c(C_RESET), r->ninvalid ? out_c(C_RED) : "", r->ninvalid,
           r->ninvalid ? out_c(C_RESET) : "", r->nerrors, plural(r->nerrors),
           r->nwarnings, plural(r->nwarnings));
}

static json_t *finding_json(const up_vfinding *f)
{
    return json_pack("{s:s, s:i, s:s, s:s, s:s}", "file", f->file, "line",
                     f->line, "severity", up_validate_sev_name(f->sev), "code",
                     f->code, "message", f->msg);
}

static json_t *skill_json(const up_vskill *s)
{
    json_t *list = json_array();

    for (size_t i = 0; i < s->nfindings; i++)
        json_array_append_new(list, finding_json(&s->findings[i]));
    return json_pack("{s:s, s:b, s:I, s:I, s:o}", "path", s->path, "valid",
                     s->nerrors == 0, "errors", (json_int_t)s->nerrors,
                     "warnings", (json_int_t)s->nwarnings, "findings", list);
}

static void print_json(const up_vreport *r)
{
    json_t *skills = json_array(), *doc;

    for (size_t i = 0; i < r->nskills; i++)
        json_array_append_new(skills, skill_json(&r->skills[i]));
    doc = json_pack("{s:s, s:o, s:{s:I, s:I, s:I, s:I, s:I}}", "profile",
                    up_validate_profile_name(r->profile), "skills", skills,
                    "summary", "skills", (json_int_t)r->nskills, "valid",
                    (json_int_t)r->nvalid, "invalid", (json_int_t)r->ninvalid,
                    "errors", (json_int_t)r->nerrors, "warnings",
                    (json_int_t)r->nwarnings);
    out_json(doc);
    json_decref(doc);
}

int cmd_validate(int argc, char **argv)
{
    enum up_vprofile profile;
    up_vreport report;
    up_error err;
    char **args = NULL;
    int nargs, rc = opt_parse(&cmd_validate_spec, argc, argv, &args, &nargs);

    if (rc) {
        free(args);
        return rc < 0 ? EXIT_USAGE : EXIT_OK;
    }
    if (up_validate_profile_parse(&profile, profile_name, &err)) {
        free(args);
        out_error("%s", err.msg);
        return EXIT_USAGE;
    }
    up_validate_init(&report, profile);
    for (int i = 0; i < nargs; i++)
        up_validate_path(&report, args[i]);
    if (as_json)
        print_json(&report);
    else
        print_text(&report);
    rc = report.nerrors ? EXIT_INPUT : EXIT_OK;
    up_validate_release(&report);
    free(args);
    return rc;
}
