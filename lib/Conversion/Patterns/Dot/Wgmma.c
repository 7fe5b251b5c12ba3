//===- Wgmma.c - Warpgroup MMA (wgmma.mma_async, sm_90a) ------------------===//
//
// tilus.wgmma_mma lowers to one wgmma.mma_async per (64-row tile, column
// run of at most 256, k step) of each warpgroup:
//
//   - the accumulator's layout must be made of mma.sync accumulator
//     fragments (Fragments.c) that, in warp w of every warpgroup, sit 16w
//     rows below warp 0's: the 64 x N tile wgmma keeps in registers. Each
//     row of warp 0's fragments, with its columns in runs of 8, gives the
//     instructions; every warpgroup runs the same ones, offset by where the
//     layout puts its first thread;
//   - a shared operand is read in place through a matrix descriptor: its
//     layout is one of tilusLayoutCreateMmaShared's (the verifier checked),
//     so a tile's start address, the swizzle and the byte offsets describe
//     it; one descriptor per operand is built at run time and each
//     instruction adds its tile's constant offset;
//   - a register a must be made of mma.sync a fragments placed like the
//     accumulator's rows (wgmma's register operand is the same per warp).
//
// The instructions are inline PTX with side effects, so they stay in order
// with wgmma.fence, commit_group and wait_group. Their accumulator registers
// go in and come out as tied operands; wgmma_wait_group passes its value
// through one empty asm per register after the wait, so nothing reads an
// accumulator before the wait retires the instructions that write it.
//
//===----------------------------------------------------------------------===//

#include "Patterns/Patterns.h"
#include "tilus-c/Ops.h"
#include "Utils/StringBuffer.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/LLVM.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// What the instruction is called and takes for one operand type.
typedef struct {
  const char *types; // ".f32.f16.f16"
  int k;             // the instruction's K
  bool integer;      // i32 accumulator; N from a shorter list
  // Immediates after scale-d with a shared / a register a: scale-a and
  // scale-b, then trans-a and trans-b (K-major: 0); none for integers.
  const char *sharedImmediates, *registerImmediates;
  const TilusLayoutFragment *aFragment;
  int perRegister; // a elements per 32-bit register
} WgmmaKind;

static bool kindOf(MlirType t, WgmmaKind *out) {
  static const WgmmaKind kF16 = {".f32.f16.f16", 16, false, ", 1, 1, 0, 0",
                                 ", 1, 1, 0", &tilusFragmentA16, 2};
  static const WgmmaKind kBF16 = {".f32.bf16.bf16", 16, false, ", 1, 1, 0, 0",
                                  ", 1, 1, 0", &tilusFragmentA16, 2};
  static const WgmmaKind kS8 = {".s32.s8.s8", 32, true, "", "",
                                &tilusFragmentA8, 4};
  static const WgmmaKind kU8 = {".s32.u8.u8", 32, true, "", "",
                                &tilusFragmentA8, 4};
  // FP8 (OCP E4M3FN and E5M2, the dialect's float<4,3> and <5,2>): K-major
  // only, so scale-a and scale-b but no transposes.
  static const WgmmaKind kE4M3 = {".f32.e4m3.e4m3", 32, false, ", 1, 1",
                                  ", 1, 1", &tilusFragmentA8, 4};
  static const WgmmaKind kE5M2 = {".f32.e5m2.e5m2", 32, false, ", 1, 1",
                                  ", 1, 1", &tilusFragmentA8, 4};
  int64_t e, m;
  if (mlirTypeIsAF16(t))
    *out = kF16;
  else if (mlirTypeIsABF16(t))
    *out = kBF16;
  else if (mlirTypeIsAInteger(t) && mlirIntegerTypeGetWidth(t) == 8)
    *out = tilusElementIsUnsigned(t) ? kU8 : kS8;
  else if (tilusFloatTypeGetFormat(t, &e, &m) && e == 4 && m == 3)
    *out = kE4M3;
  else if (tilusFloatTypeGetFormat(t, &e, &m) && e == 5 && m == 2)
    *out = kE5M2;
  else
    return false;
  return true;
}

// Whether wgmma has an N of `n` for this kind (PTX ISA: multiples of 8 up
// to 256; for 8-bit integers 8, 16, 24 and multiples of 16 from 32).
static bool validN(const WgmmaKind *kind, int64_t n) {
  if (n < 8 || n > 256 || n % 8)
    return false;
  return !kind->integer || n <= 24 || n % 16 == 0;
}

// One instruction: warp 0's 64-row tile at `row`, columns [col, col + n),
// and the accumulator groups of its n / 8 column blocks, in column order.
typedef struct {
  int64_t row, col, n;
  int64_t groups[32];
} Instruction;

typedef struct {
  const TilusFragments *acc;
  int64_t numWarpgroups;
  int64_t offset[8][2]; // warpgroup q's rows and columns past warpgroup 0's
  Instruction *instructions;
  int64_t numInstructions;
} Plan;

static int byRowThenColumn(const void *x, const void *y) {
  const int64_t *a = x, *b = y; // {row, col, group}
  if (a[0] != b[0])
    return a[0] < b[0] ? -1 : 1;
  return (a[1] > b[1]) - (a[1] < b[1]);
}

static const int64_t *baseOf(const TilusFragments *f, int64_t warp,
                             int64_t group) {
  return &f->bases[2 * (warp * f->numGroups + group)];
}

// Splits the accumulator into instructions; false with the reason in `why`.
static bool planAccumulator(const TilusFragments *acc, const TilusLayout *layout,
                            const WgmmaKind *kind, Plan *p, char *why,
                            size_t size) {
  memset(p, 0, sizeof(*p));
  p->acc = acc;
  int64_t W = acc->numWarps, G = acc->numGroups;
  p->numWarpgroups = W / 4;
  if (G <= 0 || W % 4 || p->numWarpgroups > 8) {
    snprintf(why, size, "a block has 1 to 8 whole warpgroups");
    return false;
  }
  int64_t origin[2];
  tilusLayoutEvaluate(layout, 0, 0, origin);
  for (int64_t q = 0; q < p->numWarpgroups; ++q) {
    int64_t first[2];
    tilusLayoutEvaluate(layout, 128 * q, 0, first);
    p->offset[q][0] = first[0] - origin[0];
    p->offset[q][1] = first[1] - origin[1];
    if (p->offset[q][0] % 8 || p->offset[q][1] % 8) {
      snprintf(why, size, "warpgroup %lld's tile does not start at a "
                          "multiple of 8 rows and columns",
               (long long)q);
      return false;
    }
  }
  for (int64_t w = 0; w < W; ++w)
    for (int64_t g = 0; g < G; ++g) {
      const int64_t *b0 = baseOf(acc, 0, g), *b = baseOf(acc, w, g);
      const int64_t *off = p->offset[w / 4];
      if (b[0] != b0[0] + 16 * (w % 4) + off[0] || b[1] != b0[1] + off[1]) {
        snprintf(why, size,
                 "the accumulator's layout is not made of 64-row wgmma tiles: "
                 "warp %lld does not hold 16 rows below warp %lld of its "
                 "warpgroup the columns they hold",
                 (long long)w, (long long)(w - 1));
        return false;
      }
    }
  int64_t (*keys)[3] = malloc(sizeof(*keys) * (size_t)G);
  p->instructions = calloc((size_t)G, sizeof(Instruction));
  if (!keys || !p->instructions) {
    free(keys);
    snprintf(why, size, "out of memory");
    return false;
  }
  for (int64_t g = 0; g < G; ++g) {
    keys[g][0] = baseOf(acc, 0, g)[0];
    keys[g][1] = baseOf(acc, 0, g)[1];
    keys[g][2] = g;
  }
  qsort(keys, (size_t)G, sizeof(*keys), byRowThenColumn);
  bool ok = true;
  for (int64_t g = 0; g < G && ok;) {
    // The run of consecutive 8-column blocks from group g on one row.
    int64_t run = 1;
    while (g + run < G && keys[g + run][0] == keys[g][0] &&
           keys[g + run][1] == keys[g][1] + 8 * run)
      ++run;
    if (keys[g][0] % 8 || keys[g][1] % 8) {
      snprintf(why, size, "a tile starts at row %lld, column %lld, not at "
                          "multiples of 8",
               (long long)keys[g][0], (long long)keys[g][1]);
      ok = false;
      break;
    }
    // Cut the run into the widest instructions wgmma has.
    for (int64_t done = 0; done < run && ok;) {
      int64_t n = (run - done) * 8 > 256 ? 256 : (run - done) * 8;
      while (n >= 8 && !validN(kind, n))
        n -= 8;
      Instruction *in = &p->instructions[p->numInstructions++];
      in->row = keys[g + done][0];
      in->col = keys[g + done][1];
      in->n = n;
      for (int64_t j = 0; j < n / 8; ++j)
        in->groups[j] = keys[g + done + j][2];
      done += n / 8;
    }
    g += run;
  }
  free(keys);
  return ok;
}

// The i64 matrix descriptor of the shared tile starting at `address` (a
// 32-bit shared-window byte address).
static MlirValue emitDescriptor(TilusEmitter *e, MlirValue address,
                                const TilusMmaSharedOperand *d) {
  MlirType i32 = mlirIntegerTypeGet(e->ctx, 32), i64 = mlirIntegerTypeGet(e->ctx, 64);
  MlirValue start = tilusEmitArith(
      e, "andi",
      tilusEmitArith(e, "shrui", address, tilusEmitIntConstant(e, i32, 4)),
      tilusEmitIntConstant(e, i32, 0x3FFF));
  MlirValue lo = tilusEmitArith(
      e, "ori", start,
      tilusEmitIntConstant(e, i32, (d->leadingBytes >> 4 & 0x3FFF) << 16));
  uint64_t hi = (uint64_t)(d->strideBytes >> 4 & 0x3FFF) | (uint64_t)d->swizzle << 30;
  MlirValue wide = tilusEmitValue(e, "arith.extui", 1, &lo, i64, 0, NULL);
  return tilusEmitArith(e, "ori", wide,
                        tilusEmitIntConstant(e, i64, (int64_t)(hi << 32)));
}

// A shared operand: the descriptor of its tile at (0, 0) of this
// warpgroup, and the layout to locate each instruction's tile in.
typedef struct {
  const TilusLayout *layout;
  int64_t rank, bytes;
  TilusMmaSharedOperand info;
  MlirValue descriptor;
} SharedOperand;

// The element offset of (tile row `r`, tile column `c`) of the tile at the
// leading offsets 0.
static int64_t tileElement(const SharedOperand *s, int64_t r, int64_t c) {
  int64_t index[TILUS_LAYOUT_MAX_RANK] = {0}, thread, slot;
  index[s->rank - 2] = r;
  index[s->rank - 1] = c;
  tilusLayoutLocate(s->layout, index, &thread, &slot);
  return slot;
}

// Builds the operand's descriptor: leading offsets (outermost, row-major,
// so linear) and this warpgroup's offset along the operand's rows (`dim` of
// the tile, in multiples of 8 where the layout is linear) added to its base.
static bool emitSharedOperand(TilusEmitter *e, MlirOperation op, MlirValue value,
                              intptr_t offsetsGroup, int64_t kDim,
                              MlirValue rowOffset, SharedOperand *s) {
  const TilusTensorType *t =
      tilusLoweringTensorType(e->lowering, mlirValueGetType(value));
  MlirValue base = tilusLoweredRegister(value);
  if (!t || mlirValueIsNull(base))
    return false;
  s->layout = t->layout;
  s->rank = t->rank;
  s->bytes = tilusElementTypeGetBitWidth(t->elementType) / 8;
  // (The tensor starts on a 1024-byte boundary of the shared window, where
  // the swizzle applied to addresses agrees with the layout's: see
  // SharedMemory.c's AllocateShared.)
  if (!tilusLayoutMatchMmaShared(t->layout, kDim, s->bytes * 8, &s->info))
    return false;
  MlirValue elements = tilusEmitIndex(e, 0);
  intptr_t start = tilusOperandGroupStart(op, offsetsGroup);
  for (int64_t d = 0; d < t->rank - 2; ++d) {
    int64_t index[TILUS_LAYOUT_MAX_RANK] = {0}, thread, stride;
    index[d] = 1;
    tilusLayoutLocate(t->layout, index, &thread, &stride);
    elements = tilusEmitAddIndex(
        e, elements,
        tilusEmitMulIndexConst(e, mlirOperationGetOperand(op, start + d), stride));
  }
  if (!mlirValueIsNull(rowOffset)) {
    // Rows (of the non-K dimension) 8 apart are a fixed stride apart.
    int64_t per8 = kDim == 1 ? tileElement(s, 8, 0) : tileElement(s, 0, 8);
    elements = tilusEmitAddIndex(
        e, elements,
        tilusEmitMulIndexConst(e, tilusEmitDivIndexConst(e, rowOffset, 8), per8));
  }
  MlirType i32 = mlirIntegerTypeGet(e->ctx, 32);
  MlirValue pointer = tilusEmitValue(e, "llvm.ptrtoint", 1, &base, i32, 0, NULL);
  MlirValue bytes = tilusEmitMulIndexConst(e, elements, s->bytes);
  MlirValue offset = tilusEmitValue(e, "arith.index_cast", 1, &bytes, i32, 0, NULL);
  s->descriptor =
      emitDescriptor(e, tilusEmitArith(e, "addi", pointer, offset), &s->info);
  return true;
}

// The descriptor of the tile at (r, c) of the operand.
static MlirValue tileDescriptor(TilusEmitter *e, const SharedOperand *s,
                                int64_t r, int64_t c) {
  int64_t bytes = tileElement(s, r, c) * s->bytes;
  MlirType i64 = mlirIntegerTypeGet(e->ctx, 64);
  if (!bytes)
    return s->descriptor;
  return tilusEmitArith(e, "addi", s->descriptor,
                        tilusEmitIntConstant(e, i64, bytes >> 4));
}

static void appendf(TilusStringBuffer *b, const char *format, long long x) {
  char piece[64];
  snprintf(piece, sizeof piece, format, x);
  tilusStringBufferPut(b, piece);
}

// The error of every wgmma op on a target without it.
static MlirLogicalResult noWgmma(TilusLowering *L, MlirOperation op) {
  return tilusLoweringNeedsTarget(L, op, "wgmma needs the sm_90a target");
}

// The fragment group of the register a for each (instruction, k step)
// (groups[i * steps + s]): the one holding rows row.. (plus 16 per warp and
// the warpgroup's offset) and columns 16s.. (32s.. for 8-bit types), the same
// in every warp; false with the reason in `why`.
static bool planRegisterA(const TilusFragments *fa, const Plan *plan,
                          const WgmmaKind *kind, int64_t steps, int64_t *groups,
                          char *why, size_t size) {
  for (int64_t i = 0; i < plan->numInstructions; ++i)
    for (int64_t s = 0; s < steps; ++s) {
      int64_t g = -1;
      for (int64_t w = 0; w < fa->numWarps; ++w) {
        int64_t row = plan->instructions[i].row + 16 * (w % 4) +
                      plan->offset[w / 4][0];
        int64_t found = tilusFragmentsFind(fa, w, row, s * kind->k);
        if (found < 0 || (g >= 0 && found != g)) {
          snprintf(why, size,
                   "the register a does not hold rows %lld.. and columns "
                   "%lld.. where warp %lld of the accumulator's warpgroup "
                   "needs them, in the same registers in every warp",
                   (long long)row, (long long)(s * kind->k), (long long)w);
          return false;
        }
        g = found;
      }
      groups[i * steps + s] = g;
    }
  return true;
}

// The inline PTX of one instruction of width n and its constraints: the nd
// = n / 2 accumulator registers as outputs, then a (one descriptor or four
// registers), b's descriptor and scale-d, then the accumulators again, tied.
static void instructionText(const WgmmaKind *kind, int64_t n, bool aShared,
                            TilusStringBuffer *text, TilusStringBuffer *cons) {
  int64_t nd = n / 2, numA = aShared ? 1 : 4;
  for (int64_t j = 0; j < nd; ++j)
    tilusStringBufferPut(cons, j ? (kind->integer ? ",=r" : ",=f")
                                 : (kind->integer ? "=r" : "=f"));
  tilusStringBufferPut(cons, aShared ? ",l,l,b" : ",r,r,r,r,l,b");
  for (int64_t j = 0; j < nd; ++j)
    appendf(cons, ",%lld", (long long)j);
  appendf(text, "wgmma.mma_async.sync.aligned.m64n%lld", (long long)n);
  appendf(text, "k%lld", (long long)kind->k);
  tilusStringBufferPut(text, kind->types);
  tilusStringBufferPut(text, " {");
  for (int64_t j = 0; j < nd; ++j)
    appendf(text, j ? ", $%lld" : "$%lld", (long long)j);
  if (aShared)
    appendf(text, "}, $%lld", (long long)nd);
  else
    for (int r = 0; r < 4; ++r)
      appendf(text, r ? ", $%lld" : "}, {$%lld", (long long)(nd + r));
  appendf(text, aShared ? ", $%lld" : "}, $%lld", (long long)(nd + numA));
  appendf(text, ", $%lld", (long long)(nd + numA + 1));
  tilusStringBufferPut(text, aShared ? kind->sharedImmediates
                                     : kind->registerImmediates);
  tilusStringBufferPut(text, ";");
}

// What one tilus.wgmma_mma lowers with, decided before anything is emitted.
typedef struct {
  WgmmaKind kind;
  bool aShared;
  int64_t steps; // k steps
  Plan plan;
  const TilusFragments *fa; // a register a's fragments
  int64_t *aGroups;         // and their groups (planRegisterA)
} MmaPlan;

static void releaseMmaPlan(MmaPlan *m) {
  free(m->plan.instructions);
  free(m->aGroups);
}

static bool planMma(TilusLowering *L, MlirOperation op,
                    const TilusTensorType *ta, const TilusTensorType *tb,
                    const TilusTensorType *td, MmaPlan *m, char *why,
                    size_t size) {
  memset(m, 0, sizeof(*m));
  if (!kindOf(ta->elementType, &m->kind)) {
    snprintf(why, size, "wgmma multiplies f16, bf16, FP8 (e4m3, e5m2) or 8-bit integers");
    return false;
  }
  m->aShared = ta->scope == TilusMemoryShared;
  // Unverified IR (tilus-verify off) may bring any layout or offsets.
  for (int k = m->aShared ? 0 : 1; k < 2; ++k) {
    const TilusTensorType *t = k ? tb : ta;
    intptr_t start, count;
    if (!tilusOpGetOperandGroup(op, k ? TilusWgmmaBOffsets : TilusWgmmaAOffsets,
                                &start, &count) ||
        count != t->rank - 2 || t->rank < 2) {
      snprintf(why, size, "%s needs one offset per leading dimension",
               k ? "b" : "a");
      return false;
    }
    if (t->scope != TilusMemoryShared ||
        !tilusLayoutMatchMmaShared(t->layout, k ? 0 : 1,
                                   tilusElementTypeGetBitWidth(t->elementType),
                                   NULL)) {
      snprintf(why, size, "%s's layout is not one wgmma reads (run "
                          "tilus-verify for the layout it needs)",
               k ? "b" : "a");
      return false;
    }
  }
  m->steps = ta->shape[ta->rank - 1] / m->kind.k;
  const TilusFragments *acc =
      tilusLoweringFragments(L, td->layout, &tilusFragmentC);
  if (!acc) {
    snprintf(why, size, "the accumulator's layout is not made of mma.sync "
                        "accumulator fragments (16 x 8 tiles)");
    return false;
  }
  if (!planAccumulator(acc, td->layout, &m->kind, &m->plan, why, size))
    return false;
  if (m->aShared)
    return true;
  m->fa = tilusLoweringFragments(L, ta->layout, m->kind.aFragment);
  m->aGroups = malloc(sizeof(int64_t) *
                      (size_t)(m->plan.numInstructions * m->steps + 1));
  if (!m->fa || !m->aGroups) {
    snprintf(why, size, "the register a's layout is not made of mma.sync a "
                        "fragments");
    return false;
  }
  return planRegisterA(m->fa, &m->plan, &m->kind, m->steps, m->aGroups, why,
                       size);
}

// Warpgroup q's offset in rows and columns: where the layout puts its first
// thread (none with one warpgroup).
static void emitWarpgroupOffset(TilusEmitter *e, const TilusLayout *layout,
                                MlirValue offset[2]) {
  MlirValue tid = tilusEmitThreadIndex(e);
  MlirValue first =
      tilusEmitMulIndexConst(e, tilusEmitDivIndexConst(e, tid, 128), 128);
  int64_t origin[2];
  tilusEmitThreadCoords(e, layout, first, offset);
  tilusLayoutEvaluate(layout, 0, 0, origin);
  for (int d = 0; d < 2; ++d)
    offset[d] = tilusEmitAddIndexConst(e, offset[d], -origin[d]);
}

static MlirLogicalResult lowerMma(TilusLowering *L, MlirOperation op,
                                  MlirRewriterBase rewriter) {
  if (!L->target->hasWgmma)
    return noWgmma(L, op);
  MlirValue a = tilusOpGetGroupOperand(op, TilusWgmmaA, 0);
  MlirValue b = tilusOpGetGroupOperand(op, TilusWgmmaB, 0);
  MlirValue d = tilusOpGetGroupOperand(op, TilusWgmmaD, 0);
  const TilusTensorType *ta = tilusLoweringTensorType(L, mlirValueGetType(a));
  const TilusTensorType *tb = tilusLoweringTensorType(L, mlirValueGetType(b));
  const TilusTensorType *td = tilusLoweringTensorType(L, mlirValueGetType(d));
  MlirValue vd = tilusLoweredRegister(d);
  MlirValue va = ta && ta->scope == TilusMemoryRegister ? tilusLoweredRegister(a)
                                                        : (MlirValue){NULL};
  if (!ta || !tb || !td || mlirValueIsNull(vd) ||
      mlirValueIsNull(tilusLoweredRegister(b)) ||
      mlirValueIsNull(ta->scope == TilusMemoryRegister ? va
                                                       : tilusLoweredRegister(a)))
    return mlirLogicalResultFailure();
  char why[256] = "";
  MmaPlan m;
  if (!planMma(L, op, ta, tb, td, &m, why, sizeof why)) {
    releaseMmaPlan(&m);
    return why[0] ? tilusLoweringError(op, why) : mlirLogicalResultFailure();
  }

  TilusEmitter e = tilusEmitterCreate(L, rewriter, op);
  MlirValue offset[2] = {{NULL}, {NULL}};
  if (m.plan.numWarpgroups > 1)
    emitWarpgroupOffset(&e, td->layout, offset);
  SharedOperand sa = {0}, sb = {0};
  // (Both match: planMma checked.)
  if (m.aShared)
    emitSharedOperand(&e, op, a, TilusWgmmaAOffsets, 1, offset[0], &sa);
  emitSharedOperand(&e, op, b, TilusWgmmaBOffsets, 0, offset[1], &sb);

  MlirType accType = mlirShapedTypeGetElementType(mlirValueGetType(vd));
  MlirType i32 = mlirIntegerTypeGet(e.ctx, 32);
  // scale-d: accumulate (a predicate register, set once). A product into
  // a zero constant (allocate_register's init) takes scale-d = 0 in its
  // first k step instead, with undefined accumulator inputs: no register
  // is zeroed for it.
  MlirType i1 = mlirIntegerTypeGet(e.ctx, 1);
  MlirValue one = tilusEmitIntConstant(&e, i1, 1);
  bool fresh = tilusIsZeroConstant(vd);
  MlirValue zero = fresh ? tilusEmitIntConstant(&e, i1, 0) : one;
  MlirValue result = vd;
  int64_t numA = m.aShared ? 1 : 4, per = m.kind.perRegister;
  // Every register the products read besides the accumulators (a's
  // registers or descriptors, b's descriptors) is made first, pinned there
  // by an empty asm, then wgmma.fence: the PTX ISA asks for a fence between
  // writing a register a product reads and the product. (ptxas serializes
  // the products, C7513, when an instruction between a product and its wait
  // rewrites registers the product reads; keeping that span free of other
  // instructions is the program's part: docs/hopper.md.)
  int64_t count = m.plan.numInstructions * m.steps;
  MlirValue *inputs = malloc(sizeof(MlirValue) * (size_t)(count * 5));
  MlirType i64 = mlirIntegerTypeGet(e.ctx, 64);
  for (int64_t i = 0; i < m.plan.numInstructions; ++i)
    for (int64_t s = 0; s < m.steps; ++s) {
      const Instruction *in = &m.plan.instructions[i];
      MlirValue *x = &inputs[(i * m.steps + s) * 5];
      int64_t k0 = s * m.kind.k;
      if (m.aShared)
        x[0] = tileDescriptor(&e, &sa, in->row, k0);
      else
        for (int r = 0; r < 4; ++r)
          x[r] = tilusEmitPackRegister(
              &e, va, &m.fa->slots[(m.aGroups[i * m.steps + s] * 4 + r) * per],
              (int)per, true);
      x[numA] = tileDescriptor(&e, &sb, k0, in->col);
      for (int r = 0; r <= numA; ++r) {
        bool wide = r == numA || m.aShared;
        x[r] = tilusEmitVolatileAsm(&e, "", wide ? "=l,0" : "=r,0", 1, &x[r],
                                    wide ? i64 : i32);
      }
    }
  tilusEmitVolatileAsm(&e, "wgmma.fence.sync.aligned;", "~{memory}", 0, NULL,
                       (MlirType){NULL});
  for (int64_t i = 0; i < m.plan.numInstructions; ++i) {
    const Instruction *in = &m.plan.instructions[i];
    int64_t nd = in->n / 2; // accumulator registers per thread
    int64_t *slots = malloc(sizeof(int64_t) * (size_t)nd);
    MlirValue *operands = malloc(sizeof(MlirValue) * (size_t)(numA + 2 + nd));
    MlirType *fields = malloc(sizeof(MlirType) * (size_t)nd);
    for (int64_t j = 0; j < nd; ++j) {
      slots[j] = m.plan.acc->slots[in->groups[j / 4] * 4 + j % 4];
      fields[j] = accType;
    }
    MlirType structType = tilusLLVMStructType(e.ctx, nd, fields);
    TilusStringBuffer cons = {0}, text = {0};
    instructionText(&m.kind, in->n, m.aShared, &text, &cons);
    for (int64_t s = 0; s < m.steps; ++s) {
      for (int r = 0; r <= numA; ++r)
        operands[r] = inputs[(i * m.steps + s) * 5 + r];
      bool first = fresh && s == 0;
      operands[numA + 1] = first ? zero : one;
      for (int64_t j = 0; j < nd; ++j)
        operands[numA + 2 + j] =
            first ? tilusEmitValue(&e, "llvm.mlir.undef", 0, NULL, accType, 0, NULL)
                  : tilusEmitElement(&e, result, slots[j]);
      MlirValue st = tilusEmitVolatileAsm(&e, text.data, cons.data,
                                          numA + 2 + nd, operands, structType);
      for (int64_t j = 0; j < nd; ++j) {
        MlirNamedAttribute position = tilusNamedAttr(
            e.ctx, "position", mlirDenseI64ArrayGet(e.ctx, 1, &j));
        MlirValue field = tilusEmitValue(&e, "llvm.extractvalue", 1, &st,
                                         accType, 1, &position);
        result = tilusEmitInsert(&e, result, field, slots[j]);
      }
    }
    tilusStringBufferRelease(&cons);
    tilusStringBufferRelease(&text);
    free(fields), free(operands), free(slots);
  }
  free(inputs);
  releaseMmaPlan(&m);
  tilusReplaceWithLowered(rewriter, &e, op, result);
  return mlirLogicalResultSuccess();
}

static MlirLogicalResult emitFixed(TilusLowering *L, MlirOperation op,
                                   MlirRewriterBase rewriter, const char *text) {
  if (!L->target->hasWgmma)
    return noWgmma(L, op);
  TilusEmitter e = tilusEmitterCreate(L, rewriter, op);
  tilusEmitVolatileAsm(&e, text, "~{memory}", 0, NULL, (MlirType){NULL});
  mlirRewriterBaseEraseOp(rewriter, op);
  return mlirLogicalResultSuccess();
}

static MlirLogicalResult lowerFence(TilusLowering *L, MlirOperation op,
                                    MlirRewriterBase rewriter) {
  return emitFixed(L, op, rewriter, "wgmma.fence.sync.aligned;");
}

static MlirLogicalResult lowerCommit(TilusLowering *L, MlirOperation op,
                                     MlirRewriterBase rewriter) {
  return emitFixed(L, op, rewriter, "wgmma.commit_group.sync.aligned;");
}

static void emitWait(TilusEmitter *e, int64_t n) {
  char text[64];
  snprintf(text, sizeof text, "wgmma.wait_group.sync.aligned %lld;",
           (long long)n);
  tilusEmitVolatileAsm(e, text, "~{memory}", 0, NULL, (MlirType){NULL});
}

// The value goes through one empty asm per 32-bit word after the wait:
// nothing reads it before.
static MlirLogicalResult lowerWait(TilusLowering *L, MlirOperation op,
                                   MlirRewriterBase rewriter) {
  if (!L->target->hasWgmma)
    return noWgmma(L, op);
  int64_t n = 0;
  tilusOpGetIntAttr(op, "n", &n);
  if (mlirOperationGetNumOperands(op) == 0) {
    TilusEmitter e = tilusEmitterCreate(L, rewriter, op);
    emitWait(&e, n);
    mlirRewriterBaseEraseOp(rewriter, op);
    return mlirLogicalResultSuccess();
  }
  MlirValue value = tilusLoweredRegister(mlirOperationGetOperand(op, 0));
  if (mlirValueIsNull(value))
    return mlirLogicalResultFailure();
  MlirType type = mlirValueGetType(value);
  MlirType element = mlirShapedTypeGetElementType(type);
  int64_t m = mlirShapedTypeGetDimSize(type, 0);
  int64_t bits = mlirTypeIsAInteger(element) ? mlirIntegerTypeGetWidth(element)
                 : mlirTypeIsAF32(element)   ? 32
                 : mlirTypeIsAF16(element) || mlirTypeIsABF16(element) ? 16
                 : mlirTypeIsAFloat8E4M3FN(element) || mlirTypeIsAFloat8E5M2(element)
                     ? 8
                     : 0;
  int64_t per = bits == 8 || bits == 16 || bits == 32 ? 32 / bits : 0;
  if (!per || m % per)
    return tilusLoweringError(op, "wgmma_wait_group passes 32-bit elements, or "
                                  "8- and 16-bit ones in whole 32-bit words");
  TilusEmitter e = tilusEmitterCreate(L, rewriter, op);
  emitWait(&e, n);
  MlirType i32 = mlirIntegerTypeGet(e.ctx, 32);
  MlirType words = mlirVectorTypeGet(1, &per, element);
  MlirValue result = value;
  for (int64_t w = 0; w < m / per; ++w) {
    int64_t slots[4] = {w * per, w * per + 1, w * per + 2, w * per + 3};
    MlirValue x = per == 1 ? tilusEmitElement(&e, value, w)
                           : tilusEmitPackRegister(&e, value, slots, (int)per, true);
    bool isFloat = per == 1 && !mlirTypeIsAInteger(element);
    MlirValue y = tilusEmitVolatileAsm(&e, "", isFloat ? "=f,0" : "=r,0", 1, &x,
                                       per == 1 ? element : i32);
    if (per == 1) {
      result = tilusEmitInsert(&e, result, y, w);
      continue;
    }
    MlirValue v = tilusEmitValue(&e, "llvm.bitcast", 1, &y, words, 0, NULL);
    for (int64_t j = 0; j < per; ++j)
      result = tilusEmitInsert(&e, result, tilusEmitExtract(&e, v, j), w * per + j);
  }
  tilusReplaceWithLowered(rewriter, &e, op, result);
  return mlirLogicalResultSuccess();
}

static const TilusPattern kPatterns[] = {
    {"tilus.wgmma_fence", lowerFence},
    {"tilus.wgmma_mma", lowerMma},
    {"tilus.wgmma_commit_group", lowerCommit},
    {"tilus.wgmma_wait_group", lowerWait},
};

const TilusPattern *tilusGetWgmmaPatterns(size_t *count) {
  *count = sizeof(kPatterns) / sizeof(kPatterns[0]);
  return kPatterns;
}
