/*
 * The per-conversation model proxy, host side (docs/agent-clis.md, "The
 * network"): a unix socket in the conversation's private folder, bound
 * into the CLI's sandbox, where the forwarder (harness_forward.c) hands
 * over the socket listening on 127.0.0.1 of the CLI's namespace before
 * it becomes the CLI; the proxy then accepts the CLI's connections on it.
 *
 * It reads HTTP/1.1 requests (a request line in origin form, headers,
 * a Content-Length or chunked body, each within a named cap) and hands
 * each complete one to the caller as a relayed request (up_raw_request):
 * the endpoint's origin and the CLI's path, a few of the CLI's headers
 * and never its key headers.  The scheduler sends it with the real key
 * and gives the reply back; the proxy writes it to the CLI (Connection:
 * close) and closes.  One request of a conversation is relayed at a
 * time, the others wait complete in their connections.  Nothing here
 * blocks: the fds go to the one scheduler loop, and a reply the CLI does
 * not read stays in its connection's buffer.  A malformed or over-cap
 * request gets its 4xx at once and is counted, never relayed.
 */
#define _GNU_SOURCE /* memmem, accept4 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "upskill/alloc.h"
#include "upskill/harness.h"
#include "upskill/http.h"
#include "lib/harness/harness_run_int.h"
#include "lib/harness/harness_wire.h"

/* Connections of one conversation at once; more wait in the backlog. */
#define PROXY_MAX_CONNS 16
/* The request line and headers. */
#define PROXY_MAX_HEAD ((size_t)64 << 10)
/* A request's body. */
#define PROXY_MAX_BODY ((size_t)32 << 20)
/* Bytes read from one connection in one step. */
#define PROXY_READ_STEP ((size_t)1 << 20)
/* Bytes held over all connections (requests waiting, replies going out):
 * past it no connection is read until some are done. */
#define PROXY_MAX_HELD ((size_t)96 << 20)
/* Bytes of replies the CLI has not read yet: past it no more requests
 * are relayed until it reads, so unread replies hold at most this and
 * the one in flight (16 unread 20 MB replies held 585 MB, issue 36). */
#define PROXY_MAX_UNREAD ((size_t)32 << 20)

enum { C_READ, C_READY, C_BUSY, C_SEND };

typedef struct pconn {
    int fd;
    int state;     /* C_*: reading, complete, relayed, replying */
    int continued; /* the 100 Continue was sent */
    up_buf in;     /* bytes read */
    up_buf out;    /* the reply being written */
    size_t out_off;
    const char *method; /* static text */
    char *target;       /* the path and query */
    cli_strv headers;   /* the ones relayed */
    up_buf body;        /* the decoded body */
} pconn;

struct cli_proxy {
    int lfd;                /* the unix socket, until the hand-over */
    int hand;               /* the forwarder's connection, being read */
    int tcp;                /* the CLI's listening socket, handed over */
    char *path;             /* the socket on the host */
    char *origin;           /* scheme://host[:port] of the endpoint */
    const char *key_header; /* the CLI's key header, or NULL: the wire's */
    pconn *c[PROXY_MAX_CONNS];
    size_t n;
    pconn *busy; /* the connection whose request is relayed */
    up_raw_request raw;
    up_request rq;
    up_buf url;
    size_t refused;           /* requests answered 4xx by the proxy itself */
    const char *const *paths; /* the relayed paths (below base), or NULL:
                                 any (cli_proxy_relay_only) */
    char *base;               /* the path of the CLI's base URL */
    const char *key;          /* redacted from replies, or NULL */
    long provider_failed;     /* the last provider reply's status when it
                                 was 429 or 5xx, else 0 */
    cli_exchange_fn on_exchange;
    void *on_exchange_ud;
};

/* The methods a CLI's model client uses. */
static const char *const methods[] = {"GET", "POST", "HEAD", NULL};

/* The CLI's headers that reach the endpoint (lowercase); never its
 * Authorization, x-api-key or x-goog-api-key. */
static const char *const relayed[] = {"content-type",
                                      "accept",
                                      "anthropic-version",
                                      "anthropic-beta",
                                      "openai-beta",
                                      "x-goog-api-client",
                                      "x-stainless-retry-count",
                                      NULL};

/*
 * The model endpoints a CLI's traffic needs, per wire, as "METHOD PATH"
 * with the path below the base URL's path (no query): each wire's
 * generation call and, where a CLI sends it, its token count; the
 * OpenAI-style wires also the model list (Codex looks its model up).  "*"
 * is one path segment (a model name).  The rest of a provider's API
 * (files, fine-tuning, batches, keys, admin) is refused: the proxy holds
 * the user's real key.  OpenAI-style paths are listed with and without
 * /v1, as a plain command may add it to a base URL that has none.
 */
static const char *const anthropic_paths[] = {
    "POST /v1/messages", "POST /v1/messages/count_tokens", NULL};
static const char *const openai_paths[] = {
    "POST /chat/completions", "POST /v1/chat/completions", "GET /models",
    "GET /v1/models", NULL};
static const char *const responses_paths[] = {
    "POST /responses", "POST /v1/responses", "GET /models", "GET /v1/models",
    NULL};
static const char *const gemini_paths[] = {
    "POST /v1beta/models/*:generateContent",
    "POST /v1beta/models/*:streamGenerateContent",
    "POST /v1beta/models/*:countTokens", NULL};

static const struct {
    int wire;
    const char *const *paths;
} relay_tables[] = {
    {UP_WIRE_ANTHROPIC, anthropic_paths},
    {UP_WIRE_OPENAI, openai_paths},
    {UP_WIRE_RESPONSES, responses_paths},
    {UP_WIRE_GEMINI, gemini_paths},
};

void cli_proxy_relay_only(cli_proxy *p, int wire, const char *base)
{
    static const char *const none[] = {NULL};

    p->paths = none; /* an unknown wire relays nothing */
    for (size_t i = 0; i < sizeof(relay_tables) / sizeof(*relay_tables); i++)
        if (relay_tables[i].wire == wire)
            p->paths = relay_tables[i].paths;
    free(p->base);
    p->base = up_xstrdup(base ? base : "");
}

void cli_proxy_redact(cli_proxy *p, const char *key)
{
    p->key = key;
}

/* 1 when the n bytes at s match pattern pat, where "*" stands for one
 * non-empty path segment of letters, digits, '.', '-' and '_'. */
static int path_match(const char *pat, const char *s, size_t n)
{
    size_t i = 0;

    for (; *pat; pat++) {
        if (*pat != '*') {
            if (i >= n || s[i++] != *pat)
                return 0;
            continue;
        }
        size_t k = i;

        while (k < n && (isalnum((unsigned char)s[k]) || s[k] == '.' ||
                         s[k] == '-' || s[k] == '_'))
            k++;
        if (k == i)
            return 0;
        i = k;
    }
    return i == n;
}

/* 1 when p relays method to target (its path, without the query: the
 * base URL's path then one of the wire's paths, for that method). */
static int relayed_path(const cli_proxy *p, const char *method,
                        const char *target)
{
    size_t n = strcspn(target, "?"), blen, mlen = strlen(method);

    if (!p->paths)
        return 1;
    blen = strlen(p->base);
    if (strchr(target, '#') || memchr(target, '%', n) || n < blen ||
        strncmp(target, p->base, blen))
        return 0; /* model calls have plain paths */
    for (size_t i = 0; p->paths[i]; i++)
        if (!strncmp(p->paths[i], method, mlen) && p->paths[i][mlen] == ' ' &&
            path_match(p->paths[i] + mlen + 1, target + blen, n - blen))
            return 1;
    return 0;
}

int cli_proxy_open(cli_proxy **out, const char *path, const char *origin,
                   const char *key_header, up_error *err)
{
    cli_proxy *p = up_xcalloc(1, sizeof(*p));
    struct sockaddr_un a;

    *out = p;
    p->lfd = p->hand = p->tcp = -1;
    p->origin = up_xstrdup(origin);
    p->key_header = key_header;
    memset(&a, 0, sizeof(a));
    a.sun_family = AF_UNIX;
    if (strlen(path) >= sizeof(a.sun_path))
        return up_error_set(err, UP_EIO,
                            "'%s': the model proxy's socket path is longer "
                            "than %zu bytes: use a shorter TMPDIR",
                            path, sizeof(a.sun_path) - 1);
    memcpy(a.sun_path, path, strlen(path));
    p->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (p->lfd < 0 || bind(p->lfd, (struct sockaddr *)&a, sizeof(a)) != 0 ||
        listen(p->lfd, 64) != 0)
        return up_error_set(err, UP_EIO,
                            "'%s': cannot listen for the model proxy: %s", path,
                            strerror(errno));
    p->path = up_xstrdup(path);
    return 0;
}

void cli_proxy_on_exchange(cli_proxy *p, cli_exchange_fn fn, void *ud)
{
    p->on_exchange = fn;
    p->on_exchange_ud = ud;
}

size_t cli_proxy_refused(const cli_proxy *p)
{
    return p ? p->refused : 0;
}

long cli_proxy_provider_failed(const cli_proxy *p)
{
    return p ? p->provider_failed : 0;
}

static void conn_free(pconn *c)
{
    close(c->fd);
    up_buf_release(&c->in);
    up_buf_release(&c->out);
    up_buf_release(&c->body);
    free(c->target);
    cli_strv_free(&c->headers);
    free(c);
}

static void conn_drop(cli_proxy *p, size_t i)
{
    if (p->busy == p->c[i])
        p->busy = NULL;
    conn_free(p->c[i]);
    p->c[i] = p->c[--p->n];
}

void cli_proxy_free(cli_proxy *p)
{
    if (!p)
        return;
    while (p->n)
        conn_drop(p, p->n - 1);
    if (p->lfd >= 0)
        close(p->lfd);
    if (p->hand >= 0)
        close(p->hand);
    if (p->tcp >= 0)
        close(p->tcp);
    if (p->path)
        unlink(p->path);
    free(p->path);
    free(p->origin);
    free(p->base);
    up_buf_release(&p->url);
    free(p);
}

/* The bytes p's connections hold. */
static size_t held(const cli_proxy *p)
{
    size_t n = 0;

    for (size_t i = 0; i < p->n; i++)
        n += p->c[i]->in.len + p->c[i]->body.len + p->c[i]->out.len;
    return n;
}

int cli_proxy_fds(const cli_proxy *p, int *fds, int max)
{
    int n = 0, full;

    if (!p)
        return 0;
    full = held(p) >= PROXY_MAX_HELD;
    if (p->tcp < 0 && n < max) /* the hand-over still to come */
        fds[n++] = p->hand >= 0 ? p->hand : p->lfd;
    else if (p->n < PROXY_MAX_CONNS && n < max)
        fds[n++] = p->tcp;
    for (size_t i = 0; i < p->n && n < max; i++)
        if (p->c[i]->state == C_READ && !full)
            fds[n++] = p->c[i]->fd;
        else if (p->c[i]->state == C_SEND)
            fds[n++] = p->c[i]->fd | UP_FD_WRITE;
    return n;
}

/* The reply (status, content type, body) into c's out buffer. */
static void reply(pconn *c, long status, const char *ctype, const char *body,
                  size_t len)
{
    up_buf_reset(&c->out);
    up_buf_addf(&c->out,
                "HTTP/1.1 %ld %s\r\nContent-Type: %s\r\n"
                "Content-Length: %zu\r\nConnection: close\r\n\r\n",
                status, status < 400 ? "OK" : "Error",
                ctype && *ctype ? ctype : "application/octet-stream",
                c->method && !strcmp(c->method, "HEAD") ? 0 : len);
    if (!c->method || strcmp(c->method, "HEAD") != 0)
        up_buf_add(&c->out, body ? body : "", len);
    c->out_off = 0;
    c->state = C_SEND;
}

/* The proxy's own answer to a request it will not relay (its body into
 * kept too, when not NULL). */
static void refuse_kept(cli_proxy *p, pconn *c, long status, const char *why,
                        up_buf *kept)
{
    up_buf b = UP_BUF_INIT;

    up_buf_addf(&b,
                "{\"error\": {\"type\": \"upskill_proxy\", \"message\": "
                "\"upskill's model proxy: %s\"}}",
                why);
    reply(c, status, "application/json", b.data, b.len);
    if (kept)
        up_buf_add(kept, b.data, b.len);
    up_buf_release(&b);
    p->refused++;
}

static void refuse(cli_proxy *p, pconn *c, long status, const char *why)
{
    refuse_kept(p, c, status, why, NULL);
}

/* The refusal of a request for an endpoint that is not relayed: a 404
 * saying so, seen by the exchange function too (the CLI's wire record,
 * so the artifact shows it). */
static void refuse_path(cli_proxy *p, pconn *c)
{
    up_buf why = UP_BUF_INIT, body = UP_BUF_INIT;
    size_t n = strcspn(c->target, "?");

    up_buf_addf(&why,
                "%s %.*s is not relayed: a coding-agent CLI reaches only "
                "its model's endpoints",
                c->method, (int)(n > 200 ? 200 : n), c->target);
    for (char *q = why.data; *q; q++)
        if (*q == '"' || *q == '\\' || (unsigned char)*q < 0x20 ||
            (unsigned char)*q >= 0x80)
            *q = '_'; /* the JSON text stays JSON */
    refuse_kept(p, c, 404, why.data, &body);
    if (p->on_exchange)
        p->on_exchange(p->on_exchange_ud, c->target, NULL, 0, 404,
                       "application/json", body.data, body.len);
    up_buf_release(&why);
    up_buf_release(&body);
}

/* Write what c's reply has left; 1 once it is all out (or the CLI has
 * gone): the connection is over. */
static int flush(pconn *c)
{
    while (c->out_off < c->out.len) {
        ssize_t k = send(c->fd, c->out.data + c->out_off,
                         c->out.len - c->out_off, MSG_NOSIGNAL);

        if (k < 0)
            return errno != EAGAIN && errno != EINTR;
        c->out_off += (size_t)k;
    }
    return 1;
}

/* 1 when header line name (len bytes) is relayed. */
static int is_relayed(const char *name, size_t len)
{
    for (size_t i = 0; relayed[i]; i++)
        if (strlen(relayed[i]) == len && !strncasecmp(relayed[i], name, len))
            return 1;
    return 0;
}

/* The request line "METHOD TARGET HTTP/1.x" of c; 0 or the status to
 * refuse it with (why set). */
static long request_line(pconn *c, const char *line, size_t len,
                         const char **why)
{
    size_t m = strcspn(line, " "), t;

    for (size_t i = 0; methods[i] && !c->method; i++)
        if (strlen(methods[i]) == m && !strncmp(methods[i], line, m))
            c->method = methods[i];
    if (m >= len)
        return *why = "no request line", 400;
    t = strcspn(line + m + 1, " ");
    if (m + 1 + t >= len || strncmp(line + m + 1 + t, " HTTP/1.", 8) != 0)
        return *why = "not an HTTP/1.x request line", 400;
    if (!c->method)
        return *why = "only GET, POST and HEAD are relayed", 405;
    if (line[m + 1] != '/' || (t > 1 && line[m + 2] == '/'))
        return *why = "the target must be a path (the endpoint is fixed)", 400;
    c->target = up_xstrndup(line + m + 1, t);
    return 0;
}

/* Chunked body text (after the head) decoded into out: 1 when whole, 0
 * when more must come, -1 when malformed or over the cap. */
static int dechunk(const char *p, size_t len, up_buf *out)
{
    size_t at = 0;

    up_buf_reset(out);
    for (;;) {
        const char *eol = memmem(p + at, len - at, "\r\n", 2);
        char *end;
        unsigned long long size;

        if (!eol)
            return 0;
        size = strtoull(p + at, &end, 16);
        if (end == p + at || (*end != '\r' && *end != ';'))
            return -1;
        if (size > PROXY_MAX_BODY || out->len + size > PROXY_MAX_BODY)
            return -1;
        at = (size_t)(eol - p) + 2;
        if (size == 0) /* trailers, then an empty line */
            return memmem(p + at - 2, len - at + 2, "\r\n\r\n", 4) ? 1 : 0;
        if (len - at < size + 2)
            return 0;
        up_buf_add(out, p + at, (size_t)size);
        at += (size_t)size + 2;
    }
}

typedef struct head {
    size_t len;      /* bytes of the head, the blank line included */
    long clen;       /* Content-Length, -1: none */
    int chunked;     /* Transfer-Encoding: chunked */
    int expect;      /* Expect: 100-continue */
    const char *why; /* set with the refusal */
} head;

/* One header line of c into h; 0 or the status to refuse with. */
static long header_line(pconn *c, head *h, const char *line, size_t len)
{
    const char *colon = memchr(line, ':', len);
    size_t nlen = colon ? (size_t)(colon - line) : 0;
    const char *v = colon ? colon + 1 + strspn(colon + 1, " \t") : NULL;
    size_t vlen = v ? len - (size_t)(v - line) : 0;
    char *end;

    if (!colon || !nlen)
        return h->why = "a header line without a name", 400;
    if (nlen == 14 && !strncasecmp(line, "content-length", 14)) {
        h->clen = strtol(v, &end, 10);
        if (end == v || h->clen < 0)
            return h->why = "a bad Content-Length", 400;
        if ((size_t)h->clen > PROXY_MAX_BODY)
            return h->why = "the body is over 32 MiB", 413;
    } else if (nlen == 17 && !strncasecmp(line, "transfer-encoding", 17)) {
        h->chunked = vlen >= 7 && !strncasecmp(v, "chunked", 7);
    } else if (nlen == 6 && !strncasecmp(line, "expect", 6)) {
        h->expect = 1;
    } else if (is_relayed(line, nlen)) {
        up_buf b = UP_BUF_INIT;

        up_buf_add(&b, line, len);
        UP_GROW(c->headers.v, c->headers.cap, c->headers.n + 2);
        c->headers.v[c->headers.n++] = up_buf_detach(&b);
        c->headers.v[c->headers.n] = NULL;
    }
    return 0;
}

/* Parse c's head (its end at hend) into h; 0 or the status to refuse. */
static long parse_head(pconn *c, head *h, const char *hend)
{
    const char *p = c->in.data, *stop = hend + 2;
    const char *eol = memmem(p, (size_t)(stop - p), "\r\n", 2);
    long st = request_line(c, p, (size_t)(eol - p), &h->why);

    h->len = (size_t)(hend - p) + 4;
    h->clen = -1;
    for (p = eol + 2; !st && p < stop; p = eol + 2) {
        eol = memmem(p, (size_t)(stop - p), "\r\n", 2);
        st = header_line(c, h, p, (size_t)(eol - p));
    }
    if (!st && h->chunked && h->clen >= 0)
        return h->why = "both Content-Length and chunked", 400;
    return st;
}

/* Look at what c has read: 1 when a whole request is in (ready), 0 for
 * more, or a refusal made. */
static int take_request(cli_proxy *p, pconn *c)
{
    const char *hend;
    head h = {0};
    long st;
    int got;

    if (!c->in.len)
        return 0;
    hend = memmem(c->in.data, c->in.len, "\r\n\r\n", 4);
    if ((hend ? (size_t)(hend - c->in.data) : c->in.len) > PROXY_MAX_HEAD) {
        refuse(p, c, 431, "the request's headers are over 64 KiB");
        return 0;
    }
    if (!hend)
        return 0;
    cli_strv_free(&c->headers);
    free(c->target);
    c->target = NULL;
    c->method = NULL;
    st = parse_head(c, &h, hend);
    if (st) {
        refuse(p, c, st, h.why);
        return 0;
    }
    if (!relayed_path(p, c->method, c->target)) {
        refuse_path(p, c);
        return 0;
    }
    if (h.expect && !c->continued) {
        c->continued = 1;
        if (send(c->fd, "HTTP/1.1 100 Continue\r\n\r\n", 25, MSG_NOSIGNAL)) {
        }
    }
    if (h.chunked) {
        got = dechunk(c->in.data + h.len, c->in.len - h.len, &c->body);
        if (got < 0)
            refuse(p, c, 413, "a malformed or over-32-MiB chunked body");
        return got > 0;
    }
    if (c->in.len - h.len < (size_t)(h.clen < 0 ? 0 : h.clen))
        return 0;
    up_buf_reset(&c->body);
    up_buf_add(&c->body, c->in.data + h.len, (size_t)(h.clen < 0 ? 0 : h.clen));
    return 1;
}

/* Read what c has for us; 1 when the connection is over. */
static int read_conn(cli_proxy *p, pconn *c)
{
    char buf[65536];
    size_t got = 0;

    while (got < PROXY_READ_STEP) {
        ssize_t k = recv(c->fd, buf, sizeof(buf), 0);

        if (k == 0)
            return 1; /* closed: over unless a whole request came */
        if (k < 0)
            return errno != EAGAIN && errno != EINTR;
        up_buf_add(&c->in, buf, (size_t)k);
        got += (size_t)k;
        if (c->in.len > PROXY_MAX_HEAD + PROXY_MAX_BODY * 2) {
            refuse(p, c, 413, "the request is over its caps");
            return 0;
        }
    }
    return 0;
}

/* 1 when fd is a listening stream socket. */
static int is_listener(int fd)
{
    int on = 0;
    socklen_t len = sizeof(on);

    return getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &on, &len) == 0 && on;
}

/* The fd passed on connection s (SCM_RIGHTS), or -1 (none: the
 * connection is dropped), or -2 (nothing yet). */
static int recv_fd(int s)
{
    char byte, ctl[CMSG_SPACE(sizeof(int) * 4)];
    struct iovec iov = {&byte, 1};
    struct msghdr m = {.msg_iov = &iov,
                       .msg_iovlen = 1,
                       .msg_control = ctl,
                       .msg_controllen = sizeof(ctl)};
    int fd = -1, got[4], k = 0;
    ssize_t r = recvmsg(s, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);

    if (r < 0 && (errno == EAGAIN || errno == EINTR))
        return -2;
    for (struct cmsghdr *c = r > 0 ? CMSG_FIRSTHDR(&m) : NULL; c;
         c = CMSG_NXTHDR(&m, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
            k = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
            k = k > 4 ? 4 : k;
            memcpy(got, CMSG_DATA(c), (size_t)k * sizeof(int));
        }
    for (int i = 0; i < k; i++) /* one listening socket, nothing else */
        if (fd < 0 && is_listener(got[i]))
            fd = got[i];
        else
            close(got[i]);
    return fd;
}

/* The forwarder's hand-over (harness_forward.c): the listening socket of
 * the CLI's namespace replaces the unix socket, which then closes, so
 * nothing the CLI starts can reach it. */
static void take_listener(cli_proxy *p)
{
    int fd;

    if (p->hand < 0)
        p->hand = accept4(p->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (p->hand < 0 || (fd = recv_fd(p->hand)) == -2)
        return;
    close(p->hand);
    p->hand = -1;
    if (fd < 0 || fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) != 0) {
        if (fd >= 0)
            close(fd);
        return;
    }
    p->tcp = fd;
    close(p->lfd);
    p->lfd = -1;
}

static void accept_all(cli_proxy *p)
{
    if (p->tcp < 0)
        take_listener(p);
    while (p->tcp >= 0 && p->n < PROXY_MAX_CONNS) {
        int fd = accept4(p->tcp, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

        if (fd < 0)
            return;
        p->c[p->n] = up_xcalloc(1, sizeof(pconn));
        p->c[p->n++]->fd = fd;
    }
}

void cli_proxy_step(cli_proxy *p)
{
    if (!p)
        return;
    accept_all(p);
    for (size_t i = p->n; i-- > 0;) {
        pconn *c = p->c[i];
        int over = 0;

        if (c->state == C_READ && held(p) < PROXY_MAX_HELD) {
            over = read_conn(p, c);
            if (c->state == C_READ && take_request(p, c)) {
                c->state = C_READY;
                up_buf_release(&c->in); /* the body is decoded apart */
            }
            if (c->state != C_READ) /* a whole request before an EOF */
                over = 0;
        }
        if (!over && c->state == C_SEND)
            over = flush(c);
        if (over)
            conn_drop(p, i);
    }
}

/* The bytes of p's replies not yet written to the CLI. */
static size_t unread(const cli_proxy *p)
{
    size_t n = 0;

    for (size_t i = 0; i < p->n; i++)
        if (p->c[i]->state == C_SEND)
            n += p->c[i]->out.len - p->c[i]->out_off;
    return n;
}

const up_request *cli_proxy_next(cli_proxy *p, long deadline_ms)
{
    pconn *c = NULL;

    if (!p || p->busy || unread(p) >= PROXY_MAX_UNREAD)
        return NULL;
    for (size_t i = 0; i < p->n && !c; i++)
        if (p->c[i]->state == C_READY)
            c = p->c[i];
    if (!c)
        return NULL;
    c->state = C_BUSY;
    p->busy = c;
    up_buf_reset(&p->url);
    up_buf_addf(&p->url, "%s%s", p->origin, c->target);
    p->raw = (up_raw_request){c->method, p->url.data,
                              (const char *const *)c->headers.v,
                              /* a GET or HEAD carries none */
                              strcmp(c->method, "POST") ? NULL : c->body.data,
                              strcmp(c->method, "POST") ? 0 : c->body.len,
                              p->key_header, deadline_ms};
    up_request_init(&p->rq);
    p->rq.raw = &p->raw;
    return &p->rq;
}

void cli_proxy_reply(cli_proxy *p, const up_response *res)
{
    pconn *c = p ? p->busy : NULL;
    up_buf body = UP_BUF_INIT;

    if (!c)
        return;
    p->busy = NULL;
    /* the provider's last status, when it failed (0, no reply: the
     * CLI's wall clock cut the relay short, its own budget) */
    if (res->http_status)
        p->provider_failed = res->http_status == 429 || res->http_status >= 500
                                 ? res->http_status
                                 : 0;
    up_buf_add(&body, res->raw_body ? res->raw_body : "", res->raw_len);
    up_harness_redact(&body, p->key); /* an endpoint may echo the key */
    if (p->on_exchange)
        p->on_exchange(p->on_exchange_ud, c->target, c->body.data, c->body.len,
                       res->http_status, res->raw_ctype, body.data, body.len);
    reply(c, res->http_status ? res->http_status : 502, res->raw_ctype,
          body.data, body.len);
    up_buf_release(&body);
    for (size_t i = 0; i < p->n; i++)
        if (p->c[i] == c && flush(c))
            conn_drop(p, i);
}
