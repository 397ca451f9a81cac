/*
 * Running many conversations at once: the primitive under eval and
 * benchmark.
 *
 * One thread drives one HTTP client (one curl multi handle: connections
 * are shared, within a run and from run to run); at most `jobs` conversations
 * are in flight.  On a 429 the limit halves (floor 1, at most once per round of
 * requests) and grows back by one after grow_after successes.  Backoff waits
 * are timers, not sleeps, so other jobs keep going while one waits.
 */
#ifndef UPSKILL_SCHED_H
#define UPSKILL_SCHED_H

#include <signal.h>
#include <stddef.h>

#include "upskill/http.h"
#include "upskill/provider.h"

/*
 * One conversation.  ep, rq and ud are borrowed and must live until done
 * returns.  done(ud, index, res) is called exactly once per job, on the
 * thread running up_sched_run; res is released after it returns, so take
 * what you keep (e.g. set res->text to NULL after stealing it).
 */
typedef struct up_job {
    const up_endpoint *ep;
    const up_request *rq;
    void (*done)(void *ud, size_t index, up_response *res);
    void *ud;
    /*
     * Multi-turn jobs (agent mode), or NULL.  When set, next(ud, index,
     * NULL) is called as the job starts when rq is NULL and must return
     * its first request; then after every answered turn (code 0)
     * next(ud, index, res) is called with that turn's reply (latency_ms:
     * the turn's; take what you keep, as in done) and returns the next
     * request of the same conversation, or NULL when the conversation is
     * over (done follows with the last turn's res; its attempts and turns
     * counted over all turns, latency_ms from the job's start).  The next
     * turn keeps the job's slot and deadline (job_timeout_ms covers every
     * turn).  The request returned is borrowed until the following call.
     * next runs on the event thread: it must not block.  A turn whose
     * work is slow (the sandboxed `run` tool) returns UP_JOB_PARKED: the
     * job then sends nothing and its slot stays taken; on every round of
     * the loop wait (below) gives the fds to poll beside the HTTP
     * transfers, and after the poll next(ud, index, NULL) is called
     * again and returns the request, NULL (over) or UP_JOB_PARKED.  So a
     * 30-second command in one conversation holds only that one.  A job
     * may park from its first call (a process that is the whole job: a
     * coding-agent CLI) and never send a request.  res is the job's one
     * response object: the same address in every call and in done.
     */
    const up_request *(*next)(void *ud, size_t index, up_response *res);
    /*
     * A parked job's fds (at most max, UP_JOB_MAX_FDS, into fds; their
     * count returned; an fd or'ed with UP_FD_WRITE waits to be writable)
     * and in *timeout_ms the most the loop may wait before calling next
     * again.  NULL: no job of this kind parks.  A request next returns
     * may be a relayed one (up_request.raw: a coding-agent CLI's through
     * its proxy): it is sent as it is, retried like any, and its reply
     * comes back unparsed in res's raw_* fields.
     */
    int (*wait)(void *ud, size_t index, int *fds, int max, int *timeout_ms);
} up_job;

/* The most fds one parked job waits on: a process's 3 pipes, a
 * proxy's listening socket and its connections. */
#define UP_JOB_MAX_FDS 24

/* What next returns while its conversation's slow work runs. */
extern const up_request up_job_parked;
#define UP_JOB_PARKED (&up_job_parked)

/*
 * The circuit breaker: one per run of jobs (or shared by the caller
 * across runs), one state per endpoint (the up_endpoint pointer).  Every
 * HTTP attempt is noted: a transport failure (refused, reset, DNS), a
 * timeout, a refused key (401/403) or an unknown model or path (404)
 * adds one to the endpoint's count; any other answer (a 2xx, a 429, a
 * 500, a 400) sets it back to 0, since the server is there and this
 * request may be what it disliked.  At `threshold` in a row the
 * endpoint trips for the rest of the run: its jobs in flight are
 * cancelled and its jobs not started end without a request, all with
 * the breaker's error.
 */
typedef struct up_breaker_ep {
    const void *ep; /* the endpoint, as a key */
    int fails;      /* failed attempts in a row */
    int tripped;    /* 1: no more requests to ep */
    up_error why;   /* the error its jobs end with once tripped */
} up_breaker_ep;

typedef struct up_breaker {
    int threshold; /* failed attempts in a row that trip an endpoint */
    up_breaker_ep *v;
    size_t n, cap;
} up_breaker;

/* The default threshold for jobs in flight: jobs, clamped to 3..8. */
int up_breaker_threshold(int jobs);

/* An empty breaker; threshold 0 means up_breaker_threshold(4). */
void up_breaker_init(up_breaker *b, int threshold);
void up_breaker_release(up_breaker *b);

/*
 * Note one attempt to ep that ended with code (0 or UP_E*) and HTTP
 * status (0: none arrived); target (the URL without secrets) and why
 * (the short reason, may be NULL) make the message.  Returns 1 when this
 * attempt trips the endpoint, else 0.
 */
int up_breaker_note(up_breaker *b, const void *ep, int code, long status,
                    const char *target, const char *why);

/* The error of ep's tripped breaker, or NULL while requests may go. */
const up_error *up_breaker_tripped(const up_breaker *b, const void *ep);

/* What a caller hears when the run has waited long without an answer. */
typedef struct up_sched_wait {
    long waited_ms;   /* since the last job got its answer (or start) */
    size_t in_flight; /* jobs started and not ended */
    size_t failed;    /* jobs that ended with an error so far */
    const char *last; /* the last failed attempt's reason, or NULL */
    long retry_in_ms; /* its wait before the next try, -1 for none */
    int stopping;     /* 1: the stop flag was just raised (said once) */
} up_sched_wait;

typedef struct up_sched_opts {
    int jobs;            /* most jobs in flight (-j); 0: 4 */
    int grow_after;      /* successes before the limit grows by 1; 0: 8 */
    long job_timeout_ms; /* per job, all turns and retries; 0: none */
    /*
     * Optional stop flag, e.g. bumped by a SIGINT handler: 1 starts no
     * new job and lets running ones end their turn in flight (a multi-
     * turn job sends no further request: it ends with UP_EINTR at its
     * next turn boundary), and calls waiting once with stopping set;
     * cancel_at or more also cancels the running ones.  Jobs that never ran or
     * were cancelled end with UP_EINTR.  cancel_at 0 means 2 (a second Ctrl-C);
     * 1 suits callers that would keep no work of a job cut short.
     */
    volatile sig_atomic_t *stop;
    int cancel_at;
    up_http_log_fn log; /* sees every HTTP attempt; may be NULL */
    void *log_ud;
    /*
     * The breaker, borrowed, to share its state across runs (a re-run of
     * failed jobs must not knock again on a dead endpoint); NULL: one for
     * this run with up_breaker_threshold(jobs).
     */
    up_breaker *breaker;
    /*
     * Called when no job has got its answer for wait_every_ms (0: 10 s),
     * then again every wait_every_ms while that lasts (retries, rate
     * limits, a silent server); may be NULL.
     */
    void (*waiting)(void *ud, const up_sched_wait *w);
    void *waiting_ud;
    long wait_every_ms;
    /*
     * Called with a warning about an endpoint the run should not keep
     * quiet about (a prompt the server seems to have cut: once per
     * endpoint per process); may be NULL.
     */
    void (*warn)(void *ud, const char *msg);
    void *warn_ud;
} up_sched_opts;

typedef struct up_sched_stats {
    size_t ok;       /* jobs that ended with code 0 */
    size_t failed;   /* jobs that ended with another code */
    size_t stopped;  /* jobs that ended with UP_EINTR */
    size_t broken;   /* of failed: ended by a tripped breaker */
    int min_limit;   /* lowest concurrency the 429s pushed it to */
    long elapsed_ms; /* wall time of the run */
    size_t timeouts; /* waits that ended at their timeout (the 100 ms tick,
                        a job's or a retry's), no fd or socket ready */
} up_sched_stats;

/* Fill o with defaults. */
void up_sched_opts_init(up_sched_opts *o);

/*
 * The command's loop: every run of jobs on a thread drives the same HTTP
 * client (one curl multi handle, its connection and DNS caches), built by
 * the first run and kept, so serial one-job calls (generate's teacher
 * turns, models, the sandbox's waits) reuse their connections.  A run
 * started from inside another run's callback gets a private client.
 * up_loop_release frees the loop's client (the command's end; a later run
 * builds a new one); up_loop_clients counts the clients built so far, the
 * loop's and private ones.
 */
/*
 * up_provider_complete (provider.h) with the caller's scheduler options
 * (opts: stop, log, waiting and wait_every_ms: a caller's note of the
 * time a long call takes comes from the loop, not a thread of its own);
 * jobs and cancel_at are the one call's.  Errors as up_provider_complete.
 */
int up_provider_complete_with(const up_endpoint *ep, const up_request *rq,
                              const up_sched_opts *opts, up_response *out);

void up_loop_release(void);
size_t up_loop_clients(void);

/*
 * Run the n jobs: up_sched_run_src over the array, job i getting index
 * i.  Returns 0 when all ran (each job's own outcome is in its
 * callback), UP_EINTR when the stop flag ended the run early, or
 * UP_ENETWORK when curl could not be set up (then no callback was
 * called).  stats may be NULL.
 */
int up_sched_run(const up_job *jobs, size_t n, const up_sched_opts *o,
                 up_sched_stats *stats, up_error *err);

/*
 * Where up_sched_run_src takes its jobs: fill *job (zeroed) with the
 * next one and return 1, or return 0 when there is none left (the
 * source is not asked again).  It is asked only when a job may start
 * (fewer than the limit in flight), so what a job borrows (ep, rq, ud)
 * can live in a few slots the caller reuses as jobs end: each must stay
 * as it was until that job's done callback returns.  Once the stop flag
 * is up, or for an endpoint whose breaker tripped, the jobs it gives
 * still each get done, at once and exactly once, with UP_EINTR or the
 * breaker's error (so at most o->jobs + 1 jobs are out at a time; o->jobs
 * 0 means 4).
 */
typedef int (*up_sched_source)(void *ud, up_job *job);

/* What a source returns when it has jobs left but none may start while
 * the jobs in flight run (a cap per kind of job): it is asked again
 * after the next round.  With no job in flight it means "none left". */
#define UP_SCHED_LATER 2

/*
 * Run the jobs src gives, in that order, each job's index being its
 * place in that order (0, 1, ...), with at most o->jobs in flight.  The
 * memory it takes grows with o->jobs, not with the number of jobs.
 * Returns as up_sched_run.
 */
int up_sched_run_src(up_sched_source src, void *src_ud, const up_sched_opts *o,
                     up_sched_stats *stats, up_error *err);

/*
 * Run one prebuilt HTTP request (the GET of an endpoint's model list) as
 * a job of the command's loop, sent as it is: ep's breaker notes its
 * attempts, stop (may be NULL) ends it as one call (the first raise
 * cancels), and res (initialized here, released by the caller) gets the
 * transfer's result, or the stop's or the breaker's error when it never
 * went out.  Returns res->code.
 */
int up_sched_http(const up_endpoint *ep, const up_http_request *rq,
                  volatile sig_atomic_t *stop, up_http_result *res);

#endif
