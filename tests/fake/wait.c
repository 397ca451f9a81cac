/*
 * fake-llm holds: requests kept waiting without a thread each.
 *
 * A reply's delay, a barrier and the pause before a streamed event all
 * suspend the libmicrohttpd connection and leave a fake_hold here, in a
 * binary min-heap ordered by due time.  The server's one event thread
 * sleeps in ppoll() no longer than the earliest hold and resumes what is
 * due (server.c), so 64 requests sleeping 50 ms cost one wake-up each,
 * not 64 threads to schedule.  Everything runs on that thread: no lock.
 *
 * Holds count from the loop's clock (fake_wait_tick, read when ppoll
 * returns), not from the moment a handler runs: a burst of 64 requests
 * takes the server a few milliseconds to parse and answer, and that
 * queueing must not be added to each reply's delay_ms.
 *
 * A barrier is a per-rule list of holds.  The arrival that completes it
 * reschedules every member to "now + its delay"; a member still listed
 * when its timeout comes due leaves the list with timed_out set.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "upskill/alloc.h"

#include "fake.h"

int64_t fake_now_ns(void)
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

/* Queue (or move) h to fire at due. */
static void schedule(struct fake_wait *w, struct fake_hold *h, int64_t due)
{
    if (h->slot)
        unqueue(w, h);
    h->due = due;
    UP_GROW(w->heap, w->cap, w->n + 1);
    w->heap[w->n++] = h;
    sift_up(w, w->n - 1);
}

/* ---- barriers ---- */

/* Take h off its rule's waiting list: its timeout struck. */
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
    int64_t now = w->now;

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
}

void fake_wait_after(struct fake_wait *w, struct fake_hold *h, long ms)
{
    schedule(w, h, w->now + (int64_t)ms * 1000000);
}

/* ---- taking holds off ---- */

/* Pop the earliest hold (heap not empty). */
static struct fake_hold *pop(struct fake_wait *w)
{
    struct fake_hold *h = w->heap[0];

    unqueue(w, h);
    if (h->waiting)
        leave_barrier(w, h);
    return h;
}

void fake_wait_tick(struct fake_wait *w)
{
    w->now = fake_now_ns();
}

struct fake_hold *fake_wait_due(struct fake_wait *w)
{
    return w->n && w->heap[0]->due <= fake_now_ns() ? pop(w) : NULL;
}

struct fake_hold *fake_wait_any(struct fake_wait *w)
{
    return w->n ? pop(w) : NULL;
}

int64_t fake_wait_next_ns(const struct fake_wait *w)
{
    int64_t left;

    if (!w->n)
        return -1;
    left = w->heap[0]->due - fake_now_ns();
    return left > 0 ? left : 0;
}

void fake_wait_init(struct fake_wait *w, size_t nrules)
{
    memset(w, 0, sizeof(*w));
    fake_wait_tick(w);
    w->barriers = up_xcalloc(nrules + 1, sizeof(*w->barriers));
    w->waiting = up_xcalloc(nrules + 1, sizeof(*w->waiting));
}

void fake_wait_release(struct fake_wait *w)
{
    free(w->heap);
    free(w->barriers);
    free(w->waiting);
    memset(w, 0, sizeof(*w));
}
