//===- InputCheck.h - Input the MLIR 22 parser cannot take ------*- C -*-===//

#ifndef TILUS_TOOLS_TILUS_OPT_INPUTCHECK_H
#define TILUS_TOOLS_TILUS_OPT_INPUTCHECK_H

#include "mlir-c/IR.h"

#include <stdbool.h>
#include <stddef.h>

// Looks for text that crashes MLIR 22's own parser before it is parsed: a
// dense array of `index` (`array<index: 1>`, llvm/llvm-project#179045, fixed
// after release 22 by #179075). Outside comments and string literals, the
// first such text is reported as an error at its line and column (in the
// buffer "-", as the parser names it) and false is returned.
bool tilusOptCheckInput(MlirContext ctx, const char *text, size_t length);

#endif // TILUS_TOOLS_TILUS_OPT_INPUTCHECK_H
