/*
 * fake-llm holds: requests kept waiting without a thread each.
 *
 * A reply's delay, a barrier and the pause before a streamed event all
 * suspend the libmicrohttpd connection and leave a fake_hold here.  One
 * timer thread keeps the holds in a binary min-heap ordered by due time,
 * sleeps on a CLOCK_MONOTONIC condition variable until the earliest is
 * due, pops it and calls resume() outside the lock, so the server's one
 * event thread picks the connection up again.  64 requests sleeping
 * 50 ms thus cost one timer wake-up each, not 64 threads to schedule.
 *
 * A barrier is a per-rule list of holds.  The arrival that completes it
 * reschedules every member to "now + its delay"; a member still listed
 * when its timeout comes due leaves the list with timed_out set.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "upskill/alloc.h"

#include "fake.h"

static int64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ---- the heap (slot = index + 1, so 0 means "not queued") ---- */

static void place(struct fake_wait *w, size_t i, struct fake_hold *h)
{
    w->heap[i] = h;
    h->slot = i + 1;
}

static void sift_up(struct fake_wait *w, size_t i)
{
    struct fake_hold *h = w->heap[i];

    while (i && w->heap[(i - 1) / 2]->due > h->due) {
        place(w, i, w->heap[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    place(w, i, h);
}

static void sift_down(struct fake_wait *w, size_t i)
{
    struct fake_hold *h = w->heap[i];

    for (;;) {
        size_t c = 2 * i + 1;

        if (c >= w->n)
            break;
        if (c + 1 < w->n && w->heap[c + 1]->due < w->heap[c]->due)
            c++;
        if (w->heap[c]->due >= h->due)
            break;
        place(w, i, w->heap[c]);
        i = c;
    }
    place(w, i, h);
}

static void unqueue(struct fake_wait *w, struct fake_hold *h)
{
    size_t i = h->slot - 1;
    struct fake_hold *last;

    h->slot = 0;
    if (i == --w->n)
        return;
    last = w->heap[w->n];
    place(w, i, last);
    sift_up(w, i);
    sift_down(w, last->slot - 1);
}

/* Queue (or move) h to fire at due; wakes the thread. Lock held. */
static void schedule(struct fake_wait *w, struct fake_hold *h, int64_t due)
{
    if (h->slot)
        unqueue(w, h);
    h->due = due;
    UP_GROW(w->heap, w->cap, w->n + 1);
    w->heap[w->n++] = h;
    sift_up(w, w->n - 1);
    pthread_cond_signal(&w->cond);
}

/* ---- barriers ---- */

/* Take h off its rule's waiting list: its timeout struck. Lock held. */
static void leave_barrier(struct fake_wait *w, struct fake_hold *h)
{
    struct fake_hold **p = &w->barriers[h->rule];

    while (*p && *p != h)
        p = &(*p)->next;
    if (*p)
        *p = h->next;
    w->waiting[h->rule]--;
    h->waiting = 0;
    h->timed_out = 1;
}

void fake_wait_barrier(struct fake_wait *w, struct fake_hold *h, size_t rule,
                       long count, long timeout_ms, long delay_ms)
{
    int64_t now = now_ns();

    pthread_mutex_lock(&w->lock);
    h->rule = rule;
    h->delay_ms = delay_ms;
    h->timed_out = 0;
    if (++w->waiting[rule] < count) {
        h->waiting = 1;
        h->next = w->barriers[rule];
        w->barriers[rule] = h;
        schedule(w, h, now + (int64_t)timeout_ms * 1000000);
    } else {
        struct fake_hold *m = w->barriers[rule];

        w->barriers[rule] = NULL;
        w->waiting[rule] = 0;
        schedule(w, h, now + (int64_t)delay_ms * 1000000);
        for (; m; m = m->next) {
            m->waiting = 0;
            schedule(w, m, now + (int64_t)m->delay_ms * 1000000);
        }
    }
    pthread_mutex_unlock(&w->lock);
}

void fake_wait_after(struct fake_wait *w, struct fake_hold *h, long ms)
{
    int64_t due = now_ns() + (int64_t)ms * 1000000;

    pthread_mutex_lock(&w->lock);
    schedule(w, h, due);
    pthread_mutex_unlock(&w->lock);
}

/* ---- the timer thread ---- */

/* Pop the earliest hold (lock held, heap not empty). */
static struct fake_hold *pop(struct fake_wait *w)
{
    struct fake_hold *h = w->heap[0];

    unqueue(w, h);
    if (h->waiting)
        leave_barrier(w, h);
    return h;
}

static void sleep_until(struct fake_wait *w, int64_t due)
{
    struct timespec ts = {(time_t)(due / 1000000000), (long)(due % 1000000000)};

    pthread_cond_timedwait(&w->cond, &w->lock, &ts);
}

static void *run(void *arg)
{
    struct fake_wait *w = arg;

    pthread_mutex_lock(&w->lock);
    while (!w->stop) {
        struct fake_hold *h;

        if (!w->n) {
            pthread_cond_wait(&w->cond, &w->lock);
            continue;
        }
        if (w->heap[0]->due > now_ns()) {
            sleep_until(w, w->heap[0]->due);
            continue;
        }
        h = pop(w);
        pthread_mutex_unlock(&w->lock);
        w->resume(w->ctx, h);
        pthread_mutex_lock(&w->lock);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

int fake_wait_start(struct fake_wait *w, size_t nrules,
                    void (*resume)(void *ctx, struct fake_hold *h), void *ctx)
{
    pthread_condattr_t ca;
    int rc;

    memset(w, 0, sizeof(*w));
    pthread_mutex_init(&w->lock, NULL);
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&w->cond, &ca);
    pthread_condattr_destroy(&ca);
    w->barriers = up_xcalloc(nrules + 1, sizeof(*w->barriers));
    w->waiting = up_xcalloc(nrules + 1, sizeof(*w->waiting));
    w->resume = resume;
    w->ctx = ctx;
    rc = pthread_create(&w->thread, NULL, run, w);
    w->running = !rc;
    return rc ? -1 : 0;
}

void fake_wait_stop(struct fake_wait *w)
{
    if (w->running) {
        pthread_mutex_lock(&w->lock);
        w->stop = 1;
        pthread_cond_signal(&w->cond);
        pthread_mutex_unlock(&w->lock);
        pthread_join(w->thread, NULL);
        w->running = 0;
    }
    /* Nothing may stay suspended when the daemon stops. */
    while (w->n)
        w->resume(w->ctx, pop(w));
}

void fake_wait_release(struct fake_wait *w)
{
    free(w->heap);
    free(w->barriers);
    free(w->waiting);
    pthread_mutex_destroy(&w->lock);
    pthread_cond_destroy(&w->cond);
    memset(w, 0, sizeof(*w));
}
