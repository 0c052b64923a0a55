// SPDX-License-Identifier: Apache-2.0
#include "http/webconfig.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "base/chars.h"

struct ctx {
	yaml_document_t *doc;
	struct webconfig *wc;
	const char *dir;
	char *err;
	size_t errlen;
};

static int fail(struct ctx *c, const yaml_node_t *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct ctx *c, const yaml_node_t *n, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n)
		snprintf(c->err, c->errlen, "line %lu: %s", (unsigned long)n->start_mark.line + 1,
			 msg);
	else
		snprintf(c->err, c->errlen, "%s", msg);
	return -EINVAL;
}

static int oom(struct ctx *c)
{
	snprintf(c->err, c->errlen, "out of memory");
	return -ENOMEM;
}

static const char *const client_auth_names[] = {
	[WEBCONFIG_NO_CLIENT_CERT] = "NoClientCert",
	[WEBCONFIG_REQUEST_CLIENT_CERT] = "RequestClientCert",
	[WEBCONFIG_REQUIRE_ANY_CLIENT_CERT] = "RequireAnyClientCert",
	[WEBCONFIG_VERIFY_CLIENT_CERT_IF_GIVEN] = "VerifyClientCertIfGiven",
	[WEBCONFIG_REQUIRE_AND_VERIFY_CLIENT_CERT] = "RequireAndVerifyClientCert",
};

const char *webconfig_client_auth_name(enum webconfig_client_auth a)
{
	if ((unsigned)a < sizeof(client_auth_names) / sizeof(client_auth_names[0]))
		return client_auth_names[a];
	return "?";
}

/* Headers the toolkit lets a file set, with the values it allows (NULL: any). */
static const struct {
	const char *name;
	const char *values[3];
} allowed_headers[] = {
	{"Strict-Transport-Security", {NULL}},
	{"X-Content-Type-Options", {"nosniff", NULL}},
	{"X-Frame-Options", {"deny", "sameorigin", NULL}},
	{"X-XSS-Protection", {NULL}},
	{"Content-Security-Policy", {NULL}},
};

static bool is_bcrypt_char(char ch)
{
	return ascii_is_alnum(ch) || ch == '.' || ch == '/';
}

bool webconfig_is_bcrypt(const char *s)
{
	int cost;

	/* $2y$10$ + 22 characters of salt + 31 of hash */
	if (!s || strlen(s) != 60 || strncmp(s, "$2", 2) != 0 ||
	    (s[2] != 'a' && s[2] != 'b' && s[2] != 'y') || s[3] != '$' || s[6] != '$')
		return false;
	if (!ascii_is_digit(s[4]) || !ascii_is_digit(s[5]))
		return false;
	cost = (s[4] - '0') * 10 + (s[5] - '0');
	if (cost < 4 || cost > 31)
		return false;
	for (int i = 7; i < 60; i++)
		if (!is_bcrypt_char(s[i]))
			return false;
	return true;
}

int webconfig_bcrypt_cost(const char *hash)
{
	return (hash[4] - '0') * 10 + (hash[5] - '0');
}

static yaml_node_t *node(struct ctx *c, int index)
{
	return yaml_document_get_node(c->doc, index);
}

/* A plain ~, null or empty scalar is YAML's null. */
static bool is_null(const yaml_node_t *n)
{
	const char *v;

	if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	v = (const char *)n->data.scalar.value;
	return n->data.scalar.length == 0 || strcmp(v, "~") == 0 || strcmp(v, "null") == 0 ||
	       strcmp(v, "Null") == 0 || strcmp(v, "NULL") == 0;
}

/* The scalar's text; NUL bytes inside (possible with escapes) are refused. */
static int scalar(struct ctx *c, const yaml_node_t *n, const char *what, const char **out)
{
	if (n->type != YAML_SCALAR_NODE)
		return fail(c, n, "%s must be a string", what);
	if (strlen((const char *)n->data.scalar.value) != n->data.scalar.length)
		return fail(c, n, "%s contains a NUL byte", what);
	*out = is_null(n) ? "" : (const char *)n->data.scalar.value;
	return 0;
}

/* Stores a copy of the scalar in *dst, NULL when it is empty or null. */
static int string_field(struct ctx *c, const yaml_node_t *n, const char *what, char **dst)
{
	const char *v = ""; /* gcc 10 (Debian 11) cannot tell scalar() sets it */
	int r = scalar(c, n, what, &v);

	if (r < 0)
		return r;
	free(*dst);
	*dst = NULL;
	if (!*v)
		return 0;
	*dst = strdup(v);
	return *dst ? 0 : oom(c);
}

/* A path joined to the file's directory unless absolute (as the toolkit does). */
static int path_field(struct ctx *c, const yaml_node_t *n, const char *what, char **dst)
{
	size_t len;
	char *p;
	int r = string_field(c, n, what, dst);

	if (r < 0 || !*dst || (*dst)[0] == '/' || !c->dir || !c->dir[0])
		return r;
	len = strlen(c->dir) + strlen(*dst) + 2;
	p = malloc(len);
	if (!p)
		return oom(c);
	snprintf(p, len, "%s/%s", c->dir, *dst);
	free(*dst);
	*dst = p;
	return 0;
}

/* YAML 1.1 booleans, as the toolkit's YAML library reads them. */
static int bool_field(struct ctx *c, const yaml_node_t *n, const char *what, bool *dst)
{
	static const char *const yes[] = {"y",	  "Y",	  "yes", "Yes", "YES", "true",
					  "True", "TRUE", "on",	 "On",	"ON"};
	static const char *const no[] = {"n",	  "N",	   "no",  "No",	 "NO", "false",
					 "False", "FALSE", "off", "Off", "OFF"};
	const char *v;

	if (n->type == YAML_SCALAR_NODE && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
		v = (const char *)n->data.scalar.value;
		for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
			if (strcmp(v, yes[i]) == 0) {
				*dst = true;
				return 0;
			}
			if (strcmp(v, no[i]) == 0) {
				*dst = false;
				return 0;
			}
		}
	}
	return fail(c, n, "%s must be true or false", what);
}

static int tls_version_field(struct ctx *c, const yaml_node_t *n, const char *what,
			     enum webconfig_tls_version *dst)
{
	static const struct {
		const char *name;
		enum webconfig_tls_version v;
	} versions[] = {
		{"TLS10", WEBCONFIG_TLS10},
		{"TLS11", WEBCONFIG_TLS11},
		{"TLS12", WEBCONFIG_TLS12},
		{"TLS13", WEBCONFIG_TLS13},
	};
	const char *v = ""; /* gcc 10 (Debian 11) cannot tell scalar() sets it */
	int r = scalar(c, n, what, &v);

	if (r < 0)
		return r;
	for (size_t i = 0; i < sizeof(versions) / sizeof(versions[0]); i++) {
		if (strcmp(v, versions[i].name) == 0) {
			*dst = versions[i].v;
			return 0;
		}
	}
	return fail(c, n, "%s: unknown TLS version \"%.40s\" (TLS10, TLS11, TLS12 or TLS13)", what,
		    v);
}

static int client_auth_field(struct ctx *c, const yaml_node_t *n, enum webconfig_client_auth *dst)
{
	const char *v;
	int r = scalar(c, n, "client_auth_type", &v);

	if (r < 0)
		return r;
	if (!*v) {
		*dst = WEBCONFIG_NO_CLIENT_CERT;
		return 0;
	}
	for (unsigned i = 0; i < sizeof(client_auth_names) / sizeof(client_auth_names[0]); i++) {
		if (strcmp(v, client_auth_names[i]) == 0) {
			*dst = (enum webconfig_client_auth)i;
			return 0;
		}
	}
	/* the toolkit's old name, kept there for compatibility */
	if (strcmp(v, "RequireClientCert") == 0) {
		*dst = WEBCONFIG_REQUIRE_ANY_CLIENT_CERT;
		return 0;
	}
	return fail(c, n,
		    "invalid client_auth_type \"%.40s\" (NoClientCert, RequestClientCert, "
		    "RequireAnyClientCert, VerifyClientCertIfGiven or RequireAndVerifyClientCert)",
		    v);
}

/* FNV-1a: spreads key names over the table of first_repeat. */
static size_t key_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3u;
	return (size_t)h;
}

static const char *scalar_key(struct ctx *c, const yaml_node_pair_t *p)
{
	const yaml_node_t *k = node(c, p->key);

	return k && k->type == YAML_SCALAR_NODE ? (const char *)k->data.scalar.value : NULL;
}

/*
 * The index in map of the first pair whose key repeats an earlier key (the
 * pair count when none does), so that each_pair reports it where it did when
 * it compared pair by pair. One pass over an open-addressing table of indexes,
 * linear in the number of keys (basic_auth_users can hold tens of thousands).
 * -ENOMEM when the table cannot be allocated.
 */
static int first_repeat(struct ctx *c, const yaml_node_t *map, size_t *repeat)
{
	const yaml_node_pair_t *pairs = map->data.mapping.pairs.start;
	size_t n = (size_t)(map->data.mapping.pairs.top - pairs), size = 16, *slots;

	*repeat = n;
	while (size < 2 * n)
		size *= 2;
	slots = calloc(size, sizeof(*slots)); /* pair index + 1; 0 is empty */
	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < n && *repeat == n; i++) {
		const char *key = scalar_key(c, &pairs[i]);
		size_t h;

		if (!key)
			continue;
		for (h = key_hash(key) & (size - 1); slots[h]; h = (h + 1) & (size - 1)) {
			if (strcmp(scalar_key(c, &pairs[slots[h] - 1]), key) == 0) {
				*repeat = i;
				break;
			}
		}
		slots[h] = i + 1;
	}
	free(slots);
	return 0;
}

/*
 * Calls fn for each key of a mapping node (null counts as an empty mapping).
 * Keys must be plain strings and appear once.
 */
typedef int (*pair_fn)(struct ctx *c, const char *key, const yaml_node_t *k, const yaml_node_t *v);

static int each_pair(struct ctx *c, const yaml_node_t *map, const char *what, pair_fn fn)
{
	size_t repeat;

	if (is_null(map))
		return 0;
	if (map->type != YAML_MAPPING_NODE)
		return fail(c, map, "%s must be a mapping", what);
	if (first_repeat(c, map, &repeat) < 0)
		return oom(c);
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	     p++) {
		const yaml_node_t *k = node(c, p->key), *v = node(c, p->value);
		const char *key = NULL; /* set by scalar() when it succeeds */
		int r;

		if (!k || !v)
			return fail(c, map, "%s: malformed mapping", what);
		if (k->type != YAML_SCALAR_NODE)
			return fail(c, k, "%s: keys must be strings", what);
		r = scalar(c, k, "a key", &key);
		if (r < 0)
			return r;
		if ((size_t)(p - map->data.mapping.pairs.start) == repeat)
			return fail(c, k, "%s: key \"%.60s\" is given twice", what, key);
		r = fn(c, key, k, v);
		if (r < 0)
			return r;
	}
	return 0;
}

static int unsupported(struct ctx *c, const yaml_node_t *k, const char *key)
{
	return fail(c, k, "%s is not supported by rdma_exporter", key);
}

static int tls_pair(struct ctx *c, const char *key, const yaml_node_t *k, const yaml_node_t *v)
{
	struct webconfig *wc = c->wc;

	if (strcmp(key, "cert_file") == 0)
		return path_field(c, v, key, &wc->cert_file);
	if (strcmp(key, "key_file") == 0)
		return path_field(c, v, key, &wc->key_file);
	if (strcmp(key, "client_ca_file") == 0)
		return path_field(c, v, key, &wc->client_ca_file);
	if (strcmp(key, "cert") == 0)
		return string_field(c, v, key, &wc->cert);
	if (strcmp(key, "key") == 0)
		return string_field(c, v, key, &wc->key);
	if (strcmp(key, "client_ca") == 0)
		return string_field(c, v, key, &wc->client_ca);
	if (strcmp(key, "client_auth_type") == 0) {
		int r = client_auth_field(c, v, &wc->client_auth);

		/* a client_auth_type alone turns TLS on, even NoClientCert */
		if (r == 0 && !is_null(v))
			wc->tls = true;
		return r;
	}
	if (strcmp(key, "min_version") == 0)
		return tls_version_field(c, v, key, &wc->min_version);
	if (strcmp(key, "max_version") == 0)
		return tls_version_field(c, v, key, &wc->max_version);
	if (strcmp(key, "prefer_server_cipher_suites") == 0)
		return bool_field(c, v, key, &wc->prefer_server_cipher_suites);
	if (strcmp(key, "cipher_suites") == 0 || strcmp(key, "curve_preferences") == 0 ||
	    strcmp(key, "client_allowed_sans") == 0) {
		/* an empty list means the defaults: harmless */
		if (is_null(v) || (v->type == YAML_SEQUENCE_NODE &&
				   v->data.sequence.items.start == v->data.sequence.items.top))
			return 0;
		return unsupported(c, k, key);
	}
	return fail(c, k, "unknown key \"%.60s\" in tls_server_config", key);
}

static int header_pair(struct ctx *c, const char *key, const yaml_node_t *k, const yaml_node_t *v)
{
	struct webconfig *wc = c->wc;
	struct webconfig_pair *h;
	const char *value = ""; /* gcc 10 cannot tell scalar() sets it */
	size_t i;
	int r;

	for (i = 0; i < sizeof(allowed_headers) / sizeof(allowed_headers[0]); i++)
		if (strcmp(key, allowed_headers[i].name) == 0)
			break;
	if (i == sizeof(allowed_headers) / sizeof(allowed_headers[0]))
		return fail(c, k, "HTTP header \"%.60s\" can not be configured", key);
	r = scalar(c, v, key, &value);
	if (r < 0)
		return r;
	if (strpbrk(value, "\r\n"))
		return fail(c, v, "the value of %s contains a line break", key);
	if (allowed_headers[i].values[0]) {
		bool ok = false;

		for (const char *const *a = allowed_headers[i].values; *a; a++)
			ok = ok || strcmp(value, *a) == 0;
		if (!ok)
			return fail(c, v, "invalid value \"%.40s\" for %s (%s%s%s)", value, key,
				    allowed_headers[i].values[0],
				    allowed_headers[i].values[1] ? " or " : "",
				    allowed_headers[i].values[1] ? allowed_headers[i].values[1]
								 : "");
	}
	/* blank means unset */
	if (!*value)
		return 0;
	h = realloc(wc->headers, (wc->n_headers + 1) * sizeof(*h));
	if (!h)
		return oom(c);
	wc->headers = h;
	h[wc->n_headers].name = strdup(key);
	h[wc->n_headers].value = strdup(value);
	wc->n_headers++;
	if (!h[wc->n_headers - 1].name || !h[wc->n_headers - 1].value)
		return oom(c);
	return 0;
}

static int http_pair(struct ctx *c, const char *key, const yaml_node_t *k, const yaml_node_t *v)
{
	if (strcmp(key, "http2") == 0)
		return bool_field(c, v, key, &c->wc->http2);
	if (strcmp(key, "headers") == 0)
		return each_pair(c, v, "headers", header_pair);
	return fail(c, k, "unknown key \"%.60s\" in http_server_config", key);
}

/*
 * Room for pair n in *pairs, which holds n: the array doubles when n is a
 * power of two (its size then), so tens of thousands of users cost a few
 * copies, not one each (a realloc that moves copies the whole array).
 * Returns the array, or NULL with *pairs unchanged.
 */
static struct webconfig_pair *grow_pairs(struct webconfig_pair **pairs, unsigned n)
{
	struct webconfig_pair *p;

	if (n & (n - 1))
		return *pairs; /* room left: the size is the next power of two */
	p = realloc(*pairs, (n ? 2 * (size_t)n : 1) * sizeof(*p));
	if (p)
		*pairs = p;
	return p;
}

static int user_pair(struct ctx *c, const char *key, const yaml_node_t *k, const yaml_node_t *v)
{
	struct webconfig *wc = c->wc;
	struct webconfig_pair *u;
	const char *hash;
	int r;

	if (!*key)
		return fail(c, k, "basic_auth_users: empty user name");
	if (strchr(key, ':'))
		return fail(c, k, "basic_auth_users: user name \"%.60s\" contains ':'", key);
	r = scalar(c, v, "a password hash", &hash);
	if (r < 0)
		return r;
	if (!webconfig_is_bcrypt(hash))
		return fail(c, v,
			    "basic_auth_users: the password of \"%.60s\" is not a bcrypt hash "
			    "($2y$10$ and 53 characters; make one with htpasswd -nBC 10 \"\")",
			    key);
	if (webconfig_bcrypt_cost(hash) > WEBCONFIG_BCRYPT_MAX_COST)
		return fail(c, v,
			    "basic_auth_users: the password hash of \"%.60s\" has bcrypt cost %d, "
			    "above the maximum %d (each check would take seconds; make one with "
			    "htpasswd -nBC 10 \"\")",
			    key, webconfig_bcrypt_cost(hash), WEBCONFIG_BCRYPT_MAX_COST);
	u = grow_pairs(&wc->users, wc->n_users);
	if (!u)
		return oom(c);
	u[wc->n_users].name = strdup(key);
	u[wc->n_users].value = strdup(hash);
	wc->n_users++;
	if (!u[wc->n_users - 1].name || !u[wc->n_users - 1].value)
		return oom(c);
	return 0;
}

static int top_pair(struct ctx *c, const char *key, const yaml_node_t *k, const yaml_node_t *v)
{
	if (strcmp(key, "tls_server_config") == 0)
		return each_pair(c, v, key, tls_pair);
	if (strcmp(key, "http_server_config") == 0)
		return each_pair(c, v, key, http_pair);
	if (strcmp(key, "basic_auth_users") == 0)
		return each_pair(c, v, key, user_pair);
	if (strcmp(key, "rate_limit") == 0)
		return is_null(v) ? 0 : unsupported(c, k, key);
	return fail(c, k, "unknown key \"%.60s\"", key);
}

/* The toolkit's checks once every key is read. */
static int validate(struct ctx *c)
{
	struct webconfig *wc = c->wc;
	bool has_ca = wc->client_ca_file || wc->client_ca;

	if (wc->cert_file || wc->key_file || wc->cert || wc->key || has_ca)
		wc->tls = true;
	if (!wc->tls)
		return 0;
	if (!wc->cert_file && !wc->cert)
		return fail(c, NULL, "tls_server_config: missing one of cert or cert_file");
	if (!wc->key_file && !wc->key)
		return fail(c, NULL, "tls_server_config: missing one of key or key_file");
	if (has_ca && wc->client_auth == WEBCONFIG_NO_CLIENT_CERT)
		return fail(c, NULL,
			    "tls_server_config: a client CA is configured without a "
			    "client_auth_type");
	/* The toolkit would check against the system's roots; a CA of its own is
	 * what an exporter's client certificates are signed by. */
	if (!has_ca && (wc->client_auth == WEBCONFIG_VERIFY_CLIENT_CERT_IF_GIVEN ||
			wc->client_auth == WEBCONFIG_REQUIRE_AND_VERIFY_CLIENT_CERT))
		return fail(c, NULL, "tls_server_config: client_auth_type %s needs client_ca_file",
			    webconfig_client_auth_name(wc->client_auth));
	if (wc->min_version > wc->max_version)
		return fail(c, NULL, "tls_server_config: min_version is above max_version");
	return 0;
}

void webconfig_free(struct webconfig *wc)
{
	if (!wc)
		return;
	free(wc->cert_file);
	free(wc->key_file);
	free(wc->client_ca_file);
	free(wc->cert);
	free(wc->key);
	free(wc->client_ca);
	for (unsigned i = 0; i < wc->n_headers; i++) {
		free(wc->headers[i].name);
		free(wc->headers[i].value);
	}
	free(wc->headers);
	for (unsigned i = 0; i < wc->n_users; i++) {
		free(wc->users[i].name);
		/* a hash is not the password, but there is no reason to leave it around */
		if (wc->users[i].value)
			memset(wc->users[i].value, 0, strlen(wc->users[i].value));
		free(wc->users[i].value);
	}
	free(wc->users);
	free(wc);
}

/*
 * Walks the events of the first document, before the loader builds it, and
 * refuses mappings and sequences nested deeper than WEBCONFIG_MAX_DEPTH. It
 * stops at the first level too deep, so its cost is linear in the input;
 * syntax errors are left to the loader, which finds the same ones.
 */
static int check_depth(const char *data, size_t len, char *err, size_t errlen)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	int depth = 0, r = 0;

	if (!yaml_parser_initialize(&parser)) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)data, len);
	while (r == 0 && yaml_parser_parse(&parser, &ev)) {
		yaml_event_type_t type = ev.type;

		if (type == YAML_MAPPING_START_EVENT || type == YAML_SEQUENCE_START_EVENT) {
			if (++depth > WEBCONFIG_MAX_DEPTH) {
				snprintf(err, errlen,
					 "line %lu: mappings and sequences nested deeper than %d "
					 "levels",
					 (unsigned long)ev.start_mark.line + 1,
					 WEBCONFIG_MAX_DEPTH);
				r = -EINVAL;
			}
		} else if (type == YAML_MAPPING_END_EVENT || type == YAML_SEQUENCE_END_EVENT) {
			depth--;
		}
		yaml_event_delete(&ev);
		if (type == YAML_DOCUMENT_END_EVENT || type == YAML_STREAM_END_EVENT)
			break;
	}
	if (r == 0 && parser.error == YAML_MEMORY_ERROR) {
		snprintf(err, errlen, "out of memory");
		r = -ENOMEM;
	}
	yaml_parser_delete(&parser);
	return r;
}

struct webconfig *webconfig_parse(const char *data, size_t len, const char *dir, char *err,
				  size_t errlen)
{
	struct webconfig *wc = calloc(1, sizeof(*wc));
	yaml_parser_t parser;
	yaml_document_t doc;
	struct ctx c = {.doc = &doc, .wc = wc, .dir = dir, .err = err, .errlen = errlen};
	yaml_node_t *root;
	int r;

	if (!wc) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (check_depth(data, len, err, errlen) < 0) {
		free(wc);
		return NULL;
	}
	wc->min_version = WEBCONFIG_TLS12;
	wc->max_version = WEBCONFIG_TLS13;
	wc->prefer_server_cipher_suites = true;
	wc->http2 = true;
	if (!yaml_parser_initialize(&parser)) {
		snprintf(err, errlen, "out of memory");
		free(wc);
		return NULL;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)data, len);
	if (!yaml_parser_load(&parser, &doc)) {
		if (parser.error == YAML_MEMORY_ERROR)
			snprintf(err, errlen, "out of memory");
		else
			snprintf(err, errlen, "line %lu: invalid YAML: %s%s%s",
				 (unsigned long)parser.problem_mark.line + 1,
				 parser.problem ? parser.problem : "syntax error",
				 parser.context ? " " : "", parser.context ? parser.context : "");
		yaml_parser_delete(&parser);
		free(wc);
		return NULL;
	}
	/* an empty file is the toolkit's defaults: plain HTTP, no users */
	root = yaml_document_get_root_node(&doc);
	r = root ? each_pair(&c, root, "the web configuration", top_pair) : 0;
	if (r == 0)
		r = validate(&c);
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	if (r < 0) {
		webconfig_free(wc);
		return NULL;
	}
	return wc;
}

/* A client_auth_type's two guarantees: a certificate must be sent; one sent is verified. */
static bool auth_requires(enum webconfig_client_auth a)
{
	return a == WEBCONFIG_REQUIRE_ANY_CLIENT_CERT ||
	       a == WEBCONFIG_REQUIRE_AND_VERIFY_CLIENT_CERT;
}

static bool auth_verifies(enum webconfig_client_auth a)
{
	return a == WEBCONFIG_VERIFY_CLIENT_CERT_IF_GIVEN ||
	       a == WEBCONFIG_REQUIRE_AND_VERIFY_CLIENT_CERT;
}

const char *webconfig_reload_refusal(const struct webconfig *cur, const struct webconfig *next)
{
	if (!cur)
		return NULL;
	if (cur->n_users > 0 && next->n_users == 0)
		return "it would remove every basic auth user (that takes a restart)";
	if (!cur->tls)
		return NULL;
	if (!next->tls)
		return "it would turn TLS off (that takes a restart)";
	if (auth_requires(cur->client_auth) && !auth_requires(next->client_auth))
		return "its client_auth_type would no longer require a client certificate "
		       "(that takes a restart)";
	if (auth_verifies(cur->client_auth) && !auth_verifies(next->client_auth))
		return "its client_auth_type would no longer verify client certificates "
		       "(that takes a restart)";
	if ((cur->client_ca_file || cur->client_ca) && !next->client_ca_file && !next->client_ca)
		return "it would remove the client CA (that takes a restart)";
	return NULL;
}
