/* The per-conversation model proxy's HTTP reading (harness_proxy.c):
 * requests that arrive in pieces, the relayed headers, chunked bodies,
 * one request out at a time, its own refusals.  setup plays the forwarder
 * (a listening socket on 127.0.0.1, handed over the unix socket) and the
 * tests play the CLI; every step is called after the bytes are written,
 * so no test waits on time. */
#include <criterion/criterion.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "lib/harness/harness_run_int.h"
#include "lib/harness/harness_wire.h"
#include "upskill/upskill.h"

static char dir[64], sock[96];
static cli_proxy *px;

/* The unix socket's connection, or -1. */
static int unix_dial(void)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);

    snprintf(a.sun_path, sizeof(a.sun_path), "%s", sock);
    if (connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* As harness_forward.c: a listening socket handed over on the unix
 * socket; its port into *port. */
static void hand_over(unsigned short *port)
{
    struct sockaddr_in a = {.sin_family = AF_INET};
    socklen_t len = sizeof(a);
    int l = socket(AF_INET, SOCK_STREAM, 0), s = unix_dial();
    char byte = 'L', ctl[CMSG_SPACE(sizeof(int))] = {0};
    struct iovec iov = {&byte, 1};
    struct msghdr m = {.msg_iov = &iov,
                       .msg_iovlen = 1,
                       .msg_control = ctl,
                       .msg_controllen = sizeof(ctl)};
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);

    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    cr_assert_eq(bind(l, (struct sockaddr *)&a, sizeof(a)), 0);
    cr_assert_eq(listen(l, 16), 0);
    cr_assert_eq(getsockname(l, (struct sockaddr *)&a, &len), 0);
    *port = a.sin_port;
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &l, sizeof(int));
    cr_assert_geq(s, 0);
    cr_assert_eq(sendmsg(s, &m, 0), 1);
    close(s);
    close(l);
    cli_proxy_step(px);
}

static unsigned short port;

static void setup(void)
{
    up_error err;

    snprintf(dir, sizeof(dir), "/tmp/upskill-proxy-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    snprintf(sock, sizeof(sock), "%s/model.sock", dir);
    cr_assert_eq(cli_proxy_open(&px, sock, "http://origin.test", NULL, &err), 0,
                 "%s", err.msg);
    hand_over(&port);
}

static void teardown(void)
{
    cli_proxy_free(px);
    rmdir(dir);
}

TestSuite(harness_proxy, .init = setup, .fini = teardown);

/* A connection of the CLI's. */
static int dial(void)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = port};
    int fd = socket(AF_INET, SOCK_STREAM, 0);

    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    cr_assert_eq(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
    return fd;
}

Test(harness_proxy, the_unix_socket_is_gone_after_the_hand_over)
{
    cr_expect_eq(unix_dial(), -1,
                 "nothing the CLI starts can reach the proxy's socket");
}

static void say(int fd, const char *s)
{
    cr_assert_eq(write(fd, s, strlen(s)), (ssize_t)strlen(s));
    cli_proxy_step(px);
}

/* Everything the proxy wrote to fd until it closed. */
static char *hear(int fd)
{
    static char buf[8192];
    size_t n = 0;
    ssize_t k;

    while (n < sizeof(buf) - 1 &&
           (k = read(fd, buf + n, sizeof(buf) - 1 - n)) > 0)
        n += (size_t)k;
    buf[n] = '\0';
    return buf;
}

static void answer(long status, const char *ctype, const char *body)
{
    up_response r;

    up_response_init(&r);
    r.http_status = status;
    snprintf(r.raw_ctype, sizeof(r.raw_ctype), "%s", ctype);
    r.raw_body = strdup(body);
    r.raw_len = strlen(body);
    cli_proxy_reply(px, &r);
    up_response_release(&r);
}

Test(harness_proxy, a_request_in_pieces_is_relayed_without_the_clis_keys)
{
    int fd = dial();
    const up_request *rq;

    say(fd, "POST /v1/x?a=1 HTTP/1.1\r\nAuthorization: Bearer dummy\r\n"
            "Content-Type: application/json\r\nX-Api-Key: k\r\n"
            "x-goog-api-key: g\r\nContent-Le");
    cr_assert_null(cli_proxy_next(px, 0), "not whole yet");
    say(fd, "ngth: 2\r\n\r\n{");
    cr_assert_null(cli_proxy_next(px, 0), "the body is not whole yet");
    say(fd, "}");
    rq = cli_proxy_next(px, 123);
    cr_assert_not_null(rq);
    cr_assert_not_null(rq->raw);
    cr_assert_str_eq(rq->raw->method, "POST");
    cr_assert_str_eq(rq->raw->url, "http://origin.test/v1/x?a=1");
    cr_assert_eq(rq->raw->body_len, 2);
    cr_assert_eq(memcmp(rq->raw->body, "{}", 2), 0);
    cr_assert_str_eq(rq->raw->headers[0], "Content-Type: application/json");
    cr_assert_null(rq->raw->headers[1], "no key header is relayed");
    cr_assert_eq(rq->raw->deadline_ms, 123);
    answer(201, "text/event-stream", "data: hi\n\n");
    cr_assert_str_eq(hear(fd), "HTTP/1.1 201 OK\r\nContent-Type: "
                               "text/event-stream\r\nContent-Length: 10\r\n"
                               "Connection: close\r\n\r\ndata: hi\n\n");
    close(fd);
}

Test(harness_proxy, a_chunked_body_is_decoded)
{
    int fd = dial();
    const up_request *rq;

    say(fd, "POST /v1/m HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
            "3\r\nabc\r\n");
    cr_assert_null(cli_proxy_next(px, 0));
    say(fd, "2;ext=1\r\nde\r\n0\r\nTrailer: x\r\n\r\n");
    rq = cli_proxy_next(px, 0);
    cr_assert_not_null(rq);
    cr_assert_eq(rq->raw->body_len, 5);
    cr_assert_eq(memcmp(rq->raw->body, "abcde", 5), 0);
    close(fd);
}

Test(harness_proxy, one_request_is_out_at_a_time)
{
    int a = dial(), b = dial();
    const up_request *rq;

    say(a, "GET /one HTTP/1.1\r\n\r\n");
    say(b, "GET /two HTTP/1.1\r\n\r\n");
    rq = cli_proxy_next(px, 0);
    cr_assert_not_null(rq);
    cr_assert_str_eq(rq->raw->url, "http://origin.test/one");
    cr_assert_null(cli_proxy_next(px, 0), "the second waits for the first");
    answer(200, "application/json", "{}");
    rq = cli_proxy_next(px, 0);
    cr_assert_not_null(rq);
    cr_assert_str_eq(rq->raw->url, "http://origin.test/two");
    close(a);
    close(b);
}

Test(harness_proxy, head_gets_no_body)
{
    int fd = dial();

    say(fd, "HEAD / HTTP/1.1\r\n\r\n");
    cr_assert_not_null(cli_proxy_next(px, 0));
    answer(200, "text/html", "<html>");
    cr_assert_str_eq(hear(fd),
                     "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n"
                     "Content-Length: 0\r\nConnection: close\r\n\r\n");
    close(fd);
}

/* What the proxy answers raw by itself (its status line). */
static void refused(const char *request, const char *status)
{
    int fd = dial();
    char *got;

    say(fd, request);
    cr_assert_null(cli_proxy_next(px, 0), "%s is not relayed", request);
    got = hear(fd);
    cr_assert(strncmp(got, status, strlen(status)) == 0, "got %.40s for %s",
              got, request);
    cr_assert(strstr(got, "upskill's model proxy"));
    close(fd);
}

Test(harness_proxy, bad_requests_get_the_proxys_own_answer)
{
    refused("POST /v1/m HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
            "zz\r\n",
            "HTTP/1.1 413 ");
    refused("POST /v1/m HTTP/1.1\r\nContent-Length: 2\r\nTransfer-Encoding: "
            "chunked\r\n\r\n",
            "HTTP/1.1 400 ");
    refused("POST //evil.test/v1 HTTP/1.1\r\n\r\n", "HTTP/1.1 400 ");
    refused("GET /v1 HTTP/2\r\n\r\n", "HTTP/1.1 400 ");
    refused("PUT /v1 HTTP/1.1\r\n\r\n", "HTTP/1.1 405 ");
    refused("POST /v1 HTTP/1.1\r\nContent-Length: -1\r\n\r\n", "HTTP/1.1 400 ");
    refused("POST /v1 HTTP/1.1\r\nno colon here\r\n\r\n", "HTTP/1.1 400 ");
    cr_assert_eq(cli_proxy_refused(px), 7);
}

Test(harness_proxy, a_client_that_half_closes_still_gets_its_reply)
{
    int fd = dial();

    cr_assert_eq(write(fd, "GET /v1/models HTTP/1.1\r\n\r\n", 27), 27);
    shutdown(fd, SHUT_WR);
    cli_proxy_step(px);
    cr_assert_not_null(cli_proxy_next(px, 0));
    answer(200, "application/json", "{}");
    cr_assert_str_eq(hear(fd), "HTTP/1.1 200 OK\r\nContent-Type: "
                               "application/json\r\nContent-Length: 2\r\n"
                               "Connection: close\r\n\r\n{}");
    close(fd);
}

/* A request the relay table refuses: the proxy's own 404, counted. */
static void not_relayed(const char *request)
{
    refused(request, "HTTP/1.1 404 ");
}

/* A request the relay table lets through, to url. */
static void relayed_to(const char *request, const char *url)
{
    int fd = dial();
    const up_request *rq;

    say(fd, request);
    rq = cli_proxy_next(px, 0);
    cr_assert_not_null(rq, "%s is relayed", request);
    cr_assert_str_eq(rq->raw->url, url);
    answer(200, "application/json", "{}");
    close(fd);
}

Test(harness_proxy, only_the_wires_model_endpoints_are_relayed)
{
    cli_proxy_relay_only(px, UP_WIRE_ANTHROPIC, "/api");
    relayed_to("POST /api/v1/messages?beta=true HTTP/1.1\r\n\r\n",
               "http://origin.test/api/v1/messages?beta=true");
    relayed_to("POST /api/v1/messages/count_tokens HTTP/1.1\r\n\r\n",
               "http://origin.test/api/v1/messages/count_tokens");
    not_relayed("POST /api/v1/files HTTP/1.1\r\n\r\n");
    not_relayed("GET /api/v1/messages HTTP/1.1\r\n\r\n");
    not_relayed("GET / HTTP/1.1\r\n\r\n");
    not_relayed("POST /v1/messages HTTP/1.1\r\n\r\n"); /* not below /api */
    not_relayed("POST /api/v1/messages/batches HTTP/1.1\r\n\r\n");
    not_relayed(
        "POST /api/v1/fine_tuning/jobs?x=/v1/messages HTTP/1.1\r\n\r\n");
    not_relayed("POST /api/v1/files%2f..%2fmessages HTTP/1.1\r\n\r\n");
    not_relayed("POST /api/v1/files#/v1/messages HTTP/1.1\r\n\r\n");
    not_relayed("POST /key/info HTTP/1.1\r\n\r\n");
    cr_assert_eq(cli_proxy_refused(px), 9);

    cli_proxy_relay_only(px, UP_WIRE_GEMINI, "");
    relayed_to("POST /v1beta/models/gemini-2.5-flash:streamGenerateContent"
               "?alt=sse HTTP/1.1\r\n\r\n",
               "http://origin.test/v1beta/models/"
               "gemini-2.5-flash:streamGenerateContent?alt=sse");
    not_relayed("POST /v1beta/models/a/b:generateContent HTTP/1.1\r\n\r\n");
    not_relayed("POST /v1beta/files HTTP/1.1\r\n\r\n");
    cli_proxy_relay_only(px, UP_WIRE_RESPONSES, "/v1");
    relayed_to("POST /v1/responses HTTP/1.1\r\n\r\n",
               "http://origin.test/v1/responses");
    not_relayed("POST /v1/chat/completions HTTP/1.1\r\n\r\n");
    cli_proxy_relay_only(px, UP_WIRE_OPENAI, "/v1");
    relayed_to("POST /v1/chat/completions HTTP/1.1\r\n\r\n",
               "http://origin.test/v1/chat/completions");
    relayed_to("GET /v1/models HTTP/1.1\r\n\r\n",
               "http://origin.test/v1/models");
    not_relayed("POST /v1/models HTTP/1.1\r\n\r\n");
    not_relayed("GET /v1/chat/completions HTTP/1.1\r\n\r\n");
}

Test(harness_proxy, a_reply_that_echoes_the_key_reaches_the_cli_redacted)
{
    /* "sk-echo-0123456789abcdef" and its base64 at two alignments */
    static const char *const key = "sk-echo-0123456789abcdef";
    int fd = dial();
    char *got;

    cli_proxy_redact(px, key);
    say(fd, "POST /v1/chat/completions HTTP/1.1\r\n\r\n");
    cr_assert_not_null(cli_proxy_next(px, 0));
    answer(200, "application/json",
           "{\"key\":\"sk-echo-0123456789abcdef\","
           "\"b64\":\"c2stZWNoby0wMTIzNDU2Nzg5YWJjZGVm\","
           "\"basic\":\"dTpzay1lY2hvLTAxMjM0NTY3ODlhYmNkZWY=\"}");
    got = hear(fd);
    cr_assert_null(strstr(got, key), "%s", got);
    cr_assert_null(strstr(got, "c2stZWNoby0wMTIzNDU2Nzg5YWJjZGVm"), "%s", got);
    cr_assert_null(strstr(got, "zay1lY2hvLTAxMjM0NTY3ODlhYmNkZW"), "%s", got);
    cr_assert(strstr(got, "<redacted>"));
    cr_assert(strstr(got, "Content-Length: "), "the length is the new one");
    close(fd);
}

Test(harness_proxy, the_keys_base64_forms_are_redacted_at_every_alignment)
{
    static const char *const key = "sk-echo-0123456789abcdef";
    static const char *const texts[] = {
        "c2stZWNoby0wMTIzNDU2Nzg5YWJjZGVm",         /* the key alone */
        "dTpzay1lY2hvLTAxMjM0NTY3ODlhYmNkZWY=",     /* "u:" + key */
        "eDpBc2stZWNoby0wMTIzNDU2Nzg5YWJjZGVmIQ==", /* "x:A" + key + "!" */
    };

    for (size_t i = 0; i < 3; i++) {
        up_buf b = UP_BUF_INIT;

        up_buf_addf(&b, "auth %s end", texts[i]);
        up_harness_redact(&b, key);
        cr_assert(strstr(b.data, "<redacted>"), "%zu: %s", i, b.data);
        cr_assert(strncmp(b.data, "auth ", 5) == 0);
        up_buf_release(&b);
    }
}

/* Read fd until the proxy closes it; the bytes read. */
static size_t drain(int fd)
{
    char buf[65536];
    size_t n = 0;
    ssize_t k;

    while ((k = read(fd, buf, sizeof(buf))) > 0) {
        n += (size_t)k;
        cli_proxy_step(px);
    }
    return n;
}

/* Replies the CLI does not read hold at most 32 MiB (and the one in
 * flight): past it the proxy relays nothing more until it reads. */
Test(harness_proxy, unread_replies_are_bounded)
{
    size_t big = (size_t)30 << 20;
    char *body = malloc(big + 1);
    int fd[3];
    up_response r;

    memset(body, 'x', big);
    body[big] = '\0';
    for (int i = 0; i < 3; i++) {
        fd[i] = dial();
        say(fd[i], "POST /v1/chat/completions HTTP/1.1\r\n\r\n");
    }
    for (int i = 0; i < 2; i++) {
        cr_assert_not_null(cli_proxy_next(px, 0), "reply %d is relayed", i);
        up_response_init(&r);
        r.http_status = 200;
        r.raw_body = strdup(body);
        r.raw_len = big;
        cli_proxy_reply(px, &r);
        up_response_release(&r);
    }
    cr_assert_null(cli_proxy_next(px, 0),
                   "nothing more while 60 MiB of replies are unread");
    cr_assert_gt(drain(fd[0]), big, "the first reply is read whole");
    cr_assert_gt(drain(fd[1]), big);
    cli_proxy_step(px);
    cr_assert_not_null(cli_proxy_next(px, 0), "then the third goes out");
    for (int i = 0; i < 3; i++)
        close(fd[i]);
    free(body);
}
