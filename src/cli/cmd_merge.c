/*
 * upskill merge: the shard batches of one `eval --shard I/N` run checked
 * for belonging together and combined into a new batch of the runs
 * folder (src/lib/eval/merge.c, docs/sharding.md); `eval --resume` of it then
 * writes the run files without sending a request.  The new batch's id
 * goes to stdout, the next step to stderr.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char *runs_dir;

static const struct opt opts[] = {
    {'o', "runs-dir", OPT_STRING, &runs_dir, "DIR",
     "runs folder of the new batch (default: config runs_dir, else runs)"},
    {0, NULL, OPT_FLAG, NULL, NULL, NULL},
};

const struct cmd_spec cmd_merge_spec = {
    "merge",
    "BATCH...",
    "combine the shard batches of one 'eval --shard I/N' run",
    "Each BATCH is a shard's batch folder; together they must be the shards "
    "1..N of one run (same suite, skill, models, --runs, each index once).  "
    "Writes a new batch with their journals; finish it with 'upskill eval "
    "SKILL ... --resume ID' and the shards' arguments minus --shard, which "
    "sends nothing.  See docs/sharding.md.",
    opts,
    1,
    -1};

/* Each line of notes (ending in '\n') as a warning on stderr. */
static void warn_lines(char *notes)
{
    for (char *e; notes && (e = strchr(notes, '\n')); notes = e + 1) {
        *e = '\0';
        fprintf(stderr, "warning: %s\n", out_safe(notes));
    }
}

int cmd_merge(int argc, char **argv)
{
    char **args = NULL;
    up_buf dir = UP_BUF_INIT, id = UP_BUF_INIT, notes = UP_BUF_INIT;
    const char *where;
    int nargs, rc;
    up_error err;

    runs_dir = NULL;
    rc = opt_parse(&cmd_merge_spec, argc, argv, &args, &nargs);
    if (rc) {
        rc = rc > 0 ? 0 : EXIT_USAGE;
        goto out;
    }
    where = cli_config_dir(runs_dir, 1, "runs");
    rc = up_merge_shards(&dir, &id, &notes, where, args, (size_t)nargs, &err);
    if (rc < 0) {
        rc = out_fail(&err);
        goto out;
    }
    printf("%s\n", id.data);
    warn_lines(notes.data);
    fprintf(stderr,
            "Merged %d shards into '%s'.  Finish it with the shards' "
            "arguments minus --shard:\n  upskill eval SKILL ... "
            "--runs-dir %s --resume %s\n",
            nargs, out_safe(dir.data), out_safe(where), out_safe(id.data));
out:
    up_buf_release(&dir);
    up_buf_release(&id);
    up_buf_release(&notes);
    free(args);
    return rc;
}
