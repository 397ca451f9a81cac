/*
 * Internal interface of the trace module: shared by trace.c (events,
 * detection, text), trace_json.c (messages and blocks), trace_jsonl.c
 * (session logs) and trace_render.c (the budget).
 */
#ifndef UPSKILL_TRACE_INT_H
#define UPSKILL_TRACE_INT_H

#include <jansson.h>

#include "upskill/trace.h"

/*
 * Append an event with len bytes of text, made valid UTF-8 (bad bytes and
 * NULs become U+FFFD) and trimmed.  Empty text adds nothing, except for a
 * tool call.  name and id may be NULL; all three are copied.
 */
void trace_add(up_trace *t, enum up_trace_kind kind, const char *name,
               const char *id, const char *text, size_t len, long line);

/* Append a warning; past UP_TRACE_MAX_WARNINGS they are only counted. */
void trace_warn(up_trace *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Append a warning that is not a skipped line: never capped or counted. */
void trace_note(up_trace *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The name of the latest tool call with this id, or NULL. */
const char *trace_call_name(const up_trace *t, const char *id);

/* 1 when a tool output without an error flag reads like a failure. */
int trace_looks_error(const char *s, size_t len);

/* ---- trace_json.c ---------------------------------------------------- */

/* Append the text inside a JSON value: a string, text blocks, content. */
void trace_json_text(up_buf *b, const json_t *v);

/* Add one chat message (OpenAI, Anthropic, fast-agent or Codex shape);
 * role applies when msg has none (Claude Code lines, Codex items). */
void trace_json_message(up_trace *t, const json_t *msg, const char *role,
                        long line);

/* Add one Codex response item (message, function_call, reasoning, ...). */
void trace_json_codex_item(up_trace *t, const json_t *item, long line);

/* 1 for a Codex response item type ("function_call", ...). */
int trace_json_is_codex_item(const char *type);

/* Guess the vendor of a message: UP_TRACE_ANTHROPIC, UP_TRACE_OPENAI, or
 * UP_TRACE_TEXT when nothing tells. */
enum up_trace_format trace_json_vendor(const json_t *msg);

/*
 * Read a whole JSON document: a messages array or {"messages": [...]}.
 * Returns 1 and sets t->format when recognised, 0 otherwise (nothing
 * added).
 */
int trace_json_doc(up_trace *t, const json_t *doc);

/* ---- trace_jsonl.c --------------------------------------------------- */

/*
 * Read text as JSONL when it is one (Claude Code, Codex, messages per
 * line): returns 1 and sets t->format, or 0 with nothing added.
 */
int trace_jsonl(up_trace *t, const char *text, size_t len);

#endif
