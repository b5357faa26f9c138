/* SPDX-License-Identifier: MIT */
/* The HTTP server of `vramtrace watch --listen`: GET /metrics answers the
 * last exposition, one connection at a time (a scraper's request every few
 * seconds; nothing else is served). */
#ifndef VT_METRICS_HTTP_H
#define VT_METRICS_HTTP_H

#include <stddef.h>

/* ADDR:PORT into HOST and PORT (see vt_http_listen); -1 when it is not one. */
int vt_http_address(const char *addr_port, char *host, size_t hsize, char *port, size_t psize);

/* Listens on ADDR:PORT (ADDR a name or address, "[v6]" allowed; ":PORT" or
 * "PORT": 127.0.0.1). Returns the socket, or -1 after one line on stderr;
 * *SHOWN is set to the address listened on ("127.0.0.1:9400"). */
int vt_http_listen(const char *addr_port, char *shown, size_t size);

/* Answers requests on socket FD for SECONDS (or until a signal arrives)
 * with BODY (LEN bytes) for /metrics. */
void vt_http_serve_for(int fd, double seconds, const char *body, size_t len);

#endif
