/* SPDX-License-Identifier: MIT */
/*
 * test-json.c - the exports' JSON writer (report/views/json.h): commas and nesting, exact decimals,
 * hostile strings read back by json-c as the same text (control characters escaped, bytes that
 * are not UTF-8 replaced by U+FFFD, nothing escaping the string), and the gzip stream inflated
 * by zlib into the same bytes as the plain one.
 */
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "report/views/json.h"
#include "tests/tap.h"

/* write @fn's JSON plainly or gzipped into a memory stream; returns its bytes (free()) */
static char *render(void (*fn)(struct kp_json *), bool gzip, size_t *len, int *err)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	struct kp_json j;

	kp_json_init(&j, f, gzip);
	fn(&j);
	*err = kp_json_finish(&j);
	fclose(f);
	return buf;
}

static void nested(struct kp_json *j)
{
	kp_json_obj(j);
	kp_json_key(j, "a");
	kp_json_arr(j);
	kp_json_u64(j, 1);
	kp_json_i64(j, -2);
	kp_json_obj(j);
	kp_json_key(j, "b");
	kp_json_null(j);
	kp_json_key(j, "t");
	kp_json_bool(j, true);
	kp_json_obj_end(j);
	kp_json_arr(j);
	kp_json_arr_end(j);
	kp_json_arr_end(j);
	kp_json_key(j, "us");
	kp_json_fixed(j, 1234567, 3);
	kp_json_key(j, "ms");
	kp_json_fixed(j, 5, 6);
	kp_json_key(j, "max");
	kp_json_u64(j, UINT64_MAX);
	kp_json_key(j, "min");
	kp_json_i64(j, INT64_MIN);
	kp_json_obj_end(j);
}

/* Hostile names: each is written, then read back by json-c and compared with @want. */
#define S(x) x, sizeof(x) - 1
static const struct {
	const char *in;
	size_t len;
	const char *want;
	size_t want_len;
	const char *what;
} names[] = {
	{ S("plain"), S("plain"), "ASCII" },
	{ S("say \"hi\" \\ bye"), S("say \"hi\" \\ bye"), "quotes and backslashes" },
	{ S("a\nb\tc\rd\x01\x1f\x7f"), S("a\nb\tc\rd\x01\x1f\x7f"), "control characters" },
	{ S("nul\0after"), S("nul\0after"), "a NUL inside a name" },
	{ S("bad\xff\xfename"), S("bad\xef\xbf\xbd\xef\xbf\xbdname"), "bytes that are not UTF-8" },
	{ S("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5"), S("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5"),
	  "valid 2-, 3- and 4-byte sequences kept" },
	{ S("over\xc0\xaflong"), S("over\xef\xbf\xbd\xef\xbf\xbdlong"), "an overlong '/'" },
	{ S("sur\xed\xa0\x80x"), S("sur\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbdx"), "a UTF-16 surrogate" },
	{ S("big\xf4\x90\x80\x80"), S("big\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"),
	  "a code point past U+10FFFF" },
	{ S("cut\xe2\x82"), S("cut\xef\xbf\xbd\xef\xbf\xbd"), "a sequence cut by the end" },
	{ S("\"}]}, {\"x\":1"), S("\"}]}, {\"x\":1"), "JSON syntax inside a name" },
};

static size_t cur;
static void one_name(struct kp_json *j)
{
	kp_json_arr(j);
	kp_json_str_len(j, names[cur].in, names[cur].len);
	kp_json_arr_end(j);
}

static void check_names(void)
{
	for (cur = 0; cur < sizeof(names) / sizeof(names[0]); cur++) {
		size_t len;
		int err;
		char *s = render(one_name, false, &len, &err);
		struct json_object *o = json_tokener_parse(s);
		struct json_object *str = o && json_object_is_type(o, json_type_array) &&
						  json_object_array_length(o) == 1
					  ? json_object_array_get_idx(o, 0) : NULL;
		const char *got = str ? json_object_get_string(str) : NULL;

		ok(!err && got && (size_t)json_object_get_string_len(str) == names[cur].want_len &&
		   !memcmp(got, names[cur].want, names[cur].want_len),
		   "%s: read back as written (%s)", names[cur].what, s);
		if (names[cur].in[0] == 'a') /* the control characters */
			ok(!strpbrk(s, "\n\t\r\x01\x1f"), "...none of them raw in the JSON");
		json_object_put(o);
		free(s);
	}
}

static void long_name(struct kp_json *j)
{
	char *s = malloc(100000);

	for (size_t i = 0; i < 100000; i++)
		s[i] = i % 7 ? 'a' : '"';
	kp_json_str_len(j, s, 100000);
	free(s);
}

static void many(struct kp_json *j)
{
	kp_json_arr(j);
	for (uint64_t i = 0; i < 200000; i++) {
		kp_json_arr(j);
		kp_json_u64(j, i);
		kp_json_str(j, i % 3 ? "frame" : "caf\xc3\xa9\n");
		kp_json_arr_end(j);
	}
	kp_json_arr_end(j);
}

static char *inflate_all(const char *in, size_t len, size_t *out_len)
{
	z_stream z = { 0 };
	size_t cap = 1 << 20;
	char *out = malloc(cap);
	int rc;

	inflateInit2(&z, 15 + 16);
	z.next_in = (unsigned char *)in;
	z.avail_in = (uInt)len;
	*out_len = 0;
	do {
		if (*out_len == cap)
			out = realloc(out, cap *= 2);
		z.next_out = (unsigned char *)out + *out_len;
		z.avail_out = (uInt)(cap - *out_len);
		rc = inflate(&z, Z_NO_FLUSH);
		*out_len = cap - z.avail_out;
	} while (rc == Z_OK);
	inflateEnd(&z);
	return rc == Z_STREAM_END ? out : (free(out), NULL);
}

static void unbalanced(struct kp_json *j)
{
	kp_json_obj(j);
	kp_json_key(j, "open");
	kp_json_arr(j);
}

int main(void)
{
	size_t len, zlen, ilen;
	int err;
	char *s = render(nested, false, &len, &err), *z, *inf;
	struct json_object *o;

	ok(!err && !strcmp(s, "{\"a\":[1,-2,{\"b\":null,\"t\":true},[]],\"us\":1234.567,"
			      "\"ms\":0.000005,\"max\":18446744073709551615,"
			      "\"min\":-9223372036854775808}"),
	   "commas, nesting, exact decimals and the integer limits: %s", s);
	free(s);
	check_names();

	s = render(long_name, false, &len, &err);
	o = json_tokener_parse(s);
	ok(!err && o && json_object_get_string_len(o) == 100000,
	   "a 100,000-byte name full of quotes is one string of 100,000 characters");
	json_object_put(o);
	free(s);

	s = render(many, false, &len, &err);
	z = render(many, true, &zlen, &err);
	ok(!err && z && zlen > 18 && (unsigned char)z[0] == 0x1f && (unsigned char)z[1] == 0x8b,
	   "the gzip stream has gzip's magic (%zu bytes for %zu)", zlen, len);
	inf = z ? inflate_all(z, zlen, &ilen) : NULL;
	ok(inf && ilen == len && !memcmp(inf, s, len),
	   "zlib inflates it to the plain stream's %zu bytes", len);
	o = json_tokener_parse(s);
	ok(o && json_object_array_length(o) == 200000, "the 200,000 rows parse");
	json_object_put(o);
	free(inf);
	free(z);
	free(s);

	s = render(unbalanced, false, &len, &err);
	ok(err != 0, "a document left open is an error (%d), not a silent truncation", err);
	free(s);

	FILE *full = fopen("/dev/full", "w");
	if (full) {
		struct kp_json j;
		kp_json_init(&j, full, true);
		many(&j);
		err = kp_json_finish(&j);
		err = err ? err : (fflush(full) ? -1 : 0);
		ok(err != 0, "a full disk is reported (%d)", err);
		fclose(full);
	}
	return tap_done();
}
