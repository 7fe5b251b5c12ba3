//===- StringBuffer.c - A growing NUL-terminated string -------------------===//

#include "StringBuffer.h"

#include <stdlib.h>
#include <string.h>

void tilusStringBufferAppend(TilusStringBuffer *buffer, const char *text,
                             size_t length) {
  if (buffer->failed)
    return;
  if (buffer->length + length + 1 > buffer->capacity) {
    size_t capacity = buffer->capacity ? buffer->capacity : 64;
    while (buffer->length + length + 1 > capacity)
      capacity *= 2;
    char *data = realloc(buffer->data, capacity);
    if (!data) {
      buffer->failed = true;
      return;
    }
    buffer->data = data;
    buffer->capacity = capacity;
  }
  memcpy(buffer->data + buffer->length, text, length);
  buffer->length += length;
  buffer->data[buffer->length] = '\0';
}

void tilusStringBufferPut(TilusStringBuffer *buffer, const char *text) {
  tilusStringBufferAppend(buffer, text, strlen(text));
}

char *tilusStringBufferTake(TilusStringBuffer *buffer) {
  char *data = buffer->failed ? NULL : buffer->data;
  if (buffer->failed)
    free(buffer->data);
  else if (!data)
    data = calloc(1, 1); // nothing appended: the empty string
  buffer->data = NULL;
  buffer->length = buffer->capacity = 0;
  buffer->failed = false;
  return data;
}

void tilusStringBufferRelease(TilusStringBuffer *buffer) {
  free(tilusStringBufferTake(buffer));
}
