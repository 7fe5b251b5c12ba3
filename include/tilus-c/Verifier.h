/*===-- tilus-c/Verifier.h - The Tilus verifier ----------------------*- C -*-===*\
|*                                                                            *|
|* Checks what IRDL cannot: layouts against shapes and block sizes, View's    *|
|* bits per thread, Dot shapes and dtypes, offsets and tiles of transfers,    *|
|* kernel attributes and supported element types. Every rejection is an       *|
|* error diagnostic at the offending op's location (docs/verifier.md lists    *|
|* the rules).                                                                *|
\*===----------------------------------------------------------------------===*/

#ifndef TILUS_C_VERIFIER_H
#define TILUS_C_VERIFIER_H

#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Verifies `root` and everything nested in it; emits one error diagnostic per
 * violation and fails if there was any. The Tilus dialect must be loaded. */
MlirLogicalResult tilusVerify(MlirOperation root);

/* The `tilus-verify` pass: runs tilusVerify on the op it is scheduled on and
 * fails the pipeline if it fails. */
MlirPass tilusCreateVerifyPass(void);

#ifdef __cplusplus
}
#endif

#endif /* TILUS_C_VERIFIER_H */
