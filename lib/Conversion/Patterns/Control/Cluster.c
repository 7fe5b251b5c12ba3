//===- Cluster.c - Thread-block clusters: rank, cluster barrier -----------===//
//
// A kernel with tilus.cluster runs its blocks in clusters (sm_90+): the
// verifier admits these ops only there, so the target has clusters.
//
//===----------------------------------------------------------------------===//

#include "Patterns/Patterns.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

// ClusterBlockRank: %cluster_ctarank, the block's rank in its cluster.
static MlirLogicalResult lowerClusterBlockRank(TilusLowering *L,
                                               MlirOperation op,
                                               MlirRewriterBase rewriter) {
  TilusEmitter e = tilusEmitterCreate(L, rewriter, op);
  MlirValue rank =
      tilusEmitValue(&e, "nvvm.read.ptx.sreg.cluster.ctarank", 0, NULL,
                     mlirIntegerTypeGet(e.ctx, 32), 0, NULL);
  MlirValue index = tilusEmitValue(&e, "arith.index_castui", 1, &rank,
                                   tilusIndexType(e.ctx), 0, NULL);
  mlirRewriterBaseReplaceOpWithValues(rewriter, op, 1, &index);
  return mlirLogicalResultSuccess();
}

// ClusterSynchronize: barrier.cluster.arrive (release) then .wait
// (acquire), both .aligned, as the convergent NVVM intrinsics.
static MlirLogicalResult lowerClusterSynchronize(TilusLowering *L,
                                                 MlirOperation op,
                                                 MlirRewriterBase rewriter) {
  TilusEmitter e = tilusEmitterCreate(L, rewriter, op);
  MlirNamedAttribute aligned =
      tilusNamedAttr(e.ctx, "aligned", mlirUnitAttrGet(e.ctx));
  tilusEmitOp(&e, "nvvm.cluster.arrive", 0, NULL, 0, NULL, 1, &aligned);
  tilusEmitOp(&e, "nvvm.cluster.wait", 0, NULL, 0, NULL, 1, &aligned);
  mlirRewriterBaseEraseOp(rewriter, op);
  return mlirLogicalResultSuccess();
}

static const TilusPattern kPatterns[] = {
    {"tilus.cluster_block_rank", lowerClusterBlockRank},
    {"tilus.cluster_synchronize", lowerClusterSynchronize},
};

const TilusPattern *tilusGetClusterPatterns(size_t *count) {
  *count = sizeof(kPatterns) / sizeof(kPatterns[0]);
  return kPatterns;
}
