//===- Ptx.h - A lowered gpu.module to PTX ------------------------*- C -*-===//

#ifndef TILUS_LIB_TARGET_PTX_H
#define TILUS_LIB_TARGET_PTX_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"
#include "tilus-c/TargetInfo.h"

// Writes the PTX of `gpuModule` (a gpu.module lowered by lower-to-nvvm) for
// `target` through `callback`, in one call. `gpuModule` is not changed.
// Fails with a diagnostic (on the module, or on the op that cannot be
// translated) and writes nothing.
MlirLogicalResult tilusTranslateToPtx(MlirOperation gpuModule,
                                      const TilusTargetInfo *target,
                                      MlirStringCallback callback,
                                      void *userData);

#endif // TILUS_LIB_TARGET_PTX_H
