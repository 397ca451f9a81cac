/*
 * upskill report: one self-contained HTML page over eval batches (a batch
 * folder, or a runs folder: all its batches; default the config's
 * runs_dir), written atomically to -o.  The library recomputes every
 * number from the run files (src/lib/report_*.c, docs/report.md).
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char *output;
static long seed;
static double margin;

static const struct opt opts[] = {
    {'o', "output", OPT_STRING, &output, "FILE",
     "the HTML file to write (default: report.html)"},
    {0, "seed", OPT_INT, &seed, "N",
     "seed of the statistics (default: the batch's, else 1)"},
    {0, "margin", OPT_DOUBLE, &margin, "POINTS",
     "\"no meaningful effect\" margin (default: the batch's, else 5)"},
    {0, NULL, OPT_FLAG, NULL, NULL, NULL},
};

const struct cmd_spec cmd_report_spec = {
    "report",
    "[BATCH|RUNS_DIR]...",
    "write one self-contained HTML report of eval batches",
    "Each argument is a batch folder or a runs folder (all its batches); "
    "none: the config's runs_dir, else runs.  The page needs no network: "
    "inline CSS and SVG, the transcripts embedded.  See docs/report.md.",
    opts,
    0,
    -1};

static char **named; /* the arguments, for skippable() */
static int nnamed;

/* 1 when dir is a batch folder named on the command line. */
static int is_named(const char *dir)
{
    for (int i = 0; i < nnamed; i++)
        if (!strcmp(named[i], dir))
            return 1;
    return 0;
}

static int find_all(char ***dirs, size_t *n, char **args, int nargs,
                    up_error *err)
{
    int rc = 0;

    named = args;
    nnamed = nargs;

    if (!nargs)
        return up_report_find_batches(dirs, n, cli_config_dir(NULL, 1, "runs"),
                                      err);
    for (int i = 0; i < nargs && !rc; i++)
        rc = up_report_find_batches(dirs, n, args[i], err);
    return rc;
}

/* Each batch folder, or each skill of a sweep's folder, as a view:
 * dirs[i] and skills[i] (NULL: the whole folder); the count. */
static size_t views(char **dirs, size_t n, char ***vdir, char ***vskill)
{
    size_t k = 0;

    for (size_t i = 0; i < n; i++) {
        char **names = NULL;
        size_t m = 0;

        up_report_sweep_skills(&names, &m, dirs[i]);
        *vdir = up_xrealloc(*vdir, (k + (m ? m : 1)) * sizeof(**vdir));
        *vskill = up_xrealloc(*vskill, (k + (m ? m : 1)) * sizeof(**vskill));
        for (size_t j = 0; j < (m ? m : 1); j++, k++) {
            (*vdir)[k] = dirs[i];
            (*vskill)[k] = m ? names[j] : NULL; /* owned */
        }
        free(names);
    }
    return k;
}

static void free_runs(char **runs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(runs[i]);
    free(runs);
}

/*
 * A batch found by scanning a runs folder that has no results yet (an
 * eval interrupted or stopped by a full disk) is skipped with a warning
 * saying how to finish or delete it; a batch named on the command line
 * stays an error.  1 when dir was skipped.
 */
static int skippable(const char *dir, int rc)
{
    up_buf base = UP_BUF_INIT, parent = UP_BUF_INIT;

    if (rc != UP_ENOTFOUND || is_named(dir))
        return 0;
    up_fs_basename(&base, dir);
    up_fs_dirname(&parent, dir);
    out_warn("skipping '%s': no results yet (an eval interrupted or "
             "stopped before it finished): finish it with 'upskill eval "
             "SKILL ... --runs-dir %s --resume %s' (its first arguments), "
             "or delete the folder",
             out_safe(dir), out_safe(parent.data), out_safe(base.data));
    up_buf_release(&base);
    up_buf_release(&parent);
    return 1;
}

static int render(char **dirs, size_t ndirs, size_t *nshown, up_error *err)
{
    char **vdir = NULL, **vskill = NULL;
    size_t n = views(dirs, ndirs, &vdir, &vskill);
    up_report_batch *b = up_xcalloc(n ? n : 1, sizeof(*b));
    up_buf page = UP_BUF_INIT;
    size_t loaded = 0, skipped = 0;
    const char *last_skipped = NULL;
    int rc = 0;
    up_report_opts o = {(uint64_t)seed, seed >= 0, margin / 100,
                        margin >= 0,    NULL,      0};
    char **runs = NULL;
    size_t nruns = 0;

    for (size_t i = 0; i < n && !rc; i++) {
        if (vskill[i] && (!i || vdir[i] != vdir[i - 1])) {
            free_runs(runs, nruns); /* a sweep's runs, read once */
            nruns = up_report_run_skills(&runs, vdir[i]);
        }
        o.run_skill = vskill[i] ? runs : NULL;
        o.nrun_skill = nruns;
        rc =
            up_report_batch_load_skill(&b[loaded], vdir[i], vskill[i], &o, err);
        b[loaded].cfg = cli_config();
        if (!rc || !skippable(vdir[i], rc)) {
            loaded++; /* released below, also when it failed */
        } else {
            skipped += vdir[i] != last_skipped;
            last_skipped = vdir[i];
            up_report_batch_release(&b[loaded]);
            memset(&b[loaded], 0, sizeof(b[loaded]));
            rc = 0;
        }
    }
    free_runs(runs, nruns);
    *nshown = ndirs - skipped;
    if (!rc && !loaded)
        rc = up_error_set(err, UP_ENOTFOUND,
                          "no finished batch to report (every one was "
                          "skipped above)");
    if (!rc)
        up_report_family(b, loaded);
    if (!rc)
        rc = up_report_html(&page, b, loaded, err);
    if (!rc)
        rc = up_fs_write_atomic(output, page.data, page.len, 0644, err);
    for (size_t i = 0; i < loaded; i++)
        up_report_batch_release(&b[i]);
    for (size_t i = 0; i < n; i++)
        free(vskill[i]);
    free(vdir);
    free(vskill);
    free(b);
    up_buf_release(&page);
    return rc;
}

int cmd_report(int argc, char **argv)
{
    char **args = NULL, **dirs = NULL;
    size_t n = 0, shown = 0;
    int nargs, rc;
    up_error err;

    output = "report.html";
    seed = -1;   /* not given: each batch's own */
    margin = -1; /* likewise */
    rc = opt_parse(&cmd_report_spec, argc, argv, &args, &nargs);
    if (rc) {
        rc = rc > 0 ? 0 : EXIT_USAGE;
        goto out;
    }
    rc = find_all(&dirs, &n, args, nargs, &err);
    if (!rc)
        rc = render(dirs, n, &shown, &err);
    if (rc < 0)
        rc = out_fail(&err);
    else
        printf("Report: %s (%zu batch%s)\n", output, shown,
               shown == 1 ? "" : "es");
out:
    up_strv_free(dirs);
    free(args);
    return rc;
}
