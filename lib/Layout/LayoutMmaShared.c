//===- LayoutMmaShared.c - Shared layouts that wgmma reads ----------------===//
//
// wgmma reads its shared operands through a matrix descriptor: a start
// address, two byte offsets and a swizzle mode. The hardware then expects a
// K-major tile made of core matrices (8 rows of 16 bytes); with a swizzle of
// W bytes, rows are W bytes long and the 16-byte chunk index of each address
// is XORed with the row index within its 8-row group, which in the algebra
// is swizzle(.., log_step = log2(128 / W)) over the chunks. The layouts are
// built from their text form, and a tensor's layout is recognised by
// functional equality with each candidate, so nothing walks the tile.
//
//===----------------------------------------------------------------------===//

#include "tilus-c/Layout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Bytes per swizzled row: 128, 64, 32; 0 without a swizzle.
static int64_t swizzleBytes(TilusMmaSwizzle swizzle) {
  switch (swizzle) {
  case TilusMmaSwizzle128B:
    return 128;
  case TilusMmaSwizzle64B:
    return 64;
  case TilusMmaSwizzle32B:
    return 32;
  default:
    return 0;
  }
}

TilusLayout *tilusLayoutCreateMmaShared(int64_t rows, int64_t k, int64_t kDim,
                                        int64_t elementBits,
                                        TilusMmaSwizzle swizzle,
                                        TilusLayoutError *err) {
  if (elementBits != 8 && elementBits != 16) {
    tilusLayoutSetError(err, "wgmma reads 8- or 16-bit elements from shared "
                             "memory, not %lld-bit ones",
                        (long long)elementBits);
    return NULL;
  }
  if (kDim != 0 && kDim != 1) {
    tilusLayoutSetError(err, "the K dimension of a wgmma tile is 0 or 1, "
                             "not %lld",
                        (long long)kDim);
    return NULL;
  }
  int64_t W = swizzleBytes(swizzle);
  int64_t E = 128 / elementBits;        // elements per 16-byte chunk
  int64_t rowElements = (W ? W : 16) * 8 / elementBits;
  if (rows <= 0 || rows % 8 || k <= 0 || k % rowElements) {
    tilusLayoutSetError(err,
                        "a wgmma tile of %lld x %lld %lld-bit elements needs "
                        "a multiple of 8 rows and K a multiple of %lld "
                        "(%lld bytes)",
                        (long long)rows, (long long)k, (long long)elementBits,
                        (long long)rowElements, (long long)(W ? W : 16));
    return NULL;
  }
  char text[256];
  if (W) {
    int64_t C = W / 16, KB = k / rowElements;
    int64_t s = W == 128 ? 0 : W == 64 ? 1 : 2;
    if (kDim == 1)
      snprintf(text, sizeof text,
               "local(1,%lld).swizzle(local(%lld,%lld),dim=1,log_step=%lld)."
               "local(1,%lld)",
               (long long)KB, (long long)rows, (long long)C, (long long)s,
               (long long)E);
    else
      snprintf(text, sizeof text,
               "local(%lld,1).swizzle(column_local(%lld,%lld),dim=0,"
               "log_step=%lld).local(%lld,1)",
               (long long)KB, (long long)C, (long long)rows, (long long)s,
               (long long)E);
  } else if (kDim == 1) {
    snprintf(text, sizeof text, "local(%lld,%lld).local(8,%lld)",
             (long long)(rows / 8), (long long)(k / E), (long long)E);
  } else {
    snprintf(text, sizeof text, "column_local(%lld,%lld).column_local(%lld,8)",
             (long long)(k / E), (long long)(rows / 8), (long long)E);
  }
  return tilusLayoutParse(text, strlen(text), err);
}

bool tilusLayoutMatchMmaShared(const TilusLayout *layout, int64_t kDim,
                               int64_t elementBits, TilusMmaSharedOperand *out) {
  int64_t rank = tilusLayoutGetRank(layout);
  if (rank < 2 || tilusLayoutGetNumThreads(layout) != 1 ||
      (kDim != 0 && kDim != 1))
    return false;
  int64_t lead[TILUS_LAYOUT_MAX_RANK];
  for (int64_t d = 0; d < rank; ++d)
    lead[d] = d < rank - 2 ? tilusLayoutGetDim(layout, d) : 1;
  int64_t tile0 = tilusLayoutGetDim(layout, rank - 2);
  int64_t tile1 = tilusLayoutGetDim(layout, rank - 1);
  int64_t rows = kDim == 1 ? tile0 : tile1, k = kDim == 1 ? tile1 : tile0;
  TilusLayout *outer = tilusLayoutCreateLocal(rank, lead, NULL);
  if (!outer)
    return false;
  static const TilusMmaSwizzle kOrder[] = {
      TilusMmaSwizzle128B, TilusMmaSwizzle64B, TilusMmaSwizzle32B,
      TilusMmaSwizzleNone};
  bool found = false;
  for (size_t c = 0; c < sizeof kOrder / sizeof kOrder[0] && !found; ++c) {
    TilusLayout *tile =
        tilusLayoutCreateMmaShared(rows, k, kDim, elementBits, kOrder[c], NULL);
    if (!tile)
      continue;
    TilusLayout *candidate = tilusLayoutCompose(outer, tile);
    found = candidate && tilusLayoutEqual(layout, candidate);
    if (found && out) {
      int64_t W = swizzleBytes(kOrder[c]);
      out->swizzle = kOrder[c];
      // Swizzled: one K block of W bytes holds every k step, so the
      // leading offset is unused (the encoding's 1, 16 bytes); 8-row
      // groups are 8 rows of W bytes apart. Without a swizzle, core
      // matrices along K are adjacent (128 bytes) and 8-row groups are a
      // whole row block apart.
      out->leadingBytes = W ? 16 : 128;
      out->strideBytes = W ? 8 * W : k * elementBits / 8 * 8;
    }
    tilusLayoutDestroy(candidate);
    tilusLayoutDestroy(tile);
  }
  tilusLayoutDestroy(outer);
  return found;
}
