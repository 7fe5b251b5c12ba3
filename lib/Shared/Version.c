//===- Version.c - The version a shared library was built as -------------===//

#include "tilus-c/Version.h"

const char *tilusGetVersion(void) { return TILUS_VERSION_STRING; }
