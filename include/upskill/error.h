/*
 * Error codes and the error object every library call can fill.
 *
 * Library functions return 0 on success or a negative UP_E* code, and
 * when given a non-NULL up_error they leave a one-line, lowercase message
 * in it that names the file, the place and what was expected.  Only the
 * CLI prints such messages.
 */
#ifndef UPSKILL_ERROR_H
#define UPSKILL_ERROR_H

#include <stddef.h>

enum up_code {
    UP_OK = 0,
    UP_EUSAGE = -1,     /* bad command line */
    UP_EPARSE = -2,     /* bad input: skill, tests, config, trace */
    UP_ENOTFOUND = -3,  /* a file or thing that should exist does not */
    UP_EIO = -4,        /* reading or writing failed */
    UP_EUNSAFE = -5,    /* a path would escape its folder */
    UP_ETOOBIG = -6,    /* input over its size cap */
    UP_EHTTP = -7,      /* provider error that is none of the below */
    UP_ERATELIMIT = -8, /* 429 and friends, after retries */
    UP_ETIMEOUT = -9,   /* connect, idle or total timeout */
    UP_EAUTH = -10,     /* 401/403 or a missing key */
    UP_ENETWORK = -11,  /* connection refused, reset, DNS */
    UP_ESERVER = -12,   /* 5xx after retries */
    UP_EBADREQ = -13,   /* 400/404/422: the request was wrong */
    UP_EINTR = -14,     /* interrupted by the user */
    UP_EGATE = -15,     /* a user-requested gate failed */
    UP_EINVALID = -16,  /* validation found errors */
    UP_EAGENT = -17,    /* a student's own agent (a coding-agent CLI)
                           failed: not the provider's error */
    UP_ECONTEXT = -18   /* the request outgrew the model's context (413,
                           or 400 "maximum context length"): in an eval,
                           the arm's own failure, not the provider's */
};

#define UP_ERROR_MAX 1024

/* A filled error: the code and a message without the "upskill: error: ". */
typedef struct up_error {
    int code;
    char msg[UP_ERROR_MAX];
} up_error;

/*
 * Store code and a printf-style message in err (which may be NULL) and
 * return code, so callers can write `return up_error_set(err, ...)`.
 * The message is always valid UTF-8 (a reply's bytes quoted in it that
 * are not are stored as U+FFFD), so any writer can store it.
 */
int up_error_set(up_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Prefix err's message with printf-style text (e.g. a file name). */
void up_error_prefix(up_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* A short name for a code, e.g. "rate limit" for UP_ERATELIMIT. */
const char *up_strerror(int code);

/* The process exit code for a library code (architecture §7). */
int up_exit_code(int code);

/*
 * Warnings a library call cannot return through an up_error (best-effort
 * cleanup that left files behind, yet succeeded at what it was for): one
 * line, no "upskill: warning: " and no newline, handed to the sink the
 * program set.  Only src/cli prints: it sets a sink that writes them to
 * stderr; without one (a library user, a test) they are dropped.  Set the
 * sink once, before any thread starts; NULL removes it.
 */
typedef void (*up_warn_fn)(void *ud, const char *msg);
void up_warn_set_sink(up_warn_fn fn, void *ud);

/* Format a warning (printf-style, at most UP_ERROR_MAX bytes) and hand
 * it to the sink. */
void up_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
