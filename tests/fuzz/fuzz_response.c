/*
 * libFuzzer target: everything that reads a provider's reply.  The first
 * byte picks the provider (bit 3: the Responses API, else bit 1: OpenAI
 * Chat Completions, else Anthropic); the rest is read as a whole body, as an
 * SSE stream, and as an error body, then finished into a response and checked
 * as JSON; the second bit offers a tool, so tool calls and carried
 * thinking blocks are taken too.  Nothing may crash or leak, whatever
 * the server sends, and every text taken from it (answer, reasoning,
 * error message) is valid UTF-8: bytes that are not are U+FFFD.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "providers/providers.h"
#include "util/utf8.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Abort on text (NULL: none) that is not valid UTF-8. */
static void need_utf8(const char *s)
{
    if (s && up_utf8_bad(s, strlen(s)))
        abort();
}

static void finish(up_reply *r, const up_request *rq)
{
    up_response res;
    up_buf why = UP_BUF_INIT;

    up_response_init(&res);
    up_reply_finish(r, rq, &res);
    need_utf8(res.text);
    need_utf8(res.reasoning);
    if (res.text)
        up_provider_check_json(&res.text, &why);
    up_response_release(&res);
    up_buf_release(&why);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const up_message m = {"user", "hi"};
    static const up_tool_spec tool = {"read_file", "Read a file.", NULL};
    up_endpoint ep;
    up_request rq;
    up_reply r;
    up_error err;
    up_buf msg = UP_BUF_INIT;
    const char *body = (const char *)data + (size ? 1 : 0);
    size_t len = size ? size - 1 : 0;

    up_endpoint_init(&ep, !size           ? UP_WIRE_ANTHROPIC
                          : (data[0] & 4) ? UP_WIRE_RESPONSES
                          : (data[0] & 1) ? UP_WIRE_OPENAI
                                          : UP_WIRE_ANTHROPIC);
    up_request_init(&rq);
    rq.messages = &m;
    rq.n_messages = 1;
    if (size && (data[0] & 2)) {
        rq.tools = &tool;
        rq.ntools = 1;
    }
    memset(&err, 0, sizeof(err));
    up_reply_init(&r, &ep);
    up_reply_parse(&r, body, len, &err);
    need_utf8(err.msg);
    finish(&r, &rq);
    up_reply_reset(&r);
    up_reply_feed(&r, body, len, &msg);
    up_reply_end(&r, "text/event-stream", &err);
    need_utf8(err.msg);
    finish(&r, &rq);
    up_reply_release(&r);
    up_http_error_message(body, len, up_provider_key_prefixes(), &msg);
    up_buf_release(&msg);
    return 0;
}
