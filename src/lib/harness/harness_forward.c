/*
 * The forwarder inside a coding-agent CLI's sandbox (docs/agent-clis.md,
 * "The network"): `upskill __forward PORT SOCKET -- CLI ARGS...`, run by
 * bubblewrap as the sandbox's first program.
 *
 * The sandbox has its own network namespace with only loopback, so the
 * CLI can reach nothing but what listens inside it.  This process listens
 * on 127.0.0.1:PORT before it starts the CLI (no race: the CLI's first
 * request finds the port open), then copies bytes both ways between
 * each accepted TCP connection and a fresh connection to SOCKET, the
 * unix socket upskill's proxy serves from outside.  It knows no HTTP and
 * holds no key.  One poll loop, at most FWD_MAX_CONNS connections; when
 * the CLI exits it exits with the CLI's status (or dies of its signal).
 */
#define _GNU_SOURCE /* accept4, pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "upskill/harness.h"

/* Connections copied at once; more wait in the listen backlog. */
#define FWD_MAX_CONNS 64
/* Bytes buffered per direction of a connection. */
#define FWD_BUF 16384

/* One direction of a connection: bytes read from one side, not yet
 * written to the other. */
typedef struct half {
    char buf[FWD_BUF];
    size_t off, len;
    int eof; /* the reading side closed */
} half;

typedef struct fwd_conn {
    int tcp, uds;
    int shut;  /* the CLI closed its side: so was the proxy's told */
    half up;   /* tcp -> uds: the CLI's request */
    half down; /* uds -> tcp: the proxy's reply */
} fwd_conn;

static int chld_pipe[2] = {-1, -1};

static void on_chld(int sig)
{
    int saved = errno;

    (void)sig;
    if (write(chld_pipe[1], "x", 1) < 0) { /* full: a wake-up is pending */
    }
    errno = saved;
}

static int nonblock(int fd)
{
    int fl = fcntl(fd, F_GETFL);

    return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* Listen on 127.0.0.1:port; the fd or -1 (message printed). */
static int listen_on(int port)
{
    struct sockaddr_in a;
    int one = 1, fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd >= 0)
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 ||
        listen(fd, FWD_MAX_CONNS) != 0 || nonblock(fd) != 0) {
        fprintf(stderr, "upskill forward: cannot listen on 127.0.0.1:%d: %s\n",
                port, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

/* A new connection to the proxy's socket, non-blocking; -1 on failure. */
static int dial(const char *path)
{
    struct sockaddr_un a;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

    memset(&a, 0, sizeof(a));
    a.sun_family = AF_UNIX;
    snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
    if (fd >= 0 && (connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0 ||
                    nonblock(fd) != 0)) {
        close(fd);
        fd = -1;
    }
    return fd;
}

static void conn_close(fwd_conn **v, size_t *n, size_t i)
{
    close(v[i]->tcp);
    close(v[i]->uds);
    free(v[i]);
    v[i] = v[--*n];
}

/* Accept one connection and pair it with one to the proxy. */
static void take_conn(int lfd, const char *path, fwd_conn **v, size_t *n)
{
    int tcp = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC), uds;

    if (tcp < 0)
        return;
    uds = dial(path);
    if (uds < 0) {
        close(tcp);
        return;
    }
    v[*n] = calloc(1, sizeof(fwd_conn));
    if (!v[*n]) {
        close(tcp);
        close(uds);
        return;
    }
    v[*n]->tcp = tcp;
    v[*n]->uds = uds;
    (*n)++;
}

/* Move bytes of h from fd `from` to fd `to`; -1 on an error, 1 once
 * everything up to an EOF is delivered, else 0. */
static int pump(half *h, int from, int to)
{
    ssize_t k;

    if (!h->len && !h->eof) {
        k = read(from, h->buf, sizeof(h->buf));
        if (k == 0)
            h->eof = 1;
        else if (k < 0 && errno != EAGAIN && errno != EINTR)
            return -1;
        else if (k > 0) {
            h->off = 0;
            h->len = (size_t)k;
        }
    }
    if (h->len) {
        k = send(to, h->buf + h->off, h->len, MSG_NOSIGNAL);
        if (k < 0 && errno != EAGAIN && errno != EINTR)
            return -1;
        if (k > 0) {
            h->off += (size_t)k;
            h->len -= (size_t)k;
        }
    }
    return h->eof && !h->len;
}

/* One connection's turn; -1 when it is over: the proxy's reply is all
 * delivered (it closes after each), or an error.  A CLI that closes its
 * sending side (a half-close) still gets its reply. */
static int step_conn(fwd_conn *c)
{
    int up = pump(&c->up, c->tcp, c->uds);

    if (up < 0)
        return -1;
    if (up && !c->shut) {
        shutdown(c->uds, SHUT_WR);
        c->shut = 1;
    }
    return pump(&c->down, c->uds, c->tcp) ? -1 : 0;
}

static short events(const half *in, const half *out)
{
    return (short)((!in->len && !in->eof ? POLLIN : 0) |
                   (out->len ? POLLOUT : 0));
}

/* The CLI's end as this process's: its exit code, or its signal. */
static int pass_on(int status)
{
    if (WIFSIGNALED(status)) {
        signal(WTERMSIG(status), SIG_DFL);
        raise(WTERMSIG(status));
        return 128 + WTERMSIG(status);
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/* Start the CLI: argv, NULL-ended; its pid or -1. */
static pid_t start_cli(char **argv)
{
    pid_t pid = fork();

    if (pid == 0) {
        execv(argv[0], argv);
        fprintf(stderr, "upskill forward: cannot run '%s': %s\n", argv[0],
                strerror(errno));
        _exit(127);
    }
    return pid;
}

/* 1 when the CLI has ended, its status in *status. */
static int cli_over(const struct pollfd *pfd, pid_t pid, int *status)
{
    char drain[64];

    if (pfd->revents & POLLIN)
        while (read(chld_pipe[0], drain, sizeof(drain)) > 0)
            ;
    return waitpid(pid, status, WNOHANG) == pid;
}

/* Copy until the CLI exits; its wait status. */
static int relay(int lfd, const char *path, pid_t pid)
{
    static fwd_conn *v[FWD_MAX_CONNS];
    struct pollfd p[2 + 2 * FWD_MAX_CONNS];
    size_t n = 0;
    int status = 0;

    for (;;) {
        nfds_t np = 2;

        p[0] = (struct pollfd){chld_pipe[0], POLLIN, 0};
        p[1] = (struct pollfd){lfd, n < FWD_MAX_CONNS ? POLLIN : 0, 0};
        for (size_t i = 0; i < n; i++) {
            p[np++] =
                (struct pollfd){v[i]->tcp, events(&v[i]->up, &v[i]->down), 0};
            p[np++] =
                (struct pollfd){v[i]->uds, events(&v[i]->down, &v[i]->up), 0};
        }
        if (poll(p, np, -1) < 0 && errno != EINTR)
            break;
        if (cli_over(&p[0], pid, &status))
            return status;
        for (size_t i = n; i-- > 0;)
            if (step_conn(v[i]))
                conn_close(v, &n, i);
        if (p[1].revents & POLLIN)
            take_conn(lfd, path, v, &n);
    }
    waitpid(pid, &status, 0);
    return status;
}

static int usage(void)
{
    fprintf(stderr, "usage: upskill __forward PORT SOCKET -- COMMAND...\n"
                    "(internal: the network of a coding-agent CLI's "
                    "sandbox, docs/agent-clis.md)\n");
    return 2;
}

int up_harness_forward_main(int argc, char **argv)
{
    char *end = NULL;
    long port = argc > 0 ? strtol(argv[0], &end, 10) : 0;
    struct sigaction sa;
    int lfd;
    pid_t pid;

    if (argc < 4 || !end || *end || port < 1 || port > 65535 ||
        strcmp(argv[2], "--") != 0 || argv[3][0] != '/')
        return usage();
    if (pipe2(chld_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
        return 1;
    lfd = listen_on((int)port);
    if (lfd < 0)
        return 1;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_chld;
    sigaction(SIGCHLD, &sa, NULL);
    pid = start_cli(argv + 3);
    if (pid < 0)
        return 1;
    return pass_on(relay(lfd, argv[1], pid));
}
