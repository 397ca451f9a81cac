/*
 * Internal to the coding-agent CLIs: what one CLI conversation sent to
 * and got from its model, read off the wire by the per-conversation
 * proxy (docs/agent-clis.md, "Activation and tokens from the wire").
 *
 * Tokens come from each response's usage (streamed or not, per wire);
 * activation from content: a file of the skill "reached the model" when
 * enough of its distinctive lines appear in the strings of a request
 * body.  Pure functions over bytes: no I/O but reading the skill folder
 * once, in up_harness_obs_new.
 */
#ifndef UPSKILL_HARNESS_WIRE_H
#define UPSKILL_HARNESS_WIRE_H

#include <stddef.h>

#include <jansson.h>

#include "upskill/error.h"
#include "upskill/provider.h"

/* The wires beside enum up_wire_kind that only a CLI speaks. */
enum {
    UP_WIRE_GEMINI = 100 /* POST .../models/M:generateContent,
                            :streamGenerateContent */
};

/* What one CLI conversation sent to and got from its model, read off
 * the wire (the proxy calls up_harness_obs_add once per request). */
typedef struct up_harness_obs up_harness_obs;

/* skill_dir: the skill folder the CLI was given (NULL: the baseline arm);
 * wire: enum up_wire_kind of the endpoint (include/upskill/provider.h:
 * UP_WIRE_*), or UP_WIRE_GEMINI.  NULL on a skill folder it cannot read
 * (err set).  Free with up_harness_obs_free. */
up_harness_obs *up_harness_obs_new(const char *skill_dir, int wire,
                                   up_error *err);

/* One exchange: the request's path and body, the response's HTTP status,
 * content type and body (JSON or SSE, as the server sent it).  Bodies are
 * borrowed for the call; NULL bodies are empty. */
void up_harness_obs_add(up_harness_obs *o, const char *path, const char *req,
                        size_t req_len, long status, const char *ctype,
                        const char *resp, size_t resp_len);

/* The number of exchanges added. */
size_t up_harness_obs_requests(const up_harness_obs *o);

/* The usage summed over every exchange (estimated when any was). */
void up_harness_obs_usage(const up_harness_obs *o, up_usage *u);

/* 1 when SKILL.md's body reached the model in some request. */
int up_harness_obs_skill_read(const up_harness_obs *o);

/* The references (paths relative to the skill folder, not SKILL.md)
 * whose content reached the model; *names is owned by o. */
size_t up_harness_obs_refs(const up_harness_obs *o, const char *const **names);

/* Per request: path, status, tokens (input, output, reasoning, cached),
 * skill_read, refs; plus totals.  A new reference. */
json_t *up_harness_obs_json(const up_harness_obs *o);

/* Frees o; NULL is fine. */
void up_harness_obs_free(up_harness_obs *o);

#endif
