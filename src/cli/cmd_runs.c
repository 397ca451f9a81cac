/*
 * upskill runs: the latest (or --best) result per model and skill from the
 * runs folder, as bars, a skills x models matrix, JSON (runs_report.c) or
 * CSV (up_store_csv).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char *dir, *metric = "success", *csv, *batch;
static struct strlist skills, models;
static int best, json, prune;
static long kase = LONG_MIN; /* --case; LONG_MIN: not given */

static const struct opt opts[] = {
    {'d', "dir", OPT_STRING, &dir, "DIR",
     "runs folder (default: config runs_dir, else runs)"},
    {'s', "skill", OPT_LIST, &skills, "NAME", "only this skill"},
    {'m', "model", OPT_LIST, &models, "MODEL",
     "only this model (aliases resolved)"},
    {0, "metric", OPT_STRING, &metric, "M", "success (default) or tokens"},
    {0, "csv", OPT_STRING, &csv, "PATH", "write every run as CSV instead"},
    {0, "best", OPT_FLAG, &best, NULL, "best-ever result, not the latest"},
    {0, "json", OPT_FLAG, &json, NULL, "print JSON"},
    {0, "case", OPT_INT, &kase, "N", "show case N's transcripts and verdicts"},
    {0, "batch", OPT_STRING, &batch, "ID",
     "--case: the batch to read (default: the newest)"},
    {0, "prune", OPT_FLAG, &prune, NULL,
     "remove the batch folders in which nothing was answered"},
    {0, NULL, OPT_FLAG, NULL, NULL, NULL},
};

const struct cmd_spec cmd_runs_spec = {
    "runs",
    NULL,
    "show evaluation results from the runs folder",
    "Shows the latest batch per (model, skill); --best shows upstream's\n"
    "best-ever pick instead.  --case N shows what the students of case N\n"
    "(numbered from 1, the Nth line of run_N/cases/transcripts.jsonl) were\n"
    "sent and answered, and why each assertion passed or failed.  --prune\n"
    "removes the batch folders that failed runs left with nothing answered\n"
    "(see docs/runs-format.md).",
    opts,
    0,
    0};

/* 1 when key is model without its provider: "llama-3.1-8b" for
 * "generic.llama-3.1-8b". */
static int bare_match(const char *model, const char *key)
{
    const char *dot = model ? strchr(model, '.') : NULL;

    return dot && !strcmp(dot + 1, key);
}

/* Add k to the NULL-terminated keys (of *nk) unless it is there. */
static void add_key(char ***keys, size_t *nk, size_t *cap, char *k)
{
    for (size_t i = 0; i < *nk; i++)
        if (!strcmp((*keys)[i], k)) {
            free(k);
            return;
        }
    UP_GROW(*keys, *cap, *nk + 2);
    (*keys)[(*nk)++] = k;
    (*keys)[*nk] = NULL;
}

/* The -m models through the alias table (NULL-terminated): aliases and
 * resolved ids are one model, in the runs and in the filter alike.  A
 * name that no run has as such matches the runs' models that are it with
 * a provider prefix (-m llama-3.1-8b finds generic.llama-3.1-8b). */
static char **model_keys(const up_config *cfg, const up_run_record *runs,
                         size_t n, size_t *nkeys)
{
    char **keys = up_xcalloc(1, sizeof(*keys));
    size_t nk = 0, cap = 1;

    for (size_t i = 0; i < models.n; i++) {
        char *k = up_store_model_key(models.v[i], cfg);
        size_t before = nk;

        for (size_t r = 0; r < n; r++) {
            char *mk =
                up_store_model_key(runs[r].model ? runs[r].model : "", cfg);

            if (!strcmp(mk, k) || bare_match(mk, models.v[i]) ||
                bare_match(mk, k))
                add_key(&keys, &nk, &cap, mk);
            else
                free(mk);
        }
        if (nk == before) /* no run: the filter as typed, matching none */
            add_key(&keys, &nk, &cap, k);
        else
            free(k);
    }
    *nkeys = nk;
    return keys;
}

/* Nothing matched -m / -s: say what the runs folder has. */
static void list_existing(const up_run_record *runs, size_t n)
{
    const up_config *cfg = cli_config();
    char **ms = NULL, **ss = NULL;
    size_t nm = 0, ns = 0, cm = 0, cs = 0;

    for (size_t i = 0; i < n; i++) {
        add_key(
            &ms, &nm, &cm,
            up_store_model_key(runs[i].model ? runs[i].model : "unknown", cfg));
        add_key(
            &ss, &ns, &cs,
            up_xstrdup(runs[i].skill_name ? runs[i].skill_name : "unknown"));
    }
    printf("Models in '%s':", out_safe(dir));
    for (size_t i = 0; i < nm; i++)
        printf("%s %s", i ? "," : "", out_safe(ms[i]));
    printf("\nSkills in '%s':", out_safe(dir));
    for (size_t i = 0; i < ns; i++)
        printf("%s %s", i ? "," : "", out_safe(ss[i]));
    printf("\n");
    up_strv_free(ms);
    up_strv_free(ss);
}

static int show(up_run_record *runs, size_t n, char *const *skipped)
{
    const up_config *cfg = cli_config();
    up_compare *v = NULL;
    size_t nk = 0;
    char **keys = model_keys(cfg, runs, n, &nk);
    size_t nv = 0;

    up_store_key_models(runs, n, cfg);
    up_store_compare(&v, &nv, runs, n, skills.v, skills.n,
                     (const char *const *)keys, nk, best);
    runs_print(v, nv, n, !strcmp(metric, "tokens"), json, skipped);
    if (!nv && n && !json)
        list_existing(runs, n);
    free(v);
    up_strv_free(keys);
    return 0;
}

/* The CSV keeps each model as logged; -m matches through the aliases. */
static int export_csv(const up_run_record *runs, size_t n, up_error *err)
{
    const up_config *cfg = cli_config();
    size_t nk = 0;
    char **keys = model_keys(cfg, runs, n, &nk);
    up_run_record *sel = NULL;
    size_t nsel = n;
    int rc;

    if (models.n)
        sel = up_store_pick_models(runs, n, (const char *const *)keys, nk, cfg,
                                   &nsel);
    rc = up_store_csv(csv, sel ? sel : runs, nsel, skills.v, skills.n, NULL, 0,
                      err);
    if (!rc)
        printf("Summary written to %s\n", out_safe(csv));
    free(sel);
    up_strv_free(keys);
    return rc;
}

/* --case takes no --csv, --best, -s or --metric; --batch needs --case. */
static int case_conflicts(void)
{
    int given = kase != LONG_MIN;

    if (batch && !given)
        out_error("--batch needs --case");
    else if (given && (csv || best || skills.n || strcmp(metric, "success")))
        out_error("--case cannot be combined with --csv, --best, -s or "
                  "--metric");
    else if (given && kase < 1)
        out_error("--case must be a case number from 1, not %ld", kase);
    else
        return 0;
    return EXIT_USAGE;
}

/* --prune: each removed folder said, then how many. */
static int do_prune(void)
{
    char **gone = NULL;
    size_t k = 0;
    up_error err;
    int rc = up_store_prune(&gone, dir, &err);

    for (; !rc && gone[k]; k++)
        printf("removed '%s': nothing in it was answered\n", out_safe(gone[k]));
    if (!rc)
        printf("%zu batch folder%s removed from '%s'\n", k, k == 1 ? "" : "s",
               out_safe(dir));
    up_strv_free(gone);
    return rc ? out_fail(&err) : EXIT_OK;
}

/* Corrupt run files are left out of the results, never silently. */
static void warn_skipped(char *const *skipped)
{
    size_t k = 0;

    for (; skipped && skipped[k]; k++)
        out_warn("skipped %s", skipped[k]);
    if (k)
        out_warn("%zu run file%s could not be read and %s left out", k,
                 k == 1 ? "" : "s", k == 1 ? "is" : "are");
}

int cmd_runs(int argc, char **argv)
{
    char **args = NULL;
    int nargs, rc = opt_parse(&cmd_runs_spec, argc, argv, &args, &nargs);
    up_run_record *runs = NULL;
    char **skipped = NULL;
    size_t n = 0;
    up_error err;

    if (rc) {
        rc = rc > 0 ? 0 : EXIT_USAGE;
        goto out;
    }
    if (opt_need_path(&cmd_runs_spec, "-d/--dir", dir)) {
        rc = EXIT_USAGE;
        goto out;
    }
    dir = cli_config_dir(dir, 1, "runs");
    if (strcmp(metric, "success") && strcmp(metric, "tokens")) {
        out_error("--metric must be 'success' or 'tokens', not '%s'", metric);
        rc = EXIT_USAGE;
        goto out;
    }
    if ((rc = case_conflicts()))
        goto out;
    if (prune &&
        (kase != LONG_MIN || csv || json || best || skills.n || models.n)) {
        out_error("--prune takes only -d/--dir");
        rc = EXIT_USAGE;
        goto out;
    }
    if (!up_fs_is_dir(dir)) {
        out_error("no runs folder found at '%s'", dir);
        rc = EXIT_INPUT;
        goto out;
    }
    if (prune) {
        rc = do_prune();
        goto out;
    }
    if (kase != LONG_MIN) {
        size_t nk = 0;
        char **keys = model_keys(cli_config(), NULL, 0, &nk);

        rc = runs_case(dir, batch, kase, (const char *const *)keys, nk, json,
                       &err);
        up_strv_free(keys);
        goto fail;
    }
    rc = up_store_load(&runs, &n, &skipped, dir, &err);
    warn_skipped(skipped);
    if (!rc && csv && !n) { /* upstream: no file, a failure */
        out_error("no run folders found under '%s'", out_safe(dir));
        rc = EXIT_INPUT;
    } else if (!rc && csv) {
        rc = export_csv(runs, n, &err);
    } else if (!rc) {
        rc = show(runs, n, skipped);
    }
fail:
    if (rc < 0)
        rc = out_fail(&err);
out:
    up_store_free(runs, n);
    up_strv_free(skipped);
    strlist_release(&skills);
    strlist_release(&models);
    free(args);
    return rc < 0 ? EXIT_USAGE : rc;
}
