// SPDX-License-Identifier: Apache-2.0
/*
 * The server over TLS on a loopback socket, with a certificate made here
 * by GnuTLS: TLS handshakes are bounded per client (tlslimit.h) at accept,
 * counted as tls_handshake_rate, while other clients keep being served and
 * clients that authenticated are not limited.
 */
#include <arpa/inet.h>
#include <crypt.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

#include <cmocka.h>

#include "exposition/snapshot.h"
#include "http/http.h"
#include "http/tlslimit.h"
#include "http/websettings.h"

struct fixture {
	char dir[64];
	struct http_counters counters;
	struct snapshot_slot slot;
	struct web_settings *ws;
	struct http_server *srv;
	uint16_t port;
	gnutls_certificate_credentials_t client_cred;
};

static void write_file(const char *dir, const char *name, const void *data, size_t len)
{
	char path[128];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "w");
	assert_non_null(fp);
	assert_int_equal(fwrite(data, 1, len, fp), len);
	assert_int_equal(fclose(fp), 0);
}

/* A self-signed P-256 certificate for localhost and its key, as dir/server.{crt,key}. */
static void make_certificate(const char *dir)
{
	gnutls_x509_privkey_t key;
	gnutls_x509_crt_t crt;
	gnutls_datum_t pem;
	time_t now = time(NULL);

	assert_int_equal(gnutls_x509_privkey_init(&key), 0);
	assert_int_equal(
		gnutls_x509_privkey_generate(key, GNUTLS_PK_ECDSA,
					     GNUTLS_CURVE_TO_BITS(GNUTLS_ECC_CURVE_SECP256R1), 0),
		0);
	assert_int_equal(gnutls_x509_crt_init(&crt), 0);
	assert_int_equal(gnutls_x509_crt_set_version(crt, 3), 0);
	assert_int_equal(gnutls_x509_crt_set_serial(crt, "\x01", 1), 0);
	assert_int_equal(gnutls_x509_crt_set_activation_time(crt, now - 3600), 0);
	assert_int_equal(gnutls_x509_crt_set_expiration_time(crt, now + 86400), 0);
	assert_int_equal(
		gnutls_x509_crt_set_dn_by_oid(crt, GNUTLS_OID_X520_COMMON_NAME, 0, "localhost", 9),
		0);
	assert_int_equal(gnutls_x509_crt_set_key(crt, key), 0);
	assert_int_equal(gnutls_x509_crt_sign2(crt, crt, key, GNUTLS_DIG_SHA256, 0), 0);
	assert_int_equal(gnutls_x509_crt_export2(crt, GNUTLS_X509_FMT_PEM, &pem), 0);
	write_file(dir, "server.crt", pem.data, pem.size);
	gnutls_free(pem.data);
	assert_int_equal(gnutls_x509_privkey_export2(key, GNUTLS_X509_FMT_PEM, &pem), 0);
	write_file(dir, "server.key", pem.data, pem.size);
	gnutls_free(pem.data);
	gnutls_x509_crt_deinit(crt);
	gnutls_x509_privkey_deinit(key);
}

/* The server with TLS, and with basic auth user alice (password "secret") when users. */
static int start(void **state, bool users)
{
	static const char tls[] = "tls_server_config:\n"
				  "  cert_file: server.crt\n"
				  "  key_file: server.key\n";
	char conf[256];
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t al = sizeof(a);
	const char *text = "# TYPE a gauge\na 1\n";
	struct fixture *f = calloc(1, sizeof(*f));
	struct http_config cfg = {
		.telemetry_path = "/metrics",
		/* high enough that connections closing meanwhile never count */
		.max_connections = 100,
		.max_connections_per_client = 100,
		.connection_timeout_s = 10,
		.request_header_timeout_ms = 5000,
		.stale_after_ms = 60000,
	};
	char path[128], err[256];
	struct snapshot *s;
	int fd;

	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "/tmp/http-tls-test-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	make_certificate(f->dir);
	snprintf(conf, sizeof(conf), "%s", tls);
	if (users) {
		/* cost 4: the check is quick */
		char *hash = crypt("secret", crypt_gensalt("$2b$", 4, NULL, 0));

		assert_non_null(hash);
		snprintf(conf + strlen(tls), sizeof(conf) - strlen(tls),
			 "basic_auth_users:\n  alice: '%s'\n", hash);
	}
	write_file(f->dir, "web.yml", conf, strlen(conf));
	snprintf(path, sizeof(path), "%s/web.yml", f->dir);
	f->ws = web_settings_load(path, err, sizeof(err));
	if (!f->ws)
		fail_msg("web settings: %s", err);
	snapshot_slot_init(&f->slot);
	s = snapshot_new(strdup(text), strlen(text));
	snapshot_slot_publish(&f->slot, s);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(fd, 64), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &al), 0);
	f->port = ntohs(a.sin_port);
	cfg.listen_fd = fd;
	cfg.web = f->ws;
	cfg.counters = &f->counters;
	f->srv = http_server_start(&cfg, &f->slot, err, sizeof(err));
	if (!f->srv)
		fail_msg("server: %s", err);
	/* the client trusts anything: the test is about the server's limits */
	assert_int_equal(gnutls_certificate_allocate_credentials(&f->client_cred), 0);
	*state = f;
	return 0;
}

static int setup(void **state)
{
	return start(state, false);
}

static int setup_users(void **state)
{
	return start(state, true);
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char path[128];

	http_server_stop(f->srv);
	snapshot_slot_destroy(&f->slot);
	web_settings_unref(f->ws);
	gnutls_certificate_free_credentials(f->client_cred);
	for (const char *const *n =
		     (const char *const[]){"server.crt", "server.key", "web.yml", NULL};
	     *n; n++) {
		snprintf(path, sizeof(path), "%s/%s", f->dir, *n);
		unlink(path);
	}
	rmdir(f->dir);
	free(f);
	return 0;
}

/*
 * A TLS connection from the loopback address src; with req, that request
 * sent and the status line's code compared with want. Returns whether the
 * handshake (and the request) went through.
 */
static bool tls_client(const struct fixture *f, const char *src, const char *req, const char *want)
{
	struct sockaddr_in a = {.sin_family = AF_INET,
				.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
				.sin_port = htons(f->port)};
	struct sockaddr_in from = {.sin_family = AF_INET};
	struct timeval tv = {.tv_sec = 5};
	gnutls_session_t s;
	char buf[512];
	bool ok;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), r;

	assert_true(fd >= 0);
	assert_int_equal(inet_pton(AF_INET, src, &from.sin_addr), 1);
	assert_int_equal(bind(fd, (struct sockaddr *)&from, sizeof(from)), 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	assert_int_equal(gnutls_init(&s, GNUTLS_CLIENT), 0);
	assert_int_equal(gnutls_set_default_priority(s), 0);
	assert_int_equal(gnutls_credentials_set(s, GNUTLS_CRD_CERTIFICATE, f->client_cred), 0);
	gnutls_transport_set_int(s, fd);
	do
		r = gnutls_handshake(s);
	while (r < 0 && !gnutls_error_is_fatal(r));
	ok = r == 0;
	if (ok && req) {
		assert_int_equal(gnutls_record_send(s, req, strlen(req)), (ssize_t)strlen(req));
		do
			r = (int)gnutls_record_recv(s, buf, sizeof(buf) - 1);
		while (r == GNUTLS_E_AGAIN || r == GNUTLS_E_INTERRUPTED);
		assert_true(r > 12);
		buf[r] = '\0';
		ok = strncmp(buf + 9, want, 3) == 0;
	}
	gnutls_deinit(s);
	close(fd);
	return ok;
}

static uint64_t rejected(const struct fixture *f, enum http_reject reason)
{
	return atomic_load(&f->counters.rejected[reason]);
}

/*
 * Issue 29: a replayed ClientHello flood ran every handshake on the HTTP
 * thread. Now a client gets TLSLIMIT_BURST at once, then TLSLIMIT_PER_S a
 * second; the rest are closed at accept, before any handshake, and counted.
 */
static void test_handshake_flood(void **state)
{
	struct fixture *f = *state;
	const unsigned tries = 3 * TLSLIMIT_BURST;
	unsigned ok = 0;

	for (unsigned i = 0; i < tries; i++) {
		bool done = tls_client(f, "127.0.0.1", NULL, NULL);

		/* the first ones are within the burst */
		if (i < TLSLIMIT_BURST)
			assert_true(done);
		ok += done;
	}
	/* refills may let a few more through on a slow machine, never all */
	assert_true(ok < tries);
	assert_int_equal(rejected(f, HTTP_REJECT_TLS_RATE), tries - ok);
	/* another client is served meanwhile */
	assert_true(tls_client(f, "127.0.0.2", "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", "200"));
	assert_int_equal(rejected(f, HTTP_REJECT_PER_CLIENT), 0);
	assert_int_equal(rejected(f, HTTP_REJECT_GLOBAL), 0);
}

/*
 * A client that authenticated (here with basic auth) within the auth
 * cache's lifetime is not limited: a scraper that opens a connection per
 * scrape never is, whatever a flood from elsewhere does.
 */
static void test_authenticated_exempt(void **state)
{
	static const char req[] = "GET /metrics HTTP/1.1\r\nHost: x\r\n"
				  "Authorization: Basic YWxpY2U6c2VjcmV0\r\n\r\n";
	struct fixture *f = *state;

	/* without credentials: 401, and no exemption */
	assert_true(tls_client(f, "127.0.0.1", "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", "401"));
	for (unsigned i = 0; i < 3 * TLSLIMIT_BURST; i++)
		assert_true(tls_client(f, "127.0.0.1", req, "200"));
	assert_int_equal(rejected(f, HTTP_REJECT_TLS_RATE), 0);
	/* a client in another group that never authenticated is limited */
	for (unsigned i = 0; i < 3 * TLSLIMIT_BURST; i++)
		tls_client(f, "127.0.0.2", NULL, NULL);
	assert_true(rejected(f, HTTP_REJECT_TLS_RATE) > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_handshake_flood, setup, teardown),
		cmocka_unit_test_setup_teardown(test_authenticated_exempt, setup_users, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
