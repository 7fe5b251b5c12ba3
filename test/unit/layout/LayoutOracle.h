/*===-- LayoutOracle.h - Brute-force layout queries, for the tests -*- C -*-===*\
|*                                                                            *|
|* The queries as they were before the closed forms: each walks every        *|
|* (thread, slot) pair through tilusLayoutEvaluate. The library no longer    *|
|* uses these; the tests check the closed forms against them.                *|
\*===----------------------------------------------------------------------===*/

#ifndef TILUS_TEST_LAYOUTORACLE_H
#define TILUS_TEST_LAYOUTORACLE_H

#include "tilus-c/Layout.h"

bool oracleEqual(const TilusLayout *a, const TilusLayout *b);
bool oracleLocate(const TilusLayout *layout, const int64_t *index,
                  int64_t *thread, int64_t *local);
/* oracleLocate for every index at once, in one walk: first[e] = t * m + i
 * for the first (t, i) holding the row-major element e, or -1. */
void oracleLocateAll(const TilusLayout *layout, int64_t *first);
bool oracleIsValid(const TilusLayout *layout);
int64_t oracleContiguity(const TilusLayout *layout);
/* The semantics of tilusSharedRunsAreContiguous (lib/Conversion). */
bool oracleRunsAreContiguous(const TilusLayout *layout, int64_t v);

/* The greedy walk of tilusFindFragments (lib/Conversion/.../Fragments.c),
 * any rank, with the pattern given by its modes: the same answer, slots and
 * bases as tilusLayoutMatchFragment must give. */
bool oracleMatchFragment(const TilusLayout *layout,
                         const TilusLayoutFragment *fragment, int64_t *slots,
                         int64_t *bases);

#endif /* TILUS_TEST_LAYOUTORACLE_H */
