//===- Why.h - A reason written into a caller's buffer ---------*- C -*-===//
//
// Checks that answer "can this be done?" return false and say why in a
// buffer the caller owns (`char *why, size_t size`, either may be 0/NULL).
// Pure C.
//
//===----------------------------------------------------------------------===//

#ifndef TILUS_LIB_UTILS_WHY_H
#define TILUS_LIB_UTILS_WHY_H

#include <stdbool.h>
#include <stddef.h>

// Formats the reason into `why` (at most `size` bytes, NUL-terminated) and
// returns false, so that a check can `return tilusWhy(...)`.
bool tilusWhy(char *why, size_t size, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#endif // TILUS_LIB_UTILS_WHY_H
