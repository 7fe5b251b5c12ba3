/*===-- tilus-c/Dialect.h - Loading the Tilus dialect ----------------*- C -*-===*\
|*                                                                            *|
|* The Tilus dialect is declared in IRDL (dialect/tilus.irdl.mlir). The file  *|
|* is embedded in this library, so loading it needs no data file.             *|
\*===----------------------------------------------------------------------===*/

#ifndef TILUS_C_DIALECT_H
#define TILUS_C_DIALECT_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The dialect's namespace, "tilus". */
MlirStringRef tilusDialectGetNamespace(void);

/* The IRDL source of the dialect, as embedded at build time. */
MlirStringRef tilusDialectGetSource(void);

/* Loads the Tilus dialect (and the IRDL dialect it is declared with) into
 * `ctx`. Loading twice is harmless. Fails, with a diagnostic on the context,
 * only if the embedded IRDL cannot be parsed or loaded. */
MlirLogicalResult tilusDialectLoad(MlirContext ctx);

/* A new context ready for Tilus programs: every upstream dialect registered
 * (the lowering produces gpu, nvvm, llvm, arith, scf and vector ops) and the
 * Tilus dialect loaded. Returns a null context if loading fails, which only a
 * broken build can cause. The caller destroys it with mlirContextDestroy. */
MlirContext tilusContextCreate(void);

/* Whether the Tilus dialect is loaded in `ctx`. */
bool tilusDialectIsLoaded(MlirContext ctx);

/* MLIR 22's own parser crashes on some text: a dense array of `index`
 * (`array<index: 1>`, llvm/llvm-project#179045, fixed after release 22).
 * Whether `text` is free of it, outside `//` comments and string literals;
 * when not, `*offset` (if not NULL) is where the first occurrence starts. Call
 * it before parsing untrusted text (mlirModuleCreateParse, mlirTypeParseGet,
 * mlirAttributeParseGet); tilus-opt does. */
bool tilusSourceIsSafeToParse(MlirStringRef text, size_t *offset);

/* tilusSourceIsSafeToParse, reported: when `text` is not safe, emits an
 * error at its line and column in the buffer "-" (as mlirModuleCreateParse
 * names text parsed from memory) and fails. */
MlirLogicalResult tilusSourceCheck(MlirContext ctx, MlirStringRef text);

#ifdef __cplusplus
}
#endif

#endif /* TILUS_C_DIALECT_H */
