/*
 * `upskill eval --tasks DIR --check` (docs/harbor.md): read the Harbor
 * tasks, print each as runnable here or not and why; then run the
 * reference students (oracle, null) in both arms of every runnable task
 * with a skill, --runs times, and print each as sound or not and why.
 * Nothing is sent to any model.  Exit 0 once the tasks were read,
 * whatever they hold; the usual error codes when DIR holds no task.
 */
#include <stdio.h>
#include <string.h>

#include "eval_cli.h"

/* The reference students, in the plan's model order. */
static const char *const refs[] = {"oracle", "null"};
enum { ORACLE, NULL_STUDENT, NREFS };

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

/* 1 when job j of reference student m did not do what it should (the
 * oracle pass, null not pass). */
static int ref_miss(const up_eval_job_view *j, size_t m)
{
    return j->error || (m == ORACLE && !j->passed) ||
           (m == NULL_STUDENT && j->passed);
}

/* Append to why ": " and the last non-empty line of s (at most 200
 * bytes of it), when it has one. */
static void last_line(up_buf *why, const char *s, size_t n)
{
    size_t end = n, start;

    while (end && strchr(" \t\r\n", s[end - 1]))
        end--;
    start = end;
    while (start && s[start - 1] != '\n')
        start--;
    if (end - start > 200)
        start = end - 200;
    if (end > start)
        up_buf_addf(why, ": %.*s", (int)(end - start), s + start);
}

/* Why job j missed, into why: its error, else its verifier's message
 * (with what its output says failed, up_check_reason: pytest's failing
 * test and its assertion); for the oracle,
 * how solve.sh ended when it did not exit 0, with its output's last
 * line (the error under a traceback). */
static void miss_why(const up_eval_job *job, up_buf *why)
{
    up_eval_job_view v, *j = &v;
    const char *a;

    up_eval_job_view_of(job, &v);
    a = j->answer ? strchr(j->answer, ':') : NULL;
    if (j->error) {
        up_buf_adds(why, j->error_msg ? j->error_msg : up_strerror(j->error));
        return;
    }
    if (j->ungradable)
        up_buf_adds(why, j->ungradable);
    else if (j->first_miss)
        up_buf_adds(why, j->first_miss);
    if (a && strncmp(a, ": exit 0\n", 9)) {
        size_t first = strcspn(a, "\n");
        up_buf end = UP_BUF_INIT;

        up_buf_addf(why, "; solve.sh%.*s", (int)first, a);
        last_line(&end, a + first, strlen(a + first));
        if (end.len && !strstr(why->data, end.data + 2)) /* not said yet */
            up_buf_add(why, end.data, end.len);
        up_buf_release(&end);
    }
}

/* What went wrong for one student in one arm of a case: how many of
 * its runs, the first one's why. */
struct miss {
    size_t n, runs;
    const up_eval_job *first;
};

/* A task's verdict, and its words in the --sound file (harbor.h). */
enum { SOUND, SOUND_SKILL_ONLY, NOT_SOUND };
static const char *const verdicts[] = UP_HARBOR_VERDICTS;

/* --sound FILE: append task name's verdict line to out (a name that
 * cannot be written as one line is left out: "not checked"). */
static void verdict_line(up_buf *out, const char *name, int v)
{
    if (!name[strcspn(name, "\t\r\n")])
        up_buf_addf(out, "%s\t%s\n", name, verdicts[v]);
}

/* Case k's verdict line: sound only when, in both arms and every run,
 * the oracle passed and the null student did not; sound in the skill
 * arm only when the oracle failed only without the skills (its solution
 * uses them) and null never passed.  Returns which. */
static int sound_line(const up_eval_plan *p, size_t k, const char *name)
{
    static const char *const arm_name[] = {"baseline", "skill"};
    struct miss m[NREFS][2];
    size_t misses = 0;
    int skill_only;

    memset(m, 0, sizeof(m));
    for (size_t i = 0; i < p->njobs; i++) {
        up_eval_job_view j;
        struct miss *x;
        int miss;

        up_eval_job_view_of(up_eval_plan_job(p, i), &j);
        x = &m[j.model][j.arm == UP_ARM_SKILL];
        miss = j.kase == k && ref_miss(&j, j.model);
        x->runs += j.kase == k;
        if (miss && !x->n++)
            x->first = up_eval_plan_job(p, i);
        misses += (size_t)miss;
    }
    if (!misses) {
        printf("%s: sound (oracle passes, null fails, both arms, %d run%s)\n",
               out_safe(name), p->runs, p->runs == 1 ? "" : "s");
        return SOUND;
    }
    skill_only = m[ORACLE][0].n && !m[ORACLE][1].n && !m[NULL_STUDENT][0].n &&
                 !m[NULL_STUDENT][1].n;
    printf("%s: %s:", out_safe(name),
           skill_only ? "sound in the skill arm only" : "not sound");
    misses = 0; /* now: the parts printed */
    for (size_t s = 0; s < NREFS; s++)
        for (size_t a = 0; a < 2; a++) {
            up_buf why = UP_BUF_INIT;

            if (!m[s][a].n)
                continue;
            miss_why(m[s][a].first, &why);
            printf("%s %s %s in the %s arm (%zu of %zu run%s: %.600s)",
                   misses++ ? ";" : "", refs[s],
                   s == ORACLE ? "failed" : "passed", arm_name[a], m[s][a].n,
                   m[s][a].runs, m[s][a].runs == 1 ? "" : "s",
                   out_safe(why.len ? why.data : ""));
            up_buf_release(&why);
        }
    if (m[ORACLE][0].n && !m[ORACLE][1].n)
        printf("; its solution needs the skills");
    printf("\n");
    return skill_only ? SOUND_SKILL_ONLY : NOT_SOUND;
}

/* Run oracle and null over the runnable tasks with a skill; print. */
static int sound_report(struct eval_args *a, up_error *err)
{
    struct eval_args ra = *a;
    up_eval_session e;
    up_session_opts o;
    up_eval_request rq;
    size_t k = 0, n[3] = {0, 0, 0};
    up_buf file = UP_BUF_INIT;
    int rc;

    ra.models.v = (const char **)refs;
    ra.models.n = ra.models.cap = NREFS;
    ra.no_log = 1;
    ra.no_baseline = 0;
    eval_cli_session_opts(&o, &ra);
    up_eval_session_init(&e, &o);
    eval_cli_request(&rq, &ra);
    rc = up_eval_session_load(&e, &rq, err);
    if (!rc)
        rc = up_eval_session_start(&e, &rq, err);
    if (!rc)
        rc = up_eval_session_open(&e, err);
    if (!rc)
        rc = up_eval_session_run(&e, err);
    for (size_t t = 0; !rc && t < e.harbor.n; t++)
        if (e.harbor.v[t].runnable && e.harbor.v[t].has_skill) {
            int v = sound_line(&e.plan, k++, e.harbor.v[t].name);

            n[v]++;
            verdict_line(&file, e.harbor.v[t].name, v);
        }
    if (!rc)
        printf("%zu task%s checked with oracle and null: %zu sound, %zu "
               "sound in the skill arm only, %zu not\n",
               k, k == 1 ? "" : "s", n[SOUND], n[SOUND_SKILL_ONLY],
               n[NOT_SOUND]);
    if (!rc && a->sound)
        rc = up_fs_write_atomic(a->sound, file.data ? file.data : "", file.len,
                                0644, err);
    if (!rc && a->sound)
        printf("verdicts written to %s (an eval's --sound %s runs only "
               "the sound tasks)\n",
               out_safe(a->sound), out_safe(a->sound));
    up_buf_release(&file);
    up_eval_session_release(&e);
    return rc;
}

int harbor_check_report(struct eval_args *a)
{
    up_harbor_set set = {.online_ok = a->online};
    up_error err = {0, ""};
    size_t ok = 0, skilled = 0;
    int rc = up_harbor_load(&set, NULL, a->tasks, &err);

    for (size_t i = 0; !rc && i < set.n; i++) {
        task_line(&set.v[i]);
        ok += set.v[i].runnable != 0;
        skilled += set.v[i].runnable && set.v[i].nskills;
    }
    if (!rc)
        printf("%zu task%s: %zu runnable here, %zu not\n", set.n,
               set.n == 1 ? "" : "s", ok, set.n - ok);
    up_harbor_release(&set);
    fflush(stdout);
    if (!rc && skilled && !a->static_check)
        rc = sound_report(a, &err);
    return rc ? out_fail(&err) : 0;
}
