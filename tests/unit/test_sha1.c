/* SPDX-License-Identifier: GPL-2.0-or-later
 * qd_sha1_hex: the FIPS 180 examples, and every length around the padding's
 * one-or-two-block edge (55, 56, 63, 64 bytes), against sha1sum's answers.
 */
#include <string.h>

#include <criterion/criterion.h>

#include "sha1.h"

static void expect(const char *text, size_t len, const char *want)
{
	char hex[QD_SHA1_HEX_LEN + 1];

	qd_sha1_hex(text, len, hex);
	cr_expect_str_eq(hex, want, "%zu bytes", len);
}

Test(sha1, fips_examples)
{
	expect("abc", 3, "a9993e364706816aba3e25717850c26c9cd0d89d");
	expect("", 0, "da39a3ee5e6b4b0d3255bfef95601890afd80709");
	expect("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56,
	       "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
}

Test(sha1, a_million_a)
{
	static char a[1000000];

	memset(a, 'a', sizeof(a));
	expect(a, sizeof(a), "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
}

/* head -c N /dev/zero | tr '\\0' x | sha1sum */
Test(sha1, padding_edges)
{
	char x[65];

	memset(x, 'x', sizeof(x));
	expect(x, 55, "cef734ba81a024479e09eb5a75b6ddae62e6abf1");
	expect(x, 56, "901305367c259952f4e7af8323f480d59f81335b");
	expect(x, 63, "0ddc4e0cccd9a12850deb5abb0853a4425559fec");
	expect(x, 64, "bb2fa3ee7afb9f54c6dfb5d021f14b1ffe40c163");
	expect(x, 65, "78c741ddc482e4cdf8c474a0876347a0905b6233");
}
