// SPDX-License-Identifier: Apache-2.0
/*
 * webconfig_reload_refusal: a reload never weakens client authentication
 * (issue 42): a file cut after key_file, a weaker client_auth_type, the
 * client CA or TLS removed, every user removed are refused; a stronger
 * mode, the same file, and a rotated certificate, key or CA are not.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "http/webconfig.h"

#define HASH "$2y$04$fERX.LxZMtEMPJVyc1htvuFO/y8HXO2hNPH1ZjckJqxve2YzPGYzG"

/* the file of a running mTLS exporter (the parser reads no PEM file) */
#define TLS_HEAD   "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
#define MTLS(mode) TLS_HEAD "  client_auth_type: " mode "\n  client_ca_file: ca.crt\n"

static struct webconfig *parse(const char *yaml)
{
	char err[512];
	struct webconfig *wc = webconfig_parse(yaml, strlen(yaml), "/etc/x", err, sizeof(err));

	if (!wc)
		fail_msg("cannot parse:\n%s\n%s", yaml, err);
	return wc;
}

/* The reload from cur to next is refused, saying want; or allowed (want NULL). */
static void check_reload(const char *cur_yaml, const char *next_yaml, const char *want)
{
	struct webconfig *cur = parse(cur_yaml), *next = parse(next_yaml);
	const char *why = webconfig_reload_refusal(cur, next);

	if (want && (!why || !strstr(why, want)))
		fail_msg("from:\n%s\nto:\n%s\nwanted a refusal with \"%s\", got %s", cur_yaml,
			 next_yaml, want, why ? why : "none");
	if (!want && why)
		fail_msg("from:\n%s\nto:\n%s\nwanted it allowed, got \"%s\"", cur_yaml, next_yaml,
			 why);
	webconfig_free(cur);
	webconfig_free(next);
}

static void test_cut_after_key_file_refused(void **state)
{
	(void)state;
	check_reload(MTLS("RequireAndVerifyClientCert"), TLS_HEAD,
		     "no longer require a client certificate");
	check_reload(MTLS("VerifyClientCertIfGiven"), TLS_HEAD,
		     "no longer verify client certificates");
	check_reload(MTLS("RequireAnyClientCert"), TLS_HEAD,
		     "no longer require a client certificate");
}

static void test_weaker_client_auth_refused(void **state)
{
	static const char *const weaker[] = {"NoClientCert", "RequestClientCert",
					     "RequireAnyClientCert", "VerifyClientCertIfGiven"};
	const char *next;

	(void)state;
	for (size_t i = 0; i < sizeof(weaker) / sizeof(weaker[0]); i++) {
		/* NoClientCert takes no CA (the parser's rule) */
		char buf[256];

		snprintf(buf, sizeof(buf), "%s  client_auth_type: %s\n%s", TLS_HEAD, weaker[i],
			 i == 0 ? "" : "  client_ca_file: ca.crt\n");
		next = buf;
		check_reload(MTLS("RequireAndVerifyClientCert"), next, "client_auth_type");
	}
	/* RequireAny and VerifyIfGiven each lack the other's guarantee */
	check_reload(MTLS("RequireAnyClientCert"), MTLS("VerifyClientCertIfGiven"),
		     "no longer require");
	check_reload(MTLS("VerifyClientCertIfGiven"), MTLS("RequireAnyClientCert"),
		     "no longer verify");
	check_reload(MTLS("VerifyClientCertIfGiven"), MTLS("RequestClientCert"),
		     "no longer verify");
}

static void test_ca_removed_refused(void **state)
{
	(void)state;
	check_reload(MTLS("RequireAnyClientCert"),
		     TLS_HEAD "  client_auth_type: RequireAnyClientCert\n", "remove the client CA");
	/* inline CA counts as a CA */
	check_reload(TLS_HEAD "  client_auth_type: RequireAnyClientCert\n  client_ca: x\n",
		     TLS_HEAD "  client_auth_type: RequireAnyClientCert\n", "remove the client CA");
}

static void test_tls_removed_refused(void **state)
{
	(void)state;
	check_reload(MTLS("RequireAndVerifyClientCert"), "", "turn TLS off");
	check_reload(TLS_HEAD, "basic_auth_users:\n  bob: " HASH "\n", "turn TLS off");
	check_reload(MTLS("RequireAndVerifyClientCert"), "tls_server_config:\n", "turn TLS off");
}

static void test_users_removed_refused(void **state)
{
	(void)state;
	check_reload(MTLS("RequireAndVerifyClientCert") "basic_auth_users:\n  alice: " HASH "\n",
		     MTLS("RequireAndVerifyClientCert"), "remove every basic auth user");
	check_reload("basic_auth_users:\n  alice: " HASH "\n", "", "remove every basic auth user");
}

static void test_allowed(void **state)
{
	(void)state;
	/* the same file */
	check_reload(MTLS("RequireAndVerifyClientCert"), MTLS("RequireAndVerifyClientCert"), NULL);
	/* stronger */
	check_reload(TLS_HEAD, MTLS("RequireAndVerifyClientCert"), NULL);
	check_reload(MTLS("RequireAnyClientCert"), MTLS("RequireAndVerifyClientCert"), NULL);
	check_reload(MTLS("VerifyClientCertIfGiven"), MTLS("RequireAndVerifyClientCert"), NULL);
	check_reload(TLS_HEAD, TLS_HEAD "  client_auth_type: RequestClientCert\n", NULL);
	check_reload(TLS_HEAD "  client_auth_type: RequestClientCert\n", TLS_HEAD, NULL);
	check_reload("", TLS_HEAD, NULL);
	check_reload("", "basic_auth_users:\n  bob: " HASH "\n", NULL);
	/* certificate, key and client CA rotated */
	check_reload(MTLS("RequireAndVerifyClientCert"),
		     "tls_server_config:\n  cert_file: new.crt\n  key_file: new.key\n"
		     "  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: ca2.crt\n",
		     NULL);
	/* other users */
	check_reload("basic_auth_users:\n  alice: " HASH "\n",
		     "basic_auth_users:\n  bob: " HASH "\n", NULL);
	/* nothing in force yet */
	{
		struct webconfig *next = parse("");

		assert_null(webconfig_reload_refusal(NULL, next));
		webconfig_free(next);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cut_after_key_file_refused),
		cmocka_unit_test(test_weaker_client_auth_refused),
		cmocka_unit_test(test_ca_removed_refused),
		cmocka_unit_test(test_tls_removed_refused),
		cmocka_unit_test(test_users_removed_refused),
		cmocka_unit_test(test_allowed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
