/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The web configuration file of --web.config.file, in the format of the
 * Prometheus exporter-toolkit (docs/web-configuration.md), so that operators
 * reuse the files they keep for node_exporter: tls_server_config,
 * http_server_config and basic_auth_users. Pure: YAML bytes in, struct out,
 * or one line of error. Unknown keys are an error, as in the toolkit;
 * toolkit keys this exporter does not implement (cipher_suites,
 * curve_preferences, client_allowed_sans, rate_limit) are an error too,
 * rather than a security setting silently ignored.
 */
#ifndef RDMA_EXPORTER_WEBCONFIG_H
#define RDMA_EXPORTER_WEBCONFIG_H

#include <stdbool.h>
#include <stddef.h>

enum webconfig_client_auth {
	WEBCONFIG_NO_CLIENT_CERT,
	WEBCONFIG_REQUEST_CLIENT_CERT,	       /* asked for, never checked */
	WEBCONFIG_REQUIRE_ANY_CLIENT_CERT,     /* required, never checked */
	WEBCONFIG_VERIFY_CLIENT_CERT_IF_GIVEN, /* checked against the CA when sent */
	WEBCONFIG_REQUIRE_AND_VERIFY_CLIENT_CERT,
};

enum webconfig_tls_version {
	WEBCONFIG_TLS10 = 10,
	WEBCONFIG_TLS11 = 11,
	WEBCONFIG_TLS12 = 12,
	WEBCONFIG_TLS13 = 13,
};

struct webconfig_pair {
	char *name;
	char *value;
};

struct webconfig {
	/* TLS is on when any of cert, key, client CA or client_auth_type is set
	 * (the toolkit's rule); then a certificate and a key are required. */
	bool tls;
	/* Paths as given when absolute, else joined to the directory of the
	 * configuration file (the toolkit's rule); NULL when not given. */
	char *cert_file, *key_file, *client_ca_file;
	/* Inline PEM (cert, key, client_ca); NULL when not given. A file wins
	 * over the inline text when both are given, as in the toolkit. */
	char *cert, *key, *client_ca;
	enum webconfig_client_auth client_auth;
	enum webconfig_tls_version min_version, max_version; /* TLS12, TLS13 by default */
	bool prefer_server_cipher_suites;		     /* true by default */
	bool http2; /* accepted for compatibility; served as HTTP/1.1 */
	/* http_server_config.headers: only the toolkit's five, non-empty values */
	struct webconfig_pair *headers;
	unsigned n_headers;
	/* basic_auth_users: name -> bcrypt hash ($2a$, $2b$ or $2y$); none = no auth */
	struct webconfig_pair *users;
	unsigned n_users;
};

/*
 * Mappings and sequences nest at most this deep (the format needs 3:
 * tls_server_config.cipher_suites). Deeper is refused before the document is
 * built, in time linear in the input: libyaml's scanner and loader take time
 * quadratic in the depth (60,000 levels of {a: {a: ...}} took 16 s).
 */
#define WEBCONFIG_MAX_DEPTH 32

/*
 * Parses len bytes of YAML. dir is the directory of the file, joined to
 * relative paths (NULL or "" leaves them as they are). Returns the config,
 * or NULL with a one-line reason in err (NULL and "out of memory" when
 * allocation fails).
 */
struct webconfig *webconfig_parse(const char *data, size_t len, const char *dir, char *err,
				  size_t errlen);
void webconfig_free(struct webconfig *wc);

/* True when s has the shape of a bcrypt hash: $2a$/$2b$/$2y$, cost 04..31, 53 chars. */
bool webconfig_is_bcrypt(const char *s);
/* The cost of a hash webconfig_is_bcrypt accepts (the two digits after "$2y$"). */
int webconfig_bcrypt_cost(const char *hash);

/*
 * The highest bcrypt cost basic_auth_users may use. Each step doubles the
 * time of a check: about 70 ms at 10, 1.1 s at 14, 9 s at 17 (htpasswd's
 * maximum) on one core of a 2020s server. A check above a second holds a
 * verification worker (docs/security.md) that long for every guess, and a
 * shutdown waits for the one running; 14 is four times the toolkit's
 * default (10) and still under ~1 s.
 */
#define WEBCONFIG_BCRYPT_MAX_COST 14

/* The client_auth_type name of a mode, e.g. "RequireAndVerifyClientCert". */
const char *webconfig_client_auth_name(enum webconfig_client_auth a);

/*
 * Whether a reload may replace cur (the file in force, NULL for none) with
 * next: NULL when it may, else why not (one phrase, for the caller's log).
 * A reload never weakens client authentication, since a file cut short by
 * an in-place rewrite is still valid YAML: it is refused when it would
 * remove every basic auth user, turn TLS off, stop requiring a client
 * certificate (RequireAnyClientCert, RequireAndVerifyClientCert) or stop
 * verifying one (VerifyClientCertIfGiven, RequireAndVerifyClientCert), or
 * remove the client CA. Other users, a new certificate, key or client CA,
 * and a stronger client_auth_type are allowed; a weaker file takes a
 * restart (docs/security.md).
 */
const char *webconfig_reload_refusal(const struct webconfig *cur, const struct webconfig *next);

#endif
