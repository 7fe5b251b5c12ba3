//===- VerifyPass.c - The tilus-verify pass -------------------------------===//

#include "tilus-c/Verifier.h"

#include <stdalign.h>
#include <string.h>

// Distinct, aligned addresses serve as the passes' TypeIDs.
static const alignas(8) char verifyPassID = 0;

static void construct(void *userData) {}
static void destruct(void *userData) {}
static void *clonePass(void *userData) { return userData; }

static void run(MlirOperation op, MlirExternalPass pass, void *userData) {
  if (mlirLogicalResultIsFailure(tilusVerify(op)))
    mlirExternalPassSignalFailure(pass);
}

MlirPass tilusCreateVerifyPass(void) {
  MlirExternalPassCallbacks callbacks = {construct, destruct, NULL, clonePass,
                                         run};
  return mlirCreateExternalPass(
      mlirTypeIDCreate(&verifyPassID),
      mlirStringRefCreateFromCString("TilusVerify"),
      mlirStringRefCreateFromCString("tilus-verify"),
      mlirStringRefCreateFromCString(
          "Check Tilus IR against the rules IRDL cannot express"),
      mlirStringRefCreateFromCString(""), 0, NULL, callbacks, NULL);
}
