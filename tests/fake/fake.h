/*
 * fake-llm: a scripted LLM server for tests (see docs/fake-llm.md).
 *
 * Three parts, each with its own file:
 *   request.c   parse one HTTP request into the facts rules match on;
 *   scenario.c  load the scenario file and pick the rule that answers;
 *   reply.c     turn the picked reply into provider-shaped bytes;
 *   wait.c      holds: delays, barriers and stream pauses on one timer;
 *   server.c    the libmicrohttpd glue and recording;
 *   fake.c      the command line and the server's life.
 * Only server.c knows about libmicrohttpd; the others are plain C.
 */
#ifndef FAKE_H
#define FAKE_H

#include <jansson.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "upskill/buf.h"
#include "upskill/error.h"

/* Scenario files up to this size (a 50 MB hostile tool call fits). */
#define FAKE_MAX_SCENARIO ((size_t)128 << 20)

/* Request bodies larger than this are refused with 413. */
#define FAKE_MAX_BODY (8u * 1024u * 1024u)

/* Which protocol a path speaks; decides the reply and error shapes. */
enum fake_api {
    FAKE_API_NONE,      /* unknown path: 404 in OpenAI shape */
    FAKE_API_OPENAI,    /* POST /v1/chat/completions */
    FAKE_API_ANTHROPIC, /* POST /v1/messages */
    FAKE_API_MODELS,    /* GET /v1/models */
    FAKE_API_GEMINI,    /* POST /v1beta/models/M:(stream)generateContent */
    FAKE_API_RESPONSES  /* POST /v1/responses (OpenAI Responses API) */
};

/* Faults a reply can inject; names in fake_fault_names order. */
enum fake_fault {
    FAKE_FAULT_NONE,
    FAKE_FAULT_EARLY_CLOSE,    /* send part of the body, then close */
    FAKE_FAULT_INVALID_JSON,   /* 200 with a body that is not JSON */
    FAKE_FAULT_OVERSIZED,      /* a body of `bytes` bytes */
    FAKE_FAULT_RESET,          /* close the socket with RST, no response */
    FAKE_FAULT_RETRY_AFTER,    /* 429 with a Retry-After header */
    FAKE_FAULT_NO_USAGE,       /* a normal reply without usage */
    FAKE_FAULT_ERROR_500,      /* 500 in the provider's error shape */
    FAKE_FAULT_OVERLOADED,     /* 529 (Anthropic) or 503 (OpenAI) */
    FAKE_FAULT_STREAM_ERROR,   /* an error event in the middle of a stream */
    FAKE_FAULT_HOLD,           /* accept, never answer (504 at shutdown) */
    FAKE_FAULT_SSE_ERROR_LINE, /* 200, "error: {...}" then [DONE] (llama.cpp
                                  before late 2025) */
    FAKE_FAULT_SSE_ERROR_DATA, /* 200, "data: {"error": {...}}" then [DONE] */
    FAKE_FAULT_EMPTY_STREAM,   /* 200, a chunk with no choices, [DONE] */
    FAKE_FAULT_STALL,          /* the headers, then chunk_delay_ms before
                                  the first byte of the body too */
    FAKE_FAULT_COUNT
};

/* A fault's name ("reset") to its value; FAKE_FAULT_COUNT when unknown. */
enum fake_fault fake_fault_parse(const char *name);
/* The name of a fault value. */
const char *fake_fault_name(enum fake_fault f);

/* One request, as the rules see it.  Filled by fake_request_*. */
struct fake_request {
    const char *method; /* borrowed from the server */
    const char *path;   /* borrowed from the server */
    enum fake_api api;
    long n;            /* 1-based arrival number over the server's life */
    json_t *headers;   /* lowercase name -> string, owned */
    up_buf raw;        /* the body bytes as received */
    int too_big;       /* the body went over FAKE_MAX_BODY */
    json_t *json;      /* the parsed body, owned; NULL when not JSON */
    const char *model; /* borrowed from json; NULL when absent */
    int stream;        /* "stream": true */
    int include_usage; /* "stream_options": {"include_usage": true} */
    up_buf system;     /* system/developer text (or Anthropic "system") */
    up_buf user;       /* text of the last user message */
    up_buf all;        /* system text and every message's text */
    uint64_t hash;     /* of path, model and all: the "same prompt" key */
    /* the conversation so far (tool calling) */
    int has_tools;         /* "tools" is a non-empty array */
    const char *last_role; /* the last message's role ("tool" also for an
                              Anthropic user turn of tool_result blocks) */
    up_buf tool_result;    /* text of the trailing run of tool results */
    int tool_error;        /* one of them has "is_error": true */
    long assistant_turns;  /* assistant messages so far */
    up_buf path_model;     /* Gemini: the model named in the path */
};

/* Token counts of a reply; -1 means "derive from the text". */
struct fake_usage {
    long input, output, cached, cache_creation, reasoning;
};

/*
 * What to answer: loaded from a rule's "reply", then adjusted per
 * request (student answer, drawn fault).  Strings are borrowed from the
 * scenario's JSON and live as long as the scenario.
 */
struct fake_reply {
    long status;             /* HTTP status, default 200 */
    json_t *headers;         /* extra response headers (object) or NULL */
    const char *body;        /* sent verbatim when set */
    const char *text;        /* assistant text */
    const char *reasoning;   /* reasoning text, or NULL */
    const char *model;       /* model to report; default: the request's */
    const char *finish;      /* finish_reason / stop_reason override */
    const char *error_type;  /* error.type override for status >= 400 */
    const char *error_msg;   /* error.message override */
    struct fake_usage usage; /* token counts */
    int stream;              /* -1: as asked; 0/1 force JSON / SSE */
    long chunk_size;         /* characters per streamed delta */
    long delay_ms;           /* wait before answering */
    long chunk_delay_ms;     /* wait between streamed events */
    enum fake_fault fault;   /* fault to inject */
    long bytes;              /* early_close: bytes sent; oversized: size */
    char retry_after[32];    /* Retry-After value for retry_after */
    const char *student;     /* "good" or "bad" when a student answered */
    const char *rule;        /* the rule's name, for the record */
    long barrier;            /* hold until this many requests wait too */
    json_t *tool_calls;      /* [{name, arguments, id?}] to call, or NULL */
    size_t rule_index;       /* which rule answered */
    json_t *owned;           /* per-request JSON (an agent's calls), owned
                                by the connection; NULL when none */
    const char *agent;       /* an agent student's step, for the record */
    int latin1;              /* send U+0080..U+00FF of the body as the
                                single bytes 0x80..0xFF (not UTF-8) */
};

/* Per-rule scripted behaviour; see docs/fake-llm.md. */
struct fake_match {
    const char *path, *method, *model, *system, *user, *body;
    json_t *headers;         /* name -> string (equal), true (present), false */
    long nth;                /* only the nth request overall; 0 = any */
    int stream;              /* -1 any, else must equal the request's */
    int tools;               /* -1 any, else must equal rq->has_tools */
    const char *last_role;   /* the last message's role */
    const char *tool_result; /* substring of the trailing tool results */
    int tool_error;          /* -1 any, else must equal rq->tool_error */
    long assistant_turns;    /* -1 any, else must equal the request's */
};

/* A student's two possible answers. */
struct fake_pair {
    const char *good, *bad;
};

struct fake_student {
    int on;                /* the rule has a "student" object */
    const char *marker;    /* text that means "a skill is loaded" */
    double p_with;         /* P(good) when the marker is present */
    double p_without;      /* P(good) when it is absent */
    json_t *answers;       /* user substring -> {"good","bad"} */
    struct fake_pair dflt; /* the "default" pair */
};

/* An agent student's pass probability by what it read (docs/fake-llm.md). */
struct fake_agent_p {
    double none, skill, reference;
};

/* Agent student mode: a scripted tool-using student. */
struct fake_agent {
    int on;                   /* the rule has an "agent" object */
    const char *skill;        /* the skill's name (its catalogue entry) */
    const char *reference;    /* a file of the skill folder to read, or NULL */
    const char *file;         /* the workspace file it writes */
    struct fake_pair content; /* its good and bad content */
    double p_activate;        /* P(read SKILL.md | in the catalogue) */
    double p_reference;       /* P(read the reference | SKILL.md read) */
    struct fake_agent_p p_good; /* P(good content) by what was read */
    const char *answer;         /* the final answer text */
};

/* A list of faults to draw from. */
struct fake_faults {
    enum fake_fault v[FAKE_FAULT_COUNT];
    size_t n;
};

struct fake_rule {
    const char *name;
    struct fake_match match;
    long times; /* answer at most this often; 0 = no limit */
    long hits;  /* answers so far (under the scenario lock) */
    struct fake_reply reply;
    struct fake_student student;
    struct fake_agent agent;
    double fail_rate;             /* probability of a drawn fault */
    struct fake_faults fail_with; /* faults drawn from, evenly */
    long barrier_timeout_ms;
};

/* A loaded scenario plus the counters shared by all server threads. */
struct fake_scenario {
    json_t *root; /* the file's JSON; rules borrow from it */
    struct fake_rule *rules;
    size_t nrules;
    json_t *models; /* model ids for GET /v1/models (array) */
    uint64_t seed;
    pthread_mutex_t lock; /* guards hits and counters */
    uint64_t *seen_keys;  /* open-addressing map: prompt hash -> */
    long *seen_counts;    /* ... how often it was seen */
    size_t seen_cap, seen_len;
};

/* ---- request.c ---- */

/* Start an empty request for method and path (both borrowed). */
void fake_request_init(struct fake_request *rq, const char *method,
                       const char *path);
void fake_request_release(struct fake_request *rq);
/* Append body bytes; over FAKE_MAX_BODY sets too_big and drops them. */
void fake_request_add_body(struct fake_request *rq, const char *data,
                           size_t len);
/* Record one header (name lowercased; repeats joined by ", "). */
void fake_request_add_header(struct fake_request *rq, const char *name,
                             const char *value);
/*
 * Parse the body of a POST: fills json, model, stream, texts and hash.
 * Returns 0, or -1 with a message in err when the body is not a JSON
 * object.  GET requests (and empty bodies of GET) always succeed.
 */
int fake_request_parse(struct fake_request *rq, up_error *err);

/* ---- scenario.c ---- */

/* Load and check path; messages name the file and the JSON place. */
int fake_scenario_load(struct fake_scenario *sc, const char *path,
                       up_error *err);
void fake_scenario_release(struct fake_scenario *sc);
/*
 * Pick the first rule matching rq (rq->n must be set) and fill out with
 * its reply, student answer and drawn fault.  Returns 0, or -1 when no
 * rule matches.  Thread-safe.
 */
int fake_scenario_pick(struct fake_scenario *sc, const struct fake_request *rq,
                       struct fake_reply *out);

/* A uniform number in [0, 1) for one (seed, prompt, repeat, purpose). */
double fake_draw(uint64_t seed, uint64_t hash, long repeat, int purpose);

/* ---- agent.c ---- */

/*
 * The agent student's next step for rq (rule r matched; repeat is the
 * prompt's repeat counter): a tool call in out->tool_calls (owned by
 * out->owned) or the final answer in out->text.  Nothing unless r has an
 * "agent" object.
 */
void fake_agent_step(const struct fake_rule *r, uint64_t seed,
                     const struct fake_request *rq, long repeat,
                     struct fake_reply *out);

/* ---- reply.c ---- */

/* The bytes and directions for one response. */
struct fake_out {
    long status;
    json_t *headers; /* response headers, owned (name -> string) */
    up_buf body;     /* the body, or its prefix when pad_to is set */
    int chunked;     /* length unknown: chunked transfer (SSE) */
    int reset;       /* answer nothing; reset the connection */
    size_t pad_to;   /* oversized: total body size, padded */
    size_t cut;      /* close after this many bytes; SIZE_MAX never */
    size_t *marks;   /* body offsets where SSE events start */
    size_t nmarks, mcap;
    long chunk_delay_ms; /* sleep before each event after the first */
    int stall;           /* ... and before the first (the stall fault) */
};

void fake_out_init(struct fake_out *o);
void fake_out_release(struct fake_out *o);
/* Total body size the response announces (ignores cut). */
size_t fake_out_size(const struct fake_out *o);
/* Copy body bytes [pos, pos+max) into buf (padding included). */
size_t fake_out_copy(const struct fake_out *o, size_t pos, char *buf,
                     size_t max);
/* Build the answer to rq from the picked reply r. */
void fake_reply_build(struct fake_out *o, const struct fake_request *rq,
                      const struct fake_reply *r, const json_t *models);
/* An error in the shape of api's provider, with the default type. */
void fake_reply_error(struct fake_out *o, const struct fake_request *rq,
                      long status, const char *message);

/* ---- shapes.c: provider-shaped success bodies (used by reply.c) ---- */

/* Append j (stolen) to the body as compact JSON. */
void fake_out_json(struct fake_out *o, json_t *j);
/* Append one SSE event: "event: name\n" (when name) + "data: j\n\n". */
void fake_out_event(struct fake_out *o, const char *name, json_t *j);
/* Set a response header (copied). */
void fake_out_header(struct fake_out *o, const char *name, const char *value);
/* OpenAI chat completion: JSON, or SSE when rq->stream. */
void fake_shape_openai(struct fake_out *o, const struct fake_request *rq,
                       const struct fake_reply *r);
/* Anthropic message: JSON, or the SSE event sequence when rq->stream. */
void fake_shape_anthropic(struct fake_out *o, const struct fake_request *rq,
                          const struct fake_reply *r);
/* OpenAI Responses API response: JSON, or its named events when
   rq->stream. */
void fake_shape_responses(struct fake_out *o, const struct fake_request *rq,
                          const struct fake_reply *r);

/* ---- gemini.c: Gemini's generateContent wire ---- */

/*
 * 1 when method and path are Gemini's generateContent or
 * streamGenerateContent; then the path's model is appended to model and
 * *stream says which (either may be NULL).
 */
int fake_gemini_path(const char *method, const char *path, up_buf *model,
                     int *stream);
/* The conversation facts of a parsed Gemini body (rq->json). */
void fake_gemini_scan(struct fake_request *rq);
/* A GenerateContentResponse: JSON, or SSE chunks when rq->stream. */
void fake_shape_gemini(struct fake_out *o, const struct fake_request *rq,
                       const struct fake_reply *r);
/* Google's error JSON {"error": {code, message, status}}; type NULL:
   the status's usual name. */
json_t *fake_gemini_error(long status, const char *type, const char *message);

/* ---- wait.c: holding requests back without a thread each ---- */

/*
 * One held request (embedded in the server's connection), queued by due
 * time; "waiting" holds also sit in their rule's barrier list until it
 * fills or their timeout strikes.  Used from the server's event thread
 * only.
 */
struct fake_hold {
    int64_t due;            /* CLOCK_MONOTONIC ns */
    size_t slot;            /* heap index + 1; 0 when not queued */
    size_t rule;            /* barrier: the rule's index */
    long delay_ms;          /* barrier: wait this long after it opens */
    int waiting;            /* in a barrier list */
    int timed_out;          /* left the barrier by its timeout */
    struct fake_hold *next; /* barrier list */
};

struct fake_wait {
    int64_t now;             /* the loop's clock: CLOCK_MONOTONIC ns */
    struct fake_hold **heap; /* min-heap by due */
    size_t n, cap;
    struct fake_hold **barriers; /* per rule: who waits */
    long *waiting;               /* per rule: how many wait */
};

/* CLOCK_MONOTONIC in nanoseconds: the clock of every hold and deadline. */
int64_t fake_now_ns(void);
/* Empty, with barriers for nrules rules. */
void fake_wait_init(struct fake_wait *w, size_t nrules);
void fake_wait_release(struct fake_wait *w);
/* Read the clock that holds count from (the event loop's wake-up). */
void fake_wait_tick(struct fake_wait *w);
/* Hold h for ms milliseconds from the last tick. */
void fake_wait_after(struct fake_wait *w, struct fake_hold *h, long ms);
/*
 * h arrives at rule's barrier of count: it is due delay_ms after the
 * count-th arrival, or with timed_out set after timeout_ms (from the
 * last tick).
 */
void fake_wait_barrier(struct fake_wait *w, struct fake_hold *h, size_t rule,
                       long count, long timeout_ms, long delay_ms);
/* The earliest hold if it is due, taken off (a barrier times out). */
struct fake_hold *fake_wait_due(struct fake_wait *w);
/* Any hold, due or not, taken off; NULL when none is left. */
struct fake_hold *fake_wait_any(struct fake_wait *w);
/* Nanoseconds until the earliest hold is due (0: now), -1 when none. */
int64_t fake_wait_next_ns(const struct fake_wait *w);

/* ---- server.c: the HTTP server ---- */

struct MHD_Daemon;

struct fake_server {
    struct fake_scenario sc;
    FILE *record;              /* --record file or NULL */
    long requests;             /* requests numbered so far */
    long done;                 /* requests finished (answered or not) */
    long conns;                /* client connections open now */
    long conns_seen;           /* client connections accepted so far */
    long max_requests;         /* wake the main thread at this many */
    int wake_fd;               /* written when max_requests are done */
    struct fake_wait wait;     /* delayed and barrier-held requests */
    struct MHD_Daemon *daemon; /* running server, or NULL */
    pthread_t thread;          /* the event thread */
    int serving;               /* thread started */
    int stop_pipe[2];          /* written to stop the event thread */
    unsigned port;             /* the bound port */
};

/*
 * Listen on 127.0.0.1:port (0: any free port, stored in s->port) and
 * serve s->sc from one event thread.  s must be filled first.
 */
int fake_server_start(struct fake_server *s, long port, up_error *err);
/* Close every connection and stop serving. */
void fake_server_stop(struct fake_server *s);

#endif
