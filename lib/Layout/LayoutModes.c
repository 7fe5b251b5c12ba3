/*===-- LayoutModes.c - A layout's thread index as mixed-radix digits ------===*\
|*                                                                            *|
|* Code generation computes a thread's coordinates f(t, 0) with a few         *|
|* divisions: each spatial factor splits its part of t into one digit per    *|
|* dimension, and each digit moves one output coordinate by a stride (the     *|
|* product of the shapes of the factors to its right).                        *|
\*===----------------------------------------------------------------------===*/

#include "LayoutInternal.h"

intptr_t tilusLayoutGetThreadModes(const TilusLayout *layout,
                                   TilusLayoutThreadMode *modes,
                                   intptr_t capacity) {
  int64_t rank = layout->rank;
  int64_t scale[TILUS_LAYOUT_RANK_CAP];
  for (int64_t d = 0; d < rank; ++d)
    scale[d] = 1;
  intptr_t count = 0;
  int64_t threadsRight = 1; /* threads of the factors to the right */
  for (int64_t k = layout->numFactors - 1; k >= 0; --k) {
    const TilusFactor *f = &layout->factors[k];
    if (f->kind == TILUS_FACTOR_SWIZZLE)
      return -1;
    if (f->kind == TILUS_FACTOR_SPATIAL) {
      /* The full list rep[0], shape[0], ..., shape[rank-1], rep[rank],
       * walked from its fastest entry. */
      int64_t divisor = threadsRight;
      for (int64_t q = 0; q < 2 * rank + 1; ++q) {
        int64_t entry = f->column ? q : 2 * rank - q;
        bool isRep = entry % 2 == 0;
        int64_t d = entry / 2;
        int64_t size = isRep ? f->rep[d] : f->shape[d];
        if (!isRep && size > 1) {
          if (count == capacity)
            return -1;
          modes[count++] =
              (TilusLayoutThreadMode){divisor, size, d, scale[d]};
        }
        divisor *= size;
      }
    }
    threadsRight *= f->numThreads;
    for (int64_t d = 0; d < rank; ++d)
      scale[d] *= f->shape[d];
  }
  return count;
}
