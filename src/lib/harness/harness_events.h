/*
 * Coding-agent CLIs as students: reading what a CLI printed.
 *
 * Each CLI run headless prints an event stream (docs/agent-clis.md):
 * Claude Code `--output-format stream-json`, Codex `exec --json`,
 * opencode `run --format json`, Gemini CLI `--output-format stream-json`,
 * all JSON lines; any other agent (`cli.command`) is read as plain
 * stdout.  up_harness_parse reduces one stream to one up_harness_result: the
 * final answer, turns, tool calls per tool and their errors, tokens, the
 * CLI's own cost where it reports one, duration, and activation of the
 * skill under test (loaded, and which of its files were read).
 *
 * Pure: no files, no processes.  A stream is hostile input: lines that
 * are too long, not JSON, not objects or of an unknown type are skipped
 * and counted; fields of the wrong type are ignored.
 */
#ifndef UPSKILL_HARNESS_EVENTS_H
#define UPSKILL_HARNESS_EVENTS_H

#include <stddef.h>

#include <jansson.h>

#include "upskill/error.h"
#include "upskill/harness.h"
#include "upskill/provider.h"

/* The event formats, in up_harness_format_name order: one per coding-agent
 * CLI, each the index of its CLI's row (src/lib/harness/harness_spec.c). */
typedef enum up_harness_format {
    UP_HARNESS_CLAUDE_CODE, /* claude -p --output-format stream-json --verbose
                             */
    UP_HARNESS_CODEX,       /* codex exec --json */
    UP_HARNESS_OPENCODE,    /* opencode run --format json */
    UP_HARNESS_GEMINI,      /* gemini -p --output-format stream-json */
    UP_HARNESS_PLAIN,       /* any command: stdout is the answer */
    UP_HARNESS_FORMAT_COUNT
} up_harness_format;

/* A whole stream over this is refused (UP_ETOOBIG). */
#define UP_HARNESS_MAX_STREAM (64u * 1024u * 1024u)
/* A line over this is skipped and counted. */
#define UP_HARNESS_MAX_LINE (4u * 1024u * 1024u)
/* Distinct tool names kept; calls to further names count under "other". */
#define UP_HARNESS_MAX_TOOLS 64
/* Distinct skill files kept. */
#define UP_HARNESS_MAX_FILES 256

/* Calls of one tool, by the name the CLI gives it. */
typedef struct up_harness_tool {
    char *name;
    long calls;
    long errors; /* results the CLI marked failed (or a non-zero exit) */
} up_harness_tool;

typedef struct up_harness_result {
    up_harness_format format;
    char *answer;           /* the final answer text; "" when none */
    char *model;            /* the model the CLI reported, or NULL */
    long turns;             /* model turns; -1 when the stream does not tell */
    up_harness_tool *tools; /* in order of first call */
    size_t ntools;
    long tool_calls, tool_errors; /* totals over tools */
    /* tokens: input counts every prompt token (cached ones included),
       cached the part read from a cache, reasoning is part of output */
    long input_tokens, output_tokens, cached_tokens, reasoning_tokens;
    int has_cost;     /* the CLI reported a cost (Claude Code, opencode) */
    double cost_usd;  /* that cost */
    long duration_ms; /* the CLI's own figure; -1 when none */
    int complete;     /* the stream's final event was seen */
    int is_error;     /* the CLI reported the run as failed */
    /* activation of the skill named in up_harness_parse */
    int skill_loaded;   /* skill tool called, or its SKILL.md read */
    char **skill_files; /* files read, relative to the skill folder
                           ("SKILL.md", "references/x.md"), sorted */
    size_t nskill_files;
    long lines;       /* non-blank lines read */
    long skipped;     /* of those, skipped: not an event we can read */
    char *first_skip; /* why the first was skipped, or NULL */
    size_t not_utf8;  /* bytes of its lines that were not UTF-8, read as
                         U+FFFD (a CLI may print any bytes) */
} up_harness_result;

/*
 * Parse data[0..len) printed by a CLI in format fmt into r (always
 * initialised; release it with up_harness_result_release).  skill is the
 * skill's name (its folder name) for activation; NULL: any skill
 * folder counts.  Returns 0; UP_ETOOBIG when len is over
 * UP_HARNESS_MAX_STREAM; UP_EPARSE when there were lines but not one
 * readable event.  Skipped lines are counted in r, never an error.
 */
int up_harness_parse(up_harness_result *r, up_harness_format fmt,
                     const char *skill, const char *data, size_t len,
                     up_error *err);

/* Free what r holds and zero it. */
void up_harness_result_release(up_harness_result *r);

/* "claude-code", "codex", "opencode", "gemini", "plain". */
const char *up_harness_format_name(up_harness_format fmt);

/* A format from its name; UP_EUSAGE naming the choices when unknown. */
int up_harness_format_parse(const char *name, up_harness_format *out,
                            up_error *err);

/* A finished conversation, read.  Tokens and activation come from the
 * wire (every request its proxy relayed); the event stream's are kept in
 * tools_json as a second opinion. */
typedef struct up_harness_outcome {
    up_harness_result r; /* the parsed event stream */
    up_error err;        /* code 0; UP_EAGENT: the CLI failed, reported an
                            error or ran over its wall clock; UP_EINTR */
    json_t *tools_json;  /* the artifact's tool table, owned */
    json_t *transcript;  /* the raw event stream, capped, owned */
    up_usage usage;      /* summed over every relayed request */
    int skill_read;      /* SKILL.md's body reached the model */
    size_t refs_read;    /* references of the skill that reached it */
    int disagree;        /* 1: the events say otherwise about skill_read */
    char *limit;         /* a limit the student caused (the workspace
                            quota): the conversation fails, graded, with
                            err.code 0; owned, or NULL */
} up_harness_outcome;

/*
 * Read finished conversation c into oc (release it with
 * up_harness_outcome_release): its output with the key redacted, parsed
 * for skill (its folder name; NULL: any), model naming it in errors,
 * has_skill 1 in the skill arm.  Returns oc->err.code.
 */
int up_harness_run_outcome(up_harness_run *c, const char *model,
                           const char *skill, int has_skill,
                           up_harness_outcome *oc);

void up_harness_outcome_release(up_harness_outcome *oc);

#endif
