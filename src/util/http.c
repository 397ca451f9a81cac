/*
 * HTTP transport: the retry policy (pure functions), error-body reading,
 * and an async client on one curl multi handle.
 *
 * Design: a transfer (up_http_xfer) owns one easy handle for its whole
 * life and is re-added to the multi handle for each attempt, so all
 * attempts of all transfers share the multi handle's connection cache.
 * Between attempts a transfer sits "waiting" with a due time; up_http_run
 * wakes for the nearest due time or curl's own timer, whichever is first,
 * so backoff never blocks other transfers.  curl is driven through its
 * socket interface: it names the sockets to watch (on_socket), an epoll
 * set holds them, and only the transfers whose sockets are ready, or
 * whose timers are due, are visited -- curl_multi_perform would visit
 * (and poll) every transfer on each pass.  All callbacks run on the
 * thread that calls up_http_run.  The server's wait hint is retry-after-ms
 * or retry-after; a 429 without either falls back to the rate-limit
 * reset headers the request names (the providers know which: Anthropic's
 * anthropic-ratelimit-*-reset times, OpenAI's x-ratelimit-reset-*
 * durations), collected with the other headers.  Which key prefixes to
 * scrub from error text is the request's word too.
 * A streaming request's 2xx body goes to the caller's sink whatever its
 * content type: the sink tells events from a whole JSON reply.
 *
 * Secrets: request headers go into the curl_slist and nowhere else.
 * Values of authorization-like headers are remembered only to scrub them
 * out of error messages built from response bodies, and are wiped when
 * the transfer ends.  CURLOPT_VERBOSE is never set.
 */
#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <unistd.h>
#include <time.h>

#include "upskill/alloc.h"
#include "upskill/http.h"
#include "upskill/version.h"
#include "util/curl_dl.h"

#define DEF_CONNECT_MS    10000L
#define DEF_TOTAL_MS      600000L
#define DEF_IDLE_MS       300000L
#define DEF_FIRST_BYTE_MS 45000L
#define DEF_MAX_RESPONSE  (32u * 1024u * 1024u)
#define RAW_MSG_MAX       200

/* ---- retry policy ----------------------------------------------------- */

void up_http_policy_default(up_http_policy *p)
{
    p->max_retries = 2;
    p->base_delay_ms = 500;
    p->max_delay_ms = 8000;
    p->max_retry_after_ms = 60000;
}

int up_http_retryable(long status, int transport_retryable,
                      const char *x_should_retry)
{
    if (x_should_retry && strcasecmp(x_should_retry, "true") == 0)
        return 1;
    if (x_should_retry && strcasecmp(x_should_retry, "false") == 0)
        return 0;
    if (status == 0)
        return transport_retryable != 0;
    return status == 408 || status == 409 || status == 429 || status >= 500;
}

/* A whole-string non-negative decimal number, or -1. */
static double parse_number(const char *s)
{
    char *end;
    double v;

    while (isspace((unsigned char)*s))
        s++;
    if (!*s)
        return -1;
    v = strtod(s, &end);
    while (isspace((unsigned char)*end))
        end++;
    if (*end || !isfinite(v) || v <= 0)
        return -1;
    return v;
}

static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";

/*
 * Seconds from now to an IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT"),
 * or -1.  Parsed by hand: strptime's %a and %b follow the locale.
 */
static double parse_http_date(const char *s, time_t now)
{
    char wd[4], mon[4], tz[4];
    struct tm tm;
    const char *m;
    int n = 0;

    memset(&tm, 0, sizeof(tm));
    if (sscanf(s, "%3[A-Za-z], %d %3s %d %d:%d:%d %3s%n", wd, &tm.tm_mday, mon,
               &tm.tm_year, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, tz, &n) != 8 ||
        s[n] || strcmp(tz, "GMT") != 0 || strlen(mon) != 3)
        return -1;
    m = strstr(months, mon);
    if (!m || (m - months) % 3)
        return -1;
    tm.tm_mon = (int)(m - months) / 3;
    tm.tm_year -= 1900;
    return difftime(timegm(&tm), now);
}

long up_http_retry_hint_ms(const char *retry_after_ms, const char *retry_after,
                           time_t now)
{
    double v;

    if (retry_after_ms && (v = parse_number(retry_after_ms)) > 0)
        return v > 1e9 ? 1000000000L : (long)v;
    if (!retry_after)
        return -1;
    if ((v = parse_number(retry_after)) > 0)
        return v > 1e6 ? 1000000000L : (long)(v * 1000);
    v = parse_http_date(retry_after, now);
    if (v <= 0)
        return -1;
    return v > 1e6 ? 1000000000L : (long)(v * 1000);
}

/* Whole digits at *p (advanced), exactly want of them, or -1. */
static int digits(const char **p, int want)
{
    int v = 0;

    for (int i = 0; i < want; i++, (*p)++) {
        if (!isdigit((unsigned char)**p))
            return -1;
        v = v * 10 + (**p - '0');
    }
    return v;
}

/* Seconds east of UTC for "Z" or "+hh:mm" / "-hh:mm" ending s, or -1e9. */
static double utc_offset(const char *s)
{
    int sign = *s == '-' ? -1 : 1, h, m;

    if ((*s == 'Z' || *s == 'z') && !s[1])
        return 0;
    if (*s != '+' && *s != '-')
        return -1e9;
    s++;
    if ((h = digits(&s, 2)) < 0 || *s++ != ':' || (m = digits(&s, 2)) < 0 ||
        *s || h > 23 || m > 59)
        return -1e9;
    return sign * (h * 3600.0 + m * 60.0);
}

/* The date and time fields of an RFC 3339 time at *s (advanced), or -1. */
static int date_fields(const char **s, int f[6])
{
    static const char seps[] = "--T::";

    for (int i = 0; i < 6; i++) {
        char c;

        if ((f[i] = digits(s, i ? 2 : 4)) < 0)
            return -1;
        if (i == 5)
            break;
        c = *(*s)++;
        if (seps[i] == 'T' ? !strchr("Tt ", c) || !c : c != seps[i])
            return -1;
    }
    return f[1] >= 1 && f[1] <= 12 && f[2] >= 1 && f[2] <= 31 && f[3] <= 23 &&
                   f[4] <= 59 && f[5] <= 60
               ? 0
               : -1;
}

/*
 * Seconds since the epoch of an RFC 3339 date-time
 * ("2025-08-21T12:40:59.25+02:00"), or -1 when malformed.
 */
static double parse_rfc3339(const char *s)
{
    int f[6];
    double frac = 0, scale = 0.1, off;
    struct tm tm;

    if (date_fields(&s, f))
        return -1;
    if (*s == '.' && !isdigit((unsigned char)*++s))
        return -1;
    for (; isdigit((unsigned char)*s); s++, scale /= 10)
        frac += (*s - '0') * scale;
    if ((off = utc_offset(s)) < -1e8)
        return -1;
    memset(&tm, 0, sizeof(tm));
    tm.tm_year = f[0] - 1900;
    tm.tm_mon = f[1] - 1;
    tm.tm_mday = f[2];
    tm.tm_hour = f[3];
    tm.tm_min = f[4];
    tm.tm_sec = f[5];
    return (double)timegm(&tm) + frac - off;
}

/*
 * Seconds in a Go-style duration as OpenAI's x-ratelimit-reset-* give
 * them ("20ms", "1s", "6m0s", "1h2m3.5s"), or -1 when malformed.
 */
static double parse_duration(const char *s)
{
    static const struct {
        const char *unit;
        double secs;
    } units[] = {{"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9},
                 {"h", 3600},  {"m", 60},    {"s", 1}};
    double total = 0;

    if (!*s)
        return -1;
    while (*s) {
        char *end;
        double v = strtod(s, &end);
        size_t i = 0, n = 0;

        if (end == s || !(v >= 0) || !isdigit((unsigned char)*s))
            return -1;
        for (; i < sizeof(units) / sizeof(*units); i++)
            if (!strncmp(end, units[i].unit, n = strlen(units[i].unit)))
                break;
        if (i == sizeof(units) / sizeof(*units))
            return -1;
        total += v * units[i].secs;
        s = end + n;
    }
    return total;
}

/* A reset as seconds since the epoch: an RFC 3339 time, or a duration
 * from now; -1 when it is neither. */
static double parse_reset(const char *s, time_t now)
{
    double d = parse_rfc3339(s);

    if (d >= 0)
        return d;
    d = parse_duration(s);
    return d < 0 ? -1 : (double)now + d;
}

/* 1 when an -remaining header says its limit is used up. */
static int used_up(const char *remaining)
{
    return remaining && strcmp(remaining, "0") == 0;
}

long up_http_reset_hint_ms(const char *const remaining[],
                           const char *const reset[], size_t n, time_t now)
{
    int out = 0;
    double pick = -1, t;

    for (size_t i = 0; i < n; i++)
        out |= used_up(remaining[i]) && reset[i] &&
               parse_reset(reset[i], now) >= 0;
    for (size_t i = 0; i < n; i++) {
        if (!reset[i] || (t = parse_reset(reset[i], now)) < 0 ||
            (out && !used_up(remaining[i])))
            continue;
        if (pick < 0 || (out ? t > pick : t < pick))
            pick = t;
    }
    t = (pick - (double)now) * 1000;
    if (pick < 0 || t < 1)
        return -1;
    return t > 1e9 ? 1000000000L : (long)(t + 0.5); /* 20ms is 19.99... */
}

long up_http_retry_delay_ms(const up_http_policy *p, int n, long hint_ms,
                            double rand01)
{
    double d = (double)p->base_delay_ms;

    if (hint_ms > p->max_retry_after_ms)
        return -1;
    if (hint_ms > 0)
        return hint_ms;
    for (int i = 0; i < n && d < (double)p->max_delay_ms; i++)
        d *= 2;
    if (d > (double)p->max_delay_ms)
        d = (double)p->max_delay_ms;
    return (long)(d * (1.0 - 0.25 * rand01));
}

static const struct {
    long status;
    int code;
} status_codes[] = {
    {400, UP_EBADREQ}, {401, UP_EAUTH},      {403, UP_EAUTH},
    {404, UP_EBADREQ}, {408, UP_ETIMEOUT},   {413, UP_EBADREQ},
    {422, UP_EBADREQ}, {429, UP_ERATELIMIT},
};

int up_http_status_code(long status)
{
    if (status >= 200 && status < 300)
        return 0;
    for (size_t i = 0; i < sizeof(status_codes) / sizeof(*status_codes); i++)
        if (status_codes[i].status == status)
            return status_codes[i].code;
    return status >= 500 ? UP_ESERVER : UP_EHTTP;
}

/*
 * What servers say when a request outgrew the model's context, lowercase.
 * A 413 needs no words: the server refused the request for its size.
 */
static const char *const context_words[] = {
    "context length",          /* OpenAI, vLLM "maximum context length";
                                  Ollama "exceeds the context length" */
    "context_length_exceeded", /* OpenAI's error code */
    "context size",            /* llama.cpp "exceeds the available context
                                  size, try increasing it" */
    "exceed_context_size",     /* llama.cpp's error type */
    "context window",          /* "exceeds the context window" */
    "prompt is too long",      /* Anthropic */
    "prompt too long",         /* Ollama's older servers */
    "input token count",       /* Gemini "the input token count exceeds" */
};

/* How much of an error body is searched for context_words. */
#define CONTEXT_SCAN 65536

int up_http_context_overflow(long status, const char *body, size_t len)
{
    up_buf low = UP_BUF_INIT;
    int hit = 0;

    if (status == 413)
        return 1;
    if (status != 400 && status != 422 && status != 0)
        return 0;
    for (size_t i = 0; body && i < len && i < CONTEXT_SCAN; i++)
        up_buf_addc(&low, (char)tolower((unsigned char)body[i]));
    for (size_t i = 0;
         low.len && !hit && i < sizeof(context_words) / sizeof(*context_words);
         i++)
        hit = strstr(low.data, context_words[i]) != NULL;
    up_buf_release(&low);
    return hit;
}

/* ---- error bodies ----------------------------------------------------- */

#define ELLIPSIS "\xe2\x80\xa6" /* U+2026, as UTF-8 */

/*
 * Length of a key's body at s: letters, digits, '-' and '_', plus the
 * '*' and U+2026 of a masked key as error bodies quote it
 * ("sk-proj-PL****...abcd"); *masked is set when one of those is seen.
 */
static size_t key_body(const char *s, int *masked)
{
    size_t n = 0;

    for (;;) {
        if (isalnum((unsigned char)s[n]) || s[n] == '-' || s[n] == '_') {
            n++;
        } else if (s[n] == '*') {
            n++;
            *masked = 1;
        } else if (strncmp(s + n, ELLIPSIS, 3) == 0) {
            n += 3;
            *masked = 1;
        } else {
            return n;
        }
    }
}

/*
 * Length of a key-looking token at s (a known prefix and 8+ more, or 2+
 * more when masked), or 0.
 */
static size_t key_at(const char *s, const char *const *key_prefixes)
{
    for (size_t i = 0; key_prefixes && key_prefixes[i]; i++) {
        size_t pn = strlen(key_prefixes[i]);
        int masked = 0;
        size_t n;

        if (strncmp(s, key_prefixes[i], pn) != 0)
            continue;
        n = key_body(s + pn, &masked);
        if (n >= 8 || (masked && n >= 2))
            return pn + n;
    }
    return 0;
}

/* Append s[0..n) to out, blanking control bytes and redacting keys. */
static void add_scrubbed(up_buf *out, const char *s, size_t n,
                         const char *const *prefixes)
{
    up_buf tmp = UP_BUF_INIT;

    up_buf_add(&tmp, s, n);
    for (size_t i = 0; i < tmp.len;) {
        size_t k = (i == 0 || !isalnum((unsigned char)tmp.data[i - 1]))
                       ? key_at(tmp.data + i, prefixes)
                       : 0;
        if (k) {
            up_buf_adds(out, "[redacted]");
            i += k;
            continue;
        }
        up_buf_addc(out,
                    iscntrl((unsigned char)tmp.data[i]) ? ' ' : tmp.data[i]);
        i++;
    }
    up_buf_release(&tmp);
}

/* The message string inside a parsed error body, or NULL (§3.7). */
static const char *json_message(json_t *root)
{
    json_t *e = json_object_get(root, "error");
    json_t *m;

    if (json_is_object(e) && json_is_string(m = json_object_get(e, "message")))
        return json_string_value(m);
    if (json_is_string(e))
        return json_string_value(e);
    if (json_is_string(m = json_object_get(root, "message")))
        return json_string_value(m);
    if (json_is_string(m = json_object_get(root, "detail")))
        return json_string_value(m);
    return NULL;
}

void up_http_error_message(const char *body, size_t len,
                           const char *const *prefixes, up_buf *out)
{
    json_t *root = len ? json_loadb(body, len, 0, NULL) : NULL;
    const char *m = root ? json_message(root) : NULL;

    if (m && *m)
        add_scrubbed(out, m, strlen(m), prefixes);
    else if (len)
        add_scrubbed(out, body, len < RAW_MSG_MAX ? len : RAW_MSG_MAX,
                     prefixes);
    else
        up_buf_adds(out, "empty response body");
    json_decref(root);
}

int up_http_quota_exhausted(const char *body, size_t len,
                            const char *const *quota_words)
{
    up_buf tmp = UP_BUF_INIT;
    int hit = 0;

    up_buf_add(&tmp, body, len);
    for (size_t i = 0; quota_words && quota_words[i]; i++)
        if (strstr(tmp.data, quota_words[i]))
            hit = 1;
    up_buf_release(&tmp);
    return hit;
}

void up_http_redact_url(const char *url, up_buf *out)
{
    const char *p = strstr(url, "://");
    const char *host = p ? p + 3 : url;
    size_t hn = strcspn(host, "/?#");
    const char *at = memchr(host, '@', hn);
    const char *path = host + hn;

    up_buf_add(out, url, (size_t)(host - url));
    if (at) {
        hn -= (size_t)(at + 1 - host);
        host = at + 1;
    }
    up_buf_add(out, host, hn);
    up_buf_add(out, path, strcspn(path, "?#"));
}

/* ---- the client ------------------------------------------------------- */

struct up_http_xfer {
    up_http_client *c;
    up_http_xfer *prev, *next; /* all pending transfers of c */
    up_http_request rq;        /* copy; url and body point below */
    char *url, *body;
    struct curl_slist *hdrs;
    char **secrets; /* values to scrub from messages; wiped at the end */
    size_t nsecrets;
    up_buf target; /* redacted url */
    CURL *easy;
    int waiting; /* between attempts, until due_ms */
    long due_ms, t0, t_att;
    long att_total; /* this attempt's whole-transfer limit, ms */
    up_http_done_fn done;
    void *ud;
    up_http_result res;
    long inband; /* status the sink reported, 0 if none */
    up_buf msg;  /* the sink's message */
    int too_big; /* the body went over max_response */
    int begun;   /* a header of this attempt arrived */
    int unbegun; /* aborted: no reply began within first_byte_ms */
    size_t got;  /* body bytes of this attempt */
    char ra_ms[32], ra[64], should[16];
    char rl_left[UP_HTTP_NLIMITS][24];  /* *ratelimit-*remaining* headers */
    char rl_reset[UP_HTTP_NLIMITS][48]; /* *ratelimit-*reset* headers */
    char errbuf[CURL_ERROR_SIZE];
    char bad_header[64]; /* name of a header line with a control byte */
};

struct up_http_client {
    CURLM *multi;
    int ep; /* epoll set of the sockets curl asked us to watch */
    up_http_xfer *head;
    size_t n;
    up_http_log_fn log;
    void *log_ud;
    unsigned long long rng;
    struct pollfd *pfd; /* the wait's poll set, grown to the most asked */
    size_t pfd_cap;
    size_t timeouts; /* waits that ended at their timeout, nothing ready */
};

long up_http_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static double next_rand(up_http_client *c)
{
    c->rng ^= c->rng << 13;
    c->rng ^= c->rng >> 7;
    c->rng ^= c->rng << 17;
    return (double)(c->rng >> 11) / 9007199254740992.0;
}

long up_http_conn_cap(int max_conns)
{
    long n = max_conns > 0 ? max_conns : 64;

    return n < UP_HTTP_MAX_HOST_CONNS ? n : UP_HTTP_MAX_HOST_CONNS;
}

/* curl's word on which events of socket fd to wait for. */
static int on_socket(CURL *e, curl_socket_t fd, int what, void *u, void *sp)
{
    up_http_client *c = u;
    struct epoll_event ev = {0, {0}};

    (void)e, (void)sp;
    if (what == CURL_POLL_REMOVE) {
        epoll_ctl(c->ep, EPOLL_CTL_DEL, fd, NULL); /* may be closed: fine */
        return 0;
    }
    ev.events = (what & CURL_POLL_IN ? EPOLLIN : 0u) |
                (what & CURL_POLL_OUT ? EPOLLOUT : 0u);
    ev.data.fd = fd;
    if (epoll_ctl(c->ep, EPOLL_CTL_MOD, fd, &ev))
        epoll_ctl(c->ep, EPOLL_CTL_ADD, fd, &ev);
    return 0;
}

void up_http_client_set_conns(up_http_client *c, int max_conns)
{
    long cap = up_http_conn_cap(max_conns);

    curl_multi_setopt(c->multi, CURLMOPT_MAXCONNECTS, cap);
    curl_multi_setopt(c->multi, CURLMOPT_MAX_HOST_CONNECTIONS, cap);
    curl_multi_setopt(c->multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, cap);
}

up_http_client *up_http_client_new(int max_conns)
{
    up_http_client *c;

    if (up_curl_load())
        return NULL;
    c = up_xcalloc(1, sizeof(*c));
    c->ep = epoll_create1(EPOLL_CLOEXEC);
    c->multi = c->ep >= 0 ? curl_multi_init() : NULL;
    if (!c->multi) {
        if (c->ep >= 0)
            close(c->ep);
        free(c);
        return NULL;
    }
    curl_multi_setopt(c->multi, CURLMOPT_SOCKETFUNCTION, on_socket);
    curl_multi_setopt(c->multi, CURLMOPT_SOCKETDATA, c);
    up_http_client_set_conns(c, max_conns);
    c->rng = (unsigned long long)time(NULL) * 2654435761ULL ^
             (unsigned long long)(size_t)c;
    if (!c->rng)
        c->rng = 88172645463325252ULL;
    return c;
}

void up_http_client_set_log(up_http_client *c, up_http_log_fn fn, void *ud)
{
    c->log = fn;
    c->log_ud = ud;
}

void up_http_result_init(up_http_result *res)
{
    memset(res, 0, sizeof(*res));
    up_buf_init(&res->body);
}

void up_http_result_release(up_http_result *res)
{
    up_buf_release(&res->body);
}

static const char *const secret_headers[] = {"authorization", "x-api-key",
                                             "api-key", "proxy-authorization"};

/* Remember the value of an authorization-like header line. */
static void note_secret(up_http_xfer *x, const char *line)
{
    size_t nn = strcspn(line, ":");
    const char *v = line + nn;
    int hit = 0;

    for (size_t i = 0; i < sizeof(secret_headers) / sizeof(*secret_headers);
         i++)
        if (nn == strlen(secret_headers[i]) &&
            strncasecmp(line, secret_headers[i], nn) == 0)
            hit = 1;
    if (!hit || !*v)
        return;
    v += strspn(v, ": ");
    if (strncasecmp(v, "bearer ", 7) == 0)
        v += 7;
    if (strlen(v) < 4)
        return;
    x->secrets = up_xrealloc(x->secrets, (x->nsecrets + 1) * sizeof(char *));
    x->secrets[x->nsecrets++] = up_xstrdup(v);
}

/* Replace every remembered secret in b by "[redacted]". */
static void scrub_secrets(const up_http_xfer *x, up_buf *b)
{
    for (size_t i = 0; i < x->nsecrets; i++) {
        const char *s = x->secrets[i];
        char *hit;

        while ((hit = strstr(b->data, s)) != NULL) {
            up_buf tmp = UP_BUF_INIT;

            up_buf_add(&tmp, b->data, (size_t)(hit - b->data));
            up_buf_adds(&tmp, "[redacted]");
            up_buf_adds(&tmp, hit + strlen(s));
            up_buf_release(b);
            *b = tmp;
        }
    }
}

static size_t on_write(char *p, size_t sz, size_t nm, void *u)
{
    up_http_xfer *x = u;
    size_t n = sz * nm;
    long st = 0;

    if (x->got + n > x->rq.max_response) {
        x->too_big = 1;
        return 0;
    }
    x->got += n;
    curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &st);
    if (x->rq.on_data && st >= 200 && st < 300) {
        int r = x->rq.on_data(x->rq.ud, p, n, &x->msg);

        if (r) {
            x->inband = r;
            return 0;
        }
        return n;
    }
    up_buf_add(&x->res.body, p, n);
    return n;
}

/* Copy a header value into dst (size cap), trimming blanks and CRLF. */
static void keep_value(char *dst, size_t cap, const char *v, size_t n)
{
    while (n && isspace((unsigned char)*v)) {
        v++;
        n--;
    }
    while (n && isspace((unsigned char)v[n - 1]))
        n--;
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, v, n);
    dst[n] = '\0';
}

/* Drop the wait hints of a previous response (an attempt or a 100). */
static void forget_hints(up_http_xfer *x)
{
    x->ra_ms[0] = x->ra[0] = x->should[0] = '\0';
    memset(x->rl_left, 0, sizeof(x->rl_left));
    memset(x->rl_reset, 0, sizeof(x->rl_reset));
}

/* A header named by one of the request's rate limits: keep its value. */
static void keep_limit(up_http_xfer *x, const char *name, size_t nn,
                       const char *v, size_t vn)
{
    const up_http_limit *l = x->rq.limits;

    for (size_t i = 0; l && l[i].remaining && i < UP_HTTP_NLIMITS; i++) {
        if (nn == strlen(l[i].remaining) &&
            strncasecmp(name, l[i].remaining, nn) == 0)
            keep_value(x->rl_left[i], sizeof(x->rl_left[i]), v, vn);
        else if (nn == strlen(l[i].reset) &&
                 strncasecmp(name, l[i].reset, nn) == 0)
            keep_value(x->rl_reset[i], sizeof(x->rl_reset[i]), v, vn);
    }
}

/*
 * A streamed reply's first byte: a server that accepted the connection
 * and never answers would otherwise hold the attempt for the whole idle
 * timeout (curl's low-speed check), minutes per wave of requests.
 */
static int on_progress(void *u, curl_off_t dt, curl_off_t dn, curl_off_t ut,
                       curl_off_t un)
{
    up_http_xfer *x = u;

    (void)dt, (void)dn, (void)ut, (void)un;
    if (x->begun || up_http_now_ms() - x->t_att < x->rq.first_byte_ms)
        return 0;
    x->unbegun = 1;
    return 1;
}

static size_t on_header(char *p, size_t sz, size_t nm, void *u)
{
    up_http_xfer *x = u;
    size_t n = sz * nm;
    const char *colon = memchr(p, ':', n);
    size_t nn = colon ? (size_t)(colon - p) : 0;
    struct {
        const char *name;
        char *dst;
        size_t cap;
    } keep[] = {
        {"retry-after-ms", x->ra_ms, sizeof(x->ra_ms)},
        {"retry-after", x->ra, sizeof(x->ra)},
        {"x-should-retry", x->should, sizeof(x->should)},
        {"request-id", x->res.request_id, sizeof(x->res.request_id)},
        {"x-request-id", x->res.request_id, sizeof(x->res.request_id)},
        {"content-type", x->res.ctype, sizeof(x->res.ctype)},
    };

    x->begun = 1; /* the status line counts: the reply has begun */
    if (n >= 5 && memcmp(p, "HTTP/", 5) == 0) {
        forget_hints(x);
        x->res.ctype[0] = '\0';
        return n;
    }
    for (size_t i = 0; colon && i < sizeof(keep) / sizeof(*keep); i++)
        if (nn == strlen(keep[i].name) && strncasecmp(p, keep[i].name, nn) == 0)
            keep_value(keep[i].dst, keep[i].cap, colon + 1, n - nn - 1);
    if (colon)
        keep_limit(x, p, nn, colon + 1, n - nn - 1);
    return n;
}

static void set_easy_options(up_http_xfer *x)
{
    CURL *e = x->easy;
    long idle_s = (x->rq.idle_timeout_ms + 999) / 1000;

    curl_easy_setopt(e, CURLOPT_URL, x->url);
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, x->hdrs);
    curl_easy_setopt(e, CURLOPT_USERAGENT, "upskill/" UPSKILL_VERSION);
    if (x->rq.method && strcmp(x->rq.method, "HEAD") == 0)
        curl_easy_setopt(e, CURLOPT_NOBODY, 1L);
    else if (x->rq.method)
        curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, x->rq.method);
    if (x->body) {
        curl_easy_setopt(e, CURLOPT_POSTFIELDS, x->body);
        curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE,
                         (curl_off_t)x->rq.body_len);
    }
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");
    curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(e, CURLOPT_TCP_KEEPIDLE, 30L);
    curl_easy_setopt(e, CURLOPT_TCP_KEEPINTVL, 15L);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, x->rq.connect_timeout_ms);
    if (x->rq.on_data) { /* a plain reply is silent until it is whole */
        curl_easy_setopt(e, CURLOPT_LOW_SPEED_LIMIT, 1L);
        curl_easy_setopt(e, CURLOPT_LOW_SPEED_TIME, idle_s > 0 ? idle_s : 1L);
        curl_easy_setopt(e, CURLOPT_XFERINFOFUNCTION, on_progress);
        curl_easy_setopt(e, CURLOPT_XFERINFODATA, x);
        curl_easy_setopt(e, CURLOPT_NOPROGRESS, 0L);
    }
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_write);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, x);
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, x);
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, x->errbuf);
    curl_easy_setopt(e, CURLOPT_PRIVATE, x);
}

/* 1 when s holds a control byte (a CR or LF would start a new header). */
static int has_cntrl(const char *s)
{
    for (; *s; s++)
        if (iscntrl((unsigned char)*s))
            return 1;
    return 0;
}

/* Copy rq into x, filling defaults. */
static void copy_request(up_http_xfer *x, const up_http_request *rq)
{
    x->rq = *rq;
    x->url = up_xstrdup(rq->url);
    x->rq.url = x->url;
    if (rq->body) {
        x->body = up_xstrndup(rq->body, rq->body_len);
        x->rq.body = x->body;
    }
    for (size_t i = 0; rq->headers && rq->headers[i]; i++) {
        if (has_cntrl(rq->headers[i])) { /* it would inject headers */
            keep_value(x->bad_header, sizeof(x->bad_header), rq->headers[i],
                       strcspn(rq->headers[i], ":\r\n"));
            continue;
        }
        x->hdrs = curl_slist_append(x->hdrs, rq->headers[i]);
        note_secret(x, rq->headers[i]);
    }
    x->hdrs = curl_slist_append(x->hdrs, "Expect:");
    if (!x->rq.connect_timeout_ms)
        x->rq.connect_timeout_ms = DEF_CONNECT_MS;
    if (!x->rq.total_timeout_ms)
        x->rq.total_timeout_ms = DEF_TOTAL_MS;
    if (!x->rq.idle_timeout_ms)
        x->rq.idle_timeout_ms = DEF_IDLE_MS;
    if (!x->rq.first_byte_ms)
        x->rq.first_byte_ms = DEF_FIRST_BYTE_MS;
    if (!x->rq.max_response)
        x->rq.max_response = DEF_MAX_RESPONSE;
    if (!x->rq.policy.base_delay_ms)
        up_http_policy_default(&x->rq.policy);
    up_http_redact_url(x->url, &x->target);
}

static void unlink_xfer(up_http_xfer *x)
{
    up_http_client *c = x->c;

    if (x->prev)
        x->prev->next = x->next;
    else
        c->head = x->next;
    if (x->next)
        x->next->prev = x->prev;
    c->n--;
}

static void free_xfer(up_http_xfer *x)
{
    if (x->easy) {
        curl_multi_remove_handle(x->c->multi, x->easy);
        curl_easy_cleanup(x->easy);
    }
    for (struct curl_slist *l = x->hdrs; l; l = l->next)
        memset(l->data, 0, strlen(l->data)); /* auth headers */
    curl_slist_free_all(x->hdrs);
    for (size_t i = 0; i < x->nsecrets; i++) {
        memset(x->secrets[i], 0, strlen(x->secrets[i]));
        free(x->secrets[i]);
    }
    free(x->secrets);
    if (x->body) {
        memset(x->body, 0, x->rq.body_len);
        free(x->body);
    }
    free(x->url);
    up_buf_release(&x->target);
    up_buf_release(&x->msg);
    up_http_result_release(&x->res);
    free(x);
}

/* The last attempt is over: report, then free. */
static void finish(up_http_xfer *x)
{
    unlink_xfer(x);
    x->res.latency_ms = up_http_now_ms() - x->t0;
    if (x->done)
        x->done(x->ud, &x->res);
    free_xfer(x);
}

/* Fail x before or between attempts (deadline, curl refused it). */
static void fail_now(up_http_xfer *x, int code, const char *why)
{
    up_error_set(&x->res.err, code, "'%s': %s", x->target.data, why);
    x->res.code = code;
    finish(x);
}

static void start_attempt(up_http_xfer *x)
{
    long now = up_http_now_ms();
    long total = x->rq.total_timeout_ms;

    if (x->bad_header[0]) {
        up_buf why = UP_BUF_INIT;

        up_buf_addf(&why,
                    "header '%s' contains a control character (a line "
                    "break?); nothing was sent",
                    x->bad_header);
        fail_now(x, UP_EPARSE, why.data);
        up_buf_release(&why);
        return;
    }
    if (x->rq.deadline_ms && now >= x->rq.deadline_ms) {
        fail_now(x, UP_ETIMEOUT, "job timed out");
        return;
    }
    if (x->rq.deadline_ms && x->rq.deadline_ms - now < total)
        total = x->rq.deadline_ms - now;
    if (x->res.attempts > 0 && x->rq.on_reset)
        x->rq.on_reset(x->rq.ud);
    x->waiting = 0;
    x->t_att = now;
    x->inband = 0;
    x->too_big = 0;
    x->begun = 0;
    x->unbegun = 0;
    x->got = 0;
    x->errbuf[0] = '\0';
    forget_hints(x); /* no stale hints */
    x->res.request_id[0] = '\0';
    up_buf_reset(&x->msg);
    up_buf_reset(&x->res.body);
    x->att_total = total;
    curl_easy_setopt(x->easy, CURLOPT_TIMEOUT_MS, total);
    if (curl_multi_add_handle(x->c->multi, x->easy) != CURLM_OK)
        fail_now(x, UP_ENETWORK, "cannot start the transfer");
}

up_http_xfer *up_http_submit(up_http_client *c, const up_http_request *rq,
                             up_http_done_fn done, void *ud)
{
    up_http_xfer *x = up_xcalloc(1, sizeof(*x));

    x->c = c;
    x->done = done;
    x->ud = ud;
    up_buf_init(&x->target);
    up_buf_init(&x->msg);
    up_http_result_init(&x->res);
    copy_request(x, rq);
    x->easy = curl_easy_init();
    if (!x->easy)
        abort(); /* only fails on out-of-memory */
    set_easy_options(x);
    x->next = c->head;
    if (c->head)
        c->head->prev = x;
    c->head = x;
    c->n++;
    x->t0 = up_http_now_ms();
    x->waiting = 1; /* the next up_http_run starts it: no callback here */
    x->due_ms = x->t0;
    return x;
}

static const CURLcode transient[] = {
    CURLE_COULDNT_CONNECT,
    CURLE_COULDNT_RESOLVE_HOST,
    CURLE_OPERATION_TIMEDOUT,
    CURLE_SEND_ERROR,
    CURLE_RECV_ERROR,
    CURLE_GOT_NOTHING,
    CURLE_SSL_CONNECT_ERROR,
    CURLE_PARTIAL_FILE,
    CURLE_HTTP2,
    CURLE_HTTP2_STREAM,
};

static int transport_retryable(CURLcode rc)
{
    for (size_t i = 0; i < sizeof(transient) / sizeof(*transient); i++)
        if (transient[i] == rc)
            return 1;
    return 0;
}

/* What one attempt came to. */
typedef struct outcome {
    long status;   /* HTTP or in-band status, 0 for transport */
    int code;      /* 0 or UP_E* */
    int retryable; /* by the SDK rules, before counting attempts */
    up_buf why;    /* short reason for the log and the error */
} outcome;

/* A timeout before the attempt's whole-transfer limit: curl's low-speed
   check, which streams use as the idle timeout, ended it. */
static int is_idle(const up_http_xfer *x, CURLcode rc)
{
    return rc == CURLE_OPERATION_TIMEDOUT && x->rq.on_data && x->begun &&
           up_http_now_ms() - x->t_att < x->att_total;
}

static void classify_transport(up_http_xfer *x, CURLcode rc, outcome *o)
{
    o->code = rc == CURLE_OPERATION_TIMEDOUT || x->unbegun ? UP_ETIMEOUT
                                                           : UP_ENETWORK;
    o->retryable = up_http_retryable(0, x->unbegun || transport_retryable(rc),
                                     x->should[0] ? x->should : NULL);
    if (x->unbegun)
        up_buf_addf(&o->why, "no reply began within %ld s (first_byte_timeout)",
                    (x->rq.first_byte_ms + 999) / 1000);
    else if (is_idle(x, rc))
        up_buf_addf(&o->why,
                    "no byte came for %ld s once the reply had begun "
                    "(idle_timeout)",
                    (x->rq.idle_timeout_ms + 999) / 1000);
    else
        up_buf_adds(&o->why, x->errbuf[0] ? x->errbuf : curl_easy_strerror(rc));
}

/* A refusal of a request that outgrew the context (status 0: an in-band
 * error) is UP_ECONTEXT, never retried: the same request fails again. */
static void outgrew(outcome *o, long status, const char *body, size_t len)
{
    if (!up_http_context_overflow(status, body, len))
        return;
    o->code = UP_ECONTEXT;
    o->retryable = 0;
}

static void classify(up_http_xfer *x, CURLcode rc, outcome *o)
{
    const char *xs = x->should[0] ? x->should : NULL;

    curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &o->status);
    if (x->too_big) {
        o->code = UP_ETOOBIG;
        up_buf_addf(&o->why, "response over %zu bytes", x->rq.max_response);
    } else if (x->inband) {
        o->status = x->inband;
        o->code = up_http_status_code(o->status);
        o->retryable = up_http_retryable(o->status, 0, NULL);
        up_buf_add(&o->why, x->msg.data, x->msg.len);
        outgrew(o, 0, x->msg.data, x->msg.len);
    } else if (rc != CURLE_OK) {
        o->status = 0;
        classify_transport(x, rc, o);
    } else if ((o->code = up_http_status_code(o->status)) != 0) {
        o->retryable =
            up_http_retryable(o->status, 0, xs) &&
            !up_http_quota_exhausted(x->res.body.data, x->res.body.len,
                                     x->rq.quota_words) &&
            !up_http_quota_exhausted(x->res.body.data, x->res.body.len,
                                     x->rq.refusals);
        up_buf_addf(&o->why, "http %ld: ", o->status);
        up_http_error_message(x->res.body.data, x->res.body.len,
                              x->rq.key_prefixes, &o->why);
        outgrew(o, o->status, x->res.body.data, x->res.body.len);
    }
    if (o->code && x->rq.committed && x->rq.committed(x->rq.ud))
        o->retryable = 0;
    scrub_secrets(x, &o->why);
}

/*
 * The server's wait hint: retry-after(-ms), else on a 429 the reset time
 * of the exhausted rate limit (of those the request names); *how says
 * which.
 */
static long server_hint(const up_http_xfer *x, long status, const char **how)
{
    const char *left[UP_HTTP_NLIMITS], *reset[UP_HTTP_NLIMITS];
    long hint = up_http_retry_hint_ms(x->ra_ms[0] ? x->ra_ms : NULL,
                                      x->ra[0] ? x->ra : NULL, time(NULL));

    *how = "retry-after";
    if (hint > 0 || status != 429)
        return hint;
    for (int i = 0; i < UP_HTTP_NLIMITS; i++) {
        left[i] = x->rl_left[i][0] ? x->rl_left[i] : NULL;
        reset[i] = x->rl_reset[i][0] ? x->rl_reset[i] : NULL;
    }
    *how = "ratelimit-reset";
    return up_http_reset_hint_ms(left, reset, UP_HTTP_NLIMITS, time(NULL));
}

/* The wait before the next attempt, or -1 (then why may grow). */
static long plan_retry(up_http_xfer *x, outcome *o, const char **how)
{
    up_http_policy *p = &x->rq.policy;
    long hint, delay, now = up_http_now_ms();
    const char *from;

    if (!o->retryable || x->res.attempts > p->max_retries)
        return -1;
    hint = server_hint(x, o->status, &from);
    delay =
        up_http_retry_delay_ms(p, x->res.attempts - 1, hint, next_rand(x->c));
    if (delay < 0) {
        up_buf_addf(&o->why, " (server asked to wait %ld s)", hint / 1000);
        return -1;
    }
    if (x->rq.deadline_ms && now + delay >= x->rq.deadline_ms)
        return -1;
    *how = hint > 0 ? from : "backoff";
    return delay;
}

static void log_attempt(up_http_xfer *x, const outcome *o, long delay,
                        const char *how)
{
    up_http_attempt a = {
        .target = x->target.data,
        .attempt = x->res.attempts,
        .max_attempts = x->rq.policy.max_retries + 1,
        .status = o->status,
        .code = o->code,
        .error = o->code ? o->why.data : NULL,
        .request_id = x->res.request_id,
        .elapsed_ms = up_http_now_ms() - x->t_att,
        .delay_ms = delay,
        .why = how,
        .ud = x->rq.ud,
    };

    if (x->c->log)
        x->c->log(x->c->log_ud, &a);
}

static void attempt_done(up_http_xfer *x, CURLcode rc)
{
    outcome o = {0, 0, 0, UP_BUF_INIT};
    const char *how = NULL;
    long delay;

    curl_multi_remove_handle(x->c->multi, x->easy);
    x->res.attempts++;
    classify(x, rc, &o);
    delay = o.code ? plan_retry(x, &o, &how) : -1;
    log_attempt(x, &o, delay, how);
    x->res.status = o.status;
    if (delay >= 0) {
        x->waiting = 1;
        x->due_ms = up_http_now_ms() + delay;
    } else {
        x->res.code = o.code;
        if (o.code)
            up_error_set(&x->res.err, o.code, "'%s': %s%s", x->target.data,
                         o.why.data,
                         x->res.attempts > 1 ? " (after retries)" : "");
        finish(x);
    }
    up_buf_release(&o.why);
}

/* Start the retries that are due; return ms until the next one (or max). */
static long start_due(up_http_client *c, long max_wait)
{
    long now = up_http_now_ms();
    up_http_xfer *x = c->head;

    while (x) {
        up_http_xfer *next = x->next;

        if (x->waiting && x->due_ms <= now)
            start_attempt(x);
        else if (x->waiting && x->due_ms - now < max_wait)
            max_wait = x->due_ms - now;
        x = next;
    }
    return max_wait;
}

/* Finish every transfer curl has completed; returns how many. */
static size_t drain(up_http_client *c)
{
    size_t n = 0;
    CURLMsg *m;
    int left;

    while ((m = curl_multi_info_read(c->multi, &left)) != NULL) {
        up_http_xfer *x = NULL;

        if (m->msg != CURLMSG_DONE)
            continue;
        curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&x);
        attempt_done(x, m->data.result);
        n++;
    }
    return n;
}

/* Wait up to ms for one of fds to be readable (no transfer to drive). */
/* A caller's fd as a pollfd: UP_FD_WRITE asks for writability. */
static struct pollfd caller_fd(int fd)
{
    return (struct pollfd){fd & ~UP_FD_WRITE,
                           (short)(fd & UP_FD_WRITE ? POLLOUT : POLLIN), 0};
}

/* c's poll set with room for n entries (grown, never capped). */
static struct pollfd *poll_set(up_http_client *c, size_t n)
{
    if (n > c->pfd_cap) {
        c->pfd = up_xrealloc(c->pfd, n * sizeof(*c->pfd));
        c->pfd_cap = n;
    }
    return c->pfd;
}

/* poll p for ms (> 0), counting a wait that ended with nothing ready. */
static void wait_on(up_http_client *c, struct pollfd *p, size_t n, long ms)
{
    if (ms > 0 && poll(p, (nfds_t)n, (int)ms) == 0)
        c->timeouts++;
}

static void poll_fds(up_http_client *c, const int *fds, size_t nfds, long ms)
{
    struct pollfd *p = poll_set(c, nfds);

    for (size_t i = 0; i < nfds; i++)
        p[i] = caller_fd(fds[i]);
    wait_on(c, p, nfds, ms);
}

/* Run curl's timers when one is due (a new transfer's is due at once). */
static void run_timers(up_http_client *c)
{
    long ms = -1;
    int running;

    curl_multi_timeout(c->multi, &ms);
    if (ms == 0)
        curl_multi_socket_action(c->multi, CURL_SOCKET_TIMEOUT, 0, &running);
}

/*
 * Wait up to ms (0: not at all) for curl's sockets, or for one of the
 * caller's fds (read by the caller), then hand curl what is ready.
 * Without fds of the caller's the wait is the epoll_wait itself.
 */
static void run_ready(up_http_client *c, long ms, const int *fds, size_t n)
{
    struct epoll_event ev[256];
    int k, running;

    if (ms < 0)
        ms = 0;
    if (n) {
        struct pollfd *p = poll_set(c, n + 1);

        p[0] = (struct pollfd){c->ep, POLLIN, 0};
        for (size_t i = 0; i < n; i++)
            p[i + 1] = caller_fd(fds[i]);
        wait_on(c, p, n + 1, ms);
        ms = 0;
    }
    k = epoll_wait(c->ep, ev, 256, (int)ms);
    for (int i = 0; i < k; i++) {
        int mask =
            (ev[i].events & EPOLLIN ? CURL_CSELECT_IN : 0) |
            (ev[i].events & EPOLLOUT ? CURL_CSELECT_OUT : 0) |
            (ev[i].events & (EPOLLERR | EPOLLHUP) ? CURL_CSELECT_ERR : 0);

        curl_multi_socket_action(c->multi, ev[i].data.fd, mask, &running);
    }
}

/*
 * Completions are drained after every round of curl's work, and a pass
 * that finished something returns before waiting: a reply that arrived
 * during the first round must not wait in curl's message queue until
 * the next socket event (up to a whole server round trip later).
 */
size_t up_http_run_fds(up_http_client *c, long max_wait_ms, const int *fds,
                       size_t nfds)
{
    long wait, ct = -1;

    if (!c->n) {
        poll_fds(c, fds, nfds, nfds ? max_wait_ms : 0);
        return 0;
    }
    wait = start_due(c, max_wait_ms < 0 ? 0 : max_wait_ms);
    if (!c->n) /* all failed before starting: nothing to wait for */
        return 0;
    run_timers(c);
    if (drain(c))
        return c->n;
    curl_multi_timeout(c->multi, &ct);
    if (ct >= 0 && ct < wait)
        wait = ct;
    run_ready(c, wait, fds, nfds);
    run_timers(c);
    drain(c);
    return c->n;
}

size_t up_http_client_timeouts(const up_http_client *c)
{
    return c->timeouts;
}

size_t up_http_run(up_http_client *c, long max_wait_ms)
{
    return up_http_run_fds(c, max_wait_ms, NULL, 0);
}

void up_http_cancel(up_http_client *c, up_http_xfer *x)
{
    (void)c;
    curl_multi_remove_handle(x->c->multi, x->easy);
    fail_now(x, UP_EINTR, "cancelled");
}

void up_http_client_free(up_http_client *c)
{
    if (!c)
        return;
    while (c->head) {
        up_http_xfer *x = c->head;

        unlink_xfer(x);
        free_xfer(x);
    }
    curl_multi_cleanup(c->multi);
    close(c->ep);
    free(c->pfd);
    free(c);
}
