/*
 * The response cache: an answer once paid for is not paid for again.
 *
 * One SQLite database (WAL mode, so several upskill processes can share
 * it) maps a request's key to the provider's successful answer: text,
 * reasoning, stop reason and token usage.  The key is the SHA-256 of a
 * canonical JSON form of everything that shapes the answer (see
 * up_cache_canonical) and of nothing secret: no API key, no header.
 * Rows older than the expiry (ttl_days) are misses and are pruned when
 * the cache is opened.  Waiting for another process's lock is bounded
 * (wait_ms): opening fails after it, and a get or put that outwaits it
 * turns the handle off (up_cache_locked).  docs/cache.md describes it for
 * users.
 *
 * A handle is used by one thread at a time; processes share the file.
 */
#ifndef UPSKILL_CACHE_H
#define UPSKILL_CACHE_H

#include <stddef.h>
#include <time.h>

#include "upskill/buf.h"
#include "upskill/error.h"
#include "upskill/provider.h"

typedef struct up_cache up_cache;

/* What up_cache_stats reports. */
typedef struct up_cache_info {
    size_t entries;       /* stored answers, expired ones not yet pruned
                             included */
    long long bytes;      /* bytes of stored text and reasoning */
    long long file_bytes; /* size of the database (pages in use and free) */
    time_t oldest;        /* when the oldest entry was stored; 0: empty */
    time_t newest;        /* when the newest entry was stored; 0: empty */
    size_t hits;          /* this handle's hits */
    size_t misses;        /* this handle's misses (expired rows included) */
    size_t puts;          /* answers this handle stored */
    size_t errors;        /* database errors this handle swallowed */
    long ttl_days;        /* the expiry the cache was opened with */
    int locked;           /* 1: a lock outlasted the wait, the handle is off */
} up_cache_info;

/* The default bound on one wait for another process's lock, in ms. */
#define UP_CACHE_WAIT_MS 5000

/*
 * Open (creating it and its folders when missing, mode 0600 in a 0700
 * folder; its -wal and -shm files get the same mode) the cache at path;
 * entries older than ttl_days days expire (0 or less: never).  Sets WAL
 * journalling, creates or checks the schema, prunes expired rows.  A lock
 * held by another process is waited for at most wait_ms ms (0: not at
 * all), then opening fails.  *c receives the handle, freed by
 * up_cache_close.  Errors: UP_EIO (cannot create or open; locked: the
 * message says "locked by another process"), UP_EPARSE (not a database,
 * a damaged one, or a schema version newer than ours: see
 * up_cache_remove); the message names the path.
 */
int up_cache_open(up_cache **c, const char *path, long ttl_days, long wait_ms,
                  up_error *err);

/*
 * Delete the cache file at path with its -wal, -shm and -journal files
 * (missing ones are fine), e.g. to replace a damaged cache by an empty
 * one.  Nothing may have it open.  Errors: UP_EIO, naming the file.
 */
int up_cache_remove(const char *path, up_error *err);

/*
 * 1 when a get, put, stats or clear on c found the file locked by another
 * process beyond the wait bound: the handle is off, every later get is a
 * miss and every put is skipped (and counted as an error).  0 otherwise
 * or for NULL.
 */
int up_cache_locked(const up_cache *c);

/* Close the handle; NULL is fine. */
void up_cache_close(up_cache *c);

/*
 * The canonical form of a request, the text its key hashes: one line of
 * JSON with sorted keys and no spaces, holding
 *   v            the key format (1)
 *   kind         "anthropic" or "openai" (the wire protocol)
 *   base_url     without trailing slashes; null: the official URL
 *   model        the resolved model id sent as "model"
 *   effort       the reasoning effort, or null
 *   compat       the OpenAI-compatible flavour (system role, max_tokens)
 *   max_tokens   the output cap (0 becomes 4096, as sent)
 *   temperature  a number, or null when left to the server
 *   system       the system prompt, or null
 *   messages     [{"role", "content"}...] in order
 *   schema       the JSON Schema text, or null; schema_name its name
 *   json_repairs follow-up turns allowed for bad JSON (-1 becomes 2)
 *   repeat       the repeat index, so N runs stay N distinct requests
 * and never the API key, the extra headers (they may carry credentials),
 * streaming, timeouts or retries.  out is appended to.
 */
void up_cache_canonical(up_buf *out, const up_endpoint *ep,
                        const up_request *rq, int repeat);

/* The key: SHA-256 of up_cache_canonical, 64 lowercase hex digits. */
void up_cache_key(char hex[65], const up_endpoint *ep, const up_request *rq,
                  int repeat);

/*
 * Look key up.  Returns 1 on a hit, with out filled as a successful
 * response (code 0, latency 0, attempts 0, the stored text, reasoning,
 * stop reason, usage, turns, status and request id), or 0 on a miss
 * (an expired row, a database error) with out empty.  out is
 * initialised either way and must be released.
 */
int up_cache_get(up_cache *c, const char *key, up_response *out);

/*
 * Store res under key, replacing an older entry.  Only successful
 * responses (code 0 with text, no tool calls, nothing to carry) are
 * stored; others are skipped and return 0.  Returns UP_EIO when the database
 * refuses the write.
 */
int up_cache_put(up_cache *c, const char *key, const up_response *res);

/* Fill st with the cache's size, age range and this handle's counters.
 * Errors: UP_EIO. */
int up_cache_stats(up_cache *c, up_cache_info *st, up_error *err);

/*
 * Remove the entries stored older_than_days days ago or earlier (0: all
 * up to now; -1: all); *removed (may be NULL) counts them.  Removing
 * everything also gives the space back to the file system.  Errors:
 * UP_EIO.
 */
int up_cache_clear(up_cache *c, long older_than_days, size_t *removed,
                   up_error *err);

/* Read the time through now(ud) instead of time() (tests of expiry). */
void up_cache_set_clock(up_cache *c, time_t (*now)(void *ud), void *ud);

#endif
