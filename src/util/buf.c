/*
 * up_buf: a growable NUL-terminated byte string (after git's strbuf).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "upskill/alloc.h"
#include "upskill/buf.h"

char up_buf_empty[1];

void up_buf_init(up_buf *b)
{
    b->data = up_buf_empty;
    b->len = 0;
    b->cap = 0;
}

void up_buf_release(up_buf *b)
{
    if (b->cap)
        free(b->data);
    up_buf_init(b);
}

void up_buf_reset(up_buf *b)
{
    up_buf_truncate(b, 0);
}

void up_buf_grow(up_buf *b, size_t extra)
{
    size_t need = b->len + extra + 1;
    size_t cap = b->cap ? b->cap : 64;

    if (need <= b->cap)
        return;
    while (cap < need)
        cap *= 2;
    if (b->cap) {
        b->data = up_xrealloc(b->data, cap);
    } else {
        b->data = up_xmalloc(cap);
        b->data[0] = '\0';
    }
    b->cap = cap;
}

void up_buf_add(up_buf *b, const void *data, size_t len)
{
    if (!len)
        return;
    up_buf_grow(b, len);
    memmove(b->data + b->len, data, len);
    b->len += len;
    b->data[b->len] = '\0';
}

void up_buf_adds(up_buf *b, const char *s)
{
    up_buf_add(b, s, strlen(s));
}

void up_buf_addc(up_buf *b, char c)
{
    up_buf_add(b, &c, 1);
}

void up_buf_vaddf(up_buf *b, const char *fmt, va_list ap)
{
    va_list cp;
    int n;

    va_copy(cp, ap);
    n = vsnprintf(b->data + b->len, b->cap ? b->cap - b->len : 0, fmt, cp);
    va_end(cp);
    if (n < 0)
        return;
    if (b->len + (size_t)n + 1 > b->cap) {
        up_buf_grow(b, (size_t)n);
        n = vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap);
    }
    b->len += (size_t)n;
}

void up_buf_addf(up_buf *b, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    up_buf_vaddf(b, fmt, ap);
    va_end(ap);
}

void up_buf_truncate(up_buf *b, size_t len)
{
    if (len >= b->len)
        return;
    b->len = len;
    b->data[len] = '\0';
}

void up_buf_rtrim(up_buf *b)
{
    size_t n = b->len;

    while (n && isspace((unsigned char)b->data[n - 1]))
        n--;
    up_buf_truncate(b, n);
}

char *up_buf_detach(up_buf *b)
{
    char *p = b->cap ? b->data : up_xstrdup("");

    up_buf_init(b);
    return p;
}

int up_strptr_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}
