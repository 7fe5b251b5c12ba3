/*===-- tilus-c/WeightPack.h - The weight pre-transform --------------*- C -*-===*\
|*                                                                            *|
|* "Change Layout" (paper, section 6.2 and Figure 8), on the host: a weight   *|
|* matrix of b-bit elements (compact, row-major [rows, cols]) is cut into     *|
|* [tileRows, tileCols] tiles, and each tile is rewritten so that a kernel    *|
|* can load it as uint8 with layout local(n2).spatial(T).local(n1) and View   *|
|* it as the register tile it wants (`layout`: T threads, m elements each):   *|
|* thread t's n = m*b/8 bytes hold its m elements (slot order, least          *|
|* significant bits first), and its byte j sits at position                   *|
|* local(n2).spatial(T).local(n1)(t, j) of the tile, n1 = gcd(n, 16),         *|
|* n2 = n / n1. Tiles follow each other in row-major tile order, as           *|
|* u8[rows / tileRows, cols / tileCols, T * n]. Pure C: a serving stack can   *|
|* repack weights without a GPU.                                              *|
\*===----------------------------------------------------------------------===*/

#ifndef TILUS_C_WEIGHTPACK_H
#define TILUS_C_WEIGHTPACK_H

#include "tilus-c/Layout.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  int64_t rows, cols;         /* the weight matrix, [K, N] */
  int64_t tileRows, tileCols; /* one thread block's tile, [BK, BN] */
  int bits;                   /* element width, 1 to 8 */
  const TilusLayout *layout;  /* the register layout of a tile, rank 2 */
} TilusWeightPacking;

/* Bytes of the packed weights (equal to the compact matrix's), or 0 with a
 * reason in `err` when the packing is not possible: tiles that do not divide
 * the matrix, a layout of another shape or with replicated elements, or
 * threads whose bits are not whole bytes. */
size_t tilusWeightPackedSize(const TilusWeightPacking *packing,
                             TilusLayoutError *err);

/* The uint8 layout of one packed tile, local(n2).spatial(T).local(n1); the
 * caller destroys it. NULL (with `err`) as for tilusWeightPackedSize. */
TilusLayout *tilusWeightPackedLayout(const TilusWeightPacking *packing,
                                     TilusLayoutError *err);

/* Packs `src` (compact row-major, b-bit elements, least significant bits
 * first) into `dst` (tilusWeightPackedSize bytes). False (with `err`) as for
 * tilusWeightPackedSize. */
bool tilusWeightPack(const TilusWeightPacking *packing, const uint8_t *src,
                     uint8_t *dst, TilusLayoutError *err);

/* The inverse of tilusWeightPack. */
bool tilusWeightUnpack(const TilusWeightPacking *packing, const uint8_t *src,
                       uint8_t *dst, TilusLayoutError *err);

#ifdef __cplusplus
}
#endif

#endif /* TILUS_C_WEIGHTPACK_H */
