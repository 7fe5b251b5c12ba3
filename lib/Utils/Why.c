//===- Why.c - A reason written into a caller's buffer --------------------===//

#include "Utils/Why.h"

#include <stdarg.h>
#include <stdio.h>

bool tilusWhy(char *why, size_t size, const char *format, ...) {
  if (why && size) {
    va_list args;
    va_start(args, format);
    vsnprintf(why, size, format, args);
    va_end(args);
  }
  return false;
}
