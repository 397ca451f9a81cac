/*
 * `upskill eval --tasks DIR --check` (docs/harbor.md): read the Harbor
 * tasks, print each as runnable here or not and why, send nothing.
 * Exit 0 once the tasks were read, whatever they hold; the usual error
 * codes when DIR holds no task.
 */
#include <stdio.h>

#include "eval_cli.h"

static void task_line(const up_harbor_task *k)
{
    if (!k->runnable) {
        printf("%s: not runnable: %s\n", out_safe(k->name),
               out_safe(k->why.data));
        return;
    }
    printf("%s: runnable (workdir %s, %zu skill%s", out_safe(k->name),
           out_safe(k->workdir), k->nskills, k->nskills == 1 ? "" : "s");
    if (k->agent_s)
        printf(", agent %u s", k->agent_s);
    if (k->verifier_s)
        printf(", verifier %u s", k->verifier_s);
    printf(")%s\n", k->nskills ? "" : "; no skill: left out of an eval");
}

int harbor_check_report(const char *dir)
{
    up_harbor_set set = {0};
    up_error err = {0, ""};
    size_t ok = 0;
    int rc = up_harbor_load(&set, NULL, dir, &err);

    for (size_t i = 0; !rc && i < set.n; i++) {
        task_line(&set.v[i]);
        ok += set.v[i].runnable != 0;
    }
    if (!rc)
        printf("%zu task%s: %zu runnable here, %zu not\n", set.n,
               set.n == 1 ? "" : "s", ok, set.n - ok);
    up_harbor_release(&set);
    return rc ? out_fail(&err) : 0;
}
