/*
 * libcurl, loaded on first use.
 *
 * Linking libcurl pulls some thirty shared libraries (TLS, Kerberos, LDAP,
 * ...) into every start of the program, which costs several milliseconds
 * even for `upskill --version`.  Only http.c talks to libcurl, so it goes
 * through this table instead, filled by dlopen the first time a client is
 * made.  Include this header instead of <curl/curl.h>; the curl_* names
 * below then call through the table.
 */
#ifndef UPSKILL_CURL_DL_H
#define UPSKILL_CURL_DL_H

#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>

typedef struct up_curl_api {
    CURLcode (*global_init)(long flags);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *e);
    CURLcode (*easy_setopt)(CURL *e, CURLoption opt, ...);
    CURLcode (*easy_getinfo)(CURL *e, CURLINFO info, ...);
    const char *(*easy_strerror)(CURLcode code);
    CURLM *(*multi_init)(void);
    CURLMcode (*multi_cleanup)(CURLM *m);
    CURLMcode (*multi_setopt)(CURLM *m, CURLMoption opt, ...);
    CURLMcode (*multi_add_handle)(CURLM *m, CURL *e);
    CURLMcode (*multi_remove_handle)(CURLM *m, CURL *e);
    CURLMcode (*multi_socket_action)(CURLM *m, curl_socket_t s, int mask,
                                     int *running);
    CURLMcode (*multi_timeout)(CURLM *m, long *ms);
    CURLMsg *(*multi_info_read)(CURLM *m, int *left);
    struct curl_slist *(*slist_append)(struct curl_slist *l, const char *s);
    void (*slist_free_all)(struct curl_slist *l);
} up_curl_api;

extern up_curl_api up_curl;

/*
 * Load libcurl and call curl_global_init, once (thread-safe).  Returns 0,
 * or -1 when the library or one of its functions cannot be found.
 */
int up_curl_load(void);

#undef curl_easy_setopt
#undef curl_easy_getinfo
#undef curl_multi_setopt
#define curl_global_init         (*up_curl.global_init)
#define curl_easy_init           (*up_curl.easy_init)
#define curl_easy_cleanup        (*up_curl.easy_cleanup)
#define curl_easy_setopt         (*up_curl.easy_setopt)
#define curl_easy_getinfo        (*up_curl.easy_getinfo)
#define curl_easy_strerror       (*up_curl.easy_strerror)
#define curl_multi_init          (*up_curl.multi_init)
#define curl_multi_cleanup       (*up_curl.multi_cleanup)
#define curl_multi_setopt        (*up_curl.multi_setopt)
#define curl_multi_add_handle    (*up_curl.multi_add_handle)
#define curl_multi_remove_handle (*up_curl.multi_remove_handle)
#define curl_multi_socket_action (*up_curl.multi_socket_action)
#define curl_multi_timeout       (*up_curl.multi_timeout)
#define curl_multi_info_read     (*up_curl.multi_info_read)
#define curl_slist_append        (*up_curl.slist_append)
#define curl_slist_free_all      (*up_curl.slist_free_all)

#endif
