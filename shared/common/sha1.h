/* SPDX-License-Identifier: GPL-2.0-or-later
 * SHA-1 (FIPS 180-4), for two purposes: naming a Lua script as Redis does
 * (EVALSHA takes the SHA-1 of the script's text, in lowercase hex), so a
 * process can run a script by its SHA without asking the server for it
 * first (SCRIPT LOAD); and the stored form of a name too long to be held
 * (names.h), where what matters is that no one finds a second name with a
 * given name's SHA-1, which SHA-1 still ensures (its known attacks make
 * two new colliding texts, not a second one for a text already chosen).
 */
#ifndef QD_SHA1_H
#define QD_SHA1_H

#include <stddef.h>

#define QD_SHA1_HEX_LEN 40

/* hex = the SHA-1 of data[0..len), 40 lowercase hex digits and a NUL. */
void qd_sha1_hex(const void *data, size_t len, char hex[QD_SHA1_HEX_LEN + 1]);

#endif
