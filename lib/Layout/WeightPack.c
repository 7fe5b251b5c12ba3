/*===-- WeightPack.c - The weight pre-transform on the host ---------------===*\
|*                                                                            *|
|* For each tile and thread: gather the thread's m elements (slot order)     *|
|* into its n-byte string, then scatter byte j to the tile position the      *|
|* uint8 layout gives. Unpacking runs the same walk the other way.            *|
\*===----------------------------------------------------------------------===*/

#include "tilus-c/WeightPack.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int64_t gcd(int64_t a, int64_t b) {
  while (b) {
    int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

// Checks the packing; on success gives T and the bytes per thread n.
static bool check(const TilusWeightPacking *p, int64_t *threads,
                  int64_t *bytesPerThread, TilusLayoutError *err) {
  if (p->bits < 1 || p->bits > 8) {
    tilusLayoutSetError(err, "element width must be 1 to 8 bits, got %d", p->bits);
    return false;
  }
  if (p->tileRows < 1 || p->tileCols < 1 || p->rows < 1 || p->cols < 1 ||
      p->rows % p->tileRows || p->cols % p->tileCols) {
    tilusLayoutSetError(err,
             "tiles of [%lld, %lld] do not divide the matrix [%lld, %lld]",
             (long long)p->tileRows, (long long)p->tileCols,
             (long long)p->rows, (long long)p->cols);
    return false;
  }
  const TilusLayout *l = p->layout;
  if (!l || tilusLayoutGetRank(l) != 2 ||
      tilusLayoutGetDim(l, 0) != p->tileRows ||
      tilusLayoutGetDim(l, 1) != p->tileCols) {
    tilusLayoutSetError(err, "the layout's shape is not the tile's [%lld, %lld]",
             (long long)p->tileRows, (long long)p->tileCols);
    return false;
  }
  int64_t T = tilusLayoutGetNumThreads(l), m = tilusLayoutGetLocalSize(l);
  if (T * m != p->tileRows * p->tileCols) {
    tilusLayoutSetError(err, "the layout replicates elements (%lld threads x %lld "
                  "elements for a tile of %lld)",
             (long long)T, (long long)m,
             (long long)(p->tileRows * p->tileCols));
    return false;
  }
  if ((m * p->bits) % 8) {
    tilusLayoutSetError(err, "a thread holds %lld x %d bits, not whole bytes",
             (long long)m, p->bits);
    return false;
  }
  *threads = T;
  *bytesPerThread = m * p->bits / 8;
  return true;
}

size_t tilusWeightPackedSize(const TilusWeightPacking *p,
                             TilusLayoutError *err) {
  int64_t T, n;
  if (!check(p, &T, &n, err))
    return 0;
  return (size_t)(p->rows * p->cols * p->bits / 8);
}

TilusLayout *tilusWeightPackedLayout(const TilusWeightPacking *p,
                                     TilusLayoutError *err) {
  int64_t T, n;
  if (!check(p, &T, &n, err))
    return NULL;
  int64_t n1 = gcd(n, 16), n2 = n / n1;
  char text[128];
  snprintf(text, sizeof(text), "local(%lld).spatial(%lld).local(%lld)",
           (long long)n2, (long long)T, (long long)n1);
  return tilusLayoutParse(text, strlen(text), err);
}

static uint32_t getBits(const uint8_t *bytes, int64_t index, int bits) {
  uint32_t value = 0;
  for (int k = 0; k < bits; ++k) {
    int64_t bit = index * bits + k;
    value |= (uint32_t)((bytes[bit >> 3] >> (bit & 7)) & 1) << k;
  }
  return value;
}

static void setBits(uint8_t *bytes, int64_t index, int bits, uint32_t value) {
  for (int k = 0; k < bits; ++k) {
    int64_t bit = index * bits + k;
    uint8_t mask = (uint8_t)(1u << (bit & 7));
    bytes[bit >> 3] = (uint8_t)((bytes[bit >> 3] & ~mask) |
                                (((value >> k) & 1) ? mask : 0));
  }
}

// Walks every (tile, thread, slot); moves bits matrix -> packed (pack) or
// back (unpack).
static bool transform(const TilusWeightPacking *p, const uint8_t *src,
                      uint8_t *dst, bool pack, TilusLayoutError *err) {
  TilusLayout *packed = tilusWeightPackedLayout(p, err);
  if (!packed)
    return false;
  int64_t T = tilusLayoutGetNumThreads(p->layout);
  int64_t m = tilusLayoutGetLocalSize(p->layout);
  int64_t n = m * p->bits / 8, tileBytes = T * n;
  int64_t tilesPerRow = p->cols / p->tileCols;
  uint8_t *thread = malloc((size_t)n);
  if (!thread) {
    tilusLayoutDestroy(packed);
    tilusLayoutSetError(err, "out of memory");
    return false;
  }
  for (int64_t tr = 0; tr < p->rows / p->tileRows; ++tr)
    for (int64_t tc = 0; tc < tilesPerRow; ++tc) {
      int64_t tileBase = (tr * tilesPerRow + tc) * tileBytes;
      for (int64_t t = 0; t < T; ++t) {
        int64_t position[1];
        if (!pack)
          for (int64_t j = 0; j < n; ++j) {
            tilusLayoutEvaluate(packed, t, j, position);
            thread[j] = src[tileBase + position[0]];
          }
        for (int64_t i = 0; i < m; ++i) {
          int64_t rc[2];
          tilusLayoutEvaluate(p->layout, t, i, rc);
          int64_t element =
              (tr * p->tileRows + rc[0]) * p->cols + tc * p->tileCols + rc[1];
          if (pack)
            setBits(thread, i, p->bits, getBits(src, element, p->bits));
          else
            setBits(dst, element, p->bits, getBits(thread, i, p->bits));
        }
        if (pack)
          for (int64_t j = 0; j < n; ++j) {
            tilusLayoutEvaluate(packed, t, j, position);
            dst[tileBase + position[0]] = thread[j];
          }
      }
    }
  free(thread);
  tilusLayoutDestroy(packed);
  return true;
}

bool tilusWeightPack(const TilusWeightPacking *p, const uint8_t *src,
                     uint8_t *dst, TilusLayoutError *err) {
  return transform(p, src, dst, true, err);
}

bool tilusWeightUnpack(const TilusWeightPacking *p, const uint8_t *src,
                       uint8_t *dst, TilusLayoutError *err) {
  return transform(p, src, dst, false, err);
}
