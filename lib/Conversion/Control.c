//===- Control.c - Synchronize, Exit --------------------------------------===//

#include "Lowering.h"

static MlirLogicalResult lowerSynchronize(MlirOperation op,
                                          MlirRewriterBase rewriter) {
  TilusEmitter e = tilusEmitterCreate(rewriter, op);
  tilusEmitOp(&e, "gpu.barrier", 0, NULL, 0, NULL, 0, NULL);
  mlirRewriterBaseEraseOp(rewriter, op);
  return mlirLogicalResultSuccess();
}

// Exit ends every thread of the block (PTX `exit`).
static MlirLogicalResult lowerExit(MlirOperation op, MlirRewriterBase rewriter) {
  TilusEmitter e = tilusEmitterCreate(rewriter, op);
  tilusEmitOp(&e, "nvvm.exit", 0, NULL, 0, NULL, 0, NULL);
  mlirRewriterBaseEraseOp(rewriter, op);
  return mlirLogicalResultSuccess();
}

static const TilusPattern kPatterns[] = {
    {"tilus.synchronize", lowerSynchronize},
    {"tilus.exit", lowerExit},
};

void tilusAddControlPatterns(MlirRewritePatternSet set, MlirContext ctx) {
  tilusAddPatterns(set, ctx, kPatterns, sizeof(kPatterns) / sizeof(kPatterns[0]));
}
