/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A --web.config.file loaded: the parsed file (webconfig.h), the PEM texts
 * it names, and the GnuTLS credentials and priorities made of them (which
 * check that the certificate matches the key and the client CA holds
 * certificates), so that a bad file is refused whole, at start and at
 * reload. Reference-counted: each TLS connection keeps the settings of its
 * handshake, and requests in flight theirs, while SIGHUP installs new ones.
 */
#ifndef RDMA_EXPORTER_WEBSETTINGS_H
#define RDMA_EXPORTER_WEBSETTINGS_H

#include <gnutls/gnutls.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "http/webconfig.h"

struct web_settings {
	struct webconfig *wc;
	/* NUL-terminated PEM; NULL without TLS (ca_pem: without a client CA) */
	char *cert_pem, *key_pem, *ca_pem;
	/* with TLS: certificate, key and client CA; the versions as priorities */
	gnutls_certificate_credentials_t cred;
	gnutls_priority_t prio;
	char priorities[128]; /* the text of prio, e.g. "NORMAL:-VERS-ALL:+VERS-TLS1.2" */
	int refs;
};

/* Reads and checks path. NULL with a one-line reason in err. */
struct web_settings *web_settings_load(const char *path, char *err, size_t errlen);
struct web_settings *web_settings_ref(struct web_settings *ws);
/* Drops a reference; frees on the last. NULL is a no-op. */
void web_settings_unref(struct web_settings *ws);

/*
 * Whether a reload may replace cur (the settings in force, NULL for none)
 * with next: webconfig_reload_refusal of their files. NULL when it may,
 * else why not, for the caller's log.
 */
const char *web_settings_reload_refusal(const struct web_settings *cur,
					const struct web_settings *next);

/* How a SIGHUP's reload of the web config ended (rdma_exporter_web_config_reloads_total). */
enum web_reload_result {
	WEB_RELOAD_OK,	    /* installed */
	WEB_RELOAD_REFUSED, /* valid, but weaker (web_settings_reload_refusal) */
	WEB_RELOAD_ERROR,   /* could not be read or is invalid */
	WEB_RELOAD_N,
};

/* Owned by the caller, at 0 before the first poll exports them. */
struct web_reload_counters {
	_Atomic uint64_t n[WEB_RELOAD_N];
};

struct metric_sink;
/* Adds rdma_exporter_web_config_reloads_total, every result. */
void web_reload_counters_add_metrics(const struct web_reload_counters *c, struct metric_sink *sink);

#endif
