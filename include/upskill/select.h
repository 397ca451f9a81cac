/*
 * The decision core of `upskill select` (issue 15, item 3): given
 * candidates (a model with or without the skill), each with its measured
 * pass rate and, when the config has a price, the cost of its runs, name
 * the cheapest that clears a target pass rate, the runner-up, and why
 * each other candidate lost.  Pure: no I/O; `upskill select`
 * (src/cli/cmd_select.c) runs the eval and calls it (docs/select.md).
 */
#ifndef UPSKILL_SELECT_H
#define UPSKILL_SELECT_H

#include <stddef.h>

#include "upskill/error.h"
#include "upskill/eval.h"
#include "upskill/stats.h"

/* One candidate: a model in one arm. */
typedef struct up_select_cand {
    const char *model; /* model id (borrowed) */
    int skill;         /* 1: with the skill, 0: baseline */
    up_rate rate;      /* pass rate with its Wilson interval */
    int priced;        /* 1 when cost is known from the config's prices */
    double cost;       /* USD spent on this candidate's runs when priced */
} up_select_cand;

/* Why a candidate ended where it did. */
typedef enum up_select_why {
    UP_SELECT_CHOSEN = 0,    /* cheapest that clears the target */
    UP_SELECT_RUNNER_UP,     /* next cheapest that clears it */
    UP_SELECT_TOO_EXPENSIVE, /* clears it but costs more per pass */
    UP_SELECT_TOO_WEAK,      /* its upper bound is under the target */
    UP_SELECT_UNSURE         /* the interval straddles the target */
} up_select_why;

/* The verdict on one candidate, in the order of the input. */
typedef struct up_select_row {
    up_select_why why;
    double cost_per_pass; /* cost / successes; < 0 when unpriced or no pass */
    size_t more_trials;   /* UP_SELECT_UNSURE: further trials at the same
                             rate that would settle it; 0 when none would
                             (the rate equals the target) or over 100000 */
} up_select_row;

/*
 * Classify n candidates against target (0 < target <= 1) into rows[n]:
 * those whose interval's lower bound is at least target clear it; among
 * them priced ones rank by cost per passed case, then unpriced ones (an
 * unpriced candidate is chosen only when no priced one clears).  *chosen
 * gets the index of the chosen candidate, or n when none clears.  Fails
 * with UP_EINVALID when target is outside (0, 1].
 */
int up_select_decide(up_select_row *rows, size_t *chosen,
                     const up_select_cand *c, size_t n, double target,
                     up_error *err);

/* "chosen", "runner-up", "too expensive", "too weak", "not enough evidence" */
const char *up_select_why_label(up_select_why why);

/*
 * Trials at the observed rate that an interval needs to fall wholly on
 * one side of target; 0 when the rate equals target or more than 100000
 * would be needed.  Counts the total, not the extra.
 */
size_t up_select_trials_for(double rate, double target);

/*
 * The candidates of n model summaries into c[2n]: for model m, c[2m] its
 * baseline arm and c[2m+1] its skill arm (rate from arm.rate; priced,
 * with cost arm.cost_usd, when that is not negative).  Models are
 * borrowed from s.  Returns 2n.
 */
size_t up_select_from_summaries(up_select_cand *c, const up_eval_summary *s,
                                size_t n);

#endif
