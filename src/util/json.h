/*
 * jansson helpers: bounded file loads with file:line:column messages, and
 * atomic pretty writes.
 */
#ifndef UPSKILL_UTIL_JSON_H
#define UPSKILL_UTIL_JSON_H

#include <jansson.h>

#include "upskill/error.h"

/* Parse the JSON file at path into *out (new reference). UP_EPARSE with
 * "'path':LINE:COL: message" on bad JSON; read errors as up_fs_read. */
int up_json_load_file(json_t **out, const char *path, up_error *err);

/*
 * Rewrite je->text where jansson names one of its own options (e.g.
 * "\\u0000 is not allowed without JSON_ALLOW_NUL") in words a user knows;
 * other texts are kept.  Call it before putting je->text in a message.
 */
void up_json_error_words(json_error_t *je);

/* Write v to path atomically, indented by 2, with a final newline. */
int up_json_write_file(const char *path, const json_t *v, up_error *err);

/* The string at key in obj, or NULL when absent or not a string. */
const char *up_json_str(const json_t *obj, const char *key);
/* The integer at key (a JSON integer or a whole real), or dflt. */
long up_json_long(const json_t *obj, const char *key, long dflt);
/* The number at key (integer or real), or dflt. */
double up_json_num(const json_t *obj, const char *key, double dflt);

/*
 * A JSON string of n bytes of outside text (a model's reply, a CLI's
 * output): never NULL, whatever the bytes; each byte that is not valid
 * UTF-8, and each NUL, is stored as U+FFFD (util/utf8.h).  Every writer
 * of run files, journal, cache and trace builds such text through these.
 */
json_t *up_json_textn(const char *s, size_t n);
/* The same for a C string; NULL gives "". */
json_t *up_json_text(const char *s);
/* The same, null when s is NULL. */
json_t *up_json_str_or_null(const char *s);

#endif
