/* SPDX-License-Identifier: GPL-2.0-or-later
 * SHA-1 as FIPS 180-4 gives it: 512-bit blocks, the message padded with a
 * 1 bit, zeros and its length in bits (big-endian), 80 rounds a block.
 * Written out here so that naming a script needs no crypto library: the
 * plugin loads OpenSSL only for TLS to Redis (docs/install.md,
 * "plugstack.conf").
 */
#include <stdint.h>
#include <string.h>

#include "sha1.h"

static uint32_t rol(uint32_t x, int n)
{
	return (x << n) | (x >> (32 - n));
}

static void block(uint32_t h[5], const unsigned char *p)
{
	uint32_t w[80], a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];

	for (int t = 0; t < 16; t++)
		w[t] = (uint32_t)p[4 * t] << 24 | (uint32_t)p[4 * t + 1] << 16 |
		       (uint32_t)p[4 * t + 2] << 8 | p[4 * t + 3];
	for (int t = 16; t < 80; t++)
		w[t] = rol(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);
	for (int t = 0; t < 80; t++) {
		uint32_t f, k, tmp;

		if (t < 20) {
			f = (b & c) | (~b & d);
			k = 0x5a827999;
		} else if (t < 40) {
			f = b ^ c ^ d;
			k = 0x6ed9eba1;
		} else if (t < 60) {
			f = (b & c) | (b & d) | (c & d);
			k = 0x8f1bbcdc;
		} else {
			f = b ^ c ^ d;
			k = 0xca62c1d6;
		}
		tmp = rol(a, 5) + f + e + k + w[t];
		e = d;
		d = c;
		c = rol(b, 30);
		b = a;
		a = tmp;
	}
	h[0] += a;
	h[1] += b;
	h[2] += c;
	h[3] += d;
	h[4] += e;
}

void qd_sha1_hex(const void *data, size_t len, char hex[QD_SHA1_HEX_LEN + 1])
{
	static const char digits[] = "0123456789abcdef";
	uint32_t h[5] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476,
			 0xc3d2e1f0};
	const unsigned char *p = data;
	unsigned char tail[128] = {0};
	uint64_t bits = (uint64_t)len * 8;
	size_t rest, n;

	for (; len >= 64; len -= 64, p += 64)
		block(h, p);
	/* The last bytes, the 1 bit, zeros, the length: one block or two. */
	rest = len;
	memcpy(tail, p, rest);
	tail[rest] = 0x80;
	n = rest < 56 ? 64 : 128;
	for (int i = 0; i < 8; i++)
		tail[n - 1 - i] = (unsigned char)(bits >> (8 * i));
	block(h, tail);
	if (n == 128)
		block(h, tail + 64);
	for (int i = 0; i < 20; i++) {
		unsigned char byte =
		    (unsigned char)(h[i / 4] >> (24 - 8 * (i % 4)));

		hex[2 * i] = digits[byte >> 4];
		hex[2 * i + 1] = digits[byte & 15];
	}
	hex[QD_SHA1_HEX_LEN] = '\0';
}
