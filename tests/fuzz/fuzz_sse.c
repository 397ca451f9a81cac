/*
 * libFuzzer target: the SSE parser.  The input is split into chunks at
 * positions taken from its first byte, so chunk boundaries vary too; the
 * same events must come out as when fed whole.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/sse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int count(void *ud, const char *event, const char *d, size_t len)
{
    up_buf *log = ud;

    if (d[len] != '\0')
        abort();
    up_buf_addf(log, "%s|%zu|", event, len);
    up_buf_add(log, d, len);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    up_buf whole = UP_BUF_INIT, parts = UP_BUF_INIT;
    size_t step = size ? (size_t)data[0] % 17 + 1 : 1;
    up_sse p;

    up_sse_init(&p, count, &whole);
    up_sse_feed(&p, (const char *)data, size);
    up_sse_release(&p);
    up_sse_init(&p, count, &parts);
    for (size_t i = 0; i < size; i += step)
        up_sse_feed(&p, (const char *)data + i,
                    i + step > size ? size - i : step);
    up_sse_release(&p);
    if (whole.len != parts.len || memcmp(whole.data, parts.data, whole.len))
        abort();
    up_buf_release(&whole);
    up_buf_release(&parts);
    return 0;
}
