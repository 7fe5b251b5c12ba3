//===- PtrMap.c - Pointer-keyed hash map -----------------------------------===//
//
// Open addressing with linear probing; keys are the opaque pointers of
// uniqued MLIR objects (types, values), which never move while a pass runs.
//
//===----------------------------------------------------------------------===//

#include "PtrMap.h"

#include <stdint.h>
#include <stdlib.h>

static size_t slotOf(const void *key, size_t capacity) {
  uintptr_t h = (uintptr_t)key;
  h ^= h >> 17;
  h *= (uintptr_t)0x9E3779B97F4A7C15ull;
  h ^= h >> 29;
  return (size_t)h & (capacity - 1);
}

void tilusPtrMapRelease(TilusPtrMap *map) {
  free(map->keys);
  free(map->values);
  map->keys = NULL;
  map->values = NULL;
  map->capacity = map->size = 0;
}

void *tilusPtrMapLookup(const TilusPtrMap *map, const void *key) {
  if (!map->capacity)
    return NULL;
  for (size_t k = slotOf(key, map->capacity);; k = (k + 1) & (map->capacity - 1)) {
    if (map->keys[k] == key)
      return map->values[k];
    if (!map->keys[k])
      return NULL;
  }
}

static bool grow(TilusPtrMap *map) {
  size_t capacity = map->capacity ? 2 * map->capacity : 64;
  const void **keys = calloc(capacity, sizeof(*keys));
  void **values = calloc(capacity, sizeof(*values));
  if (!keys || !values) {
    free(keys);
    free(values);
    return false;
  }
  for (size_t j = 0; j < map->capacity; ++j) {
    if (!map->keys[j])
      continue;
    size_t k = slotOf(map->keys[j], capacity);
    while (keys[k])
      k = (k + 1) & (capacity - 1);
    keys[k] = map->keys[j];
    values[k] = map->values[j];
  }
  free(map->keys);
  free(map->values);
  map->keys = keys;
  map->values = values;
  map->capacity = capacity;
  return true;
}

bool tilusPtrMapInsert(TilusPtrMap *map, const void *key, void *value) {
  // At most half full, so probes stay short and always end at an empty slot.
  if (2 * (map->size + 1) > map->capacity && !grow(map))
    return false;
  size_t k = slotOf(key, map->capacity);
  while (map->keys[k] && map->keys[k] != key)
    k = (k + 1) & (map->capacity - 1);
  if (!map->keys[k])
    ++map->size;
  map->keys[k] = key;
  map->values[k] = value;
  return true;
}
