//===- DynamicParams.h - Reading parameters of IRDL types ------*- C -*-===//
//
// The MLIR C API has no accessor for the parameters of IRDL (dynamic) types
// and attributes, but their printed form is fixed: `!tilus.name<p0, p1, ...>`.
// These helpers print an entity and split its parameter list at top-level
// commas, so each parameter can be parsed back as an attribute or a type.
//
//===----------------------------------------------------------------------===//

#ifndef TILUS_LIB_DIALECT_DYNAMICPARAMS_H
#define TILUS_LIB_DIALECT_DYNAMICPARAMS_H

#include "mlir-c/IR.h"

#include <stdbool.h>
#include <stddef.h>

#define TILUS_MAX_DYNAMIC_PARAMS 4

typedef struct {
  char *text; // the whole printed entity, owned
  int numParams;
  MlirStringRef params[TILUS_MAX_DYNAMIC_PARAMS]; // slices of `text`
} TilusDynamicParams;

// Prints `type`; true if it is `<name><...>` (e.g. name = "!tilus.register")
// with at most TILUS_MAX_DYNAMIC_PARAMS parameters, which are then split out.
// On success the caller calls tilusDynamicParamsRelease.
bool tilusDynamicTypeParams(MlirType type, const char *name,
                            TilusDynamicParams *out);
bool tilusDynamicAttrParams(MlirAttribute attr, const char *name,
                            TilusDynamicParams *out);
void tilusDynamicParamsRelease(TilusDynamicParams *params);

// A parameter parsed back as a type or an attribute, or null when it is not
// one (an IRDL `any` parameter may hold either). The parser's own
// diagnostics, located in the parameter's text, are swallowed: the caller
// reports the failure where the entity is used.
MlirType tilusParseParamType(MlirContext ctx, MlirStringRef text);
MlirAttribute tilusParseParamAttr(MlirContext ctx, MlirStringRef text);

// Whether the printed form of `type` starts with `<name><` or equals `name`.
bool tilusTypeHasName(MlirType type, const char *name);
bool tilusAttrHasName(MlirAttribute attr, const char *name);

// Printing into malloc'ed strings (the caller frees them).
char *tilusPrintTypeToString(MlirType type);
char *tilusPrintAttrToString(MlirAttribute attr);

#endif // TILUS_LIB_DIALECT_DYNAMICPARAMS_H
