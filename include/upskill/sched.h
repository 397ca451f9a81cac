/*
 * Running many conversations at once: the primitive under eval and
 * benchmark.
 *
 * One thread drives one HTTP client (one curl multi handle: connections
 * are shared); at most `jobs` conversations are in flight.  On a 429 the
 * limit halves (floor 1, at most once per round of requests) and grows
 * back by one after grow_after successes.  Backoff waits are timers, not
 * sleeps, so other jobs keep going while one waits.
 */
#ifndef UPSKILL_SCHED_H
#define UPSKILL_SCHED_H

#include <signal.h>
#include <stddef.h>

#include "upskill/http.h"
#include "upskill/provider.h"

/*
 * One conversation.  ep and rq are borrowed and must live until done is
 * called.  done(ud, index, res) is called exactly once per job, on the
 * thread running up_sched_run; res is released after it returns, so take
 * what you keep (e.g. set res->text to NULL after stealing it).
 */
typedef struct up_job {
    const up_endpoint *ep;
    const up_request *rq;
    void (*done)(void *ud, size_t index, up_response *res);
    void *ud;
} up_job;

typedef struct up_sched_opts {
    int jobs;            /* most jobs in flight (-j); 0: 4 */
    int grow_after;      /* successes before the limit grows by 1; 0: 8 */
    long job_timeout_ms; /* per job, all turns and retries; 0: none */
    /*
     * Optional stop flag, e.g. bumped by a SIGINT handler: 1 starts no
     * new job and lets running ones end; cancel_at or more also cancels
     * the running ones.  Jobs that never ran or were cancelled end with
     * UP_EINTR.  cancel_at 0 means 2 (a second Ctrl-C); 1 suits callers
     * that would keep no work of a job cut short.
     */
    volatile sig_atomic_t *stop;
    int cancel_at;
    up_http_log_fn log; /* sees every HTTP attempt; may be NULL */
    void *log_ud;
} up_sched_opts;

typedef struct up_sched_stats {
    size_t ok;       /* jobs that ended with code 0 */
    size_t failed;   /* jobs that ended with another code */
    size_t stopped;  /* jobs that ended with UP_EINTR */
    int min_limit;   /* lowest concurrency the 429s pushed it to */
    long elapsed_ms; /* wall time of the run */
} up_sched_stats;

/* Fill o with defaults. */
void up_sched_opts_init(up_sched_opts *o);

/*
 * Run the n jobs.  Returns 0 when all ran (each job's own outcome is in
 * its callback), UP_EINTR when the stop flag ended the run early, or
 * UP_ENETWORK when curl could not be set up.  stats may be NULL.
 */
int up_sched_run(const up_job *jobs, size_t n, const up_sched_opts *o,
                 up_sched_stats *stats, up_error *err);

#endif
