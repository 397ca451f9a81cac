/*
 * Inside the providers: the ops table each backend fills, the reply
 * accumulator shared by streaming and non-streaming reads, and the
 * request builder.  Used by src/loop/sched.c and by the unit tests.
 */
#ifndef UPSKILL_PROVIDERS_H
#define UPSKILL_PROVIDERS_H

#include <jansson.h>

#include "upskill/buf.h"
#include "upskill/provider.h"
#include "util/json.h"
#include "util/sse.h"

/* A NULL-terminated list of "Name: value" header lines, owned. */
typedef struct up_hdrs {
    char **v; /* always NULL-terminated once anything was added */
    size_t n, cap;
} up_hdrs;

void up_hdrs_add(up_hdrs *h, const char *name, const char *value);
/* Free the lines, wiping them first (they may hold a key). */
void up_hdrs_release(up_hdrs *h);

/* What a streamed body turned out to be, from its first byte. */
enum { REPLY_UNKNOWN, REPLY_SSE, REPLY_JSON };

/* A tool call being received: fragments are joined per index. */
typedef struct up_reply_call {
    int index; /* the wire's index (OpenAI) or content block (Anthropic) */
    up_buf id;
    up_buf name;
    up_buf args; /* the JSON argument text, joined */
} up_reply_call;

/* What a reply has delivered so far. */
typedef struct up_reply {
    const up_endpoint *ep;
    const struct up_provider_ops *ops;
    up_buf text;          /* answer text as received (think tags not split) */
    up_buf reasoning;     /* reasoning_content / reasoning / thinking */
    up_buf tool;          /* JSON input of the forced tool call (Anthropic) */
    up_buf stop;          /* stop / finish reason */
    up_usage usage;       /* as reported */
    int has_usage;        /* the server reported input/output counts */
    int has_rtokens;      /* ... and a reasoning token count */
    int committed;        /* content arrived: a retry would bill twice */
    int ended;            /* the stream's end marker arrived */
    up_sse sse;           /* streaming parser */
    int shape;            /* what the body turned out to be: REPLY_* */
    up_buf raw;           /* a JSON body, or a stream's first bytes */
    size_t events;        /* JSON events the stream delivered */
    int inband;           /* in-band error status from the stream, 0 */
    up_buf *msg;          /* where the in-band message goes (during feed) */
    char model[128];      /* the reply's "model" (who answered), or "" */
    up_reply_call *calls; /* tool calls, in the order they began */
    size_t ncalls, ccap;
    json_t *carry;   /* blocks the assistant turn hands back (Anthropic
                        thinking with signatures), an array or NULL */
    int blk;         /* streams: the open block's BLK_* */
    int blk_index;   /* ... its index */
    size_t blk_from; /* ... where its thinking began in reasoning */
    up_buf sig;      /* ... its signature, joined */
    size_t not_utf8; /* bytes of the body that were not UTF-8, each
                        parsed as U+FFFD */
} up_reply;

/* The kind of block a stream has open (up_reply.blk). */
enum { BLK_NONE, BLK_THINKING, BLK_OTHER };

/* The call with the wire's index, added (empty) if new. */
up_reply_call *up_reply_call_at(up_reply *r, int index);

/*
 * An in-band error e (an object with "message" and maybe a "code", or a
 * bare string): "stream error <code>: <message>" appended to r->msg (the
 * code when it is an HTTP status or a word, the word cut at 64 bytes;
 * the message cut at 500), the one wording of every wire's.  Returns the
 * code when it is an HTTP status, else status.
 */
int up_reply_error(up_reply *r, json_t *e, int status);

/* Append b to r->carry (reference stolen). */
void up_reply_carry(up_reply *r, json_t *b);

/* The role name of an up_msg on the wire: "user", "assistant", "tool". */
const char *up_role_name(int role);

struct up_provider_ops {
    const char *name;
    int kind;
    const char *default_base;
    const char *models_path; /* GET {base}<this> lists the models */
    /* Rate-limit headers (remaining, reset pairs) whose reset says how
       long a 429 without retry-after waits; NULL-name ended. */
    const up_http_limit *limits;
    /* Prefixes of the provider's keys, scrubbed from error text. */
    const char *const *key_prefixes;
    /* Error codes of a spent quota or spend limit (a 429 not retried). */
    const char *const *quota_words;
    /* Append the request URL for ep. */
    void (*url)(const up_endpoint *ep, up_buf *out);
    /* Add the provider's headers (auth, version). */
    void (*headers)(const up_endpoint *ep, up_hdrs *h);
    /* The request body as a new JSON object, without the offered tools:
       up_provider_build adds them as "tools" (see tools). */
    json_t *(*body)(const up_endpoint *ep, const up_request *rq);
    /* rq's offered tools (rq->ntools > 0) as a new JSON array. */
    json_t *(*tools)(const up_request *rq);
    /* Read a whole response body; 0 or UP_EPARSE. */
    int (*parse)(up_reply *r, json_t *root);
    /* One SSE event; 0, or an HTTP-like status for an in-band error
       (message appended to r->msg). */
    int (*event)(up_reply *r, const char *name, json_t *data);
};

extern const struct up_provider_ops up_anthropic_ops;
extern const struct up_provider_ops up_openai_ops;
extern const struct up_provider_ops up_responses_ops;

/*
 * The OpenAI-family URL for ep: the base (Azure: plus
 * /openai/deployments/{model}), then path, then ep->query.
 */
void up_openai_url(const up_endpoint *ep, const char *def, const char *path,
                   up_buf *out);

/* The OpenAI-family auth header: Bearer, or ep->key_header's bare key. */
void up_openai_auth(const up_endpoint *ep, up_hdrs *h);

/* The ops for an enum up_wire_kind, or NULL. */
const struct up_provider_ops *up_provider_ops_for(int kind);

/* Keep obj's "model" string (if any) as the model that answered. */
void up_reply_model(up_reply *r, json_t *obj);

/*
 * 1 when rq (may be NULL) to ep streams: ep->stream, unless this endpoint
 * (kind and base URL) refused a stream before, or refused one with tools
 * and rq offers tools.
 */
int up_provider_streams(const up_endpoint *ep, const up_request *rq);

/* A tool's parameters as a new JSON schema object ({"type": "object"}
 * when it has none or they do not parse), for every wire's tool list. */
json_t *up_tool_params(const up_tool_spec *t);

/*
 * Request rq (may be NULL) to ep, sent streaming, failed with status and
 * error body: when the server says no to streaming (a 400 or 422 naming
 * "stream"), or to streaming with tools (llama.cpp's "Cannot use tools
 * with stream", a 500), remember the endpoint as non-streaming (for
 * requests with tools only, in the second case) for the rest of the
 * process and return 1 (ask again: the next build has no "stream").
 * Else 0.  Whether the request streamed is the caller's to know (see
 * up_provider_streams at build time): several requests in flight may be
 * refused before the first refusal is remembered, and each is asked again.
 */
int up_provider_stream_refused(const up_endpoint *ep, const up_request *rq,
                               long status, const char *body, size_t len);

/* Error-body words of a refusal no retry changes (the request's
 * refusals, see up_http_request), NULL-ended. */
const char *const *up_provider_refusal_words(void);

/* An error body (len bytes) holding a refusal with a known fix (llama.cpp
 * without --jinja): the fix appended to err->msg in parentheses. */
void up_provider_refusal_fix(const char *body, size_t len, up_error *err);

/* ep->max_tokens or the default. */
int up_provider_max_tokens(const up_endpoint *ep);

/* The effort for the request, or NULL for none ("none", "" count). */
const char *up_provider_effort(const up_endpoint *ep);

/* Append ep->base_url (or def) without trailing slashes. */
void up_provider_base(const up_endpoint *ep, const char *def, up_buf *out);

/* The long integer at obj.key (0 when missing); *seen set if present. */
long up_pjson_long(json_t *obj, const char *key, int *seen);

/*
 * Build the URL, headers (provider's, ep's extra, content-type) and body
 * for rq on ep.  Returns 0, or UP_EUSAGE for an unknown kind or a schema
 * that is not JSON.
 */
int up_provider_build(const up_endpoint *ep, const up_request *rq, up_buf *url,
                      up_hdrs *h, up_buf *body, up_error *err);

/*
 * The headers of relayed request raw on ep: the CLI's (already
 * filtered), ep's extra ones and the real key by raw->key_header or the
 * wire's rule.  Returns 0, or UP_EPARSE for a header of ep with a
 * control character.
 */
int up_provider_raw_headers(const up_endpoint *ep, const up_raw_request *raw,
                            up_hdrs *h, up_error *err);

void up_reply_init(up_reply *r, const up_endpoint *ep);
void up_reply_release(up_reply *r);
/* Forget everything received (a new attempt starts). */
void up_reply_reset(up_reply *r);

/*
 * Feed the bytes of a 2xx reply to a streaming request (the
 * up_http_request on_data contract).  The first non-blank byte decides
 * what the body is: '{' means a server that ignored "stream": true and
 * sent the whole reply as JSON, which is kept and read by up_reply_end;
 * anything else is parsed as server-sent events.
 */
int up_reply_feed(up_reply *r, const char *p, size_t n, up_buf *msg);

/*
 * The body of a streaming request is over (ctype: its content type, may
 * be NULL).  A JSON body is read as the non-stream reply.  Returns 0 when
 * the reply is complete; UP_ENETWORK when an event stream ended before
 * its end marker (partial output kept); UP_EHTTP when the body was
 * neither usable events nor the provider's JSON, or when the stream ended
 * with nothing of an answer (no content, calls, stop reason or usage:
 * what some servers send for an error), with err naming the content type
 * and the body's first bytes (keys redacted).
 */
int up_reply_end(up_reply *r, const char *ctype, up_error *err);

/* Read a whole JSON body; 0 or UP_EPARSE with err naming what is wrong. */
int up_reply_parse(up_reply *r, const char *body, size_t len, up_error *err);

/*
 * Move the reply into out (text, reasoning, stop reason) and add its usage
 * to out->usage: think tags are split out of the text, a forced tool's
 * JSON becomes the text, missing counts are estimated from rq and the
 * reply as chars/4 and flagged.
 */
void up_reply_finish(up_reply *r, const up_request *rq, up_response *out);

/*
 * 1, with a warning appended to msg, when the server counted under a
 * third of the prompt tokens estimated for rq (chars/4, over 1,000): it
 * may have cut the prompt.  Only the first time per endpoint; else 0.
 */
int up_reply_prompt_cut(const up_reply *r, const up_request *rq, up_buf *msg);

/*
 * Check that *text is JSON; a JSON value wrapped in a ```json fence or in
 * prose is cut out and *text replaced by it.  Returns 0, or UP_EPARSE
 * with the parser's complaint appended to why.
 */
int up_provider_check_json(char **text, up_buf *why);

#endif
