/* SPDX-License-Identifier: GPL-2.0-or-later
 * Helpers shared by the libFuzzer targets. The targets are C, so this stands
 * in for LLVM's C++ FuzzedDataProvider: it takes numbers from the front of
 * the input and leaves the rest as text.
 *
 * A failed invariant aborts through FUZZ_ASSERT, which libFuzzer records as a
 * crash with the input that caused it, exactly as for a sanitizer report.
 */
#ifndef QD_FUZZ_UTIL_H
#define QD_FUZZ_UTIL_H

#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"
#include "tres.h"

#define FUZZ_ASSERT(cond, ...)                                                 \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr,                                        \
				"%s:%d: invariant failed: %s: ", __FILE__,     \
				__LINE__, #cond);                              \
			fprintf(stderr, __VA_ARGS__);                          \
			fputc('\n', stderr);                                   \
			abort();                                               \
		}                                                              \
	} while (0)

struct fuzz_in {
	const uint8_t *p;
	size_t n;
};

/* An exhausted input reads as zeros, so every prefix is a valid input. */
static inline uint8_t fuzz_u8(struct fuzz_in *in)
{
	uint8_t b = 0;

	if (in->n) {
		b = *in->p++;
		in->n--;
	}
	return b;
}

static inline uint64_t fuzz_raw64(struct fuzz_in *in)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v |= (uint64_t)fuzz_u8(in) << (8 * i);
	return v;
}

/*
 * Limits and counts are small in practice, and the interesting edges are at
 * 0, 1 and the top of the range: a selector byte picks the range so that
 * random bytes reach all of them, rather than almost always a huge number.
 */
static inline uint64_t fuzz_u64(struct fuzz_in *in)
{
	uint8_t sel = fuzz_u8(in);

	switch (sel >> 5) {
	case 0:
	case 1:
	case 2:
		return sel & 0x1f;
	case 3:
		return fuzz_u8(in);
	case 4:
		return QD_UNLIMITED - (sel & 0x1f); /* UNLIMITED, CAP, ... */
	case 5:
		return (uint64_t)1 << (sel & 0x1f) << (sel & 0x1f);
	default:
		return fuzz_raw64(in);
	}
}

/* The models' plain reading of a field of decimal digits, s[0..len): false
 * when it is empty or holds anything but digits; else *v its value, which
 * past max stays at max + 1 (too large, whatever digits follow). */
static inline bool fuzz_digits(const char *s, size_t len, unsigned __int128 max,
			       unsigned __int128 *v)
{
	*v = 0;
	if (!len)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		*v = *v * 10 + (unsigned)(s[i] - '0');
		if (*v > max)
			*v = max + 1;
	}
	return true;
}

/* A stored name as names.h describes it, read without names.c: 1 to 63
 * characters of [A-Za-z0-9._@+$-] and canonical "%XX" escapes of bytes
 * outside that set ("" too where optional), or "~" and 40 lowercase hex
 * digits. */
static inline bool fuzz_model_name(const char *s, size_t len, bool optional)
{
	static const char ok[] = "abcdefghijklmnopqrstuvwxyz"
				 "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				 "0123456789._@+$-";
	static const char hex[] = "0123456789ABCDEF";

	/* "~" and a SHA-1 in lowercase hex: a long name, hashed */
	if (len == 41 && s[0] == '~') {
		for (size_t i = 1; i < len; i++)
			if (!s[i] || !strchr("0123456789abcdef", s[i]))
				return false;
		return true;
	}
	if (len >= QD_NAME_MAX || (!len && !optional))
		return false;
	for (size_t i = 0; i < len; i++) {
		const char *h, *l;
		char c;

		if (s[i] && strchr(ok, s[i]))
			continue;
		/* "%XX", uppercase, of a byte that needs it */
		if (s[i] != '%' || i + 2 >= len || !s[i + 1] || !s[i + 2])
			return false;
		h = strchr(hex, s[i + 1]);
		l = strchr(hex, s[i + 2]);
		if (!h || !l)
			return false;
		c = (char)((h - hex) * 16 + (l - hex));
		if (!c || strchr(ok, c))
			return false;
		i += 2;
	}
	return true;
}

/* A NUL-terminated heap copy of the whole input, so that ASan sees any read
 * past its end. */
static inline char *fuzz_strndup(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* An error buffer of exactly len bytes (len 0: none at all), so that ASan
 * catches a message written past the length the caller gave. */
static inline char *fuzz_errbuf(size_t len)
{
	char *e;

	if (!len)
		return NULL;
	e = malloc(len);
	if (!e)
		abort();
	memset(e, 'X', len);
	return e;
}

/* A message written into len bytes must end within them and say something.
 * (Success promises nothing about err.) */
static inline void fuzz_check_err(const char *err, size_t len, bool written)
{
	if (!len || !written)
		return;
	FUZZ_ASSERT(memchr(err, '\0', len), "error text not terminated");
	if (len > 1)
		FUZZ_ASSERT(err[0] != '\0', "error without a message");
}

/* Same contents: set TRES, values, and the same types with the same values
 * in the same order (stale bytes after a type's NUL do not count). */
static inline bool fuzz_tres_equal(const struct qd_tres *a,
				   const struct qd_tres *b)
{
	for (int id = 0; id < QD_TRES_FIXED; id++) {
		if (a->set[id] != b->set[id])
			return false;
		if (a->set[id] && a->v[id] != b->v[id])
			return false;
	}
	if (a->ntyped != b->ntyped)
		return false;
	for (size_t i = 0; i < a->ntyped; i++)
		if (strcmp(a->typed[i].type, b->typed[i].type) ||
		    a->typed[i].value != b->typed[i].value)
			return false;
	return true;
}

/* What qd_tres_set_typed promises about the typed entries: at most
 * QD_TYPES_MAX, names terminated within the array, stored lowercase and
 * sorted without duplicates (lookups rely on the order). */
static inline void fuzz_check_typed(const struct qd_tres *t)
{
	FUZZ_ASSERT(t->ntyped <= QD_TYPES_MAX, "ntyped %zu", t->ntyped);
	for (size_t i = 0; i < t->ntyped; i++) {
		const char *ty = t->typed[i].type;

		FUZZ_ASSERT(memchr(ty, '\0', QD_TYPE_NAME_MAX),
			    "type %zu not terminated", i);
		for (const char *c = ty; *c; c++)
			FUZZ_ASSERT(!(*c >= 'A' && *c <= 'Z'),
				    "type '%s' not lowercase", ty);
		if (i)
			FUZZ_ASSERT(strcmp(t->typed[i - 1].type, ty) < 0,
				    "types '%s' '%s' out of order",
				    t->typed[i - 1].type, ty);
	}
}

#endif
