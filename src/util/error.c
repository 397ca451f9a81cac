/*
 * Error objects and the mapping from library codes to exit codes.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "upskill/buf.h"
#include "upskill/error.h"
#include "util/utf8.h"

/* msg made valid UTF-8 (a reply's raw bytes may be quoted in it), cut
 * on a character boundary to fit. */
static void fix_utf8(char *msg, size_t size)
{
    up_buf b = UP_BUF_INIT;
    size_t n = strlen(msg), keep;

    if (!up_utf8_bad(msg, n))
        return;
    up_utf8_add(&b, msg, n);
    keep = b.len < size ? b.len : size - 1;
    while (keep && ((unsigned char)b.data[keep] & 0xc0) == 0x80)
        keep--; /* never half a character */
    memcpy(msg, b.data, keep);
    msg[keep] = '\0';
    up_buf_release(&b);
}

int up_error_set(up_error *err, int code, const char *fmt, ...)
{
    va_list ap;

    if (!err)
        return code;
    err->code = code;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
    va_end(ap);
    fix_utf8(err->msg, sizeof(err->msg));
    return code;
}

void up_error_prefix(up_error *err, const char *fmt, ...)
{
    char head[UP_ERROR_MAX];
    char old[UP_ERROR_MAX];
    va_list ap;

    if (!err)
        return;
    va_start(ap, fmt);
    vsnprintf(head, sizeof(head), fmt, ap);
    va_end(ap);
    size_t hn = strlen(head);

    memcpy(old, err->msg, sizeof(old));
    if (hn >= sizeof(err->msg))
        hn = sizeof(err->msg) - 1;
    memcpy(err->msg, head, hn);
    snprintf(err->msg + hn, sizeof(err->msg) - hn, "%.*s",
             (int)(sizeof(err->msg) - hn - 1), old);
    fix_utf8(err->msg, sizeof(err->msg));
}

static up_warn_fn warn_sink;
static void *warn_ud;

void up_warn_set_sink(up_warn_fn fn, void *ud)
{
    warn_sink = fn;
    warn_ud = ud;
}

void up_warn(const char *fmt, ...)
{
    char msg[UP_ERROR_MAX];
    va_list ap;

    if (!warn_sink)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    warn_sink(warn_ud, msg);
}

static const struct {
    int code;
    int exit;
    const char *name;
} codes[] = {
    {UP_OK, 0, "success"},
    {UP_EUSAGE, 2, "usage"},
    {UP_EPARSE, 3, "bad input"},
    {UP_ENOTFOUND, 3, "not found"},
    {UP_EIO, 3, "i/o"},
    {UP_EUNSAFE, 3, "unsafe path"},
    {UP_ETOOBIG, 3, "too big"},
    {UP_EINVALID, 3, "invalid"},
    {UP_EHTTP, 4, "http"},
    {UP_ERATELIMIT, 4, "rate limit"},
    {UP_ETIMEOUT, 4, "timeout"},
    {UP_EAUTH, 4, "auth"},
    {UP_ENETWORK, 4, "network"},
    {UP_ESERVER, 4, "server"},
    {UP_EBADREQ, 4, "bad request"},
    {UP_EINTR, 130, "interrupted"},
    {UP_EGATE, 1, "gate failed"},
    {UP_EAGENT, 1, "agent failed"},
    {UP_ECONTEXT, 4, "the request outgrew the context"},
};

const char *up_strerror(int code)
{
    for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
        if (codes[i].code == code)
            return codes[i].name;
    return "unknown error";
}

int up_exit_code(int code)
{
    for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
        if (codes[i].code == code)
            return codes[i].exit;
    return 3;
}
