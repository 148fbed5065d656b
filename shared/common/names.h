/* SPDX-License-Identifier: GPL-2.0-or-later
 * Names of users, accounts, QoS, partitions, nodes and clusters as qosdeny
 * stores them: in qosdeny.conf, usage records, spool file names and Redis
 * keys, where ':' and '/' separate them and "{C}" is a Redis hash tag.
 * docs/gpu-and-usage.md, "Names in the usage store".
 */
#ifndef QD_NAMES_H
#define QD_NAMES_H

#include <stdbool.h>
#include <stddef.h>

#define QD_NAME_MAX 64 /* QoS, account, user and cluster names */

/*
 * Whether s is a stored name: 1 to 63 characters of [A-Za-z0-9._@+$-] and
 * escapes "%XX" (two uppercase hex digits) of bytes outside that set,
 * exactly as qd_name_store writes them, so that every name Slurm gives has
 * one stored form and no stored name holds a separator; or "~" and 40
 * lowercase hex digits, the hashed form of a longer name.
 */
bool qd_usage_name_ok(const char *s);

/*
 * The stored form of a name as Slurm gives it: the name itself where every
 * byte is in the set above, else each byte outside it as "%XX". Reversible,
 * so one stored name is one Slurm name: an account typed as "a:b" is kept
 * as "a%3Ab", never dropped nor merged with another. A name whose form
 * that would be longer than 63 characters is stored as "~" and the SHA-1
 * of the name (41 characters): no escaped form starts with "~", which is
 * always escaped, and finding another name with the same SHA-1 is out of
 * reach, so it is still one name's. Its mapping back is the name itself
 * where it is stored: Slurm's association table, whose names `qosdeny
 * share` and the site factor store the same way (docs/gpu-and-usage.md,
 * "Names in the usage store"). Returns 0, or -1 when the name is empty.
 */
int qd_name_store(const char *name, char out[QD_NAME_MAX]);

/*
 * The escaped form of a name, of any length, for people: what `qosdeny
 * share` prints for a name stored hashed. A heap string, NULL when out of
 * memory.
 */
char *qd_name_shown(const char *name);

/*
 * The name whose escaped form is shown, into out (cap bytes, its NUL
 * included). Returns 0, or -1 when shown is empty, holds a byte that is
 * neither a name character nor a "%XX" escape of one other than NUL, or
 * its name does not fit.
 */
int qd_name_unescape(const char *shown, char *out, size_t cap);

#endif
