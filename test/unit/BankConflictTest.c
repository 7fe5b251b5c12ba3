//===- BankConflictTest.c - Swizzled shared layouts are conflict-free -----===//
//
// Shared memory has 32 banks of 4 bytes. A warp's 16-byte accesses
// (ldmatrix rows, 16-byte cp.async, ld/st.shared.v4) are served 8 lanes at a
// time, 128 bytes per phase; a phase is free of bank conflicts when its 8
// chunks fall in 8 different 16-byte bank groups ((byte address / 16) % 8).
// The addresses come from the layout function itself (tilusLayoutLocate),
// for the layouts examples/python/matmul_pipelined_f16.py generates (the
// example examples/matmul_pipelined_f16.mlir and the 128 x 128 x 32 kernel):
//   - ldmatrix of A (x4: rows 0-7 / 8-15, columns k and k + 8 of a 16 x 16
//     tile) and of B (.trans: rows k .. k + 7 of the warp's 8 columns);
//   - the cp.async stores of whole tiles (chunk c of the tile goes to
//     thread c mod T, row-major over 16-byte chunks).
// A plain row-major layout must show conflicts (the check can fail).
//
//===----------------------------------------------------------------------===//

#include "tilus-c/Layout.h"

#include <stdio.h>
#include <string.h>

static int numPassed, numFailed;

static void check(bool ok, const char *what) {
  if (ok) {
    numPassed++;
    return;
  }
  numFailed++;
  fprintf(stderr, "FAILED: %s\n", what);
}

// Byte address of a 3-d index (stage, row, column) of f16 elements.
static int64_t byteAddress(const TilusLayout *layout, int64_t stage, int64_t row,
                           int64_t col) {
  int64_t index[3] = {stage, row, col}, thread, slot;
  if (!tilusLayoutLocate(layout, index, &thread, &slot))
    return -1;
  return 2 * slot;
}

// Extra wavefronts of one phase of 8 16-byte chunks (0: conflict-free).
static int phaseConflicts(const int64_t *addresses) {
  int perGroup[8] = {0}, worst = 0;
  for (int k = 0; k < 8; ++k) {
    if (addresses[k] < 0 || addresses[k] % 16)
      return 8; // not a 16-byte aligned chunk at all
    int g = (int)((addresses[k] / 16) % 8);
    if (++perGroup[g] > worst)
      worst = perGroup[g];
  }
  return worst - 1;
}

// ldmatrix on a [stages, rows, cols] buffer: for every stage and 16-wide k
// step, the 8-row phases of A's x4 (row-major tiles: rows r, columns k, k+8)
// or of B's .trans (rows k .. k + 15, the warp's 8 columns at `col`).
static int ldmatrixConflicts(const TilusLayout *layout, bool transposed,
                             int64_t stages, int64_t rows, int64_t cols) {
  int total = 0;
  for (int64_t s = 0; s < stages; ++s) {
    if (!transposed) {
      for (int64_t r0 = 0; r0 < rows; r0 += 16)
        for (int64_t k = 0; k < cols; k += 16)
          for (int q = 0; q < 4; ++q) {
            int64_t a[8];
            for (int r = 0; r < 8; ++r)
              a[r] = byteAddress(layout, s, r0 + 8 * (q % 2) + r, k + 8 * (q / 2));
            total += phaseConflicts(a);
          }
    } else {
      for (int64_t k = 0; k < rows; k += 8)
        for (int64_t col = 0; col < cols; col += 8) {
          int64_t a[8];
          for (int r = 0; r < 8; ++r)
            a[r] = byteAddress(layout, s, k + r, col);
          total += phaseConflicts(a);
        }
    }
  }
  return total;
}

// The cp.async stores of a whole stage: chunk c (row-major over 16-byte
// chunks) by thread c mod threads; a phase is 8 consecutive lanes.
static int copyConflicts(const TilusLayout *layout, int64_t stages, int64_t rows,
                         int64_t cols, int64_t threads) {
  int64_t chunksPerRow = cols / 8, chunks = rows * chunksPerRow;
  int total = 0;
  for (int64_t s = 0; s < stages; ++s)
    for (int64_t c0 = 0; c0 < chunks; c0 += 8) {
      int64_t a[8];
      for (int k = 0; k < 8; ++k) {
        int64_t c = c0 + k;
        a[k] = byteAddress(layout, s, c / chunksPerRow, 8 * (c % chunksPerRow));
      }
      total += phaseConflicts(a);
    }
  (void)threads;
  return total;
}

static TilusLayout *parse(const char *text) {
  TilusLayoutError err;
  TilusLayout *layout = tilusLayoutParse(text, strlen(text), &err);
  if (!layout)
    fprintf(stderr, "FAILED: %s: %s\n", text, err.message);
  return layout;
}

static void checkBuffer(const char *text, bool transposed, int64_t stages,
                        int64_t rows, int64_t cols, int64_t threads) {
  TilusLayout *layout = parse(text);
  if (!layout) {
    numFailed++;
    return;
  }
  char what[256];
  snprintf(what, sizeof(what), "ldmatrix%s on %s", transposed ? ".trans" : "", text);
  check(ldmatrixConflicts(layout, transposed, stages, rows, cols) == 0, what);
  snprintf(what, sizeof(what), "cp.async into %s", text);
  check(copyConflicts(layout, stages, rows, cols, threads) == 0, what);
  tilusLayoutDestroy(layout);
}

int main(void) {
  // examples/matmul_pipelined_f16.mlir: A [3, 16, 256], B [3, 256, 32].
  checkBuffer("local(3,1,1).swizzle(local(16,32), dim=1, log_step=0).local(1,8)",
              false, 3, 16, 256, 128);
  checkBuffer("local(3,1,1).swizzle(local(256,4), dim=1, log_step=1).local(1,8)",
              true, 3, 256, 32, 128);
  // matmul_f16_large: A [4, 128, 32], B [4, 32, 128].
  checkBuffer("local(4,1,1).swizzle(local(128,4), dim=1, log_step=1).local(1,8)",
              false, 4, 128, 32, 256);
  checkBuffer("local(4,1,1).swizzle(local(32,16), dim=1, log_step=0).local(1,8)",
              true, 4, 32, 128, 256);
  // Without the swizzle, rows 512 bytes apart share their banks.
  TilusLayout *plain = parse("local(3,16,256)");
  check(plain && ldmatrixConflicts(plain, false, 3, 16, 256) > 0,
        "a row-major A buffer has ldmatrix conflicts");
  TilusLayout *plainB = parse("local(3,256,32)");
  check(plainB && ldmatrixConflicts(plainB, true, 3, 256, 32) > 0,
        "a row-major B buffer has ldmatrix.trans conflicts");
  tilusLayoutDestroy(plain);
  tilusLayoutDestroy(plainB);
  printf("bank conflict tests: %d passed, %d failed\n", numPassed, numFailed);
  return numFailed ? 1 : 0;
}
