// SPDX-License-Identifier: Apache-2.0
/*
 * The server's TLS (libmicrohttpd over GnuTLS): what MHD needs to start it,
 * and each new session's settings, those in force when it begins (a SIGHUP
 * changes them for the next connections), with the client certificate
 * policy of client_auth_type checked during the handshake.
 */
#include <errno.h>
#include <gnutls/gnutls.h>
#include <microhttpd.h>
#include <pthread.h>
#include <stdio.h>

#include "http/http_internal.h"

int http_tls_options(const struct http_server *srv, struct MHD_OptionItem *opts, char *err,
		     size_t errlen)
{
	const struct web_settings *tls = srv->tls_web;
	int n = 0;

	if (MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
		snprintf(err, errlen, "this libmicrohttpd is built without TLS support");
		return -ENOTSUP;
	}
	opts[n++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_KEY, 0, tls->key_pem};
	opts[n++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_CERT, 0, tls->cert_pem};
	if (tls->ca_pem)
		opts[n++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_TRUST, 0, tls->ca_pem};
	opts[n++] =
		(struct MHD_OptionItem){MHD_OPTION_HTTPS_PRIORITIES, 0, (void *)tls->priorities};
	return n;
}

/*
 * Handshake check of VerifyClientCertIfGiven and RequireAndVerifyClientCert:
 * a certificate sent must chain to the client CA; none is for the request
 * mode (REQUEST or REQUIRE) to judge.
 */
static int verify_client_cert(gnutls_session_t s)
{
	unsigned n = 0, status = 0;

	if (!gnutls_certificate_get_peers(s, &n) || n == 0)
		return 0;
	if (gnutls_certificate_verify_peers2(s, &status) < 0 || status != 0)
		return GNUTLS_E_CERTIFICATE_VERIFICATION_ERROR;
	return 0;
}

/* Each new TLS session gets the TLS settings in force now (certificate,
 * key, client CA, versions: a SIGHUP changes them for the next connections)
 * and the client certificate policy of client_auth_type. Returns the
 * settings (a reference the connection keeps until it closes: GnuTLS uses
 * the credentials for the whole session), or NULL. */
struct web_settings *http_tls_session_setup(struct http_server *srv, struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *info;
	struct web_settings *ws;
	gnutls_session_t s;

	info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_GNUTLS_SESSION);
	if (!info || !info->tls_session)
		return NULL;
	s = info->tls_session;
	pthread_mutex_lock(&srv->web_lock);
	ws = web_settings_ref(srv->web);
	pthread_mutex_unlock(&srv->web_lock);
	/* a reload without TLS cannot turn the listener into plain HTTP: the
	 * settings of the start serve until a restart */
	if (!ws || !ws->wc->tls) {
		web_settings_unref(ws);
		ws = web_settings_ref(srv->tls_web);
	}
	gnutls_credentials_set(s, GNUTLS_CRD_CERTIFICATE, ws->cred);
	gnutls_priority_set(s, ws->prio);
	switch (ws->wc->client_auth) {
	case WEBCONFIG_NO_CLIENT_CERT:
		gnutls_certificate_server_set_request(s, GNUTLS_CERT_IGNORE);
		break;
	case WEBCONFIG_REQUEST_CLIENT_CERT:
		gnutls_certificate_server_set_request(s, GNUTLS_CERT_REQUEST);
		break;
	case WEBCONFIG_REQUIRE_ANY_CLIENT_CERT:
		gnutls_certificate_server_set_request(s, GNUTLS_CERT_REQUIRE);
		break;
	case WEBCONFIG_VERIFY_CLIENT_CERT_IF_GIVEN:
		gnutls_certificate_server_set_request(s, GNUTLS_CERT_REQUEST);
		gnutls_session_set_verify_function(s, verify_client_cert);
		break;
	case WEBCONFIG_REQUIRE_AND_VERIFY_CLIENT_CERT:
		gnutls_certificate_server_set_request(s, GNUTLS_CERT_REQUIRE);
		gnutls_session_set_verify_function(s, verify_client_cert);
		break;
	}
	return ws;
}
