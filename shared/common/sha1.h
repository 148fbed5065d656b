/* SPDX-License-Identifier: GPL-2.0-or-later
 * SHA-1 (FIPS 180-4), for one purpose: naming a Lua script as Redis does
 * (EVALSHA takes the SHA-1 of the script's text, in lowercase hex), so a
 * process can run a script by its SHA without asking the server for it
 * first (SCRIPT LOAD). Not for anything that needs a secure hash.
 */
#ifndef QD_SHA1_H
#define QD_SHA1_H

#include <stddef.h>

#define QD_SHA1_HEX_LEN 40

/* hex = the SHA-1 of data[0..len), 40 lowercase hex digits and a NUL. */
void qd_sha1_hex(const void *data, size_t len, char hex[QD_SHA1_HEX_LEN + 1]);

#endif
