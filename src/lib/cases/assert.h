/*
 * Assertions: how one answer is graded (docs/assertions.md).
 *
 * A test case carries upstream's expected.contains (every string must
 * appear, any case) and our extension "assert": a JSON list of objects
 * {"type": "<kind>", "value": ..., "name": "..."} with promptfoo's kind
 * names where they overlap (contains, icontains, contains-any, regex,
 * equals, starts-with, is-json, llm-rubric, "not-" negations...).
 *
 * Lifecycle: parse the JSON into an up_assert_list (regexes are
 * compiled and every error is reported then), then grade each answer
 * with up_assert_check.  An eval checks every case's list at load time
 * and parses it again for each answer it grades (up_eval_job_asserts),
 * so a large suite's lists are never all held at once.  Deterministic kinds are
 * decided on the spot; llm-rubric comes back UP_ASSERT_PENDING with the
 * prompt for a judge model: the caller sends it (and counts the judge's
 * tokens apart) and hands the reply to up_assert_result_judge.
 *
 * The command kind (an executable check) comes back UP_ASSERT_CHECK: the
 * caller runs it in the sandbox (up_check_run, check.h) in the
 * conversation's workspace once the conversation is over.
 *
 * Thread safety: a parsed list is read-only during up_assert_check, so
 * several threads may grade answers against one list at once.
 */
#ifndef UPSKILL_ASSERT_H
#define UPSKILL_ASSERT_H

#include <stddef.h>

#include "upskill/buf.h"
#include "upskill/error.h"

/* One parsed assertion.  Owns every pointer but those borrowed marks;
 * fields are read-only.  64 bytes: an eval holds one per expected string
 * of every case. */
typedef struct up_assert {
    int kind;               /* row in the kinds table (up_assert_kind_name) */
    unsigned flags;         /* regex flags given ("i","m","s"), PCRE2 bits */
    unsigned nlist;         /* entries in list */
    unsigned char negate;   /* 1 for a "not-" type: the result is inverted */
    unsigned char borrowed; /* 1: type and value are not owned (they come
                               from up_assert_list_add_contains) */
    const char *type;       /* canonical type as given: "not-icontains" */
    char *name;             /* the optional "name" (display only), or NULL */
    char *value;            /* string value (text, pattern, rubric), or NULL */
    char *file;             /* file-* kinds: the workspace file, or NULL */
    char **list;            /* list value of the -any/-all kinds */
    union {                 /* by kind: */
        void *compiled;     /* compiled form (regex, json path), kind-private */
        long long limit;    /* max-output-tokens: the allowed maximum */
        double threshold;   /* verifier: the reward that passes */
    };
} up_assert;

/* The most assertions one case takes, its expected.contains strings and
 * validator included: an eval job counts them in 16 bits (up_eval_job).
 * up_eval_prepare, which sees a case's whole list, refuses more. */
#define UP_ASSERT_LIST_MAX 65535u

typedef struct up_assert_list {
    up_assert *items;
    size_t n;
    size_t cap;
} up_assert_list;

struct up_workspace;

/* What the grader knows besides the answer: its cost and, in agent mode,
 * the conversation's workspace. */
typedef struct up_assert_usage {
    long long output_tokens; /* the case's output tokens; < 0: unknown */
    const struct up_workspace *workspace; /* agent mode, else NULL */
    const char *output_file;              /* the case's output_file, or NULL */
} up_assert_usage;

enum up_assert_status {
    UP_ASSERT_FAIL = 0,
    UP_ASSERT_PASS = 1,
    UP_ASSERT_PENDING = 2,   /* llm-rubric: waiting for the judge's reply */
    UP_ASSERT_CHECK = 3,     /* command: waiting for its check to run */
    UP_ASSERT_UNGRADABLE = 4 /* command: its program is not installed */
};

/* The grade of one assertion.  Owns its buffers. */
typedef struct up_assert_result {
    int status;          /* enum up_assert_status */
    up_buf message;      /* short, one line: "missing 'feat'" */
    up_buf judge_prompt; /* llm-rubric: the text to send to the judge */
    up_buf output;       /* command: the check's output, capped */
    int check;           /* 1: the result of a command assertion */
} up_assert_result;

/* Counts over a case's results. */
typedef struct up_assert_summary {
    size_t total;
    size_t passed;
    size_t failed;
    size_t pending;    /* llm-rubric or command still to settle */
    size_t checks;     /* command assertions */
    size_t checks_ok;  /* of them: passed */
    size_t ungradable; /* of them: the program is not installed */
} up_assert_summary;

void up_assert_list_init(up_assert_list *l);
void up_assert_list_release(up_assert_list *l);

/*
 * Parse assert_json (the text of a JSON list of assertion objects) and
 * append its assertions to out.  file and path_prefix only name the
 * place in messages: with file "tests.json" and path_prefix
 * "cases[2].assert" an error reads
 *   'tests.json': cases[2].assert[1].value: expected a string
 * Unknown types, unknown keys, wrong value types and regex compile
 * errors are UP_EPARSE (the UP_ASSERT_LIST_MAX limit is a case's, checked
 * by up_eval_prepare).  On error out is unchanged.  A NULL
 * assert_json adds nothing; file and path_prefix may be NULL (then
 * "assertions" and "assert").
 */
int up_assert_list_parse(up_assert_list *out, const char *assert_json,
                         const char *file, const char *path_prefix,
                         up_error *err);

/*
 * Append one "icontains" assertion per string (upstream's
 * expected.contains: case-insensitive substring; "" always matches).
 * The strings are borrowed, not copied: they must outlive l (an eval's
 * come from its suite, which outlives the plan).
 */
void up_assert_list_add_contains(up_assert_list *l, char *const *contains,
                                 size_t n);

/* A heap array of n initialised results; free with up_assert_results_free.
 */
up_assert_result *up_assert_results_new(size_t n);
void up_assert_results_free(up_assert_result *r, size_t n);

/*
 * Grade answer (NUL-terminated UTF-8; NULL is taken as "") against each
 * assertion of l.  With usage->output_file set, the content of that
 * workspace file is graded instead of answer; when there is no
 * workspace (chat mode) or the file cannot be read, every assertion
 * except the file-* kinds fails saying why.  The file-* kinds read
 * usage->workspace; without one they fail with "needs agent mode".
 * Writes results[i] for l->items[i].  results must hold
 * l->n initialised entries (up_assert_results_new); their buffers are
 * reset first, so an array can be reused.  usage may be NULL (then
 * max-output-tokens fails as unknown).  Never fails: an answer that
 * cannot be checked (e.g. invalid UTF-8 for a regex) is a failure with
 * a message saying why, and a negation does not turn it into a pass.
 */
void up_assert_check(const up_assert_list *l, const char *answer,
                     const up_assert_usage *usage, up_assert_result *results);

/* 1 when l has a file-* assertion (it needs a workspace), else 0. */
int up_assert_list_needs_workspace(const up_assert_list *l);

/* 1 when l has a command assertion (an executable check), else 0. */
int up_assert_list_has_checks(const up_assert_list *l);

/* 1 when a is a command or verifier assertion, else 0. */
int up_assert_is_check(const up_assert *a);

/* The verifier kind's command when "value" is absent: Harbor's. */
#define UP_ASSERT_VERIFIER_CMD "bash /tests/test.sh"

/* 1 when a is a verifier assertion (a check graded by the reward it
 * writes, check.h), else 0. */
int up_assert_is_verifier(const up_assert *a);

/* 1 when a needs a judge model (llm-rubric), else 0. */
int up_assert_needs_judge(const up_assert *a);

/*
 * Append to out the judge prompt for the llm-rubric assertion a and
 * answer: the rubric, the answer inside a fence it does not contain
 * (derived from both, so the same pair gives the same prompt), and the
 * request for a JSON verdict {"pass": bool, "reason": str}.  Nothing
 * else (no skill, arm or model) goes in.  Returns UP_EUSAGE when a is
 * not an llm-rubric assertion.
 */
int up_assert_rubric_prompt(const up_assert *a, const char *answer,
                            up_buf *out);

/*
 * Read a judge's reply: the last top-level JSON object in it (bare, in
 * prose, or in a ``` fence) that has a boolean "pass", so a verdict the
 * judge quotes before its own does not count.  Sets *pass to 0/1 and
 * appends that object's "reason" string (if any) to reason.  A reply
 * without such an object, or with more '{' than are tried, is UP_EPARSE
 * ("judge reply: ...").
 */
int up_assert_rubric_parse(const char *judge_reply, int *pass, up_buf *reason,
                           up_error *err);

/*
 * Settle a pending result r with the judge's reply: status becomes pass
 * or fail and message the judge's reason.  An unreadable reply leaves r
 * a failure whose message says so, and returns UP_EPARSE.
 */
int up_assert_result_judge(up_assert_result *r, const char *judge_reply,
                           up_error *err);

/* The display label of a: its "name", else its type ("not-contains"). */
const char *up_assert_label(const up_assert *a);

/* Count r[0..n) into out. */
void up_assert_summarize(up_assert_summary *out, const up_assert_result *r,
                         size_t n);

/* 1 when the case passes: every assertion passed (none failed, pending
 * or ungradable); an empty list passes, as upstream's empty contains
 * does. */
int up_assert_summary_ok(const up_assert_summary *s);

/* The i-th kind's canonical name ("contains", ...), or NULL past the end.
 */
const char *up_assert_kind_name(size_t i);

#endif
