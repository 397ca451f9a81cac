/*
 * Server-sent events parser: bytes -> lines -> fields -> events.
 *
 * One field outside the spec is kept: "error: X" (old llama.cpp servers
 * send their in-band errors so) is taken as "event: error" + "data: X".
 *
 * Invariant: p->line holds the bytes of the current line seen so far,
 * without its terminator.  A line is complete at LF or CR; a CR that ends
 * a chunk sets after_cr so that an LF starting the next chunk is taken as
 * the second half of a CRLF rather than a blank line.
 */
#include <string.h>

#include "util/sse.h"

void up_sse_init(up_sse *p, up_sse_fn fn, void *ud)
{
    up_buf_init(&p->line);
    up_buf_init(&p->event);
    up_buf_init(&p->data);
    p->has_data = 0;
    p->after_cr = 0;
    p->fn = fn;
    p->ud = ud;
}

void up_sse_release(up_sse *p)
{
    up_buf_release(&p->line);
    up_buf_release(&p->event);
    up_buf_release(&p->data);
    p->has_data = 0;
    p->after_cr = 0;
}

void up_sse_reset(up_sse *p)
{
    up_buf_reset(&p->line);
    up_buf_reset(&p->event);
    up_buf_reset(&p->data);
    p->has_data = 0;
    p->after_cr = 0;
}

/* A blank line: hand the event over, then start a new one. */
static int dispatch(up_sse *p)
{
    int rc = 0;

    if (p->has_data) {
        if (p->data.len && p->data.data[p->data.len - 1] == '\n')
            up_buf_truncate(&p->data, p->data.len - 1);
        rc = p->fn(p->ud, p->event.len ? p->event.data : "message",
                   p->data.data, p->data.len);
    }
    up_buf_reset(&p->event);
    up_buf_reset(&p->data);
    p->has_data = 0;
    return rc;
}

/* One complete line: a field, a comment or the blank dispatching line. */
static int take_line(up_sse *p)
{
    const char *s = p->line.data;
    size_t n = p->line.len;
    const char *colon = memchr(s, ':', n);
    size_t name = colon ? (size_t)(colon - s) : n;
    const char *val = colon ? colon + 1 : s + n;
    size_t vn = n - (size_t)(val - s);

    if (n == 0)
        return dispatch(p);
    if (name == 0)
        return 0; /* comment */
    if (vn && *val == ' ') {
        val++;
        vn--;
    }
    if (name == 4 && memcmp(s, "data", 4) == 0) {
        up_buf_add(&p->data, val, vn);
        up_buf_addc(&p->data, '\n');
        p->has_data = 1;
    } else if (name == 5 && memcmp(s, "event", 5) == 0) {
        up_buf_reset(&p->event);
        up_buf_add(&p->event, val, vn);
    } else if (name == 5 && memcmp(s, "error", 5) == 0) {
        /* llama.cpp before late 2025: "error: {json}", a field no spec
           knows; dropped, an error would pass as an empty answer */
        up_buf_reset(&p->event);
        up_buf_adds(&p->event, "error");
        up_buf_add(&p->data, val, vn);
        up_buf_addc(&p->data, '\n');
        p->has_data = 1;
    }
    return 0;
}

int up_sse_feed(up_sse *p, const char *bytes, size_t len)
{
    size_t i = 0;
    int rc = 0;

    if (len && p->after_cr && bytes[0] == '\n')
        i = 1;
    p->after_cr = 0;
    while (i < len && rc == 0) {
        const char *end = bytes + i;
        size_t k = 0;

        while (i + k < len && end[k] != '\n' && end[k] != '\r')
            k++;
        up_buf_add(&p->line, end, k);
        i += k;
        if (i == len)
            break;
        if (bytes[i] == '\r') {
            if (i + 1 == len)
                p->after_cr = 1;
            else if (bytes[i + 1] == '\n')
                i++;
        }
        i++;
        rc = take_line(p);
        up_buf_reset(&p->line);
    }
    return rc;
}
