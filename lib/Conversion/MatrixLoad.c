//===- MatrixLoad.c - LoadShared through ldmatrix -------------------------===//

#include "Lowering.h"

MlirValue tilusEmitMatrixLoad(TilusEmitter *e, MlirOperation op,
                              MlirValue shared, MlirType resultType) {
  return (MlirValue){NULL};
}
