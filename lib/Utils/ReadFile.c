//===- ReadFile.c - Reading a whole stream ---------------------------------===//

#include "ReadFile.h"

#include <stdlib.h>

char *tilusReadStream(FILE *file, size_t *length) {
  size_t capacity = (size_t)1 << 16, size = 0;
  char *data = malloc(capacity);
  while (data) {
    // One byte stays free for the NUL.
    size_t n = fread(data + size, 1, capacity - size - 1, file);
    size += n;
    if (size + 1 < capacity)
      break; // a short read: the end, or an error (ferror says)
    char *grown = realloc(data, capacity * 2);
    if (!grown) {
      free(data);
      return NULL;
    }
    data = grown;
    capacity *= 2;
  }
  if (!data || ferror(file)) {
    free(data);
    return NULL;
  }
  data[size] = '\0';
  *length = size;
  return data;
}
