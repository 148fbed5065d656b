/* SPDX-License-Identifier: GPL-2.0-or-later
 * docs/fair-share.md's example ("qosdeny share"; also in qosdeny(1)) as
 * `qosdeny share -P` prints it: accounts research (FairShare=500; alice and
 * bob, 1 share each) and batch (100; charlie), after 3600 GPU-seconds each
 * for alice and bob and 1800 for charlie. The tests that reproduce it
 * compare against this one copy.
 */
#ifndef QD_TEST_CONTRACT_EXAMPLE_H
#define QD_TEST_CONTRACT_EXAMPLE_H

static const char contract_table[] =
    "Account|User|RawShares|NormShares|RawUsage|EffectvUsage|FairShare\n"
    "batch||100|0.166667|1800|0.200000|0.435275\n"
    "batch|charlie|1|0.166667|1800|0.200000|0.435275\n"
    "research||500|0.833333|7200|0.800000|0.514057\n"
    "research|alice|1|0.416667|3600|0.400000|0.514057\n"
    "research|bob|1|0.416667|3600|0.400000|0.514057\n";

#endif
