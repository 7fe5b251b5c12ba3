/*===-- LayoutNormalForm.c - A layout as mixed-radix digits ----------*- C -*-===*\
|*                                                                            *|
|* Every factor of a chain reads one mixed-radix digit block of t (spatial)   *|
|* or of i (local, swizzle) and adds its output, scaled by the shapes of the *|
|* factors to its right, to the logical index. Without carries, so           *|
|*   f(t, i) = sum over thread pieces of t + sum over local pieces of i.      *|
|* A primitive splits its block into one digit per entry of its full         *|
|* dimension list; a swizzle stays one opaque piece. Why the digits are a    *|
|* normal form, and what the queries make of them: LayoutQueries.c.          *|
\*===----------------------------------------------------------------------===*/

#include "LayoutInternal.h"

#include <stdlib.h>
#include <string.h>

/* Appends a digit, merging it into the previous one when it continues it:
 * (d, n, s, x) followed by (d*n, n', s*n, x) is the digit (d, n*n', s, x),
 * and two replicated digits in a row are one. The pieces arrive in order of
 * increasing divisor with no gaps, so the previous piece always ends where
 * this one starts, and one greedy pass leaves no mergeable neighbours. */
void tilusPiecesAppendDigit(TilusPiece *pieces, int64_t *count,
                            int64_t divisor, int64_t modulus, int64_t dim,
                            int64_t stride) {
  if (*count > 0) {
    TilusPiece *prev = &pieces[*count - 1];
    bool continues = !prev->swizzle && prev->dim == dim &&
                     (dim < 0 || prev->stride * prev->modulus == stride);
    if (continues) {
      prev->modulus *= modulus;
      return;
    }
  }
  TilusPiece *piece = &pieces[(*count)++];
  memset(piece, 0, sizeof(*piece));
  piece->divisor = divisor;
  piece->modulus = modulus;
  piece->dim = dim;
  piece->stride = dim < 0 ? 0 : stride;
}

bool tilusNormalFormBuild(const TilusLayout *layout, TilusNormalForm *nf) {
  memset(nf, 0, sizeof(*nf));
  int64_t rank = layout->rank;
  /* A primitive has at most 2*rank+1 non-trivial entries. */
  size_t capacity = (size_t)layout->numFactors * (size_t)(2 * rank + 1);
  nf->thread = malloc(sizeof(TilusPiece) * capacity);
  nf->local = malloc(sizeof(TilusPiece) * capacity);
  if (!nf->thread || !nf->local) {
    tilusNormalFormRelease(nf);
    return false;
  }
  int64_t scale[TILUS_LAYOUT_RANK_CAP];
  for (int64_t d = 0; d < rank; ++d)
    scale[d] = 1;
  int64_t threadsRight = 1, localRight = 1;
  for (int64_t k = layout->numFactors - 1; k >= 0; --k) {
    const TilusFactor *f = &layout->factors[k];
    if (f->kind == TILUS_FACTOR_SWIZZLE) {
      TilusPiece *piece = &nf->local[nf->numLocal++];
      memset(piece, 0, sizeof(*piece));
      piece->divisor = localRight;
      piece->modulus = f->localSize;
      piece->dim = -1;
      piece->swizzle = f;
      memcpy(piece->scale, scale, sizeof(int64_t) * (size_t)rank);
      nf->hasSwizzle = true;
    } else {
      bool spatial = f->kind == TILUS_FACTOR_SPATIAL;
      TilusPiece *pieces = spatial ? nf->thread : nf->local;
      int64_t *count = spatial ? &nf->numThread : &nf->numLocal;
      /* The full list rep[0], shape[0], ..., shape[rank-1], rep[rank],
       * from its fastest entry. */
      int64_t divisor = spatial ? threadsRight : localRight;
      for (int64_t q = 0; q < 2 * rank + 1; ++q) {
        int64_t entry = f->column ? q : 2 * rank - q;
        bool isRep = entry % 2 == 0;
        int64_t d = entry / 2;
        int64_t size = isRep ? f->rep[d] : f->shape[d];
        if (size > 1)
          tilusPiecesAppendDigit(pieces, count, divisor, size,
                                 isRep ? -1 : d, isRep ? 0 : scale[d]);
        divisor *= size;
      }
    }
    threadsRight *= f->numThreads;
    localRight *= f->localSize;
    for (int64_t d = 0; d < rank; ++d)
      scale[d] *= f->shape[d];
  }
  return true;
}

void tilusNormalFormRelease(TilusNormalForm *nf) {
  free(nf->thread);
  free(nf->local);
  nf->thread = nf->local = NULL;
  nf->numThread = nf->numLocal = 0;
}

/*--- Pieces between cuts ------------------------------------------------------*/

bool tilusPiecesCutAt(const TilusPiece *pieces, int64_t count, int64_t c) {
  if (c == 1)
    return true;
  for (int64_t k = 0; k < count; ++k) {
    const TilusPiece *p = &pieces[k];
    if (c == p->divisor)
      return true;
    if (c > p->divisor && c < p->divisor * p->modulus)
      return !p->swizzle && c % p->divisor == 0 &&
             p->modulus % (c / p->divisor) == 0;
  }
  return true; /* c is the end of the input range */
}

int64_t tilusPiecesRestrict(const TilusPiece *pieces, int64_t count,
                            int64_t lo, int64_t hi, TilusPiece *out) {
  int64_t n = 0;
  for (int64_t k = 0; k < count; ++k) {
    const TilusPiece *p = &pieces[k];
    int64_t start = p->divisor, end = p->divisor * p->modulus;
    if (end <= lo || start >= hi)
      continue;
    out[n] = *p;
    if (!p->swizzle) {
      int64_t from = start > lo ? start : lo, to = end < hi ? end : hi;
      out[n].divisor = from;
      out[n].modulus = to / from;
      out[n].stride = p->stride * (from / start);
    }
    ++n;
  }
  return n;
}

bool tilusPiecesSameDigits(const TilusPiece *a, int64_t na,
                           const TilusPiece *b, int64_t nb) {
  if (na != nb)
    return false;
  for (int64_t k = 0; k < na; ++k) {
    if (a[k].swizzle || b[k].swizzle || a[k].divisor != b[k].divisor ||
        a[k].modulus != b[k].modulus || a[k].dim != b[k].dim ||
        a[k].stride != b[k].stride)
      return false;
  }
  return true;
}

/*--- Power-of-two (XOR-linear) blocks -----------------------------------------*/

static bool isPowerOfTwo(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

static int64_t log2Exact(int64_t x) {
  int64_t e = 0;
  while (((int64_t)1 << e) < x)
    ++e;
  return e;
}

/* Whether a layout with T = 1 maps the bits of i linearly (over GF(2)) to
 * the bits of its coordinates: every shape a power of two (then every
 * factor's output occupies its own bits of each coordinate, so the sums are
 * XORs) and every swizzle XORs bits of such coordinates into others. */
static bool layoutIsBinary(const TilusLayout *layout) {
  for (int64_t k = 0; k < layout->numFactors; ++k) {
    const TilusFactor *f = &layout->factors[k];
    for (int64_t d = 0; d < layout->rank; ++d)
      if (!isPowerOfTwo(f->shape[d]))
        return false;
    for (int64_t d = 0; d <= layout->rank; ++d)
      if (!isPowerOfTwo(f->rep[d]))
        return false;
    if (f->kind == TILUS_FACTOR_SWIZZLE && !layoutIsBinary(f->inner))
      return false;
  }
  return true;
}

/* Marks output bits [from, from + width) of coordinate `dim`, whose stride
 * (odd * 2^from) must share its odd part with the other pieces there. */
static bool claimBits(int64_t dim, int64_t stride, int64_t size, int64_t *odd,
                      uint64_t *used) {
  int64_t e = 0;
  while (stride % 2 == 0) {
    stride /= 2;
    ++e;
  }
  if (odd[dim] != 0 && odd[dim] != stride)
    return false;
  odd[dim] = stride;
  uint64_t bits = (((uint64_t)1 << log2Exact(size)) - 1) << e;
  if (used[dim] & bits)
    return false;
  used[dim] |= bits;
  return true;
}

bool tilusPiecesAreBinary(const TilusPiece *pieces, int64_t count,
                          int64_t rank, int64_t *odd) {
  uint64_t used[TILUS_LAYOUT_RANK_CAP] = {0};
  for (int64_t d = 0; d < rank; ++d)
    odd[d] = 0;
  for (int64_t k = 0; k < count; ++k) {
    const TilusPiece *p = &pieces[k];
    if (!isPowerOfTwo(p->modulus))
      return false;
    if (!p->swizzle) {
      if (p->dim >= 0 && !claimBits(p->dim, p->stride, p->modulus, odd, used))
        return false;
      continue;
    }
    if (!layoutIsBinary(p->swizzle->inner))
      return false;
    for (int64_t d = 0; d < rank; ++d) {
      int64_t size = p->swizzle->shape[d];
      if (!isPowerOfTwo(size))
        return false;
      if (size > 1 && !claimBits(d, p->scale[d], size, odd, used))
        return false;
    }
  }
  return true;
}
