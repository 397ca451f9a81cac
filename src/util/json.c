/*
 * jansson helpers shared by the run store, the skill model and others.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "upskill/alloc.h"
#include "upskill/buf.h"
#include "upskill/fs.h"
#include "util/json.h"
#include "util/utf8.h"

/* jansson's texts that name its options -> what they mean to a user. */
static const struct {
    const char *jansson;
    const char *user;
} je_words[] = {
    {"\\u0000 is not allowed without JSON_ALLOW_NUL",
     "a string holds \\u0000 (a NUL character), which is not accepted"},
    {"NUL byte in object key not supported",
     "a key holds \\u0000 (a NUL character), which is not accepted"},
};

void up_json_error_words(json_error_t *je)
{
    for (size_t i = 0; i < sizeof(je_words) / sizeof(*je_words); i++) {
        const char *hit = strstr(je->text, je_words[i].jansson);
        char tail[JSON_ERROR_TEXT_LENGTH];

        if (!hit)
            continue;
        snprintf(tail, sizeof(tail), "%s", hit + strlen(je_words[i].jansson));
        snprintf(je->text, sizeof(je->text), "%s%s", je_words[i].user, tail);
        return;
    }
}

int up_json_load_file(json_t **out, const char *path, up_error *err)
{
    up_buf text = UP_BUF_INIT;
    json_error_t je;
    int rc;

    *out = NULL;
    rc = up_fs_read(&text, path, UP_FS_MAX_READ, err);
    if (rc)
        goto out;
    *out = json_loadb(text.data, text.len, JSON_REJECT_DUPLICATES, &je);
    if (!*out) {
        up_json_error_words(&je);
        rc = up_error_set(err, UP_EPARSE, "'%s':%d:%d: %s", path, je.line,
                          je.column, je.text);
    }
out:
    up_buf_release(&text);
    return rc;
}

int up_json_write_file(const char *path, const json_t *v, up_error *err)
{
    char *s = json_dumps(v, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    up_buf b = UP_BUF_INIT;
    int rc;

    if (!s) /* not a full disk: a text jansson refuses (never UP_EIO) */
        return up_error_set(err, UP_EPARSE,
                            "'%s': cannot encode JSON: a text is not UTF-8",
                            path);
    up_buf_adds(&b, s);
    up_buf_addc(&b, '\n');
    free(s);
    rc = up_fs_write_atomic(path, b.data, b.len, 0644, err);
    up_buf_release(&b);
    return rc;
}

const char *up_json_str(const json_t *obj, const char *key)
{
    return json_string_value(json_object_get(obj, key));
}

long up_json_long(const json_t *obj, const char *key, long dflt)
{
    const json_t *v = json_object_get(obj, key);

    if (json_is_integer(v))
        return (long)json_integer_value(v);
    if (json_is_real(v))
        return (long)json_real_value(v);
    return dflt;
}

double up_json_num(const json_t *obj, const char *key, double dflt)
{
    const json_t *v = json_object_get(obj, key);

    return json_is_number(v) ? json_number_value(v) : dflt;
}

json_t *up_json_textn(const char *s, size_t n)
{
    up_buf b = UP_BUF_INIT;
    json_t *v;

    if (!up_utf8_bad(s, n))
        return json_stringn(s, n);
    up_utf8_add(&b, s, n);
    v = json_stringn(b.data, b.len);
    up_buf_release(&b);
    return v;
}

json_t *up_json_text(const char *s)
{
    return s ? up_json_textn(s, strlen(s)) : json_string("");
}

json_t *up_json_str_or_null(const char *s)
{
    return s ? up_json_textn(s, strlen(s)) : json_null();
}
