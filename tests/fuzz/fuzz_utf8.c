/*
 * libFuzzer target: the one constructor every run-file, journal, cache
 * and trace writer uses for outside text (up_json_textn), and error
 * messages that quote it.  Whatever the bytes, the JSON string exists,
 * encodes, reads back as exactly up_utf8_add's repair, and an error
 * message holding them is valid UTF-8.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "upskill/error.h"
#include "util/json.h"
#include "util/utf8.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data;
    json_t *v = up_json_textn(s, size), *back;
    up_buf fixed = UP_BUF_INIT;
    char *text;
    up_error err;

    if (!v)
        abort();
    text = json_dumps(v, JSON_ENCODE_ANY);
    if (!text)
        abort();
    back = json_loads(text, JSON_DECODE_ANY, NULL);
    up_utf8_add(&fixed, s, size);
    if (!back || json_string_length(back) != fixed.len ||
        memcmp(json_string_value(back), fixed.data, fixed.len) != 0)
        abort();
    up_error_set(&err, UP_EHTTP, "%.*s", (int)size, s);
    if (up_utf8_bad(err.msg, strlen(err.msg)))
        abort();
    json_decref(back);
    free(text);
    json_decref(v);
    up_buf_release(&fixed);
    return 0;
}
