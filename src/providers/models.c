/*
 * Listing a provider's models: GET {base}/v1/models (Anthropic) or
 * {base}/models (OpenAI and compatible servers); both answer
 * {"data": [{"id": ...}, ...]}.
 */
#include <stdlib.h>
#include <string.h>

#include "providers.h"
#include "upskill/alloc.h"
#include "upskill/http.h"
#include "upskill/sched.h"

static int parse_ids(char ***ids, size_t *n, const up_buf *body,
                     const char *url, up_error *err)
{
    json_t *root = json_loadb(body->data, body->len, 0, NULL), *item;
    json_t *data = json_object_get(root, "data");
    size_t i, cap = 0;

    *n = 0;
    *ids = NULL;
    if (!json_is_array(data)) {
        json_decref(root);
        return up_error_set(err, UP_EHTTP,
                            "'%s': expected a JSON object with a 'data' list",
                            url);
    }
    json_array_foreach(data, i, item)
    {
        const char *id = json_string_value(json_object_get(item, "id"));

        if (!id)
            continue;
        UP_GROW(*ids, cap, *n + 2);
        (*ids)[(*n)++] = up_xstrdup(id);
    }
    UP_GROW(*ids, cap, *n + 1);
    (*ids)[*n] = NULL;
    json_decref(root);
    return 0;
}

int up_provider_models(const up_endpoint *ep, char ***ids, size_t *n,
                       up_error *err)
{
    const struct up_provider_ops *ops = up_provider_ops_for(ep->kind);
    up_buf url = UP_BUF_INIT, safe = UP_BUF_INIT;
    up_hdrs h = {NULL, 0, 0};
    up_http_request rq;
    up_http_result res;
    int rc;

    if (!ops)
        return up_error_set(err, UP_EUSAGE, "unknown provider kind");
    if (up_endpoint_check(ep, err))
        return UP_EPARSE;
    up_provider_base(ep, ops->default_base, &url);
    if (ep->deployment)
        up_buf_adds(&url, "/openai"); /* Azure: {base}/openai/models */
    up_buf_adds(&url, ops->models_path);
    if (ep->query && *ep->query)
        up_buf_addf(&url, "?%s", ep->query);
    ops->headers(ep, &h);
    memset(&rq, 0, sizeof(rq));
    rq.url = url.data;
    rq.headers = (const char *const *)h.v;
    rq.connect_timeout_ms = ep->connect_timeout_ms;
    rq.total_timeout_ms = ep->total_timeout_ms;
    rq.limits = ops->limits;
    rq.key_prefixes = up_provider_key_prefixes();
    rq.quota_words = up_provider_quota_words();
    rc = up_sched_http(ep, &rq, NULL, &res); /* the command's loop */
    up_http_redact_url(url.data, &safe);
    if (rc && err)
        *err = res.err;
    else if (!rc)
        rc = parse_ids(ids, n, &res.body, safe.data, err);
    up_http_result_release(&res);
    up_hdrs_release(&h);
    up_buf_release(&url);
    up_buf_release(&safe);
    return rc;
}
