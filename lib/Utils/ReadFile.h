//===- ReadFile.h - Reading a whole stream ----------------------*- C -*-===//
//
// For the tools, which read kernel files and artifacts whole. Pure C.
//
//===----------------------------------------------------------------------===//

#ifndef TILUS_LIB_UTILS_READFILE_H
#define TILUS_LIB_UTILS_READFILE_H

#include <stddef.h>
#include <stdio.h>

// Reads the rest of `file` into a malloc'ed buffer (the caller frees it)
// holding the `*length` bytes read and a NUL after them; NULL when reading
// fails or memory runs out. The file is not closed.
char *tilusReadStream(FILE *file, size_t *length);

#endif // TILUS_LIB_UTILS_READFILE_H
