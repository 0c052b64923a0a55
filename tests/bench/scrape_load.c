// SPDX-License-Identifier: Apache-2.0
/*
 * scrape_load: an HTTP/1.1 scrape load generator for the benchmarks.
 *
 * CLIENTS threads each scrape one URL back to back (closed loop: a client
 * sends its next request when the previous response is complete) for
 * SECONDS or until REQUESTS responses in all, and the tool prints one line of
 * key=value figures: requests, errors, scrapes per second, latency
 * percentiles and the mean body size.
 *
 * Latency is measured with CLOCK_MONOTONIC from before connect() (or, on a
 * kept-alive connection, before send()) to the last byte of the body, which
 * is found by Content-Length, by the end of a chunked body, or by EOF: what a
 * scraper waits for. Without -k every request opens a new connection and
 * sends "Connection: close"; with -k a connection is reused while the server
 * keeps it open (the figures then say how many connections were made).
 *
 *   scrape_load [-c CLIENTS] [-d SECONDS | -n REQUESTS] [-k] [-z] [-o FILE] URL
 *
 * URL is http://IPV4:PORT/PATH (no TLS, no name lookup: loopback benchmarks
 * only). Exit status: 0 when every request got a complete 200, 1 when any
 * did not, 2 on a usage error.
 */
/* _GNU_SOURCE (memmem) comes from the build's compile definitions. */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct config {
	struct sockaddr_in addr;
	char request[512];
	size_t request_len;
	unsigned clients;
	double seconds; /* 0: run until max_requests */
	uint64_t max_requests;
	bool keepalive;
	bool gzip;
	const char *out_path; /* the first 200 body, de-chunked */
};

struct client {
	pthread_t thread;
	const struct config *cfg;
	uint64_t *lat_ns; /* one per successful request */
	size_t n, cap;
	uint64_t errors, connects, body_bytes;
	char *buf;
	size_t buf_cap;
	int fd;
};

static uint64_t deadline_ns;
static uint64_t issued; /* requests handed out when -n is given */
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
/* Set under out_lock; atomic because scrape_once peeks at it without the lock. */
static atomic_bool out_written;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Claims the next request; false when the run is over. */
static bool take_request(const struct config *cfg)
{
	if (cfg->max_requests)
		return __atomic_fetch_add(&issued, 1, __ATOMIC_RELAXED) < cfg->max_requests;
	return now_ns() < deadline_ns;
}

static int parse_url(const char *url, struct config *cfg)
{
	char host[64];
	const char *p, *colon, *slash;
	unsigned long port;
	char *end;
	int n;

	if (strncmp(url, "http://", 7) != 0)
		return -EINVAL;
	p = url + 7;
	colon = strchr(p, ':');
	slash = strchr(p, '/');
	if (!colon || (slash && slash < colon) || (size_t)(colon - p) >= sizeof(host))
		return -EINVAL;
	memcpy(host, p, (size_t)(colon - p));
	host[colon - p] = '\0';
	errno = 0;
	port = strtoul(colon + 1, &end, 10);
	if (errno || end == colon + 1 || port == 0 || port > 65535 || (*end && *end != '/'))
		return -EINVAL;
	memset(&cfg->addr, 0, sizeof(cfg->addr));
	cfg->addr.sin_family = AF_INET;
	cfg->addr.sin_port = htons((uint16_t)port);
	if (inet_pton(AF_INET, host, &cfg->addr.sin_addr) != 1)
		return -EINVAL;
	n = snprintf(cfg->request, sizeof(cfg->request),
		     "GET %s HTTP/1.1\r\nHost: %s:%lu\r\nUser-Agent: scrape_load\r\n"
		     "Accept: text/plain;version=0.0.4\r\nAccept-Encoding: %s\r\n%s\r\n",
		     *end ? end : "/metrics", host, port, cfg->gzip ? "gzip" : "identity",
		     cfg->keepalive ? "" : "Connection: close\r\n");
	if (n < 0 || (size_t)n >= sizeof(cfg->request))
		return -EINVAL;
	cfg->request_len = (size_t)n;
	return 0;
}

/* A header's value, case-insensitively, in [hdr, hdr_end); NULL if absent. */
static const char *header(const char *hdr, const char *hdr_end, const char *name, size_t *len)
{
	size_t nl = strlen(name);
	const char *line = hdr, *eol;

	while (line < hdr_end) {
		eol = memmem(line, (size_t)(hdr_end - line), "\r\n", 2);
		if (!eol)
			eol = hdr_end;
		if ((size_t)(eol - line) > nl && strncasecmp(line, name, nl) == 0 &&
		    line[nl] == ':') {
			const char *v = line + nl + 1;

			while (v < eol && (*v == ' ' || *v == '\t'))
				v++;
			*len = (size_t)(eol - v);
			return v;
		}
		line = eol + 2;
	}
	return NULL;
}

/*
 * Walks the complete chunks of a chunked body from *pos. Returns 1 at the
 * last chunk's end (trailers skipped), 0 when more bytes are needed, -EPROTO
 * when the framing is broken. *pos only moves past whole chunks.
 */
static int chunked_walk(const char *buf, size_t len, size_t *pos, uint64_t *body)
{
	for (;;) {
		const char *p = buf + *pos, *eol, *crlf;
		unsigned long long size;
		char *end;

		eol = memmem(p, len - *pos, "\r\n", 2);
		if (!eol)
			return 0;
		errno = 0;
		size = strtoull(p, &end, 16);
		if (errno || end == p || (end != eol && *end != ';'))
			return -EPROTO;
		if (size == 0) {
			/* trailers, then an empty line */
			crlf = eol;
			while (crlf) {
				const char *next = crlf + 2;

				if ((size_t)(next - buf) + 2 > len)
					return 0;
				if (next[0] == '\r' && next[1] == '\n') {
					*pos = (size_t)(next + 2 - buf);
					return 1;
				}
				crlf = memmem(next, len - (size_t)(next - buf), "\r\n", 2);
			}
			return 0;
		}
		if ((size_t)(eol + 2 - buf) + size + 2 > len)
			return 0;
		if (eol[2 + size] != '\r' || eol[3 + size] != '\n')
			return -EPROTO;
		*body += size;
		*pos = (size_t)(eol + 2 - buf) + size + 2;
	}
}

static void write_body(const struct config *cfg, const char *body, size_t len, bool chunked)
{
	FILE *f;

	pthread_mutex_lock(&out_lock);
	if (atomic_load_explicit(&out_written, memory_order_relaxed)) {
		pthread_mutex_unlock(&out_lock);
		return;
	}
	atomic_store_explicit(&out_written, true, memory_order_relaxed);
	f = fopen(cfg->out_path, "we");
	if (f) {
		size_t pos = 0;

		while (chunked && pos < len) {
			unsigned long long size = strtoull(body + pos, NULL, 16);
			const char *eol = memmem(body + pos, len - pos, "\r\n", 2);

			if (!eol || size == 0)
				break;
			fwrite(eol + 2, 1, size, f);
			pos = (size_t)(eol + 2 - body) + size + 2;
		}
		if (!chunked)
			fwrite(body, 1, len, f);
		fclose(f);
	}
	pthread_mutex_unlock(&out_lock);
}

static int grow(struct client *c, size_t need)
{
	char *b;
	size_t cap = c->buf_cap ? c->buf_cap : 65536;

	while (cap < need)
		cap *= 2;
	if (cap == c->buf_cap)
		return 0;
	b = realloc(c->buf, cap);
	if (!b)
		return -ENOMEM;
	c->buf = b;
	c->buf_cap = cap;
	return 0;
}

static int connect_server(struct client *c)
{
	int one = 1;

	c->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c->fd < 0)
		return -errno;
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(c->fd, (const struct sockaddr *)&c->cfg->addr, sizeof(c->cfg->addr)) < 0) {
		int err = -errno;

		close(c->fd);
		c->fd = -1;
		return err;
	}
	c->connects++;
	return 0;
}

static void drop_connection(struct client *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

/*
 * One request and its whole response. Returns 0 for a complete 200, -errno
 * otherwise. Leaves the connection open only when both sides keep it alive.
 */
static int scrape_once(struct client *c, uint64_t *body_len)
{
	const struct config *cfg = c->cfg;
	size_t len = 0, hdr_len = 0, chunk_pos = 0;
	const char *hdr_end = NULL, *v;
	bool chunked = false, close_after = !cfg->keepalive, has_cl = false;
	uint64_t cl = 0, body = 0;
	size_t vlen;
	ssize_t n;
	int r;

	if (c->fd < 0 && (r = connect_server(c)) < 0)
		return r;
	if (send(c->fd, cfg->request, cfg->request_len, MSG_NOSIGNAL) != (ssize_t)cfg->request_len)
		return -EPIPE;
	for (;;) {
		if ((r = grow(c, len + 65536)) < 0)
			return r;
		n = recv(c->fd, c->buf + len, c->buf_cap - len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		len += (size_t)n;
		if (!hdr_end) {
			const char *e = memmem(c->buf, len, "\r\n\r\n", 4);

			if (!e) {
				if (n == 0)
					return -EPROTO;
				continue;
			}
			hdr_end = e + 2;
			hdr_len = (size_t)(e + 4 - c->buf);
			if (len < 12 || strncmp(c->buf, "HTTP/1.", 7) != 0)
				return -EPROTO;
			if (strncmp(c->buf + 8, " 200", 4) != 0)
				return -EBADMSG;
			v = header(c->buf, hdr_end, "Transfer-Encoding", &vlen);
			chunked = v && vlen >= 7 && strncasecmp(v, "chunked", 7) == 0;
			v = header(c->buf, hdr_end, "Content-Length", &vlen);
			if (v && !chunked) {
				has_cl = true;
				cl = strtoull(v, NULL, 10);
			}
			v = header(c->buf, hdr_end, "Connection", &vlen);
			if (v && vlen >= 5 && strncasecmp(v, "close", 5) == 0)
				close_after = true;
			if (!chunked && !has_cl)
				close_after = true; /* body ends at EOF */
			chunk_pos = hdr_len;
		}
		if (chunked) {
			r = chunked_walk(c->buf, len, &chunk_pos, &body);
			if (r < 0)
				return r;
			if (r == 1)
				break;
		} else if (has_cl && len - hdr_len >= cl) {
			body = cl;
			break;
		}
		if (n == 0) {
			if (chunked || has_cl)
				return -EPROTO; /* closed before the end */
			body = len - hdr_len;
			break;
		}
	}
	if (cfg->out_path && !atomic_load_explicit(&out_written, memory_order_relaxed))
		write_body(cfg, c->buf + hdr_len, len - hdr_len, chunked);
	if (close_after)
		drop_connection(c);
	*body_len = body;
	return 0;
}

static void *client_main(void *arg)
{
	struct client *c = arg;

	while (take_request(c->cfg)) {
		uint64_t t0 = now_ns(), body = 0;

		if (scrape_once(c, &body) < 0) {
			c->errors++;
			drop_connection(c);
			continue;
		}
		if (c->n == c->cap) {
			size_t cap = c->cap ? c->cap * 2 : 4096;
			uint64_t *l = realloc(c->lat_ns, cap * sizeof(*l));

			if (!l) {
				c->errors++;
				continue;
			}
			c->lat_ns = l;
			c->cap = cap;
		}
		c->lat_ns[c->n++] = now_ns() - t0;
		c->body_bytes += body;
	}
	drop_connection(c);
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of sorted v[0..n), in milliseconds. */
static double pct_ms(const uint64_t *v, size_t n, double p)
{
	size_t i;

	if (n == 0)
		return 0;
	i = (size_t)(p / 100.0 * (double)n + 0.999999);
	if (i > 0)
		i--;
	if (i >= n)
		i = n - 1;
	return (double)v[i] / 1e6;
}

static void usage(void)
{
	fprintf(stderr, "usage: scrape_load [-c CLIENTS] [-d SECONDS | -n REQUESTS] [-k] [-z] "
			"[-o FILE] http://IPV4:PORT/PATH\n");
}

static int parse_args(int argc, char **argv, struct config *cfg)
{
	int opt;
	char *end;

	while ((opt = getopt(argc, argv, "c:d:n:kzo:")) != -1) {
		errno = 0;
		switch (opt) {
		case 'c':
			cfg->clients = (unsigned)strtoul(optarg, &end, 10);
			if (errno || *end || cfg->clients < 1 || cfg->clients > 1024)
				return -EINVAL;
			break;
		case 'd':
			cfg->seconds = strtod(optarg, &end);
			if (errno || *end || !(cfg->seconds > 0) || cfg->seconds > 86400 * 7)
				return -EINVAL;
			break;
		case 'n':
			cfg->max_requests = strtoull(optarg, &end, 10);
			if (errno || *end || cfg->max_requests == 0)
				return -EINVAL;
			break;
		case 'k':
			cfg->keepalive = true;
			break;
		case 'z':
			cfg->gzip = true;
			break;
		case 'o':
			cfg->out_path = optarg;
			break;
		default:
			return -EINVAL;
		}
	}
	if (optind != argc - 1 || (cfg->seconds > 0 && cfg->max_requests))
		return -EINVAL;
	if (!cfg->seconds && !cfg->max_requests)
		cfg->seconds = 5;
	return parse_url(argv[optind], cfg);
}

int main(int argc, char **argv)
{
	struct config cfg = {.clients = 1};
	struct client *cl;
	uint64_t t0, t1, *all, errors = 0, connects = 0, bytes = 0;
	size_t n = 0;
	unsigned i;
	double secs;

	if (parse_args(argc, argv, &cfg) < 0) {
		usage();
		return 2;
	}
	cl = calloc(cfg.clients, sizeof(*cl));
	if (!cl)
		return 1;
	t0 = now_ns();
	deadline_ns = t0 + (uint64_t)(cfg.seconds * 1e9);
	for (i = 0; i < cfg.clients; i++) {
		cl[i].cfg = &cfg;
		cl[i].fd = -1;
		if (pthread_create(&cl[i].thread, NULL, client_main, &cl[i]) != 0) {
			fprintf(stderr, "scrape_load: pthread_create failed\n");
			return 1;
		}
	}
	for (i = 0; i < cfg.clients; i++) {
		pthread_join(cl[i].thread, NULL);
		n += cl[i].n;
		errors += cl[i].errors;
		connects += cl[i].connects;
		bytes += cl[i].body_bytes;
	}
	t1 = now_ns();
	all = malloc((n ? n : 1) * sizeof(*all));
	if (!all)
		return 1;
	n = 0;
	for (i = 0; i < cfg.clients; i++) {
		if (cl[i].n) /* lat_ns is NULL for a client that never succeeded */
			memcpy(all + n, cl[i].lat_ns, cl[i].n * sizeof(*all));
		n += cl[i].n;
		free(cl[i].lat_ns);
		free(cl[i].buf);
	}
	qsort(all, n, sizeof(*all), cmp_u64);
	secs = (double)(t1 - t0) / 1e9;
	printf("clients=%u keepalive=%d encoding=%s requests=%zu errors=%" PRIu64
	       " connects=%" PRIu64 " seconds=%.3f rps=%.1f p50_ms=%.3f p90_ms=%.3f"
	       " p99_ms=%.3f max_ms=%.3f body_bytes=%" PRIu64 "\n",
	       cfg.clients, cfg.keepalive, cfg.gzip ? "gzip" : "identity", n, errors, connects,
	       secs, (double)n / secs, pct_ms(all, n, 50), pct_ms(all, n, 90), pct_ms(all, n, 99),
	       n ? (double)all[n - 1] / 1e6 : 0.0, n ? bytes / n : 0);
	free(all);
	free(cl);
	return errors || n == 0 ? 1 : 0;
}
