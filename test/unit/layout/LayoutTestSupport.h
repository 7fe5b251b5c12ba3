/*===-- LayoutTestSupport.h - Shared pieces of the layout tests ----*- C -*-===*\
|*                                                                            *|
|* The check macros and counters, small helpers, and the reference model:    *|
|* primitives evaluated by the paper's formulas and composition by its       *|
|* recursive definition, independent of the code under test.                 *|
\*===----------------------------------------------------------------------===*/

#ifndef TILUS_TEST_LAYOUTTESTSUPPORT_H
#define TILUS_TEST_LAYOUTTESTSUPPORT_H

#include "tilus-c/Layout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int gPassed, gFailed;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (cond) {                                                                \
      ++gPassed;                                                               \
    } else {                                                                   \
      ++gFailed;                                                               \
      printf("%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);         \
    }                                                                          \
  } while (0)

/* Like CHECK, with the layout text for context. */
#define CHECK_L(cond, text)                                                    \
  do {                                                                         \
    if (cond) {                                                                \
      ++gPassed;                                                               \
    } else {                                                                   \
      ++gFailed;                                                               \
      printf("%s:%d: check failed: %s [%s]\n", __FILE__, __LINE__, #cond,      \
             (text) ? (text) : "(null)");                                      \
    }                                                                          \
  } while (0)

/*--- Small helpers ------------------------------------------------------------*/

enum { M_LOCAL, M_SPATIAL, M_SWIZZLE };

/* A primitive over a full shape whose `dropped` dims are not output (only
 * spatial ones), or a swizzle of local(full[0], full[1]). */
typedef struct {
  int kind;
  bool column;
  int fullRank;
  int64_t full[4];
  bool dropped[4];
  int64_t dim, logStep; /* swizzle */
} MPrim;

typedef struct {
  int n;
  MPrim p[6];
  int minRank; /* the chain's rank when no factor reaches it (after reduce) */
} Model;

TilusLayout *parse(const char *text);
TilusLayout *local2(int64_t a, int64_t b);
TilusLayout *spatial2(int64_t a, int64_t b);
TilusLayout *compose3(const TilusLayout *a, const TilusLayout *b, const TilusLayout *c);
bool sameIndex(const int64_t *a, const int64_t *b, int64_t rank);
bool printsAs(const TilusLayout *layout, const char *expected);
uint64_t nextRandom(uint64_t *state);
int64_t randomBelow(uint64_t *state, int64_t n);
int primRank(const MPrim *p);
int modelRank(const Model *m);
int64_t primSize(const MPrim *p);
int64_t primThreads(const MPrim *p);
int64_t primLocal(const MPrim *p);
void primShape(const MPrim *p, int rank, int64_t *shape);
void primEval(const MPrim *p, int rank, int64_t t, int64_t i, int64_t *out);
int64_t modelThreads(const Model *m, int from, int to);
int64_t modelLocal(const Model *m, int from, int to);
void modelShape(const Model *m, int from, int to, int rank, int64_t *shape);
void modelEvalRange(const Model *m, int n, int rank, int64_t t, int64_t i, int64_t *out);
void modelEval(const Model *m, int64_t t, int64_t i, int64_t *out);
TilusLayout *buildLayout(const Model *m);
bool matchesModel(const TilusLayout *layout, const Model *m);
Model randomModel(uint64_t *rng, int64_t maxSize, int maxFactors, bool fancy);

/* The test groups, one file each. */
void testFigure3(void);
void testFigure4(void);
void testFigure5(void);
void testQueries(void);
void testLimits(void);
void testRandomChains(void);
void testAssociativity(void);
void testDivide(void);
void testBroadcast(void);
void testReduce(void);
void testSwizzle(void);
void testPaperLayouts(void);
void testTextMisc(void);
void testQueriesAgainstOracle(void);
void testFragmentsAgainstOracle(void);
void testBroadcastSlots(void);
void testMmaShared(void);
void testTranspose(void);

#endif /* TILUS_TEST_LAYOUTTESTSUPPORT_H */
