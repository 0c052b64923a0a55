// SPDX-License-Identifier: Apache-2.0
/*
 * libFuzzer target: the --web.config.file parser (webconfig_parse) on the
 * input as YAML, and the Authorization header parser (webauth_parse_basic)
 * on the input as a C string.
 *
 * Invariants: the parser returns a config or a one-line error, never both;
 * a config with TLS names a certificate and a key, every user has a bcrypt
 * hash, no header value holds a line break, relative paths are joined to
 * the directory; a parsed Authorization header gives a user without ':'
 * and both fit their buffers, and a refused one leaves them empty.
 */
#include <string.h>

#include "fuzz.h"
#include "http/webauth.h"
#include "http/webconfig.h"

static void check_webconfig(const uint8_t *data, size_t size)
{
	char err[256] = "";
	struct webconfig *wc = webconfig_parse((const char *)data, size, "/d", err, sizeof(err));

	if (!wc) {
		FUZZ_CHECK(err[0] != '\0');
		FUZZ_CHECK(!strchr(err, '\n'));
		return;
	}
	if (wc->tls) {
		FUZZ_CHECK(wc->cert_file || wc->cert);
		FUZZ_CHECK(wc->key_file || wc->key);
		FUZZ_CHECK(wc->min_version <= wc->max_version);
	}
	FUZZ_CHECK(!wc->cert_file || strncmp(wc->cert_file, "/", 1) == 0);
	for (unsigned i = 0; i < wc->n_users; i++)
		FUZZ_CHECK(webconfig_is_bcrypt(wc->users[i].value));
	for (unsigned i = 0; i < wc->n_headers; i++)
		FUZZ_CHECK(!strpbrk(wc->headers[i].value, "\r\n") && wc->headers[i].value[0]);
	webconfig_free(wc);
}

static void check_basic(const char *s)
{
	char user[64], pass[64];

	if (webauth_parse_basic(s, user, sizeof(user), pass, sizeof(pass)) == 0) {
		FUZZ_CHECK(strlen(user) < sizeof(user) && strlen(pass) < sizeof(pass));
		FUZZ_CHECK(!strchr(user, ':'));
	} else {
		FUZZ_CHECK(user[0] == '\0' && pass[0] == '\0');
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s;

	check_webconfig(data, size);
	s = fuzz_strdup(data, size);
	if (!s)
		return 0;
	check_basic(s);
	free(s);
	return 0;
}
