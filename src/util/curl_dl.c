/*
 * Loading libcurl at run time (see curl_dl.h for why).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

#include "util/curl_dl.h"

up_curl_api up_curl;

static const struct {
    const char *name;
    size_t offset;
} syms[] = {
    {"curl_global_init", offsetof(up_curl_api, global_init)},
    {"curl_easy_init", offsetof(up_curl_api, easy_init)},
    {"curl_easy_cleanup", offsetof(up_curl_api, easy_cleanup)},
    {"curl_easy_setopt", offsetof(up_curl_api, easy_setopt)},
    {"curl_easy_getinfo", offsetof(up_curl_api, easy_getinfo)},
    {"curl_easy_strerror", offsetof(up_curl_api, easy_strerror)},
    {"curl_multi_init", offsetof(up_curl_api, multi_init)},
    {"curl_multi_cleanup", offsetof(up_curl_api, multi_cleanup)},
    {"curl_multi_setopt", offsetof(up_curl_api, multi_setopt)},
    {"curl_multi_add_handle", offsetof(up_curl_api, multi_add_handle)},
    {"curl_multi_remove_handle", offsetof(up_curl_api, multi_remove_handle)},
    {"curl_multi_socket_action", offsetof(up_curl_api, multi_socket_action)},
    {"curl_multi_timeout", offsetof(up_curl_api, multi_timeout)},
    {"curl_multi_info_read", offsetof(up_curl_api, multi_info_read)},
    {"curl_slist_append", offsetof(up_curl_api, slist_append)},
    {"curl_slist_free_all", offsetof(up_curl_api, slist_free_all)},
};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded = -1;

static void load(void)
{
    void *h = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);

    if (!h)
        h = dlopen("libcurl.so", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return;
    for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
        void *f = dlsym(h, syms[i].name);

        if (!f)
            return;
        /* POSIX guarantees data and function pointers convert. */
        *(void **)((char *)&up_curl + syms[i].offset) = f;
    }
    loaded = up_curl.global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK ? 0 : -1;
}

int up_curl_load(void)
{
    pthread_once(&once, load);
    return loaded;
}
