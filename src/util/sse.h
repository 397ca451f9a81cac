/*
 * A push parser for server-sent events (WHATWG event-stream rules).
 *
 * Bytes arrive in arbitrary chunks (a curl write callback); the parser
 * keeps the unfinished line across calls, so an event may be split at any
 * byte, even between the CR and LF of a CRLF.  Lines end at LF, CRLF or
 * CR; a blank line dispatches the event; "event:" names it, "data:" lines
 * are joined with LF; one space after the colon is dropped; lines starting
 * with ':' are comments (pings) and ignored, as are unknown fields, except
 * "error:", which llama.cpp used for in-band errors before late 2025: it
 * names the event "error" and adds its value as a data line.  An
 * event with no data line is not dispatched.  An unfinished event at the
 * end of the stream is dropped, as the spec says.
 */
#ifndef UPSKILL_SSE_H
#define UPSKILL_SSE_H

#include <stddef.h>

#include "upskill/buf.h"

/*
 * Called once per event.  event is "message" when the stream named none;
 * data is NUL-terminated (len excludes the NUL).  Return 0 to go on;
 * anything else stops the parse and is returned by up_sse_feed.
 */
typedef int (*up_sse_fn)(void *ud, const char *event, const char *data,
                         size_t len);

typedef struct up_sse {
    up_buf line;  /* the current, unfinished line */
    up_buf event; /* the event name of the event being built */
    up_buf data;  /* its data lines, joined with LF, trailing LF kept */
    int has_data; /* a data line was seen for this event */
    int after_cr; /* the previous chunk ended with CR: skip a leading LF */
    up_sse_fn fn; /* the event callback */
    void *ud;     /* passed to fn */
} up_sse;

/* Set up p to call fn(ud, ...) for each event. */
void up_sse_init(up_sse *p, up_sse_fn fn, void *ud);

/* Free p's buffers; p may be initialised again. */
void up_sse_release(up_sse *p);

/* Forget any partial line or event (a new attempt starts). */
void up_sse_reset(up_sse *p);

/*
 * Feed len bytes.  Returns 0, or the first nonzero value a callback
 * returned (the rest of the chunk is then not parsed).
 */
int up_sse_feed(up_sse *p, const char *bytes, size_t len);

#endif
