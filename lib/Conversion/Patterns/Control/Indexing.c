//===- Indexing.c - BlockIndices ------------------------------------------===//

#include "Patterns/Patterns.h"

static MlirLogicalResult lowerBlockIndices(TilusLowering *L, MlirOperation op,
                                           MlirRewriterBase rewriter) {
  TilusEmitter e = tilusEmitterCreate(L, rewriter, op);
  static const char *const dims[] = {"#gpu<dim x>", "#gpu<dim y>",
                                     "#gpu<dim z>"};
  intptr_t n = mlirOperationGetNumResults(op);
  MlirValue values[3];
  for (intptr_t k = 0; k < n && k < 3; ++k) {
    MlirNamedAttribute dim = tilusNamedAttr(
        e.ctx, "dimension",
        mlirAttributeParseGet(e.ctx, mlirStringRefCreateFromCString(dims[k])));
    values[k] = tilusEmitValue(&e, "gpu.block_id", 0, NULL,
                               tilusIndexType(e.ctx), 1, &dim);
  }
  mlirRewriterBaseReplaceOpWithValues(rewriter, op, n, values);
  return mlirLogicalResultSuccess();
}

static const TilusPattern kPatterns[] = {
    {"tilus.block_indices", lowerBlockIndices},
};

const TilusPattern *tilusGetIndexingPatterns(size_t *count) {
  *count = sizeof(kPatterns) / sizeof(kPatterns[0]);
  return kPatterns;
}
