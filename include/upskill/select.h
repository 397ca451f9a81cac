/*
 * The decision core of `upskill select` (issue 15, item 3): given
 * candidates (a model with or without the skill), each with its measured
 * pass rate and, when the config has a price, the cost of its runs, name
 * the cheapest that meets a goal, the runner-up, and why each other
 * candidate lost.  The goal is a target pass rate (--target), or another
 * model's baseline (--beat): at least as good as that model without the
 * skill, within a margin, on a paired interval over the same cases.
 *
 * The decision is pure (no I/O).  Where the evidence comes from -- runs
 * already in the runs folder, or an eval run now -- is in
 * src/lib/eval/select_runs.c (up_select_reuse, up_select_from_plan); `upskill
 * select` (src/cli/cmd_select.c) puts them together (docs/select.md).
 */
#ifndef UPSKILL_SELECT_H
#define UPSKILL_SELECT_H

#include <stddef.h>

#include "upskill/config.h"
#include "upskill/error.h"
#include "upskill/eval.h"
#include "upskill/model.h"
#include "upskill/stats.h"

struct json_t;

/* One candidate: a model in one arm. */
typedef struct up_select_cand {
    const char *model; /* model id (borrowed) */
    int skill;         /* 1: with the skill, 0: baseline */
    up_rate rate;      /* pass rate with its Wilson interval */
    int priced;        /* 1 when cost is known from the config's prices */
    double cost;       /* USD spent on this candidate's runs when priced */
    /* --beat: per case, base_* the reference's baseline and skill_* this
     * candidate's arm (borrowed); NULL with --target */
    const up_stats_case *vs;
    size_t nvs;
} up_select_cand;

/* Why a candidate ended where it did. */
typedef enum up_select_why {
    UP_SELECT_CHOSEN = 0,    /* cheapest that meets the goal */
    UP_SELECT_RUNNER_UP,     /* next cheapest that meets it */
    UP_SELECT_TOO_EXPENSIVE, /* meets it but costs more per pass */
    UP_SELECT_TOO_WEAK,      /* its interval lies wholly below the bar */
    UP_SELECT_UNSURE,        /* its interval straddles the bar */
    UP_SELECT_UNPRICED,      /* meets it, but has no price to rank by */
    UP_SELECT_MEETS,         /* meets it; no choice was made on cost */
    UP_SELECT_NOT_MEASURED   /* no conversation of it was answered */
} up_select_why;

/* What the candidates must meet: --target or --beat. */
typedef struct up_select_goal {
    double target;      /* --target: a pass rate in (0, 1]; unused with beat */
    const char *beat;   /* --beat: the reference model's id, or NULL */
    double margin;      /* --beat: how much worse than the reference still
                           counts as as good, a share in [0, 0.5] (0.05) */
    unsigned runs;      /* repeats per case and arm, to count cases */
    int allow_unpriced; /* --allow-unpriced: choose even when a candidate
                           that meets the goal has no price (see
                           up_select_decide) */
    double alpha;       /* level of each candidate's interval; 0: 0.05.
                           up_select_run sets 0.05 / candidates (Bonferroni):
                           the intervals then hold for all at once */
} up_select_goal;

/* The verdict on one candidate, in the order of the input. */
typedef struct up_select_row {
    up_select_why why;
    double cost_per_pass; /* cost / successes; < 0 when unpriced or no pass */
    size_t more_cases;    /* UP_SELECT_UNSURE: further cases (at goal runs)
                             that would settle it at the same results; 0
                             when none would (the estimate sits on the bar)
                             or over 100000 */
    up_paired vs;         /* --beat: this candidate minus the reference over
                             the paired cases (up_stats_lift); zero (n 0)
                             with --target */
} up_select_row;

/*
 * Classify n candidates against goal into rows[n].  --target: those
 * whose interval's lower bound is at least the target meet it, those
 * whose upper bound is under it are too weak.  --beat: on the paired
 * interval of the difference to the reference's baseline (c[i].vs), those
 * whose lower bound is at least -margin meet it, those whose upper bound
 * is under -margin are too weak.  A candidate with no answered run is not
 * measured (with --beat also when no case was answered by it and the
 * reference).  Those that meet it rank by cost per passed case.  An
 * unpriced one among them is never "too expensive" (UP_SELECT_UNPRICED):
 * no choice can be made on cost then, so none is chosen (the priced ones
 * that meet it are UP_SELECT_MEETS), unless
 * goal->allow_unpriced, which chooses among the priced ones by cost, or,
 * when none that meets it is priced, among the unpriced ones by pass
 * rate (the earliest on a tie).  *chosen gets the index of the chosen
 * candidate, or n when none is.  Fails with
 * UP_EINVALID when the target is outside (0, 1] or the margin outside
 * [0, 0.5].
 */
int up_select_decide(up_select_row *rows, size_t *chosen,
                     const up_select_cand *c, size_t n,
                     const up_select_goal *goal, up_error *err);

/* "chosen", "runner-up", "too expensive", "too weak", "not enough
 * evidence", "meets the goal, no price", "meets the goal", "not
 * measured" */
const char *up_select_why_label(up_select_why why);

/*
 * Trials at the observed rate that an interval needs to fall wholly on
 * one side of target; 0 when the rate equals target or more than 100000
 * would be needed.  Counts the total, not the extra.
 */
size_t up_select_trials_for(double rate, double target);

/*
 * Further cases at runs that bring the effective sample size of r (the
 * n its Wilson interval uses, up_stats_rate_cases) to need, at r's
 * design effect (trials / n_eff): the count that would settle the
 * question by the interval shown.  0 when need is reached; at most
 * 100000.
 */
size_t up_select_more_cases(size_t need, const up_rate *r, unsigned runs);

/*
 * Cases that the paired interval of n observed cases c needs to fall
 * wholly on one side of bar, when the suite grows by repeating the
 * observed cases in order; 0 when more than 100000 would be needed.
 * Counts the total, not the extra.
 */
size_t up_select_cases_for(const up_stats_case *c, size_t n, double bar);

/* One model's evidence: both arms per case, and what each arm cost. */
typedef struct up_select_model {
    char *model;          /* resolved id, owned */
    up_stats_case *cases; /* ncases, owned: base_* the baseline, skill_*
                             the skill arm (errored runs left out) */
    size_t ncases;
    double cost[2]; /* USD per arm ([UP_ARM_BASELINE], [UP_ARM_SKILL]) at
                       the config's prices; < 0: no price */
    char *batch;    /* the batch folder its runs are in (owned), or NULL */
    int reused;     /* 1: found in the runs folder (up_select_reuse);
                       0: run now */
    int ref_only;   /* only the reference of --beat (not given with -m):
                       neither arm is a candidate */
} up_select_model;

void up_select_model_release(up_select_model *m);

/* A decision over models: candidates, their rows and the choice. */
typedef struct up_select {
    up_select_cand *c; /* n candidates: each model's baseline, then its
                          skill arm, but the reference's baseline */
    up_select_row *rows;
    size_t n;
    size_t chosen;              /* n: none meets the goal */
    const up_select_model *ref; /* --beat: the reference model; NULL */
    up_rate ref_rate;           /* --beat: its baseline's pass rate */
    double ref_cost_per_pass;   /* --beat: its baseline's; < 0 unknown */
    up_stats_case *pairs;       /* storage behind the candidates' vs */
    double alpha; /* each interval's level: 0.05 / n (Bonferroni), so
                     that all n hold at once with 95% */
} up_select;

/*
 * Decide goal over the nm models m (borrowed; they must outlive s): make
 * the candidates and classify them (up_select_decide).  With goal->beat,
 * the model of that id must be among m (UP_EINVALID otherwise) and every
 * model must have as many cases.  Release s with up_select_release (also
 * after an error).
 */
int up_select_run(up_select *s, const up_select_model *m, size_t nm,
                  const up_select_goal *goal, up_error *err);
void up_select_release(up_select *s);

/*
 * Model m of the run plan p as evidence (its graded jobs pooled per
 * case, as eval's statistics do, and each arm's cost at price; price NULL:
 * no price), into out (batch NULL).
 */
void up_select_from_plan(up_select_model *out, const up_eval_plan *p, size_t m,
                         const up_price *price);

/*
 * The identity (up_eval_batch_identity) of the batch an eval of skill
 * over suite at runs repeats, with the baseline, in chat mode with
 * inject, would write: what a reusable batch must have been made for.
 * A new reference.
 */
struct json_t *up_select_identity(const up_skill *skill, const up_suite *suite,
                                  int runs, enum up_inject inject);

/* A model that up_select_reuse looks for. */
typedef struct up_select_want {
    const char *id;        /* resolved model id */
    const up_price *price; /* its price in the config now, or NULL */
} up_select_want;

/* The models of a select: the candidates, then the model to beat when
 * it is none of them. */
typedef struct up_select_pool {
    const char **specs;   /* n model strings as given (borrowed) */
    up_model *m;          /* n, resolved */
    up_select_want *want; /* n: their ids and prices */
    up_select_model *ev;  /* n: their evidence, once reused or run */
    size_t n;
    size_t ref;   /* with a model to beat: its index */
    int ref_only; /* the model to beat is none of the candidates */
} up_select_pool;

/*
 * Resolve the nspecs candidate model strings and beat (may be NULL)
 * through base_url and api_key_env (may be NULL; up_model_resolve) into
 * p, each resolved id once (a model given twice, or beat among the
 * candidates, is one), with its price in cfg.  Errors: those of
 * up_model_resolve.  Release p with up_select_pool_release (also after
 * an error).
 */
int up_select_pool_init(up_select_pool *p, const char *const *specs,
                        size_t nspecs, const char *beat, const char *base_url,
                        const char *api_key_env, const up_config *cfg,
                        up_error *err);
void up_select_pool_release(up_select_pool *p);

/* The model strings of p's models without reused evidence (a new array
 * of borrowed strings, free it), *n of them. */
const char **up_select_pool_missing(const up_select_pool *p, size_t *n);

/*
 * The evidence of p's models that were not reused from plan, whose
 * models are those, in order (up_select_from_plan at each one's price),
 * with batch_dir (may be NULL) as their batch.  Then the model to beat
 * is marked ref_only when it is no candidate.
 */
void up_select_pool_fill(up_select_pool *p, const up_eval_plan *plan,
                         const char *batch_dir);

/*
 * Look in runs_dir for finished batches made for identity (a batch
 * plan's identity, up_eval_batch_identity: the same suite, skill, --runs,
 * baseline and agent settings; the models and the seed may differ),
 * newest first, and take from them the wanted models that one of them
 * covers whole: every case, arm and repeat answered (no conversation
 * errored).  out[i] (nw, zeroed by the caller) gets want[i]'s evidence,
 * its cost at want[i].price, batch the folder it came from and reused 1;
 * a model that no batch covers keeps cases NULL.  Batches made for another
 * identity are passed over in silence; one that matches but cannot be
 * used (interrupted, errored, unreadable) adds a line to *notes (a
 * NULL-terminated heap vector; free with up_strv_free) saying why.  A
 * missing runs_dir has no batch.  Errors: UP_EIO reading the folder.
 */
int up_select_reuse(up_select_model *out, char ***notes,
                    const up_select_want *want, size_t nw, const char *runs_dir,
                    const struct json_t *identity, size_t ncases,
                    up_error *err);

#endif
