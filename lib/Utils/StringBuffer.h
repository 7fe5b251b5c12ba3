//===- StringBuffer.h - A growing NUL-terminated string ---------*- C -*-===//
//
// For printers and for MLIR's callbacks that deliver text in pieces. Pure C.
//
//===----------------------------------------------------------------------===//

#ifndef TILUS_LIB_UTILS_STRINGBUFFER_H
#define TILUS_LIB_UTILS_STRINGBUFFER_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
  char *data; // NUL-terminated once anything was appended; NULL before
  size_t length, capacity;
  bool failed; // an allocation failed: the text is incomplete
} TilusStringBuffer;

// Appends `length` bytes of `text` (growing the buffer).
void tilusStringBufferAppend(TilusStringBuffer *buffer, const char *text,
                             size_t length);
// Appends a NUL-terminated string.
void tilusStringBufferPut(TilusStringBuffer *buffer, const char *text);
// The text, handed to the caller (free() it); NULL if an allocation failed.
// The buffer is empty afterwards.
char *tilusStringBufferTake(TilusStringBuffer *buffer);
void tilusStringBufferRelease(TilusStringBuffer *buffer);

#endif // TILUS_LIB_UTILS_STRINGBUFFER_H
