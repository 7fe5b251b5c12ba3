/*===-- tilus-c/Ops.h - Tilus operations: names, schema, builders ---*- C -*-===*\
|*                                                                            *|
|* What every layer above the dialect needs to know about Tilus operations:  *|
|* the names of the attributes the passes put on them, small readers, and    *|
|* the op schema: each op's operand groups, result groups and attributes as  *|
|* dialect/tilus.irdl.mlir declares them, with readers and builders that     *|
|* locate operands by group instead of by hand-counted position.             *|
|* Users: the verifier, the passes, the lowering, the artifact emitter.      *|
\*===----------------------------------------------------------------------===*/

#ifndef TILUS_C_OPS_H
#define TILUS_C_OPS_H

#include "mlir-c/IR.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*--- Attributes the passes set -----------------------------------------------*/

/* On a kernel (set by tilus-plan-shared, kept on its gpu.func): bytes of
 * dynamic shared memory; on each tilus.allocate_shared: its byte offset, a
 * multiple of TILUS_SHARED_ALIGNMENT (the lowering's vector accesses rely on
 * it), with the tensor inside the kernel's bytes. */
#define TILUS_SHARED_BYTES_ATTR "tilus.shared_bytes"
#define TILUS_SHARED_OFFSET_ATTR "tilus.shared_offset"
#define TILUS_SHARED_ALIGNMENT 128
/* The alignment of shared tensors that wgmma reads (tilus-plan-shared). */
#define TILUS_WGMMA_SHARED_ALIGNMENT 1024
/* On a lowered gpu.func: bytes of global workspace (its pointer is then the
 * last parameter); on each tilus.allocate_global: its byte offset in it. */
#define TILUS_WORKSPACE_BYTES_ATTR "tilus.workspace_bytes"
#define TILUS_WORKSPACE_OFFSET_ATTR "tilus.workspace_offset"
/* On a lowered gpu.func: bytes of static shared arrays (Dot's SIMT scratch). */
#define TILUS_STATIC_SHARED_BYTES_ATTR "tilus.static_shared_bytes"
/* On a lowered gpu.func: the kernel's parameter types before lowering. */
#define TILUS_PARAM_TYPES_ATTR "tilus.param_types"
/* On a lowered gpu.func: its tensor maps (TMA), an array of strings, each
 * the text of one manifest line after `tensormap ` (docs/artifact.md); the
 * maps are the parameters after the kernel's own, in this order, before the
 * workspace's. On each tilus.tma_load: the index of its map's parameter. */
#define TILUS_TENSOR_MAPS_ATTR "tilus.tensor_maps"
#define TILUS_TENSOR_MAP_ARG_ATTR "tilus.tensor_map_arg"
/* The alignment of shared tensors that tilus.tma_load writes (the swizzle
 * modes are applied to address bits up to bit 9, as for wgmma). */
#define TILUS_TMA_SHARED_ALIGNMENT 1024
/* On the gpu.module, set by tilus-to-gpu: the target it lowered for (a
 * string, e.g. "sm_90a"); the artifact emitter refuses another target. */
#define TILUS_TARGET_ATTR "tilus.target"

/*--- Readers -----------------------------------------------------------------*/

/* Whether `op` is named `name` (e.g. "tilus.dot", "scf.for"). */
bool tilusOpIs(MlirOperation op, const char *name);

/* Whether `op` belongs to the Tilus dialect (its name starts "tilus."). */
bool tilusOpIsInDialect(MlirOperation op);

/* The integer attribute `name` of `op` (discardable or inherent) in *out;
 * false when there is none or it is not an integer. */
bool tilusOpGetIntAttr(MlirOperation op, const char *name, int64_t *out);

/* Calls `visit` for each use of the shared tensor `value` and, through the
 * views of it (tilus.transpose_shared, which alias its memory), for each
 * use of those, recursively; the view ops' own uses of `value` included. */
void tilusSharedTensorWalkUses(MlirValue value,
                               void (*visit)(MlirOpOperand use, void *userData),
                               void *userData);

/* The value of `value` in *out if an arith.constant of integer (or index)
 * type defines it; false otherwise. */
bool tilusValueGetConstantInt(MlirValue value, int64_t *out);

/*--- The op schema -----------------------------------------------------------*
 *
 * One constant table (lib/Dialect/OpSchema.c) describes every Tilus op as
 * dialect/tilus.irdl.mlir declares it: its operand groups in order, its
 * result groups, and its required attributes. test/unit/OpSchemaTest.c
 * loads the IRDL and fails if the table and the IRDL disagree in any op, group
 * name, group kind or attribute, so the table is the IRDL in C.
 *
 * A group is `single` (exactly one value), `optional` (zero or one) or
 * `variadic` (any number). As in IRDL, an op whose operands have more than
 * one optional or variadic group carries `operandSegmentSizes =
 * array<i32: ...>` with one size per group; otherwise the sizes follow from
 * the operand count. Use tilusOpGetOperandGroup to find operands and
 * tilusOpCreate to build ops, never positions counted by hand.
 *
 * All schema data is static and constant: nothing to free. */

/* How many values a group holds (IRDL's variadicity). */
typedef enum {
  TilusVariadicitySingle,   /* exactly one */
  TilusVariadicityOptional, /* zero or one */
  TilusVariadicityVariadic, /* any number */
} TilusVariadicity;

/* One operand or result group, named as in irdl.operands(name: ...). */
typedef struct {
  const char *name;
  TilusVariadicity variadicity;
} TilusOpSchemaGroup;

typedef struct {
  const char *name; /* the full op name, e.g. "tilus.load_global" */
  intptr_t numOperandGroups;
  const TilusOpSchemaGroup *operandGroups;
  intptr_t numResultGroups;
  const TilusOpSchemaGroup *resultGroups;
  /* The attributes the op must have (irdl.attributes), by name. */
  intptr_t numAttributes;
  const char *const *attributeNames;
} TilusOpSchema;

/* The name of the attribute holding the size of each operand group. */
#define TILUS_OPERAND_SEGMENT_SIZES_ATTR "operandSegmentSizes"

/* Operand group indices of the ops with operands, in schema order (the test
 * checks each against the schema's group names). */
enum { TilusAllocateGlobalSizes };
enum { TilusAllocateRegisterInit };
enum { TilusViewGlobalPtr, TilusViewGlobalSizes };
enum {
  TilusLoadGlobalSrc,
  TilusLoadGlobalOffsets,
  TilusLoadGlobalFill,
  TilusLoadGlobalOut
};
enum { TilusLoadSharedSrc, TilusLoadSharedOffsets, TilusLoadSharedOut };
/* tilus.store_global and tilus.store_shared. */
enum { TilusStoreValue, TilusStoreDst, TilusStoreOffsets };
enum {
  TilusCopyAsyncDst,
  TilusCopyAsyncSrc,
  TilusCopyAsyncDstOffsets,
  TilusCopyAsyncSrcOffsets
};
/* tilus.add, sub, mul, div, mod, max, min, and, or, xor, shl, shr, cmp. */
enum { TilusBinaryLhs, TilusBinaryRhs, TilusBinaryOut };
enum { TilusWhereCond, TilusWhereA, TilusWhereB, TilusWhereOut };
enum { TilusClampX, TilusClampLo, TilusClampHi, TilusClampOut };
/* tilus.neg, cast, view, abs, exp, exp2, log, log2, sqrt, rsqrt, tanh, sin,
 * cos, not. */
enum { TilusUnaryX, TilusUnaryOut };
enum { TilusDotA, TilusDotB, TilusDotC, TilusDotOut };
enum { TilusPrintX };
/* tilus.atomic_rmw, atomic_cas. */
enum { TilusAtomicMem, TilusAtomicOffsets, TilusAtomicRmwValue };
enum { TilusAtomicCasCompare = 2, TilusAtomicCasValue };
/* tilus.atomic_add_global has the groups of tilus.store_global
 * (TilusStoreValue, TilusStoreDst, TilusStoreOffsets). */
/* tilus.semaphore_wait, semaphore_signal. */
enum { TilusSemaphoreCounters, TilusSemaphoreOffsets, TilusSemaphoreValue };
enum {
  TilusWgmmaA,
  TilusWgmmaB,
  TilusWgmmaD,
  TilusWgmmaAOffsets,
  TilusWgmmaBOffsets
};
enum { TilusWgmmaWaitValue };
/* tilus.mbarrier_init (count), arrive, arrive_expect_tx (bytes), wait
 * (phase). */
enum { TilusMbarrierBars, TilusMbarrierOffsets, TilusMbarrierValue };
/* tilus.tma_load (dst shared, src global) and tilus.tma_store (src shared,
 * dst global): the shared tensor is operand group 0, the global one group
 * 1 (TilusTmaShared, TilusTmaGlobal) in both. */
enum {
  TilusTmaDst,
  TilusTmaSrc,
  TilusTmaBars,
  TilusTmaDstOffsets,
  TilusTmaSrcOffsets,
  TilusTmaBarOffsets
};
enum { TilusTmaShared = 0, TilusTmaGlobal = 1 };
enum {
  TilusTmaStoreSrc,
  TilusTmaStoreDst,
  TilusTmaStoreSharedOffsets,
  TilusTmaStoreGlobalOffsets
};
/* tilus.reduce, convert_layout, permute, reshape: one register tensor;
 * tilus.transpose_shared: one shared tensor. */
enum { TilusMoveX };

/* The number of Tilus ops in the table, and the one at `index` (0 to that
 * number - 1; NULL outside). For enumerating every op. */
intptr_t tilusOpSchemaGetNumOps(void);
const TilusOpSchema *tilusOpSchemaGetAt(intptr_t index);

/* The schema of the op named `opName` (e.g. "tilus.dot"), or NULL if it is
 * not a Tilus op. */
const TilusOpSchema *tilusOpSchemaLookup(MlirStringRef opName);

/* The schema of `op`, or NULL if it is not a Tilus op. */
const TilusOpSchema *tilusOpSchemaGet(MlirOperation op);

/* The index of the operand group called `name` in `schema`, or -1. */
intptr_t tilusOpSchemaFindOperandGroup(const TilusOpSchema *schema,
                                       const char *name);

/* Whether ops of `schema` carry operandSegmentSizes (more than one optional
 * or variadic operand group). */
bool tilusOpSchemaNeedsOperandSegmentSizes(const TilusOpSchema *schema);

/*--- Reading operand groups ----------------------------------------------------*/

/* Where operand group `group` of the Tilus op `op` lies: its first operand
 * position in *start and its number of operands in *count. Reads
 * operandSegmentSizes when the schema needs it, and checks the op's operands
 * as a whole against the schema first (the attribute's length, signs and
 * sum, each group's variadicity, the operand count). Returns false, setting
 * nothing and reporting nothing, when `op` is not a Tilus op, `group` is out
 * of range, or the operands do not fit the schema; call tilusOpVerifyStructure
 * for the reason. */
bool tilusOpGetOperandGroup(MlirOperation op, intptr_t group, intptr_t *start,
                            intptr_t *count);

/* The same for the group called `name` (as in the IRDL, e.g. "fill"). */
bool tilusOpGetOperandGroupByName(MlirOperation op, const char *name,
                                  intptr_t *start, intptr_t *count);

/* Operand `index` of group `group` of `op`, or a null value if the group has
 * no such operand (an absent optional operand, an index past a variadic
 * group's end) or the operands do not fit the schema. */
MlirValue tilusOpGetGroupOperand(MlirOperation op, intptr_t group,
                                 intptr_t index);

/* Checks `op` against its schema: operand groups as above, the number of
 * results, and the presence of the required attributes. On failure emits
 * one error at `op`'s location ("'tilus.x' op ...") saying what is wrong.
 * Fails (with an error) for an op that is not a Tilus op. IRDL checks the
 * same when a module is verified; this lets code that reads ops (the
 * verifier, the passes) refuse unverified ones with a located error
 * instead of reading out of range. */
MlirLogicalResult tilusOpVerifyStructure(MlirOperation op);

/*--- Building ops --------------------------------------------------------------*/

/* Creates the Tilus op `opName` with its operands given group by group:
 * `groupSizes` has one entry per operand group of the schema (a single group
 * takes 1, an optional one 0 or 1, a variadic one any number >= 0) and
 * `operands` their concatenation. Sets operandSegmentSizes exactly when the
 * schema needs it (callers must not pass it in `attrs`). `resultTypes` has
 * `numResults` entries, which must fit the result groups; `attrs` must
 * include every required attribute of the schema.
 *
 * Returns the new, detached operation, owned by the caller (insert it into
 * a block, or destroy it with mlirOperationDestroy). On misuse (unknown op,
 * the Tilus dialect not loaded in `loc`'s context, a wrong group size or
 * result count, a null operand or result type, a missing required or a
 * passed operandSegmentSizes attribute) emits an error at `loc` saying why
 * and returns a null operation. */
MlirOperation tilusOpCreate(MlirLocation loc, MlirStringRef opName,
                            const intptr_t *groupSizes,
                            const MlirValue *operands, intptr_t numResults,
                            const MlirType *resultTypes, intptr_t numAttrs,
                            const MlirNamedAttribute *attrs);

/* Typed builders over tilusOpCreate, same ownership and errors. A null
 * MlirValue (`(MlirValue){NULL}`) leaves an optional operand out.
 *   tilus.load_global(src, offsets..., [fill], [out]) -> resultType
 *   tilus.load_shared(src, offsets..., [out]) -> resultType
 *   tilus.store_global(value, dst, offsets...)
 *   tilus.store_shared(value, dst, offsets...) */
MlirOperation tilusLoadGlobalCreate(MlirLocation loc, MlirType resultType,
                                    MlirValue src, intptr_t numOffsets,
                                    const MlirValue *offsets, MlirValue fill,
                                    MlirValue out);
MlirOperation tilusLoadSharedCreate(MlirLocation loc, MlirType resultType,
                                    MlirValue src, intptr_t numOffsets,
                                    const MlirValue *offsets, MlirValue out);
MlirOperation tilusStoreGlobalCreate(MlirLocation loc, MlirValue value,
                                     MlirValue dst, intptr_t numOffsets,
                                     const MlirValue *offsets);
MlirOperation tilusStoreSharedCreate(MlirLocation loc, MlirValue value,
                                     MlirValue dst, intptr_t numOffsets,
                                     const MlirValue *offsets);

#ifdef __cplusplus
}
#endif

#endif /* TILUS_C_OPS_H */
