//===- WeightPackTest.c - The weight pre-transform ------------------------===//
//
// The paper's int6 example against hand-computed byte positions, round trips
// (pack, unpack, compare) for every width from 1 to 8 bits, and the errors.
//
//===----------------------------------------------------------------------===//

#include "tilus-c/WeightPack.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int numPassed, numFailed;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (cond) {                                                                \
      numPassed++;                                                             \
    } else {                                                                   \
      numFailed++;                                                             \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                          \
  } while (0)

static TilusLayout *parse(const char *text) {
  return tilusLayoutParse(text, strlen(text), NULL);
}

// int6 weights of the paper's Figure 2: 16 x 8 tiles, 32 threads with 4
// elements (24 bits) each, loaded as uint8 local(3).spatial(32).
static void testFigure2(void) {
  TilusLayout *layout = parse("local(2,1).column_spatial(4,8).local(2,1)");
  TilusWeightPacking p = {32, 16, 16, 8, 6, layout};
  TilusLayoutError err;
  CHECK(tilusWeightPackedSize(&p, &err) == 32 * 16 * 6 / 8);
  TilusLayout *bytes = tilusWeightPackedLayout(&p, &err);
  char *text = bytes ? tilusLayoutPrint(bytes) : NULL;
  CHECK(text && !strcmp(text, "local(3).spatial(32)"));
  free(text);
  tilusLayoutDestroy(bytes);

  // Element (r, c) holds the value (r * 16 + c) & 63.
  uint8_t matrix[32 * 16 * 6 / 8] = {0}, packed[sizeof(matrix)];
  for (int g = 0; g < 32 * 16; ++g)
    for (int k = 0; k < 6; ++k)
      if ((((g / 16) * 16 + g % 16) & 63) >> k & 1)
        matrix[(g * 6 + k) / 8] |= (uint8_t)(1u << ((g * 6 + k) % 8));
  CHECK(tilusWeightPack(&p, matrix, packed, &err));
  // Tile (1, 1), thread 5: column_spatial(4,8) puts it at row 2 * (5 % 4) = 2,
  // column 5 / 4 = 1 of the tile; its slots i hold rows 2 + 8 * (i / 2) +
  // i % 2: tile rows 2, 3, 10, 11, so matrix rows 18, 19, 26, 27, column 9.
  // Its bytes j are at tile offset 32 * j + 5.
  const uint8_t *tile = packed + (1 * 2 + 1) * 96;
  uint32_t bits = tile[5] | tile[37] << 8 | (uint32_t)tile[69] << 16;
  int rows[4] = {18, 19, 26, 27};
  for (int i = 0; i < 4; ++i)
    CHECK(((bits >> (6 * i)) & 63) == (uint32_t)((rows[i] * 16 + 9) & 63));
  uint8_t back[sizeof(matrix)];
  CHECK(tilusWeightUnpack(&p, packed, back, &err));
  CHECK(!memcmp(back, matrix, sizeof(matrix)));
  tilusLayoutDestroy(layout);
}

static void testRoundTrips(void) {
  TilusLayout *layout = parse("spatial(8,4).local(2,8)"); // 16 x 32, m = 16
  uint32_t state = 1;
  for (int bits = 1; bits <= 8; ++bits) {
    TilusWeightPacking p = {64, 96, 16, 32, bits, layout};
    TilusLayoutError err;
    size_t size = tilusWeightPackedSize(&p, &err);
    CHECK(size == (size_t)64 * 96 * bits / 8);
    uint8_t *matrix = malloc(size), *packed = malloc(size), *back = malloc(size);
    for (size_t k = 0; k < size; ++k) {
      state = state * 1664525u + 1013904223u;
      matrix[k] = (uint8_t)(state >> 24);
    }
    CHECK(tilusWeightPack(&p, matrix, packed, &err));
    CHECK(tilusWeightUnpack(&p, packed, back, &err));
    CHECK(!memcmp(matrix, back, size));
    CHECK(memcmp(matrix, packed, size) != 0); // it did move bits
    free(matrix), free(packed), free(back);
  }
  tilusLayoutDestroy(layout);
}

static void testErrors(void) {
  TilusLayout *layout = parse("local(2,1).spatial(8,4).local(1,2)"); // 16 x 8
  TilusLayoutError err;
  TilusWeightPacking p = {30, 16, 16, 8, 4, layout};
  CHECK(tilusWeightPackedSize(&p, &err) == 0);
  CHECK(strstr(err.message, "do not divide the matrix [30, 16]") != NULL);
  p = (TilusWeightPacking){32, 16, 16, 8, 9, layout};
  CHECK(tilusWeightPackedSize(&p, &err) == 0);
  CHECK(strstr(err.message, "1 to 8 bits, got 9") != NULL);
  p = (TilusWeightPacking){32, 16, 16, 8, 3, layout};
  CHECK(tilusWeightPackedSize(&p, &err) == 0);
  CHECK(strstr(err.message, "4 x 3 bits, not whole bytes") != NULL);
  p = (TilusWeightPacking){32, 32, 16, 16, 4, layout};
  CHECK(tilusWeightPackedSize(&p, &err) == 0);
  CHECK(strstr(err.message, "not the tile's [16, 16]") != NULL);
  TilusLayout *replicated = parse("reduce(spatial(2,16,8),dims=[0])");
  p = (TilusWeightPacking){32, 16, 16, 8, 8, replicated};
  CHECK(tilusWeightPackedSize(&p, &err) == 0);
  CHECK(strstr(err.message, "replicates elements") != NULL);
  tilusLayoutDestroy(replicated);
  tilusLayoutDestroy(layout);
}

int main(void) {
  testFigure2();
  testRoundTrips();
  testErrors();
  printf("weight pack tests: %d passed, %d failed\n", numPassed, numFailed);
  return numFailed ? 1 : 0;
}
