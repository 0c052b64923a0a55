// SPDX-License-Identifier: Apache-2.0
#include "http/websettings.h"

#include <errno.h>
#include <fcntl.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <libgen.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/log.h"
#include "exposition/metrics.h"

/* Certificates, keys and the config itself are small; refuse anything huge. */
#define MAX_FILE_BYTES (4u << 20)

/*
 * Reads a whole file, NUL-terminated, by reading it to the end: st_size is
 * not trusted (procfs and sysfs files say 0 and read otherwise, e.g.
 * /proc/self/mem fails with EIO; a file being rewritten grows or shrinks
 * under the read). 0 or -errno: -EISDIR or -EINVAL for anything but a regular
 * file (a FIFO, a socket, a device node: never opened, see fileio.h, so a
 * FIFO with no writer cannot hold a reload or the signal it waits on), the
 * read's error, -EFBIG above MAX_FILE_BYTES.
 */
static int read_file(const char *path, char **out, size_t *outlen)
{
	int fd = open_regular_at(AT_FDCWD, path);
	size_t cap = 4096, len = 0;
	char *data, *nd;
	ssize_t n;
	int r = 0;

	if (fd < 0)
		return fd;
	data = malloc(cap + 1);
	while (data) {
		if (len == cap) {
			if (cap > MAX_FILE_BYTES) {
				r = -EFBIG;
				break;
			}
			cap = cap * 2 > MAX_FILE_BYTES ? MAX_FILE_BYTES + 1 : cap * 2;
			nd = realloc(data, cap + 1);
			if (!nd) {
				r = -ENOMEM;
				break;
			}
			data = nd;
		}
		n = read(fd, data + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			r = n < 0 ? -errno : 0;
			break;
		}
		len += (size_t)n;
	}
	close(fd);
	if (!data)
		r = -ENOMEM;
	if (r < 0) {
		if (data)
			explicit_bzero(data, len);
		free(data);
		return r;
	}
	data[len] = '\0';
	*out = data;
	if (outlen)
		*outlen = len;
	return 0;
}

/* What read_file's error means, for the one-line reason. */
static const char *read_error(int r, char *buf, size_t buflen)
{
	if (r == -EFBIG)
		return "larger than 4 MiB";
	return open_regular_strerror(r, buf, buflen);
}

/* PEM from a file (preferred) or the inline text. */
static int pem(const char *file, const char *inline_text, const char *what, char **out, char *err,
	       size_t errlen)
{
	char eb[128];
	int r;

	if (file) {
		r = read_file(file, out, NULL);
		if (r < 0)
			snprintf(err, errlen, "%s: cannot read \"%s\": %s", what, file,
				 read_error(r, eb, sizeof(eb)));
		return r;
	}
	*out = strdup(inline_text ? inline_text : "");
	if (!*out) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

/* GnuTLS priorities for the TLS versions of the web configuration. */
static void tls_priorities(const struct webconfig *wc, char *out, size_t outlen)
{
	static const char *const versions[] = {"+VERS-TLS1.0", "+VERS-TLS1.1", "+VERS-TLS1.2",
					       "+VERS-TLS1.3"};
	size_t n = (size_t)snprintf(out, outlen, "NORMAL:-VERS-ALL");

	for (unsigned v = wc->min_version; v <= (unsigned)wc->max_version && n < outlen; v++)
		n += (size_t)snprintf(out + n, outlen - n, ":%s", versions[v - WEBCONFIG_TLS10]);
	if (wc->prefer_server_cipher_suites && n < outlen)
		snprintf(out + n, outlen - n, ":%%SERVER_PRECEDENCE");
}

/* Credentials and priorities, with errors that say which part is wrong. */
static int make_tls(struct web_settings *ws, char *err, size_t errlen)
{
	gnutls_certificate_credentials_t cred;
	gnutls_datum_t cert = {(unsigned char *)ws->cert_pem, (unsigned)strlen(ws->cert_pem)};
	gnutls_datum_t key = {(unsigned char *)ws->key_pem, (unsigned)strlen(ws->key_pem)};
	int r;

	tls_priorities(ws->wc, ws->priorities, sizeof(ws->priorities));
	r = gnutls_priority_init(&ws->prio, ws->priorities, NULL);
	if (r < 0) {
		ws->prio = NULL;
		snprintf(err, errlen, "tls_server_config: TLS versions not available here: %s",
			 gnutls_strerror(r));
		return -EINVAL;
	}
	if (gnutls_certificate_allocate_credentials(&cred) < 0) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	r = gnutls_certificate_set_x509_key_mem2(cred, &cert, &key, GNUTLS_X509_FMT_PEM, NULL, 0);
	if (r < 0) {
		snprintf(err, errlen,
			 "tls_server_config: cannot load the certificate and key (PEM): %s",
			 gnutls_strerror(r));
		goto out;
	}
	if (ws->ca_pem) {
		gnutls_datum_t ca = {(unsigned char *)ws->ca_pem, (unsigned)strlen(ws->ca_pem)};

		r = gnutls_certificate_set_x509_trust_mem(cred, &ca, GNUTLS_X509_FMT_PEM);
		if (r <= 0) {
			snprintf(err, errlen,
				 "tls_server_config: no CA certificate in the client CA%s%s",
				 r < 0 ? ": " : "", r < 0 ? gnutls_strerror(r) : "");
			goto out;
		}
	}
	ws->cred = cred;
	return 0;
out:
	gnutls_certificate_free_credentials(cred);
	return -EINVAL;
}

static void settings_free(struct web_settings *ws)
{
	if (ws->cred)
		gnutls_certificate_free_credentials(ws->cred);
	if (ws->prio)
		gnutls_priority_deinit(ws->prio);
	webconfig_free(ws->wc);
	free(ws->cert_pem);
	if (ws->key_pem)
		explicit_bzero(ws->key_pem, strlen(ws->key_pem));
	free(ws->key_pem);
	free(ws->ca_pem);
	free(ws);
}

struct web_settings *web_settings_load(const char *path, char *err, size_t errlen)
{
	struct web_settings *ws = calloc(1, sizeof(*ws));
	char *data = NULL, *pathcopy = NULL, eb[128], perr[400];
	size_t len;
	int r;

	if (!ws) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	ws->refs = 1;
	r = read_file(path, &data, &len);
	if (r < 0) {
		snprintf(err, errlen, "cannot read \"%s\": %s", path,
			 read_error(r, eb, sizeof(eb)));
		goto fail;
	}
	pathcopy = strdup(path);
	if (!pathcopy) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	ws->wc = webconfig_parse(data, len, dirname(pathcopy), perr, sizeof(perr));
	if (!ws->wc) {
		snprintf(err, errlen, "%s: %s", path, perr);
		goto fail;
	}
	if (ws->wc->tls) {
		if (pem(ws->wc->cert_file, ws->wc->cert, "cert_file", &ws->cert_pem, err, errlen) <
			    0 ||
		    pem(ws->wc->key_file, ws->wc->key, "key_file", &ws->key_pem, err, errlen) < 0)
			goto fail;
		if ((ws->wc->client_ca_file || ws->wc->client_ca) &&
		    pem(ws->wc->client_ca_file, ws->wc->client_ca, "client_ca_file", &ws->ca_pem,
			err, errlen) < 0)
			goto fail;
		if (make_tls(ws, err, errlen) < 0)
			goto fail;
	}
	free(pathcopy);
	free(data);
	return ws;
fail:
	free(pathcopy);
	if (data)
		explicit_bzero(data, strlen(data));
	free(data);
	settings_free(ws);
	return NULL;
}

struct web_settings *web_settings_ref(struct web_settings *ws)
{
	if (ws)
		__atomic_add_fetch(&ws->refs, 1, __ATOMIC_RELAXED);
	return ws;
}

void web_settings_unref(struct web_settings *ws)
{
	if (ws && __atomic_sub_fetch(&ws->refs, 1, __ATOMIC_ACQ_REL) == 0)
		settings_free(ws);
}

const char *web_settings_reload_refusal(const struct web_settings *cur,
					const struct web_settings *next)
{
	return webconfig_reload_refusal(cur ? cur->wc : NULL, next->wc);
}

static const char *const reload_result[WEB_RELOAD_N] = {
	[WEB_RELOAD_OK] = "ok",
	[WEB_RELOAD_REFUSED] = "refused",
	[WEB_RELOAD_ERROR] = "error",
};

void web_reload_counters_add_metrics(const struct web_reload_counters *c, struct metric_sink *sink)
{
	for (unsigned r = 0; r < WEB_RELOAD_N; r++)
		metric_sink_add_u64(
			sink, "rdma_exporter_web_config_reloads_total",
			"Reloads of --web.config.file at SIGHUP, by result: ok (installed), "
			"refused (valid but weaker: it would remove every basic auth user, turn "
			"TLS off, stop requiring or verifying client certificates, or remove the "
			"client CA; the file in force stays), error (unreadable or invalid; the "
			"file in force stays).",
			METRIC_COUNTER, METRIC_LABELS({"result", reload_result[r]}),
			atomic_load_explicit(&c->n[r], memory_order_relaxed));
}
