//===- TypeCache.c - Decoded tensor types, once per type -------------------===//

#include "tilus-c/Types.h"

#include "Utils/PtrMap.h"

#include <stdlib.h>

struct TilusTypeCache {
  TilusPtrMap decoded; // MlirType -> TilusTensorType* (owned)
};

TilusTypeCache *tilusTypeCacheCreate(void) {
  return calloc(1, sizeof(TilusTypeCache));
}

void tilusTypeCacheDestroy(TilusTypeCache *cache) {
  if (!cache)
    return;
  for (size_t k = 0; k < cache->decoded.capacity; ++k) {
    TilusTensorType *t = cache->decoded.values[k];
    if (!cache->decoded.keys[k] || !t)
      continue;
    tilusTensorTypeRelease(t);
    free(t);
  }
  tilusPtrMapRelease(&cache->decoded);
  free(cache);
}

const TilusTensorType *tilusTypeCacheGetTensor(TilusTypeCache *cache,
                                               MlirType type,
                                               TilusLayoutError *err) {
  TilusTensorType *t = tilusPtrMapLookup(&cache->decoded, type.ptr);
  if (t)
    return t;
  // Types that do not decode are not cached: they are errors, reported once.
  t = malloc(sizeof(*t));
  if (!t)
    return NULL;
  if (mlirLogicalResultIsFailure(tilusTensorTypeDecode(type, t, err))) {
    free(t);
    return NULL;
  }
  if (!tilusPtrMapInsert(&cache->decoded, type.ptr, t)) {
    tilusTensorTypeRelease(t);
    free(t);
    return NULL;
  }
  return t;
}
