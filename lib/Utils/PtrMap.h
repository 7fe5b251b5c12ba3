//===- PtrMap.h - A map keyed by pointers -----------------------*- C -*-===//
//
// Maps opaque pointers (of uniqued MLIR objects: types, values,
// identifiers, or of layouts) to pointers, growing as needed. Used by the
// dialect's type cache and the lowering's caches. Pure C.
//
//===----------------------------------------------------------------------===//

#ifndef TILUS_LIB_UTILS_PTRMAP_H
#define TILUS_LIB_UTILS_PTRMAP_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
  const void **keys;
  void **values;
  size_t capacity, size;
} TilusPtrMap;

// Empty maps are zero-initialized; release frees the table (not the values).
void tilusPtrMapRelease(TilusPtrMap *map);
// The value of `key`, or NULL.
void *tilusPtrMapLookup(const TilusPtrMap *map, const void *key);
// Sets the value of `key` (not NULL); false when memory runs out.
bool tilusPtrMapInsert(TilusPtrMap *map, const void *key, void *value);

#endif // TILUS_LIB_UTILS_PTRMAP_H
