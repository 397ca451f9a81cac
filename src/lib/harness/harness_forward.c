/*
 * The first program of a coding-agent CLI's sandbox (docs/agent-clis.md,
 * "The network"): `upskill __forward PORT SOCKET -- CLI ARGS...`, run by
 * bubblewrap.
 *
 * The sandbox has its own network namespace with only loopback, so the
 * CLI can reach nothing but what listens inside it.  This program binds
 * and listens on 127.0.0.1:PORT in that namespace, hands the listening
 * socket to upskill's proxy over SOCKET (the unix socket the proxy
 * serves from outside; SCM_RIGHTS), and then becomes the CLI (exec).  So
 * nothing waits inside: upskill's one loop accepts the CLI's connections
 * on a socket of the CLI's namespace, and the port is open before the
 * CLI's first request.  It knows no HTTP and holds no key.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "upskill/harness.h"

/* Connections waiting to be accepted by the proxy. */
#define FWD_BACKLOG 64

/* A socket listening on 127.0.0.1:port, or -1 (said on stderr). */
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
        listen(fd, FWD_BACKLOG) != 0) {
        fprintf(stderr, "upskill forward: cannot listen on 127.0.0.1:%d: %s\n",
                port, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

/* Send fd to the proxy listening on path; 0, or -1 (said on stderr). */
static int hand_over(int fd, const char *path)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    char byte = 'L';
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } ctl;
    struct iovec iov = {&byte, 1};
    struct msghdr m = {.msg_iov = &iov,
                       .msg_iovlen = 1,
                       .msg_control = ctl.buf,
                       .msg_controllen = sizeof(ctl.buf)};
    struct cmsghdr *c = &ctl.align;
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), rc = -1;

    memset(&ctl, 0, sizeof(ctl));
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &fd, sizeof(int));
    snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
    if (s >= 0 && connect(s, (struct sockaddr *)&a, sizeof(a)) == 0 &&
        sendmsg(s, &m, MSG_NOSIGNAL) == 1)
        rc = 0;
    else
        fprintf(stderr,
                "upskill forward: cannot reach the model proxy at "
                "'%s': %s\n",
                path, strerror(errno));
    if (s >= 0)
        close(s);
    return rc;
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
    int lfd;

    if (argc < 4 || !end || *end || port < 1 || port > 65535 ||
        strcmp(argv[2], "--") != 0 || argv[3][0] != '/')
        return usage();
    lfd = listen_on((int)port);
    if (lfd < 0 || hand_over(lfd, argv[1]) != 0)
        return 1;
    close(lfd); /* the proxy holds it now */
    execv(argv[3], argv + 3);
    fprintf(stderr, "upskill forward: cannot run '%s': %s\n", argv[3],
            strerror(errno));
    return 127;
}
