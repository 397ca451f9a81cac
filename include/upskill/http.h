/*
 * HTTP transport for provider calls: libcurl behind a small async client.
 *
 * One up_http_client owns one curl multi handle, so every transfer it runs
 * shares one connection cache and one DNS cache; it is driven by ONE
 * thread calling up_http_run.  Each submitted transfer retries on its own
 * like the official Anthropic and OpenAI SDKs (connection errors, 408, 409,
 * 429 and >= 500; exponential backoff with jitter; Retry-After honoured up
 * to a cap, or on a 429 without it Anthropic's rate-limit reset time;
 * x-should-retry overrides), waiting on timers inside the client,
 * never by sleeping.  Each attempt is reported to an optional log callback
 * that never sees a header: secrets travel only in the header list handed
 * to curl.  The retry policy is a set of pure functions, declared first.
 */
#ifndef UPSKILL_HTTP_H
#define UPSKILL_HTTP_H

#include <stddef.h>
#include <time.h>

#include "upskill/buf.h"
#include "upskill/error.h"

/* ---- retry policy (pure) ---------------------------------------------- */

typedef struct up_http_policy {
    int max_retries;         /* retries after the first attempt (SDKs: 2) */
    long base_delay_ms;      /* first backoff before jitter (500) */
    long max_delay_ms;       /* backoff cap (8000) */
    long max_retry_after_ms; /* a longer server hint fails fast (60000) */
} up_http_policy;

/* Fill p with the SDK defaults: 2 retries, 0.5 s doubling to 8 s, 60 s. */
void up_http_policy_default(up_http_policy *p);

/*
 * Should an attempt be retried?  status is the HTTP status, or 0 for a
 * transport failure (then transport_retryable says whether that kind of
 * failure is worth another try).  x_should_retry is that header's value or
 * NULL; "true"/"false" decide before anything else.  Otherwise 408, 409,
 * 429 and every status >= 500 retry.  Returns 1 or 0.
 */
int up_http_retryable(long status, int transport_retryable,
                      const char *x_should_retry);

/*
 * The server's wait hint in milliseconds: retry-after-ms first, then
 * retry-after as (decimal) seconds, then retry-after as an HTTP date
 * relative to now.  Either header may be NULL.  Returns -1 when there is
 * no usable hint (absent, malformed, zero, negative, in the past).
 */
long up_http_retry_hint_ms(const char *retry_after_ms, const char *retry_after,
                           time_t now);

/* At most this many rate limits are read from one response. */
#define UP_HTTP_NLIMITS 8

/*
 * A rate limit's headers: the names of its "remaining" and "reset"
 * headers, given by the provider (the transport knows no provider).
 */
typedef struct up_http_limit {
    const char *remaining;
    const char *reset;
} up_http_limit;

/*
 * A wait hint from rate-limit headers, for a 429 without retry-after:
 * remaining[i] and reset[i] are the values (or NULL) of the headers an
 * up_http_limit names (e.g. anthropic-ratelimit-<limit>-remaining and
 * -reset, OpenAI's x-ratelimit-remaining-<limit> and
 * x-ratelimit-reset-<limit>), for n limits.  A reset is an RFC 3339 time
 * (fractional seconds, "Z" or
 * "+hh:mm" / "-hh:mm", as Anthropic sends) or a duration from now ("20ms",
 * "1s", "6m0s", "1h2m3.5s", as OpenAI sends).  When some limits say
 * remaining "0", the hint is the latest of their resets (all of them must
 * clear); otherwise the earliest reset given.  Returns milliseconds from
 * now, or -1 when no reset is usable (absent, malformed, not in the
 * future).
 */
long up_http_reset_hint_ms(const char *const remaining[],
                           const char *const reset[], size_t n, time_t now);

/*
 * Milliseconds to wait before retry number n (n = retries already made,
 * from 0).  A hint in (0, cap] is used as is; a hint over the cap returns
 * -1 (give up: the caller reports the wait); otherwise
 * min(base * 2^n, max) * (1 - 0.25 * rand01), rand01 in [0, 1).
 */
long up_http_retry_delay_ms(const up_http_policy *p, int n, long hint_ms,
                            double rand01);

/*
 * The UP_E* code for a final HTTP status: 401/403 -> UP_EAUTH, 408 ->
 * UP_ETIMEOUT, 429 -> UP_ERATELIMIT, 400/404/413/422 -> UP_EBADREQ, >= 500
 * -> UP_ESERVER, other non-2xx -> UP_EHTTP, 2xx -> 0.  (A transfer's
 * 413, and a 400/422 that says the context was outgrown, end as
 * UP_ECONTEXT: up_http_context_overflow.)
 */
int up_http_status_code(long status);

/*
 * Append to out the provider's own message from an error body: error.message
 * (OpenAI, Anthropic, llama.cpp, vLLM), error as a string (Ollama),
 * message (old vLLM), else the first 200 bytes of the raw body with
 * control characters blanked.  Anything that looks like a key (one of
 * prefixes, NULL-ended, may be NULL: the providers give theirs, see
 * up_provider_key_prefixes, followed by 8+ key characters, or 2+ when
 * masked with '*' or an ellipsis) is replaced by "[redacted]".
 */
void up_http_error_message(const char *body, size_t len,
                           const char *const *prefixes, up_buf *out);

/*
 * True when a server refused a request for outgrowing the model's
 * context: a 413, or a 400/422 (status 0: an error sent in-band in a
 * stream) whose body says so in the words of OpenAI, vLLM, llama.cpp,
 * Ollama, Anthropic or Gemini ("maximum context length", "exceeds the
 * available context size", "prompt is too long", ...; the first 64 KiB
 * are searched, in any case).  Such a final status is UP_ECONTEXT, not
 * UP_EBADREQ, and is never retried.
 */
int up_http_context_overflow(long status, const char *body, size_t len);

/*
 * True when an error body holds one of quota_words (NULL-ended, may be
 * NULL; the providers give theirs, see up_provider_quota_words: OpenAI's
 * insufficient_quota, Anthropic's enforced_spend_limit_reached, ...): a
 * spent quota or spend limit, a 429 that will not clear by waiting and
 * is never retried.
 */
int up_http_quota_exhausted(const char *body, size_t len,
                            const char *const *quota_words);

/* Remove userinfo, query and fragment from url (for logs and errors). */
void up_http_redact_url(const char *url, up_buf *out);

/* ---- transfers -------------------------------------------------------- */

/* One attempt, as reported to the log callback.  No header, no body. */
typedef struct up_http_attempt {
    const char *target;     /* scheme://host/path, no query or userinfo */
    int attempt;            /* 1-based */
    int max_attempts;       /* 1 + max_retries */
    long status;            /* HTTP status, 0 when none arrived */
    int code;               /* 0 or the UP_E* this attempt ended with */
    const char *error;      /* short reason (curl or provider), or NULL */
    const char *request_id; /* request-id / x-request-id, or "" */
    long elapsed_ms;        /* duration of this attempt */
    long delay_ms;          /* wait before the next attempt, -1 for none */
    const char *why; /* "retry-after", "ratelimit-reset", "backoff", NULL */
    void *ud;        /* the request's ud: who the attempt was for */
} up_http_attempt;

typedef void (*up_http_log_fn)(void *ud, const up_http_attempt *a);

typedef struct up_http_request {
    const char *url;
    const char *const *headers; /* "Name: value" lines, NULL-terminated;
                                   a line with a control character fails
                                   the transfer (UP_EPARSE) unsent */
    const char *body;           /* POST body, or NULL for GET */
    const char *method;         /* NULL: POST with a body, else GET; or
                                   "HEAD", "GET", "POST" (static text) */
    size_t body_len;
    long connect_timeout_ms; /* 0: 10 s */
    long total_timeout_ms;   /* per attempt; 0: 600 s */
    long idle_timeout_ms;    /* streams (on_data set) only: abort when no
                                byte came for this long; 0: 300 s */
    long first_byte_ms;      /* streams only: abort an attempt whose reply
                                has not begun (no header) by then, a server
                                that accepts and never answers; 0: 45 s */
    long deadline_ms;        /* up_http_now_ms() limit for all attempts, 0 */
    up_http_policy policy;   /* zeroed: use up_http_policy_default */
    size_t max_response;     /* body cap in bytes; 0: 32 MB */
    /*
     * Optional streaming sink for the body of a 2xx response.  Return 0 to
     * go on, or an HTTP-like status (e.g. 529 for an in-band overload
     * event) after filling msg: the attempt then ends as if the server had
     * answered with that status.
     */
    int (*on_data)(void *ud, const char *p, size_t n, up_buf *msg);
    void (*on_reset)(void *ud); /* before every attempt after the first */
    int (*committed)(void *ud); /* nonzero: output seen, do not retry */
    void *ud;
    const up_http_limit *limits;     /* rate limits a 429 without
                                        retry-after reads its wait from;
                                        NULL-ended, NULL: none */
    const char *const *key_prefixes; /* key prefixes scrubbed from error
                                        text (NULL-ended), or NULL */
    const char *const *quota_words;  /* error-body words of a spent quota:
                                        never retried (NULL-ended), NULL */
    const char *const *refusals;     /* error-body words of a refusal no
                                        retry changes (a feature the
                                        server lacks): never retried
                                        (NULL-ended), NULL */
} up_http_request;

typedef struct up_http_result {
    int code;       /* 0 or UP_E* */
    up_error err;   /* filled when code != 0 */
    long status;    /* last HTTP status, 0 if none */
    up_buf body;    /* body when no sink took it, and error bodies */
    char ctype[64]; /* content-type of the last response */
    char request_id[96];
    int attempts;    /* attempts made */
    long latency_ms; /* first attempt start to the end */
} up_http_result;

/* res is owned by the client; take what you need (e.g. detach body). */
typedef void (*up_http_done_fn)(void *ud, up_http_result *res);

typedef struct up_http_client up_http_client;
typedef struct up_http_xfer up_http_xfer;

/* Milliseconds on a monotonic clock. */
long up_http_now_ms(void);

/*
 * Most connections a client opens to one host, and in all: beyond it,
 * transfers wait inside curl for a free connection, so -j far above what
 * a server accepts does not end in refused connections and retries.
 */
#define UP_HTTP_MAX_HOST_CONNS 256

/* The connection cap for max_conns parallel transfers (0: 64). */
long up_http_conn_cap(int max_conns);

/*
 * A client for up to max_conns parallel transfers (0: 64), over at most
 * up_http_conn_cap(max_conns) connections per host and in all.
 */
up_http_client *up_http_client_new(int max_conns);

/*
 * Set c's connection caps for max_conns parallel transfers (as
 * up_http_client_new): a client reused by runs of another width (the
 * command's loop, sched.h) is set for each.  Connections open beyond a
 * lower cap are closed as they go idle.
 */
void up_http_client_set_conns(up_http_client *c, int max_conns);

/* Cancel what is pending (no callbacks) and free the client. */
void up_http_client_free(up_http_client *c);

/* Report every attempt to fn(ud, ...); fn may be NULL. */
void up_http_client_set_log(up_http_client *c, up_http_log_fn fn, void *ud);

/*
 * Start rq (strings are copied; rq may go away).  done(ud, res) is called
 * once from up_http_run when the last attempt ends.  Never fails.
 */
up_http_xfer *up_http_submit(up_http_client *c, const up_http_request *rq,
                             up_http_done_fn done, void *ud);

/*
 * Drive transfers: wait at most max_wait_ms for activity or a retry timer,
 * move data, run completion callbacks.  Returns the number of transfers
 * still pending.
 */
size_t up_http_run(up_http_client *c, long max_wait_ms);

/* A caller's fd or'ed with this waits for writability, not input. */
#define UP_FD_WRITE 0x40000000

/*
 * The same, also waking up when one of fds (all nfds are watched: the
 * poll set grows to the most ever asked, no fixed cap) is readable
 * (writable: fd | UP_FD_WRITE): other work of the caller's loop (a
 * sandboxed command's pipes) shares the wait.  With no transfer pending it
 * polls fds alone (for max_wait_ms; not at all when nfds is 0).
 */
size_t up_http_run_fds(up_http_client *c, long max_wait_ms, const int *fds,
                       size_t nfds);

/* How many waits of c's ended at their timeout with nothing ready (the
 * loop's tick rather than a descriptor or a socket woke it). */
size_t up_http_client_timeouts(const up_http_client *c);

/* End x now; its done callback runs at once with code UP_EINTR. */
void up_http_cancel(up_http_client *c, up_http_xfer *x);

void up_http_result_init(up_http_result *res);
void up_http_result_release(up_http_result *res);

#endif
