// SPDX-License-Identifier: Apache-2.0
/*
 * The --web.config.file parser on good and bad files (the exporter-toolkit
 * format), and its robustness on arbitrary and mutated bytes: fixed seed,
 * a plain regression test; webconfig_fuzz_one() is the body a libFuzzer
 * entry point will call.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "http/webconfig.h"

#define HASH_ALICE "$2y$04$fERX.LxZMtEMPJVyc1htvuFO/y8HXO2hNPH1ZjckJqxve2YzPGYzG"
#define HASH_BOB   "$2y$04$TwwAO8bPYXNbrsZd3rYgFeazo85Ocx6EGAwXbMVyS.J0mEUxQtSci"

static char err[512];

static struct webconfig *parse(const char *yaml, const char *dir)
{
	err[0] = '\0';
	return webconfig_parse(yaml, strlen(yaml), dir, err, sizeof(err));
}

/* The file must be refused with a message containing want, on one line. */
static void assert_bad(const char *yaml, const char *want)
{
	struct webconfig *wc = parse(yaml, "/etc/rdma_exporter");

	if (wc || !strstr(err, want))
		fail_msg("input:\n%s\nwanted an error with \"%s\", got %s \"%s\"", yaml, want,
			 wc ? "success" : "error", err);
	assert_null(strchr(err, '\n'));
}

static void test_empty_is_defaults(void **state)
{
	const char *const empty[] = {"", "\n", "# nothing\n", "---\n", "~\n", "{}\n"};

	for (size_t i = 0; i < sizeof(empty) / sizeof(empty[0]); i++) {
		struct webconfig *wc = parse(empty[i], NULL);

		assert_non_null(wc);
		assert_false(wc->tls);
		assert_int_equal(wc->n_users, 0);
		assert_int_equal(wc->n_headers, 0);
		assert_int_equal(wc->min_version, WEBCONFIG_TLS12);
		assert_int_equal(wc->max_version, WEBCONFIG_TLS13);
		assert_true(wc->http2);
		webconfig_free(wc);
	}
}

/* The toolkit's own sample (docs/web-config.yml), without its rate_limit. */
static void test_toolkit_sample(void **state)
{
	struct webconfig *wc = parse("# TLS and basic authentication configuration example.\n"
				     "tls_server_config:\n"
				     "  cert_file: server.crt\n"
				     "  key_file: server.key\n"
				     "basic_auth_users:\n"
				     "  alice: " HASH_ALICE "\n"
				     "  bob: '" HASH_BOB "'\n",
				     "/etc/rdma_exporter");

	assert_non_null(wc);
	assert_true(wc->tls);
	/* relative paths are relative to the file's directory */
	assert_string_equal(wc->cert_file, "/etc/rdma_exporter/server.crt");
	assert_string_equal(wc->key_file, "/etc/rdma_exporter/server.key");
	assert_null(wc->client_ca_file);
	assert_int_equal(wc->client_auth, WEBCONFIG_NO_CLIENT_CERT);
	assert_int_equal(wc->n_users, 2);
	assert_string_equal(wc->users[0].name, "alice");
	assert_string_equal(wc->users[0].value, HASH_ALICE);
	assert_string_equal(wc->users[1].name, "bob");
	assert_string_equal(wc->users[1].value, HASH_BOB);
	webconfig_free(wc);
}

static void test_full(void **state)
{
	struct webconfig *wc = parse("tls_server_config:\n"
				     "  cert_file: /abs/server.crt\n"
				     "  key_file: ../keys/server.key\n"
				     "  client_auth_type: RequireAndVerifyClientCert\n"
				     "  client_ca_file: ca.crt\n"
				     "  min_version: TLS13\n"
				     "  max_version: TLS13\n"
				     "  prefer_server_cipher_suites: false\n"
				     "  cipher_suites: []\n"
				     "http_server_config:\n"
				     "  http2: no\n"
				     "  headers:\n"
				     "    X-Frame-Options: deny\n"
				     "    X-Content-Type-Options: nosniff\n"
				     "    Strict-Transport-Security: max-age=31536000\n"
				     "    Content-Security-Policy: \"\"\n"
				     "basic_auth_users: {}\n"
				     "rate_limit:\n",
				     "conf");

	assert_non_null(wc);
	assert_true(wc->tls);
	assert_string_equal(wc->cert_file, "/abs/server.crt");
	assert_string_equal(wc->key_file, "conf/../keys/server.key");
	assert_string_equal(wc->client_ca_file, "conf/ca.crt");
	assert_int_equal(wc->client_auth, WEBCONFIG_REQUIRE_AND_VERIFY_CLIENT_CERT);
	assert_int_equal(wc->min_version, WEBCONFIG_TLS13);
	assert_int_equal(wc->max_version, WEBCONFIG_TLS13);
	assert_false(wc->prefer_server_cipher_suites);
	assert_false(wc->http2);
	/* a blank header is unset */
	assert_int_equal(wc->n_headers, 3);
	assert_string_equal(wc->headers[0].name, "X-Frame-Options");
	assert_string_equal(wc->headers[0].value, "deny");
	assert_string_equal(wc->headers[2].value, "max-age=31536000");
	assert_int_equal(wc->n_users, 0);
	webconfig_free(wc);
}

static void test_inline_pem_and_modes(void **state)
{
	static const struct {
		const char *name;
		enum webconfig_client_auth a;
	} modes[] = {
		{"NoClientCert", WEBCONFIG_NO_CLIENT_CERT},
		{"RequestClientCert", WEBCONFIG_REQUEST_CLIENT_CERT},
		{"RequireAnyClientCert", WEBCONFIG_REQUIRE_ANY_CLIENT_CERT},
		{"RequireClientCert", WEBCONFIG_REQUIRE_ANY_CLIENT_CERT},
		{"VerifyClientCertIfGiven", WEBCONFIG_VERIFY_CLIENT_CERT_IF_GIVEN},
		{"RequireAndVerifyClientCert", WEBCONFIG_REQUIRE_AND_VERIFY_CLIENT_CERT},
	};
	char yaml[512];

	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		struct webconfig *wc;

		snprintf(yaml, sizeof(yaml),
			 "tls_server_config:\n"
			 "  cert: |\n    -----BEGIN CERTIFICATE-----\n    AA==\n"
			 "  key: \"k\"\n"
			 "  client_auth_type: %s\n%s",
			 modes[i].name,
			 modes[i].a == WEBCONFIG_NO_CLIENT_CERT ? "" : "  client_ca: ca\n");
		wc = parse(yaml, "/d");
		assert_non_null(wc);
		assert_int_equal(wc->client_auth, modes[i].a);
		assert_string_equal(wc->cert, "-----BEGIN CERTIFICATE-----\nAA==\n");
		assert_string_equal(wc->key, "k");
		assert_null(wc->cert_file);
		webconfig_free(wc);
	}
	/* names back, the toolkit's old alias aside */
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (strcmp(modes[i].name, "RequireClientCert") != 0)
			assert_string_equal(webconfig_client_auth_name(modes[i].a), modes[i].name);
}

static void test_bad_files(void **state)
{
	const struct {
		const char *yaml, *want;
	} bad[] = {
		{"tls_server_config:\n  cert_file: a\n  key_file: b\n  nope: 1\n",
		 "line 4: unknown key \"nope\" in tls_server_config"},
		{"nope: 1\n", "line 1: unknown key \"nope\""},
		{"tls_server_confg:\n  cert_file: a\n", "unknown key \"tls_server_confg\""},
		{"http_server_config:\n  header: {}\n",
		 "unknown key \"header\" in http_server_config"},
		{"tls_server_config:\n  cert_file: a\n", "missing one of key or key_file"},
		{"tls_server_config:\n  key_file: a\n", "missing one of cert or cert_file"},
		{"tls_server_config:\n  client_auth_type: NoClientCert\n",
		 "missing one of cert or cert_file"},
		{"tls_server_config:\n  cert_file: a\n  key_file: b\n  client_auth_type: Maybe\n",
		 "invalid client_auth_type \"Maybe\""},
		{"tls_server_config:\n  cert_file: a\n  key_file: b\n  client_ca_file: c\n",
		 "client CA is configured without a client_auth_type"},
		{"tls_server_config:\n  cert_file: a\n  key_file: b\n"
		 "  client_auth_type: RequireAndVerifyClientCert\n",
		 "RequireAndVerifyClientCert needs client_ca_file"},
		{"tls_server_config:\n  cert_file: a\n  key_file: b\n  min_version: TLS14\n",
		 "unknown TLS version \"TLS14\""},
		{"tls_server_config:\n  cert_file: a\n  key_file: b\n  min_version: TLS13\n"
		 "  max_version: TLS12\n",
		 "min_version is above max_version"},
		{"tls_server_config:\n  cert_file: a\n  key_file: b\n  cipher_suites: [X]\n",
		 "cipher_suites is not supported"},
		{"tls_server_config:\n  cert_file: a\n  key_file: b\n  client_allowed_sans: [x]\n",
		 "client_allowed_sans is not supported"},
		{"rate_limit:\n  interval: 1s\n  burst: 20\n", "rate_limit is not supported"},
		{"tls_server_config:\n  cert_file: [a]\n  key_file: b\n",
		 "cert_file must be a string"},
		{"tls_server_config: 5\n", "tls_server_config must be a mapping"},
		{"- a\n- b\n", "must be a mapping"},
		{"basic_auth_users:\n  alice: secret\n", "is not a bcrypt hash"},
		{"basic_auth_users:\n  alice: $1$abc$def\n", "is not a bcrypt hash"},
		{"basic_auth_users:\n  alice: "
		 "$2y$03$fERX.LxZMtEMPJVyc1htvuFO/y8HXO2hNPH1ZjckJqxve2YzPGYzG\n",
		 "is not a bcrypt hash"},
		/* cost 15 and 17: each check would take seconds (htpasswd -nbBC 17) */
		{"basic_auth_users:\n  alice: "
		 "$2y$15$fERX.LxZMtEMPJVyc1htvuFO/y8HXO2hNPH1ZjckJqxve2YzPGYzG\n",
		 "line 2: basic_auth_users: the password hash of \"alice\" has bcrypt cost 15, "
		 "above the maximum 14"},
		{"basic_auth_users:\n  alice: "
		 "$2y$17$fERX.LxZMtEMPJVyc1htvuFO/y8HXO2hNPH1ZjckJqxve2YzPGYzG\n",
		 "has bcrypt cost 17, above the maximum 14"},
		{"basic_auth_users:\n  alice: " HASH_ALICE "\n  alice: " HASH_BOB "\n",
		 "line 3: basic_auth_users: key \"alice\" is given twice"},
		{"basic_auth_users:\n  \"a:b\": " HASH_ALICE "\n", "contains ':'"},
		{"basic_auth_users:\n  alice: [x]\n", "a password hash must be a string"},
		{"basic_auth_users:\n  [a]: " HASH_ALICE "\n", "keys must be strings"},
		{"http_server_config:\n  headers:\n    X-Powered-By: me\n",
		 "HTTP header \"X-Powered-By\" can not be configured"},
		{"http_server_config:\n  headers:\n    X-Frame-Options: allow\n",
		 "invalid value \"allow\" for X-Frame-Options (deny or sameorigin)"},
		{"http_server_config:\n  headers:\n    X-Content-Type-Options: sniff\n",
		 "invalid value \"sniff\" for X-Content-Type-Options (nosniff)"},
		{"http_server_config:\n  headers:\n    X-XSS-Protection: \"1\\r\\nSet-Cookie: "
		 "a\"\n",
		 "contains a line break"},
		{"http_server_config:\n  http2: maybe\n", "http2 must be true or false"},
		{"http_server_config:\n  http2: \"true\"\n", "http2 must be true or false"},
		{"tls_server_config:\n  cert_file: \"a\\0b\"\n  key_file: b\n", "NUL byte"},
		{"tls_server_config:\n  cert_file: a\n cert_file: b\n", "invalid YAML"},
		{"tls_server_config: {cert_file: a, cert_file: b}\n", "given twice"},
		{"basic_auth_users: [\n", "line 2: invalid YAML"},
		{"\t- a\n", "invalid YAML"},
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_bad(bad[i].yaml, bad[i].want);
}

/* The maximum cost itself is accepted, and its cost read back. */
static void test_bcrypt_max_cost(void **state)
{
	const char *hash = "$2y$14$fERX.LxZMtEMPJVyc1htvuFO/y8HXO2hNPH1ZjckJqxve2YzPGYzG";
	char yaml[200];
	struct webconfig *wc;

	(void)state;
	snprintf(yaml, sizeof(yaml), "basic_auth_users:\n  alice: %s\n", hash);
	wc = parse(yaml, NULL);
	assert_non_null(wc);
	assert_int_equal(webconfig_bcrypt_cost(wc->users[0].value), WEBCONFIG_BCRYPT_MAX_COST);
	webconfig_free(wc);
	assert_int_equal(webconfig_bcrypt_cost(HASH_ALICE), 4);
}

static void test_bcrypt_shape(void **state)
{
	assert_true(webconfig_is_bcrypt(HASH_ALICE));
	assert_true(webconfig_is_bcrypt(
		"$2b$31$fERX.LxZMtEMPJVyc1htvuFO/y8HXO2hNPH1ZjckJqxve2YzPGYzG"));
	assert_true(webconfig_is_bcrypt(
		"$2a$10$fERX.LxZMtEMPJVyc1htvuFO/y8HXO2hNPH1ZjckJqxve2YzPGYzG"));
	assert_false(webconfig_is_bcrypt(NULL));
	assert_false(webconfig_is_bcrypt(""));
	assert_false(webconfig_is_bcrypt(
		"$2x$10$fERX.LxZMtEMPJVyc1htvuFO/y8HXO2hNPH1ZjckJqxve2YzPGYzG"));
	assert_false(webconfig_is_bcrypt(
		"$2y$32$fERX.LxZMtEMPJVyc1htvuFO/y8HXO2hNPH1ZjckJqxve2YzPGYzG"));
	assert_false(webconfig_is_bcrypt(
		"$2y$1a$fERX.LxZMtEMPJVyc1htvuFO/y8HXO2hNPH1ZjckJqxve2YzPGYzG"));
	assert_false(
		webconfig_is_bcrypt("$2y$10$fERX.LxZMtEMPJVyc1htvuFO/y8HXO2hNPH1ZjckJqxve2YzPGYz"));
	assert_false(webconfig_is_bcrypt(
		"$2y$10$fERX.LxZMtEMPJVyc1htvuFO/y8HXO2hNPH1ZjckJqxve2YzPGYz!"));
}

/* Whatever the bytes, the parser returns a config or one line of error. */
static void webconfig_fuzz_one(const uint8_t *data, size_t size)
{
	char e[256];
	struct webconfig *wc;

	e[0] = '\0';
	wc = webconfig_parse((const char *)data, size, "/d", e, sizeof(e));
	if (wc) {
		if (wc->tls)
			assert_true(wc->cert_file || wc->cert);
		for (unsigned i = 0; i < wc->n_users; i++)
			assert_true(webconfig_is_bcrypt(wc->users[i].value));
		for (unsigned i = 0; i < wc->n_headers; i++)
			assert_null(strpbrk(wc->headers[i].value, "\r\n"));
		webconfig_free(wc);
	} else {
		assert_true(e[0] != '\0');
		assert_null(strchr(e, '\n'));
	}
}

static const char *const seeds[] = {
	"tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
	"  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: ca.crt\n"
	"  min_version: TLS12\n",
	"basic_auth_users:\n  alice: " HASH_ALICE "\n  bob: " HASH_BOB "\n",
	"http_server_config:\n  http2: false\n  headers:\n    X-Frame-Options: deny\n",
	"a: &x [*x, {b: *x}]\n",
	"basic_auth_users: &u {alice: " HASH_ALICE "}\nhttp_server_config: *u\n",
	"--- !!map\n? tls_server_config\n: {cert: \"\\x00\", key: 'k'}\n...\n--- second\n",
};

static void test_robustness(void **state)
{
	uint8_t buf[512];

	srand(20261123);
	for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++)
		webconfig_fuzz_one((const uint8_t *)seeds[i], strlen(seeds[i]));
	/* mutations of the seeds: flipped, inserted and deleted bytes */
	for (int iter = 0; iter < 5000; iter++) {
		const char *seed = seeds[rand() % (int)(sizeof(seeds) / sizeof(seeds[0]))];
		size_t n = strlen(seed);
		int edits = 1 + rand() % 4;

		memcpy(buf, seed, n);
		for (int e = 0; e < edits && n > 0; e++) {
			size_t at = (size_t)rand() % n;
			static const char syntax[] = ":-[]{}&*!|>'\"#\n \t\\?%@`,";

			switch (rand() % 3) {
			case 0:
				buf[at] =
					rand() % 2
						? (uint8_t)
							  syntax[rand() % (int)(sizeof(syntax) - 1)]
						: (uint8_t)rand();
				break;
			case 1:
				if (n + 1 < sizeof(buf)) {
					memmove(buf + at + 1, buf + at, n - at);
					buf[at] =
						(uint8_t)syntax[rand() % (int)(sizeof(syntax) - 1)];
					n++;
				}
				break;
			default:
				memmove(buf + at, buf + at + 1, n - at - 1);
				n--;
				break;
			}
		}
		webconfig_fuzz_one(buf, n);
	}
	/* arbitrary bytes */
	for (int iter = 0; iter < 5000; iter++) {
		size_t n = (size_t)(rand() % 64);

		for (size_t i = 0; i < n; i++)
			buf[i] = (uint8_t)rand();
		webconfig_fuzz_one(buf, n);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty_is_defaults),
		cmocka_unit_test(test_toolkit_sample),
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_inline_pem_and_modes),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_bcrypt_shape),
		cmocka_unit_test(test_bcrypt_max_cost),
		cmocka_unit_test(test_robustness),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
