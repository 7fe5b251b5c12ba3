/*===-- LayoutFactors.c - The factor chain, for code generators -------------===*\
|*                                                                            *|
|* Public read-only access to the chain of factors behind a layout (see       *|
|* LayoutInternal.h), so that code generation can invert shared-memory        *|
|* layouts without knowing the representation.                               *|
\*===----------------------------------------------------------------------===*/

#include "LayoutInternal.h"

#include <string.h>

intptr_t tilusLayoutGetNumFactors(const TilusLayout *layout) {
  return (intptr_t)layout->numFactors;
}

void tilusLayoutGetFactor(const TilusLayout *layout, intptr_t k,
                          TilusLayoutFactor *factor) {
  const TilusFactor *f = &layout->factors[k];
  memset(factor, 0, sizeof(*factor));
  factor->kind = f->kind == TILUS_FACTOR_LOCAL     ? TilusLayoutFactorLocal
                 : f->kind == TILUS_FACTOR_SPATIAL ? TilusLayoutFactorSpatial
                                                   : TilusLayoutFactorSwizzle;
  factor->column = f->column;
  for (int64_t p = 0; p <= layout->rank; ++p)
    if (f->rep[p] > 1)
      factor->replicated = true;
  for (int64_t d = 0; d < layout->rank && d < TILUS_LAYOUT_MAX_RANK; ++d)
    factor->shape[d] = f->shape[d];
  factor->numThreads = f->numThreads;
  factor->localSize = f->localSize;
  factor->inner = f->inner;
  factor->dim = f->dim;
  factor->logStep = f->logStep;
}
