/* SPDX-License-Identifier: MIT */
#include "metrics_http.h"

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "openmetrics.h"

#define REQUEST_MAX 8192
#define CLIENT_TIMEOUT_MS 2000

int vt_http_address(const char *arg, char *host, size_t hsize, char *port, size_t psize)
{
    const char *colon = strrchr(arg, ':');
    const char *h = colon ? arg : "", *p = colon ? colon + 1 : arg;
    size_t hlen = colon ? (size_t)(colon - arg) : 0;
    if (hlen >= 2 && h[0] == '[' && h[hlen - 1] == ']')
        h++, hlen -= 2;
    if (!*p || strspn(p, "0123456789") != strlen(p) || strlen(p) > 5 || atoi(p) > 65535 ||
        strlen(p) >= psize || hlen >= hsize)
        return -1;
    if (hlen)
        snprintf(host, hsize, "%.*s", (int)hlen, h);
    else
        snprintf(host, hsize, "127.0.0.1");
    snprintf(port, psize, "%s", p);
    return 0;
}

static int listen_on(const struct addrinfo *ai, char *shown, size_t size)
{
    int one = 1, fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0)
        return -1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_storage bound;
    socklen_t len = sizeof bound;
    char host[NI_MAXHOST], port[NI_MAXSERV];
    if (bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || listen(fd, 16) != 0 ||
        getsockname(fd, (struct sockaddr *)&bound, &len) != 0 ||
        getnameinfo((struct sockaddr *)&bound, len, host, sizeof host, port, sizeof port,
                    NI_NUMERICHOST | NI_NUMERICSERV) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    snprintf(shown, size, strchr(host, ':') ? "[%s]:%s" : "%s:%s", host, port);
    return fd;
}

int vt_http_listen(const char *addr_port, char *shown, size_t size)
{
    char host[256], port[16];
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE}, *ai;
    vt_http_address(addr_port, host, sizeof host, port, sizeof port); /* checked before */
    int rc = getaddrinfo(host, port, &hints, &ai);
    if (rc != 0) {
        fprintf(stderr, "vramtrace watch: cannot listen on %s: %s\n", addr_port, gai_strerror(rc));
        return -1;
    }
    int fd = -1;
    for (struct addrinfo *a = ai; a && fd < 0; a = a->ai_next)
        fd = listen_on(a, shown, size);
    if (fd < 0)
        fprintf(stderr, "vramtrace watch: cannot listen on %s: %s\n", addr_port, strerror(errno));
    freeaddrinfo(ai);
    return fd;
}

/* The request's head, up to its blank line; -1 when the client is too slow
 * or sends too much. */
static int read_request(int fd, char *buf, size_t size)
{
    size_t n = 0;
    while (n + 1 < size) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, CLIENT_TIMEOUT_MS) <= 0)
            return -1;
        ssize_t got = read(fd, buf + n, size - 1 - n);
        if (got <= 0)
            return -1;
        n += (size_t)got;
        buf[n] = '\0';
        if (strstr(buf, "\r\n\r\n") || strstr(buf, "\n\n"))
            return 0;
    }
    return -1;
}

static void write_all(int fd, const char *p, size_t len)
{
    while (len) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
        if (n <= 0 && errno != EINTR)
            return;
        if (n > 0)
            p += n, len -= (size_t)n;
    }
}

static void respond(int fd, const char *status, const char *type, const char *body, size_t len)
{
    char head[256];
    int n = snprintf(head, sizeof head,
                     "HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
                     "Connection: close\r\n\r\n",
                     status, type, len);
    write_all(fd, head, (size_t)n);
    write_all(fd, body, len);
}

static void answer(int fd, const char *body, size_t len)
{
    static const char not_found[] = "Not found: the metrics are at /metrics\n";
    static const char not_allowed[] = "Only GET is served\n";
    char req[REQUEST_MAX];
    struct timeval tv = {.tv_sec = CLIENT_TIMEOUT_MS / 1000};
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    if (read_request(fd, req, sizeof req) != 0)
        return;
    if (strncmp(req, "GET ", 4) != 0)
        respond(fd, "405 Method Not Allowed", "text/plain", not_allowed, strlen(not_allowed));
    else if (strncmp(req + 4, "/metrics", 8) != 0 || !strchr(" ?", req[12]))
        respond(fd, "404 Not Found", "text/plain", not_found, strlen(not_found));
    else
        respond(fd, "200 OK", VT_OM_CONTENT_TYPE, body, len);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void vt_http_serve_for(int fd, double seconds, const char *body, size_t len)
{
    double end = now_s() + seconds;
    for (;;) {
        double left = end - now_s();
        if (left <= 0)
            return;
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int ready = poll(&p, 1, (int)(left * 1000) + 1);
        if (ready < 0)
            return; /* a signal: the caller looks at it */
        if (ready == 0)
            continue;
        int client = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
        if (client < 0)
            continue;
        answer(client, body, len);
        close(client);
    }
}
