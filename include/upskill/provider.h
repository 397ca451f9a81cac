/*
 * Model providers: one request/response shape over every backend.
 *
 * The caller hands over an already-resolved endpoint (which API, where,
 * which key, which model; configuration parsing lives elsewhere) and a
 * conversation; the provider builds the wire request, the transport runs
 * it with retries, the provider reads the reply back into up_response:
 * the graded text, the reasoning kept apart from it, token usage
 * (estimated and marked so when the server gave none), latency, attempts.
 * A conversation may offer tools and carry earlier turns with their tool
 * calls and results (up_msg); the reply then brings its tool calls back
 * (up_response.calls), on both wires, streaming or not.
 *
 * Backends sit behind one ops table (src/providers/): Anthropic Messages,
 * OpenAI Chat Completions, which also serves OpenAI-compatible servers
 * (llama.cpp, Ollama, vLLM, LM Studio, the HF router, the hosted
 * presets, Azure), and OpenAI's Responses API.
 */
#ifndef UPSKILL_PROVIDER_H
#define UPSKILL_PROVIDER_H

#include <signal.h>
#include <stddef.h>

#include "upskill/error.h"
#include "upskill/http.h"

/* The official endpoints: the defaults of the config and of the wire. */
#define UP_ANTHROPIC_BASE_URL "https://api.anthropic.com"
#define UP_OPENAI_BASE_URL    "https://api.openai.com/v1"

/* The output cap when neither the config nor a flag sets one. */
#define UP_DEFAULT_MAX_TOKENS 4096

/* The wire protocols a request can speak: one file of src/providers/
 * each, one row of its ops table.  Several presets share a wire. */
enum up_wire_kind {
    UP_WIRE_ANTHROPIC, /* POST {base}/v1/messages */
    UP_WIRE_OPENAI,    /* POST {base}/chat/completions (+ compatibles) */
    UP_WIRE_RESPONSES  /* POST {base}/responses (OpenAI Responses API) */
};

/* Where and how to call a model.  Strings are borrowed. */
typedef struct up_endpoint {
    int kind;                   /* enum up_wire_kind */
    const char *base_url;       /* "https://api.anthropic.com", ".../v1"; NULL:
                                   the provider's official URL */
    const char *api_key;        /* the key's value, or NULL (local servers); it
                                   goes into a request header and nowhere else */
    const char *const *headers; /* extra "Name: value" lines, NULL-ended */
    const char *model;          /* the resolved model id */
    const char *effort;      /* NULL, or "minimal".."max": reasoning effort */
    int compat;              /* OpenAI kind: 1 = a compatible server (system
                                role, max_tokens), 0 = decide from the host,
                                -1 = official OpenAI rules */
    int stream;              /* 1: SSE streaming (a server that refuses
                                it with a 400 is asked again without,
                                and remembered), 0: one JSON body */
    int max_tokens;          /* output cap; 0: UP_DEFAULT_MAX_TOKENS */
    long connect_timeout_ms; /* 0: 10 s */
    long total_timeout_ms;   /* per attempt; 0: 600 s */
    long idle_timeout_ms;    /* streams: no byte this long aborts; 0: 300 s */
    long first_byte_ms;      /* streams: no reply begun by then; 0: 45 s */
    int max_retries;         /* -1: the SDK default (2) */
    const char *key_header;  /* NULL: "Authorization: Bearer <key>"; else
                                the header that carries the bare key
                                (Azure's "api-key") */
    const char *query;       /* appended to every URL after '?' (Azure's
                                "api-version=..."), or NULL */
    int deployment;          /* 1: the model is a deployment, addressed
                                as {base}/openai/deployments/{model}
                                (Azure) */
} up_endpoint;

/* Fill ep with defaults for kind (everything else NULL/0). */
void up_endpoint_init(up_endpoint *ep, int kind);

/*
 * Fill ep with defaults for a configured provider (enum up_provider_kind
 * in preset.h): the wire it speaks, its OpenAI-compat rule and its URL
 * and auth quirks, from the preset table (upskill/preset.h).  Returns 0,
 * or UP_EUSAGE for an unknown one.
 */
int up_endpoint_init_for(up_endpoint *ep, int provider);

typedef struct up_message {
    const char *role;    /* "user" or "assistant" */
    const char *content; /* the text */
} up_message;

/* Who speaks a turn of a tool conversation (up_msg). */
enum up_role { UP_ROLE_USER, UP_ROLE_ASSISTANT, UP_ROLE_TOOL };

/* One tool call of an assistant turn.  Heap strings in an up_response
   (freed by up_response_release), borrowed in an up_msg. */
typedef struct up_tool_call {
    char *id;   /* the provider's call id ("call_..", "toolu_..") */
    char *name; /* the tool's name */
    char *args; /* the arguments as JSON text, as the model sent it (may
                   be malformed: the tool decides) */
} up_tool_call;

/* A tool the model may call.  Strings are borrowed. */
typedef struct up_tool_spec {
    const char *name;
    const char *description;
    const char *parameters; /* JSON Schema text of the arguments object */
} up_tool_spec;

/*
 * One turn of a conversation beyond the system prompt.  Strings and
 * arrays are borrowed.  A user turn has text; an assistant turn has text
 * and/or calls, and carry (its up_response's carry, handed back
 * verbatim); a tool turn answers call_id with text, is_error set when the
 * tool failed.  Consecutive tool turns become one Anthropic user message.
 */
typedef struct up_msg {
    int role;                  /* enum up_role */
    const char *text;          /* may be NULL (an assistant with calls) */
    const up_tool_call *calls; /* assistant: the calls it made */
    size_t ncalls;
    const char *call_id; /* tool: the call answered */
    int is_error;        /* tool: the result is an error */
    const char *carry;   /* assistant: up_response.carry, or NULL */
} up_msg;

/*
 * A request a coding-agent CLI made, relayed by its conversation's
 * proxy (docs/agent-clis.md): sent as it is, never built nor parsed.
 * The URL is the endpoint's origin and the CLI's path (never a host the
 * CLI named); the CLI's own key headers are not among headers: the
 * scheduler adds the real key (key_header, or the wire's rule).
 * Strings are borrowed.
 */
typedef struct up_raw_request {
    const char *method;         /* "GET", "POST", "HEAD" (static text) */
    const char *url;            /* absolute */
    const char *const *headers; /* "Name: value" lines, NULL-ended */
    const char *body;           /* may hold NUL bytes; NULL: none */
    size_t body_len;
    const char *key_header; /* the header carrying the bare key, or NULL:
                               the wire's (x-api-key, Authorization) */
    long deadline_ms;       /* up_http_now_ms() limit of all its attempts (the
                               CLI's wall clock), or 0 */
} up_raw_request;

/* One conversation to complete.  Strings and arrays are borrowed. */
typedef struct up_request {
    const up_raw_request *raw; /* a relayed request: every other field is
                                  ignored and the reply is not parsed
                                  (up_response.raw_*); NULL: built */
    const char *system;        /* system prompt, or NULL */
    const up_message *messages;
    size_t n_messages;
    const up_msg *msgs; /* a tool conversation, sent after messages; NULL:
                           the request is exactly today's (no JSON repairs
                           when set) */
    size_t nmsgs;
    const up_tool_spec *tools; /* tools offered to the model, or NULL */
    size_t ntools;
    const char *schema;      /* JSON Schema text: reply must be JSON */
    const char *schema_name; /* its name; NULL: "result" */
    int json_repairs;        /* follow-up turns when the JSON is bad;
                                -1: 2, 0: none */
    double temperature;      /* < 0: leave to the server */
} up_request;

/* Fill rq with an empty conversation and defaults. */
void up_request_init(up_request *rq);

typedef struct up_usage {
    long input;       /* all input tokens, cached ones included */
    long output;      /* output tokens, reasoning included */
    long cached;      /* input tokens read from the cache */
    long cache_write; /* input tokens written to the cache (Anthropic) */
    long reasoning;   /* reasoning/thinking tokens (part of output) */
    int estimated;    /* 1 when some count is a chars/4 estimate */
} up_usage;

/* The chars/4 estimate of the tokens of chars characters. */
long up_usage_estimate(size_t chars);

/* Add u's counts to *to (estimated when either is). */
void up_usage_add(up_usage *to, const up_usage *u);

/* What one response body, as a server sent it (JSON or a stream), tells
 * of its tokens: for a proxy that relays bytes it did not ask for. */
typedef struct up_body_usage {
    up_usage u;
    int has_usage;   /* the server counted input and output */
    int has_rtokens; /* ... and reasoning */
    size_t out;      /* characters of text, reasoning and tool calls */
    size_t thought;  /* ... of them reasoning */
} up_body_usage;

/* Read body (len bytes, of Content-Type ctype, may be NULL) with the
 * reply reader of wire (enum up_wire_kind); 0, or -1 for a wire that has
 * no reader here (then *w is zero). */
int up_provider_body_usage(int wire, const char *body, size_t len,
                           const char *ctype, up_body_usage *w);

/* Why a reply ended, over every wire (up_response.stop). */
enum up_stop {
    UP_STOP_OTHER, /* unknown, refusal, none */
    UP_STOP_END,   /* the model finished (end_turn, stop, stop_sequence) */
    UP_STOP_TOOL,  /* it called tools (tool_use, tool_calls) */
    UP_STOP_LENGTH /* the output cap (max_tokens, length) */
};

typedef struct up_response {
    int code;          /* 0 or UP_E* */
    up_error err;      /* when code != 0 */
    char *text;        /* the answer (JSON text for schema requests) */
    char *reasoning;   /* reasoning kept out of text ("" if none) */
    char *stop_reason; /* end_turn / stop / length / max_tokens ... */
    up_usage usage;    /* summed over all turns (JSON repairs too) */
    long latency_ms;   /* from the first request to the last byte */
    int attempts;      /* HTTP attempts, over all turns */
    int turns;         /* requests made (1 + JSON repairs) */
    long http_status;  /* status of the last response */
    char request_id[96];
    char model[128];     /* the model the server says answered ("" if none) */
    int truncated;       /* 1: the answer stopped at the output cap
                            (finish_reason length / stop_reason max_tokens) */
    int max_tokens;      /* the output cap that was sent */
    int stop;            /* enum up_stop, from stop_reason */
    up_tool_call *calls; /* the reply's tool calls (several: parallel
                            calls), in order; NULL when none */
    size_t ncalls;
    char *carry; /* what the assistant turn must carry back verbatim (JSON
                    array text of Anthropic thinking blocks), or NULL */
    /* a relayed request's reply (up_request.raw), as the server sent it:
       status in http_status (502 with an error text when none came) */
    char *raw_body; /* owned, NUL-terminated, raw_len bytes */
    size_t raw_len;
    char raw_ctype[64]; /* its content type, "" when none */
    size_t not_utf8;    /* bytes of the replies that were not UTF-8, each
                           read as U+FFFD (summed over turns) */
} up_response;

void up_response_init(up_response *r);

/* The enum up_stop a wire stop reason (may be NULL) stands for. */
int up_stop_kind(const char *reason);
void up_response_release(up_response *r);

/* Free n tool calls (their id, name and args) and the array. */
void up_tool_calls_free(up_tool_call *c, size_t n);

/*
 * 0 when every header line of ep (the key, the extra headers) is free of
 * control characters; else UP_EPARSE with err naming the header (never
 * its value): a CR or LF would start a header of its own.
 */
int up_endpoint_check(const up_endpoint *ep, up_error *err);

/* 1 when s (may be NULL) holds no control character (CR, LF, tab...). */
int up_header_value_ok(const char *s);

/*
 * The output cap r stopped at (its stop reason is length / max_tokens,
 * or r->truncated), or 0 when it was not cut.  ep gives the cap for a
 * response that does not carry it (one read back from the cache).
 */
int up_response_cut_at(const up_response *r, const up_endpoint *ep);

/* The wire kind (enum up_wire_kind) for a name ("anthropic", "openai"),
   or -1. */
int up_wire_kind_of(const char *name);

/* The name of a wire kind ("anthropic", "openai"), or "?". */
const char *up_wire_name(int kind);

/*
 * Every provider's key prefixes (NULL-ended), for scrubbing error text
 * whichever server it came from (up_http_error_message).
 */
const char *const *up_provider_key_prefixes(void);

/*
 * Every provider's error codes of a spent quota (NULL-ended), for
 * up_http_quota_exhausted: such a 429 is never retried, whichever server
 * (or proxy) said it.
 */
const char *const *up_provider_quota_words(void);

/* The rate-limit headers of a wire kind (up_http_request.limits), or
   NULL. */
const up_http_limit *up_provider_limits(int kind);

/*
 * Complete rq on ep and wait for the answer: one request, retried as the
 * SDKs do, plus up to rq->json_repairs follow-up turns when a schema was
 * asked for and the reply is not JSON.  log (may be NULL) sees every HTTP
 * attempt.  stop (may be NULL) is a Ctrl-C flag: once it is non-zero the
 * call in flight is cancelled (within ~100 ms) or never starts, and the
 * result is UP_EINTR.  Returns out->code (0 or UP_E*), with out->err
 * filled; out is always initialised and must be released.
 */
int up_provider_complete(const up_endpoint *ep, const up_request *rq,
                         up_http_log_fn log, void *log_ud,
                         volatile sig_atomic_t *stop, up_response *out);

/*
 * The model ids the endpoint's server lists (GET .../models), as a
 * NULL-terminated heap array of heap strings (free with up_strv_free)
 * and their count.  Errors as up_provider_complete.
 */
int up_provider_models(const up_endpoint *ep, char ***ids, size_t *n,
                       up_error *err);

#endif
