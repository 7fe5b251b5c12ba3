//===- DataMovementPlanTest.c - The plans of Reduce and layout changes ----===//
//
// The closed-form plans of tilus-c/DataMovement.h against brute force: the
// Reduce plan's three stages (slots, butterflies over the lane masks, rows of
// shared scratch) are simulated on the CPU for every thread and slot, and
// must give every thread the exact sums of the elements its result slots
// hold (integer data, so any order is exact), with no two threads writing
// different values to one scratch cell; a move plan in registers must give
// every (thread, slot) of the result the element it names. Layouts that need
// shared memory or shuffles are checked to be planned so.
//
//===----------------------------------------------------------------------===//

#include "tilus-c/DataMovement.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int numPassed, numFailed;

#define CHECK(cond, ...)                                                       \
  do {                                                                         \
    if (cond) {                                                                \
      ++numPassed;                                                             \
    } else {                                                                   \
      ++numFailed;                                                             \
      printf("FAIL %s:%d: ", __FILE__, __LINE__);                              \
      printf(__VA_ARGS__);                                                     \
      printf("\n");                                                            \
    }                                                                          \
  } while (0)

static TilusLayout *parse(const char *text) {
  TilusLayoutError err;
  TilusLayout *l = tilusLayoutParse(text, strlen(text), &err);
  if (!l)
    printf("cannot parse %s: %s\n", text, err.message);
  return l;
}

static int64_t linear(const TilusLayout *l, const int64_t *index) {
  int64_t a = 0;
  for (intptr_t d = 0; d < tilusLayoutGetRank(l); ++d)
    a = a * tilusLayoutGetDim(l, d) + index[d];
  return a;
}

// Reduces `text` over `dims` by the plan and by brute force; `lanes` and
// `partials` are the expected number of lane masks and scratch rows.
static void checkReduce(const char *text, int numDims, const int64_t *dims,
                        int lanes, int64_t partials) {
  TilusLayout *src = parse(text);
  TilusLayoutError err;
  TilusLayout *dst = src ? tilusLayoutReduce(src, numDims, dims, &err) : NULL;
  TilusReducePlan plan;
  bool planned =
      dst && tilusReducePlanCreate(src, dst, numDims, dims, &plan, &err);
  CHECK(planned, "%s: no plan: %s", text, err.message);
  if (!planned) {
    tilusLayoutDestroy(src);
    tilusLayoutDestroy(dst);
    return;
  }
  CHECK(plan.numLaneMasks == lanes && plan.numPartials == partials,
        "%s: %d lane masks and %lld partials, expected %d and %lld", text,
        plan.numLaneMasks, (long long)plan.numPartials, lanes,
        (long long)partials);
  int64_t T = tilusLayoutGetNumThreads(src), m = plan.numSlots,
          mr = plan.numResultSlots, n = tilusLayoutGetNumElements(src);
  intptr_t rank = tilusLayoutGetRank(src);
  int64_t *data = malloc(sizeof(int64_t) * (size_t)n);
  int64_t *part = calloc((size_t)(T * mr), sizeof(int64_t));
  int64_t *next = calloc((size_t)(T * mr), sizeof(int64_t));
  int64_t cells = plan.numPartials * plan.resultElements;
  int64_t *scratch = calloc((size_t)cells, sizeof(int64_t));
  bool *written = calloc((size_t)cells, sizeof(bool));
  for (int64_t k = 0; k < n; ++k)
    data[k] = (k * 7919) % 1000 - 500;
  // (a)
  for (int64_t t = 0; t < T; ++t)
    for (int64_t i = 0; i < m; ++i) {
      int64_t index[TILUS_LAYOUT_MAX_RANK];
      tilusLayoutEvaluate(src, t, i, index);
      part[t * mr + plan.slotOf[i]] += data[linear(src, index)];
    }
  // (b)
  for (int k = 0; k < plan.numLaneMasks; ++k) {
    for (int64_t t = 0; t < T; ++t)
      for (int64_t j = 0; j < mr; ++j)
        next[t * mr + j] =
            part[t * mr + j] + part[(t ^ plan.laneMasks[k]) * mr + j];
    memcpy(part, next, sizeof(int64_t) * (size_t)(T * mr));
  }
  // (c)
  bool agree = true;
  if (plan.numPartials > 1) {
    for (int64_t t = 0; t < T; ++t) {
      int64_t row = 0, radix = 1;
      for (intptr_t k = 0; k < plan.numSharedModes; ++k) {
        const TilusLayoutThreadMode *md = &plan.sharedModes[k];
        row += (t / md->divisor) % md->modulus * radix;
        radix *= md->modulus;
      }
      for (int64_t j = 0; j < mr; ++j) {
        int64_t index[TILUS_LAYOUT_MAX_RANK];
        tilusLayoutEvaluate(dst, t, j, index);
        int64_t cell = row * plan.resultElements + linear(dst, index);
        agree &= !written[cell] || scratch[cell] == part[t * mr + j];
        scratch[cell] = part[t * mr + j];
        written[cell] = true;
      }
    }
    for (int64_t t = 0; t < T; ++t)
      for (int64_t j = 0; j < mr; ++j) {
        int64_t index[TILUS_LAYOUT_MAX_RANK], sum = 0;
        tilusLayoutEvaluate(dst, t, j, index);
        for (int64_t r = 0; r < plan.numPartials; ++r)
          sum += scratch[r * plan.resultElements + linear(dst, index)];
        part[t * mr + j] = sum;
      }
  }
  CHECK(agree, "%s: two threads write different partials to one cell", text);
  // Brute force: the sum over the reduced dims of each result element.
  bool exact = true;
  for (int64_t t = 0; t < T && exact; ++t)
    for (int64_t j = 0; j < mr && exact; ++j) {
      int64_t kept[TILUS_LAYOUT_MAX_RANK], sum = 0;
      tilusLayoutEvaluate(dst, t, j, kept);
      for (int64_t k = 0; k < n; ++k) {
        int64_t index[TILUS_LAYOUT_MAX_RANK], rest = k;
        for (intptr_t d = rank - 1; d >= 0; --d) {
          index[d] = rest % tilusLayoutGetDim(src, d);
          rest /= tilusLayoutGetDim(src, d);
        }
        bool match = true;
        for (intptr_t d = 0, e = 0; d < rank; ++d) {
          bool reduced = false;
          for (int r = 0; r < numDims; ++r)
            reduced |= dims[r] == d;
          if (!reduced)
            match &= index[d] == kept[e++];
        }
        if (match)
          sum += data[k];
      }
      exact = sum == part[t * mr + j];
      CHECK(exact, "%s: thread %lld slot %lld has %lld, expected %lld", text,
            (long long)t, (long long)j, (long long)part[t * mr + j],
            (long long)sum);
    }
  free(data), free(part), free(next), free(scratch), free(written);
  tilusReducePlanRelease(&plan);
  tilusLayoutDestroy(src);
  tilusLayoutDestroy(dst);
}

typedef enum { InRegisters, ByShuffles, ThroughShared } Path;

// A move from `from` to `to` with result address steps `coef`, expected to
// take `path`; a register or shuffle plan must give every (thread, slot) of
// the result the element it names.
static void checkMove(const char *from, const char *to, const int64_t *coef,
                      Path path) {
  TilusLayout *src = parse(from), *dst = parse(to);
  TilusMovePlan plan;
  TilusLayoutError err;
  bool planned =
      src && dst && tilusMovePlanCreateFromLayouts(src, dst, coef, &plan, &err);
  CHECK(planned, "%s -> %s: no plan", from, to);
  if (planned) {
    Path got = plan.inRegisters                  ? InRegisters
               : tilusMoveUsesShuffle(&plan, 32) ? ByShuffles
                                                 : ThroughShared;
    CHECK(got == path, "%s -> %s: path %d, expected %d", from, to, (int)got,
          (int)path);
    bool right = true;
    int64_t T = tilusLayoutGetNumThreads(dst);
    for (int64_t t = 0; got != ThroughShared && right && t < T; ++t)
      for (int64_t j = 0; right && j < plan.numResultSlots; ++j) {
        int64_t q[TILUS_LAYOUT_MAX_RANK], p[TILUS_LAYOUT_MAX_RANK], a = 0;
        tilusLayoutEvaluate(dst, t, j, q);
        for (intptr_t k = 0; k < tilusLayoutGetRank(dst); ++k)
          a += q[k] * coef[k];
        int64_t thread = t, slot = j;
        if (got == InRegisters) {
          slot = plan.slotOf[j];
        } else {
          // The lane the shuffle reads, in the same warp.
          const TilusLaneDigit *sd = plan.laneDigits;
          const TilusLaneDigit *dd = plan.laneDigits + plan.numSrcLaneDigits;
          int64_t lane = t % TILUS_WARP_SIZE, b = 0, source = 0;
          for (intptr_t k = 0; k < plan.numDstLaneDigits; ++k)
            b += lane / dd[k].divisor % dd[k].modulus * dd[k].scale;
          for (intptr_t k = 0; k < plan.numSrcLaneDigits; ++k)
            source += b / sd[k].scale % sd[k].modulus * sd[k].divisor;
          thread = t - lane + source;
        }
        tilusLayoutEvaluate(src, thread, slot, p);
        right = linear(src, p) == a;
      }
    CHECK(right, "%s -> %s: a slot gets another element", from, to);
    tilusMovePlanRelease(&plan);
  }
  tilusLayoutDestroy(src);
  tilusLayoutDestroy(dst);
}

int main(void) {
  const int64_t d0[] = {0}, d1[] = {1}, d01[] = {0, 1}, d2[] = {2},
                d02[] = {0, 2};
  // In a thread only.
  checkReduce("spatial(32,1).local(1,8)", 1, d1, 0, 1);
  // Lanes: masks 1, 2 (rows) and 4, 8, 16 (columns).
  checkReduce("spatial(8,4).local(4,2)", 1, d1, 2, 1);
  checkReduce("spatial(8,4).local(4,2)", 1, d0, 3, 1);
  // Lanes and 4 warps.
  checkReduce("local(8,1).spatial(1,128).local(1,2)", 1, d1, 5, 4);
  // Warps only.
  checkReduce("spatial(4,32).local(4,2)", 1, d0, 0, 4);
  // A lane digit that is not a power of two goes through shared memory.
  checkReduce("spatial(2,3,4).local(1,1,2)", 1, d1, 0, 3);
  // A digit across the warp boundary: lanes 4, 8, 16 and 2 warps.
  checkReduce("spatial(2,16,4).local(2,1,1)", 1, d1, 3, 2);
  // Replicated input threads and two reduced dims.
  checkReduce("reduce(spatial(2,4,4,4),dims=[0]).local(2,2,2)", 2, d02, 3, 2);
  checkReduce("local(2,1,2).spatial(4,2,4)", 2, d01, 3, 1);
  checkReduce("local(2,1,2).spatial(4,2,4)", 1, d2, 2, 1);
  checkReduce("column_spatial(4,8).local(2,2)", 1, d0, 2, 1);

  const int64_t rowMajor328[] = {8, 1}, transpose[] = {1, 8}, flat[] = {1},
                three[] = {256, 8, 1};
  // mma accumulator to a row per thread: shared memory.
  checkMove("local(2,1).spatial(8,4).local(2,2)", "spatial(32,1).local(1,8)",
            rowMajor328, ThroughShared);
  // Column-major slots: a slot permutation.
  checkMove("local(2,1).spatial(8,4).local(2,2)",
            "local(2,1).spatial(8,4).column_local(2,2)", rowMajor328,
            InRegisters);
  // Threads exchanged within a warp: shuffles, on one warp and on four.
  checkMove("spatial(8,4).local(4,2)", "column_spatial(8,4).local(4,2)",
            rowMajor328, ByShuffles);
  const int64_t rowMajor6432[] = {32, 1};
  checkMove("spatial(4,1).spatial(4,8).local(4,4)",
            "spatial(4,1).column_spatial(4,8).local(4,4)", rowMajor6432,
            ByShuffles);
  // Lanes that move to another warp: shared memory.
  checkMove("spatial(16,8).local(4,4)", "column_spatial(16,8).local(4,4)",
            rowMajor6432, ThroughShared);
  // 48 threads: a digit across the warp that does not split there.
  const int64_t rowMajor384[] = {32, 4, 1};
  checkMove("spatial(3,4,4).local(1,2,1)",
            "spatial(3,1,1).column_spatial(1,4,4).local(1,2,1)", rowMajor384,
            ThroughShared);
  // 48 threads whose source digits merge into one digit of 48 (4 t): it
  // does not split at the warp with a modulus, so no shuffles (a safe
  // answer: shared memory).
  const int64_t rowMajor3416[] = {64, 16, 1};
  checkMove("spatial(3,4,4).local(1,1,4)",
            "spatial(3,1,1).column_spatial(1,4,4).local(1,1,4)", rowMajor3416,
            ThroughShared);
  // A block smaller than a warp.
  const int64_t rowMajor84[] = {4, 1};
  checkMove("spatial(4,2).local(2,2)", "column_spatial(4,2).local(2,2)",
            rowMajor84, ByShuffles);
  // Transposes: the transposed layout in registers, another one not.
  checkMove("local(2,1).spatial(8,4).local(2,2)",
            "column_local(1,2).column_spatial(4,8).column_local(2,2)",
            transpose, InRegisters);
  checkMove("local(2,1).spatial(8,4).local(2,2)", "spatial(8,4).local(1,8)",
            transpose, ThroughShared);
  // Reshapes: flatten and unsqueeze in registers.
  checkMove("spatial(32,1).local(1,8)", "spatial(32).local(8)", flat,
            InRegisters);
  checkMove("spatial(32,1).local(1,8)", "spatial(1,32,1).local(1,1,8)", three,
            InRegisters);
  // A reduced dimension put back with size 1 (keepdim).
  const int64_t kept[] = {1, 1};
  checkMove("reduce(spatial(8,4),dims=[1]).local(4)",
            "reduce(spatial(8,4,1),dims=[1]).local(4,1)", kept, InRegisters);
  // A flatten whose threads split rows differently: shared memory.
  checkMove("spatial(8,4).local(4,2)", "spatial(32).local(8)", flat,
            ThroughShared);
  // Replication on one side only.
  checkMove("reduce(spatial(2,32),dims=[0]).local(8)", "spatial(64).local(4)",
            flat, ThroughShared);
  printf("data movement plan tests: %d passed, %d failed\n", numPassed,
         numFailed);
  return numFailed ? 1 : 0;
}
