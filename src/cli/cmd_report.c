/*
 * upskill report: one self-contained HTML page over eval batches (a batch
 * folder, or a runs folder: all its batches; default the config's
 * runs_dir), written atomically to -o.  The library recomputes every
 * number from the run files (src/lib/report_*.c, docs/report.md).
 */
#include <stdlib.h>

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

static int find_all(char ***dirs, size_t *n, char **args, int nargs,
                    up_error *err)
{
    int rc = 0;

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

static int render(char **dirs, size_t ndirs, up_error *err)
{
    char **vdir = NULL, **vskill = NULL;
    size_t n = views(dirs, ndirs, &vdir, &vskill);
    up_report_batch *b = up_xcalloc(n ? n : 1, sizeof(*b));
    up_buf page = UP_BUF_INIT;
    size_t loaded = 0;
    int rc = 0;
    up_report_opts o = {(uint64_t)seed, seed >= 0, margin / 100,
                        margin >= 0,    NULL,      0};
    char **runs = NULL;
    size_t nruns = 0;

    for (; loaded < n && !rc; loaded++) {
        if (vskill[loaded] && (!loaded || vdir[loaded] != vdir[loaded - 1])) {
            free_runs(runs, nruns); /* a sweep's runs, read once */
            nruns = up_report_run_skills(&runs, vdir[loaded]);
        }
        o.run_skill = vskill[loaded] ? runs : NULL;
        o.nrun_skill = nruns;
        rc = up_report_batch_load_skill(&b[loaded], vdir[loaded],
                                        vskill[loaded], &o, err);
        b[loaded].cfg = cli_config();
    }
    free_runs(runs, nruns);
    if (!rc)
        up_report_family(b, n);
    if (!rc)
        rc = up_report_html(&page, b, n, err);
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
    size_t n = 0;
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
        rc = render(dirs, n, &err);
    if (rc < 0)
        rc = out_fail(&err);
    else
        printf("Report: %s (%zu batch%s)\n", output, n, n == 1 ? "" : "es");
out:
    up_strv_free(dirs);
    free(args);
    return rc;
}
