// The Tilus dialect: the thread-block-level virtual machine of the Tilus paper
// (sections 4-6, Table 1), declared as data. IRDL checks the structure (which
// operands, results and attributes each op has, and their kinds); the C
// verifier `tilus-verify` checks what needs arithmetic (layouts, shapes,
// thread counts, bits per thread). See docs/dialect.md.
//
// IRDL types print in the generic form `!tilus.name<param, ...>` and ops in the
// generic form `"tilus.op"(operands) : (types) -> types`.
irdl.dialect @tilus {
  //===--------------------------------------------------------------------===//
  // Attributes
  //===--------------------------------------------------------------------===//

  // #tilus.layout<"local(2,1).spatial(8,4).local(1,2)">: a layout of the
  // algebra (local, spatial, column_local, column_spatial, composition with
  // '.', reduce(..., dims=[..]), swizzle(..., dim=d, log_step=s)) in its text
  // form.
  irdl.attribute @layout {
    %text = irdl.base "#builtin.string"
    irdl.parameters(text: %text)
  }

  // #tilus.row_major: the compact row-major layout of a global tensor, whose
  // dimensions may be known only at run time.
  irdl.attribute @row_major {
  }

  //===--------------------------------------------------------------------===//
  // Types
  //===--------------------------------------------------------------------===//

  // !tilus.float<e, m>: a signed floating-point number of 1 + e + m bits
  // (3 to 8 bits in all), e.g. !tilus.float<3, 2> is float6_e3m2.
  irdl.type @float {
    %e = irdl.base "#builtin.integer"
    %m = irdl.base "#builtin.integer"
    irdl.parameters(exponent: %e, mantissa: %m)
  }

  // !tilus.ptr<f16>: a kernel parameter pointing to global memory.
  irdl.type @ptr {
    %dtype = irdl.any
    irdl.parameters(dtype: %dtype)
  }

  // !tilus.global<dtype, array<i64: d0, ...>, layout>: a tensor in global
  // memory. A dimension of -1 is known only at run time (row-major only).
  irdl.type @global {
    %dtype = irdl.any
    %shape = irdl.base "#builtin.dense_array"
    %l = irdl.base @tilus::@layout
    %rm = irdl.base @tilus::@row_major
    %layout = irdl.any_of(%l, %rm)
    irdl.parameters(dtype: %dtype, shape: %shape, layout: %layout)
  }

  // !tilus.shared<dtype, array<i64: d0, ...>, #tilus.layout<"...">>: a
  // tensor in shared memory; its layout has one thread.
  irdl.type @shared {
    %dtype = irdl.any
    %shape = irdl.base "#builtin.dense_array"
    %layout = irdl.base @tilus::@layout
    irdl.parameters(dtype: %dtype, shape: %shape, layout: %layout)
  }

  // !tilus.register<dtype, array<i64: d0, ...>, #tilus.layout<"...">>: a
  // tensor held in the registers of the whole thread block; its layout's
  // thread count is the block size.
  irdl.type @register {
    %dtype = irdl.any
    %shape = irdl.base "#builtin.dense_array"
    %layout = irdl.base @tilus::@layout
    irdl.parameters(dtype: %dtype, shape: %shape, layout: %layout)
  }

  //===--------------------------------------------------------------------===//
  // Indexing
  //===--------------------------------------------------------------------===//

  // BlockIndices(): one index per grid dimension (1 to 3).
  irdl.operation @block_indices {
    %index = irdl.is index
    irdl.results(indices: variadic %index)
  }

  // ClusterBlockRank(): the block's rank in its thread-block cluster (0 ..
  // blocks per cluster - 1), in a kernel with tilus.cluster.
  irdl.operation @cluster_block_rank {
    %index = irdl.is index
    irdl.results(rank: %index)
  }

  // ClusterSynchronize(): every thread of the cluster's blocks waits for
  // all the others (barrier.cluster), and their memory operations before
  // it (shared memory of any block of the cluster included) are visible
  // after it. Not in a thread group.
  irdl.operation @cluster_synchronize {
  }

  //===--------------------------------------------------------------------===//
  // Tensor creation
  //===--------------------------------------------------------------------===//

  // AllocateGlobal(dtype, shape, [layout]): a tensor in the kernel's global
  // workspace; `sizes` gives the dimensions that are -1 in the type.
  irdl.operation @allocate_global {
    %index = irdl.is index
    %global = irdl.base @tilus::@global
    irdl.operands(sizes: variadic %index)
    irdl.results(result: %global)
  }

  // AllocateShared(dtype, shape, [layout]).
  irdl.operation @allocate_shared {
    %shared = irdl.base @tilus::@shared
    irdl.results(result: %shared)
  }

  // TransposeShared(x): the same shared memory seen with its last two
  // dimensions exchanged (nothing moves); the result's layout is x's
  // transposed (docs/layouts.md).
  irdl.operation @transpose_shared {
    %x = irdl.base @tilus::@shared
    %shared = irdl.base @tilus::@shared
    irdl.operands(x: %x)
    irdl.results(result: %shared)
  }

  // AllocateRegister(dtype, shape, [layout], [init]).
  irdl.operation @allocate_register {
    %any = irdl.any
    %reg = irdl.base @tilus::@register
    irdl.operands(init: optional %any)
    irdl.results(result: %reg)
  }

  // ViewGlobal(ptr, [dtype], shape, [layout]).
  irdl.operation @view_global {
    %ptr = irdl.base @tilus::@ptr
    %index = irdl.is index
    %global = irdl.base @tilus::@global
    irdl.operands(ptr: %ptr, sizes: variadic %index)
    irdl.results(result: %global)
  }

  //===--------------------------------------------------------------------===//
  // Tensor transfer. A register tile of rank r addresses the last r dimensions
  // of the memory tensor; `offsets` has one index per memory dimension.
  //===--------------------------------------------------------------------===//

  // LoadGlobal(global_tensor, layout, offset), with an optional `fill` (the
  // value of elements outside the tensor, 0 by default) and `out`.
  irdl.operation @load_global {
    %global = irdl.base @tilus::@global
    %index = irdl.is index
    %fill = irdl.any
    %reg = irdl.base @tilus::@register
    irdl.operands(src: %global, offsets: variadic %index, fill: optional %fill,
                  out: optional %reg)
    irdl.results(result: %reg)
  }

  // LoadShared(shared_tensor, layout, offset), with an optional `out`.
  irdl.operation @load_shared {
    %shared = irdl.base @tilus::@shared
    %index = irdl.is index
    %reg = irdl.base @tilus::@register
    irdl.operands(src: %shared, offsets: variadic %index, out: optional %reg)
    irdl.results(result: %reg)
  }

  // StoreGlobal(register_tensor, global_tensor, offset).
  irdl.operation @store_global {
    %reg = irdl.base @tilus::@register
    %global = irdl.base @tilus::@global
    %index = irdl.is index
    irdl.operands(value: %reg, dst: %global, offsets: variadic %index)
  }

  // StoreShared(register_tensor, shared_tensor, offset).
  irdl.operation @store_shared {
    %reg = irdl.base @tilus::@register
    %shared = irdl.base @tilus::@shared
    %index = irdl.is index
    irdl.operands(value: %reg, dst: %shared, offsets: variadic %index)
  }

  // CopyAsync(shared_tensor, global_tensor): copies a region of static
  // `shape` (the last dimensions of both tensors) from src at src_offsets to
  // dst at dst_offsets.
  irdl.operation @copy_async {
    %shared = irdl.base @tilus::@shared
    %global = irdl.base @tilus::@global
    %index = irdl.is index
    %shape = irdl.base "#builtin.dense_array"
    irdl.operands(dst: %shared, src: %global, dst_offsets: variadic %index,
                  src_offsets: variadic %index)
    irdl.attributes {"shape" = %shape}
  }

  // CopyAsyncCommitGroup().
  irdl.operation @copy_async_commit_group {
  }

  // CopyAsyncWaitGroup(n).
  irdl.operation @copy_async_wait_group {
    %n = irdl.base "#builtin.integer"
    irdl.attributes {"n" = %n}
  }

  //===--------------------------------------------------------------------===//
  // Register tensor computation. `lhs` is a register tensor; `rhs` is a
  // register tensor or a scalar. `out` (optional) is the in-place form: the
  // result is written into `out`, and has its type.
  //===--------------------------------------------------------------------===//

  irdl.operation @add {
    %lhs = irdl.base @tilus::@register
    %rhs = irdl.any
    %reg = irdl.base @tilus::@register
    irdl.operands(lhs: %lhs, rhs: %rhs, out: optional %reg)
    irdl.results(result: %reg)
  }

  irdl.operation @sub {
    %lhs = irdl.base @tilus::@register
    %rhs = irdl.any
    %reg = irdl.base @tilus::@register
    irdl.operands(lhs: %lhs, rhs: %rhs, out: optional %reg)
    irdl.results(result: %reg)
  }

  irdl.operation @mul {
    %lhs = irdl.base @tilus::@register
    %rhs = irdl.any
    %reg = irdl.base @tilus::@register
    irdl.operands(lhs: %lhs, rhs: %rhs, out: optional %reg)
    irdl.results(result: %reg)
  }

  irdl.operation @div {
    %lhs = irdl.base @tilus::@register
    %rhs = irdl.any
    %reg = irdl.base @tilus::@register
    irdl.operands(lhs: %lhs, rhs: %rhs, out: optional %reg)
    irdl.results(result: %reg)
  }

  irdl.operation @mod {
    %lhs = irdl.base @tilus::@register
    %rhs = irdl.any
    %reg = irdl.base @tilus::@register
    irdl.operands(lhs: %lhs, rhs: %rhs, out: optional %reg)
    irdl.results(result: %reg)
  }

  irdl.operation @neg {
    %x = irdl.base @tilus::@register
    %reg = irdl.base @tilus::@register
    irdl.operands(x: %x, out: optional %reg)
    irdl.results(result: %reg)
  }

  //===--------------------------------------------------------------------===//
  // Elementwise instructions for LLM kernels (issue 11). Binary ops broadcast
  // register operands of the same rank (a dimension of 1 broadcasts); a
  // scalar operand is splat. See docs/dialect.md.
  //===--------------------------------------------------------------------===//

  irdl.operation @max {
    %lhs = irdl.base @tilus::@register
    %rhs = irdl.any
    %reg = irdl.base @tilus::@register
    irdl.operands(lhs: %lhs, rhs: %rhs, out: optional %reg)
    irdl.results(result: %reg)
  }

  irdl.operation @min {
    %lhs = irdl.base @tilus::@register
    %rhs = irdl.any
    %reg = irdl.base @tilus::@register
    irdl.operands(lhs: %lhs, rhs: %rhs, out: optional %reg)
    irdl.results(result: %reg)
  }

  irdl.operation @and {
    %lhs = irdl.base @tilus::@register
    %rhs = irdl.any
    %reg = irdl.base @tilus::@register
    irdl.operands(lhs: %lhs, rhs: %rhs, out: optional %reg)
    irdl.results(result: %reg)
  }

  irdl.operation @or {
    %lhs = irdl.base @tilus::@register
    %rhs = irdl.any
    %reg = irdl.base @tilus::@register
    irdl.operands(lhs: %lhs, rhs: %rhs, out: optional %reg)
    irdl.results(result: %reg)
  }

  irdl.operation @xor {
    %lhs = irdl.base @tilus::@register
    %rhs = irdl.any
    %reg = irdl.base @tilus::@register
    irdl.operands(lhs: %lhs, rhs: %rhs, out: optional %reg)
    irdl.results(result: %reg)
  }

  irdl.operation @shl {
    %lhs = irdl.base @tilus::@register
    %rhs = irdl.any
    %reg = irdl.base @tilus::@register
    irdl.operands(lhs: %lhs, rhs: %rhs, out: optional %reg)
    irdl.results(result: %reg)
  }

  irdl.operation @shr {
    %lhs = irdl.base @tilus::@register
    %rhs = irdl.any
    %reg = irdl.base @tilus::@register
    irdl.operands(lhs: %lhs, rhs: %rhs, out: optional %reg)
    irdl.results(result: %reg)
  }

  irdl.operation @abs {
    %x = irdl.base @tilus::@register
    %reg = irdl.base @tilus::@register
    irdl.operands(x: %x, out: optional %reg)
    irdl.results(result: %reg)
  }

  irdl.operation @exp {
    %x = irdl.base @tilus::@register
    %reg = irdl.base @tilus::@register
    irdl.operands(x: %x, out: optional %reg)
    irdl.results(result: %reg)
  }

  irdl.operation @exp2 {
    %x = irdl.base @tilus::@register
    %reg = irdl.base @tilus::@register
    irdl.operands(x: %x, out: optional %reg)
    irdl.results(result: %reg)
  }

  irdl.operation @log {
    %x = irdl.base @tilus::@register
    %reg = irdl.base @tilus::@register
    irdl.operands(x: %x, out: optional %reg)
    irdl.results(result: %reg)
  }

  irdl.operation @log2 {
    %x = irdl.base @tilus::@register
    %reg = irdl.base @tilus::@register
    irdl.operands(x: %x, out: optional %reg)
    irdl.results(result: %reg)
  }

  irdl.operation @sqrt {
    %x = irdl.base @tilus::@register
    %reg = irdl.base @tilus::@register
    irdl.operands(x: %x, out: optional %reg)
    irdl.results(result: %reg)
  }

  irdl.operation @rsqrt {
    %x = irdl.base @tilus::@register
    %reg = irdl.base @tilus::@register
    irdl.operands(x: %x, out: optional %reg)
    irdl.results(result: %reg)
  }

  irdl.operation @tanh {
    %x = irdl.base @tilus::@register
    %reg = irdl.base @tilus::@register
    irdl.operands(x: %x, out: optional %reg)
    irdl.results(result: %reg)
  }

  irdl.operation @sin {
    %x = irdl.base @tilus::@register
    %reg = irdl.base @tilus::@register
    irdl.operands(x: %x, out: optional %reg)
    irdl.results(result: %reg)
  }

  irdl.operation @cos {
    %x = irdl.base @tilus::@register
    %reg = irdl.base @tilus::@register
    irdl.operands(x: %x, out: optional %reg)
    irdl.results(result: %reg)
  }

  irdl.operation @not {
    %x = irdl.base @tilus::@register
    %reg = irdl.base @tilus::@register
    irdl.operands(x: %x, out: optional %reg)
    irdl.results(result: %reg)
  }

  // (Constraint variables bind one type: operands that may differ in type
  // each get their own `irdl.any`.)
  // Cmp(lhs, rhs, predicate): an i1 register tensor; `predicate` is one of
  // "eq", "ne", "lt", "le", "gt", "ge" (signed unless the type is uiN).
  irdl.operation @cmp {
    %lhs = irdl.base @tilus::@register
    %rhs = irdl.any
    %reg = irdl.base @tilus::@register
    %predicate = irdl.base "#builtin.string"
    irdl.operands(lhs: %lhs, rhs: %rhs, out: optional %reg)
    irdl.results(result: %reg)
    irdl.attributes {"predicate" = %predicate}
  }

  // Where(cond, a, b): cond ? a : b, elementwise; cond is an i1 register
  // tensor, a and b register tensors or scalars.
  irdl.operation @where {
    %cond = irdl.base @tilus::@register
    %a = irdl.any
    %b = irdl.any
    %reg = irdl.base @tilus::@register
    irdl.operands(cond: %cond, a: %a, b: %b, out: optional %reg)
    irdl.results(result: %reg)
  }

  // Clamp(x, lo, hi) = min(max(x, lo), hi); lo and hi are register tensors
  // or scalars.
  irdl.operation @clamp {
    %x = irdl.base @tilus::@register
    %lo = irdl.any
    %hi = irdl.any
    %reg = irdl.base @tilus::@register
    irdl.operands(x: %x, lo: %lo, hi: %hi, out: optional %reg)
    irdl.results(result: %reg)
  }

  // Cast(a, dtype): same shape and layout, another element type.
  irdl.operation @cast {
    %x = irdl.base @tilus::@register
    %reg = irdl.base @tilus::@register
    irdl.operands(x: %x, out: optional %reg)
    irdl.results(result: %reg)
  }

  // View(a, [dtype], [layout]): the same bits per thread read as another
  // element type and layout, at no cost.
  irdl.operation @view {
    %x = irdl.base @tilus::@register
    %reg = irdl.base @tilus::@register
    irdl.operands(x: %x, out: optional %reg)
    irdl.results(result: %reg)
  }

  // Dot(a, b, c) = a x b + c for a[M, K], b[K, N], c[M, N].
  irdl.operation @dot {
    %a = irdl.base @tilus::@register
    %b = irdl.base @tilus::@register
    %reg = irdl.base @tilus::@register
    irdl.operands(a: %a, b: %b, c: %reg, out: optional %reg)
    irdl.results(result: %reg)
  }

  //===--------------------------------------------------------------------===//
  // Reductions and data movement between register layouts (issue 11). Each
  // takes one register tensor and gives one; docs/dialect.md says how each
  // lowers (in registers, warp shuffles, or shared scratch planned by
  // tilus-plan-shared).
  //===--------------------------------------------------------------------===//

  // Reduce(x, dims, kind): sum, max or min over the dimensions `dims`; the
  // result drops them, and its layout is reduce(layout of x, dims).
  irdl.operation @reduce {
    %x = irdl.base @tilus::@register
    %reg = irdl.base @tilus::@register
    %dims = irdl.base "#builtin.dense_array"
    %kind = irdl.base "#builtin.string"
    irdl.operands(x: %x)
    irdl.results(result: %reg)
    irdl.attributes {"dims" = %dims, "kind" = %kind}
  }

  // ConvertLayout(x, layout): the same tensor in another layout.
  irdl.operation @convert_layout {
    %x = irdl.base @tilus::@register
    %reg = irdl.base @tilus::@register
    irdl.operands(x: %x)
    irdl.results(result: %reg)
  }

  // Permute(x, dims): result dimension k is dimension dims[k] of x.
  irdl.operation @permute {
    %x = irdl.base @tilus::@register
    %reg = irdl.base @tilus::@register
    %dims = irdl.base "#builtin.dense_array"
    irdl.operands(x: %x)
    irdl.results(result: %reg)
    irdl.attributes {"dims" = %dims}
  }

  // Reshape(x): the same elements in row-major order under another shape
  // (squeeze and unsqueeze are reshapes).
  irdl.operation @reshape {
    %x = irdl.base @tilus::@register
    %reg = irdl.base @tilus::@register
    irdl.operands(x: %x)
    irdl.results(result: %reg)
  }

  //===--------------------------------------------------------------------===//
  // Control and debugging
  //===--------------------------------------------------------------------===//

  irdl.operation @synchronize {
  }

  irdl.operation @exit {
  }

  // Print(tensor): a register, shared or global tensor, or a scalar.
  irdl.operation @print {
    %any = irdl.any
    irdl.operands(x: %any)
  }

  //===--------------------------------------------------------------------===//
  // Atomics (docs/dialect.md, "Atomics"): relaxed, gpu-scope read-modify-
  // writes on global or shared memory (atomic_rmw also acquire-release with
  // the optional discardable attribute order = "acq_rel"), and a semaphore
  // pair for split-K in block order (acquire/release at gpu scope).
  //===--------------------------------------------------------------------===//

  // AtomicRMW(mem, offsets, value) -> old: one scalar read-modify-write of
  // the element at `offsets`, done once per thread block (by thread 0); the
  // old value goes to every thread. `kind` is "add", "max", "min" or
  // "exchange".
  irdl.operation @atomic_rmw {
    %global = irdl.base @tilus::@global
    %shared = irdl.base @tilus::@shared
    %mem = irdl.any_of(%global, %shared)
    %index = irdl.is index
    %any = irdl.any
    %kind = irdl.base "#builtin.string"
    irdl.operands(mem: %mem, offsets: variadic %index, value: %any)
    irdl.attributes {"kind" = %kind}
    irdl.results(old: %any)
  }

  // AtomicCAS(mem, offsets, compare, value) -> old: once per thread block,
  // stores `value` if the element equals `compare`; the old value goes to
  // every thread.
  irdl.operation @atomic_cas {
    %global = irdl.base @tilus::@global
    %shared = irdl.base @tilus::@shared
    %mem = irdl.any_of(%global, %shared)
    %index = irdl.is index
    %any = irdl.any
    irdl.operands(mem: %mem, offsets: variadic %index, compare: %any,
                  value: %any)
    irdl.results(old: %any)
  }

  // AtomicAddGlobal(register_tensor, global_tensor, offset): adds every
  // element of the tile into the global tensor atomically (masked at the
  // tensor's edges like StoreGlobal), e.g. split-K accumulation.
  irdl.operation @atomic_add_global {
    %reg = irdl.base @tilus::@register
    %global = irdl.base @tilus::@global
    %index = irdl.is index
    irdl.operands(value: %reg, dst: %global, offsets: variadic %index)
  }

  // SemaphoreWait(counters, offsets, value): thread 0 spins (acquire loads)
  // until the i32 counter at `offsets` equals `value`; then the block
  // synchronizes.
  irdl.operation @semaphore_wait {
    %global = irdl.base @tilus::@global
    %index = irdl.is index
    %i32 = irdl.is i32
    irdl.operands(counters: %global, offsets: variadic %index, value: %i32)
  }

  // SemaphoreSignal(counters, offsets, value): the block synchronizes, then
  // thread 0 stores `value` into the i32 counter (a release store).
  irdl.operation @semaphore_signal {
    %global = irdl.base @tilus::@global
    %index = irdl.is index
    %i32 = irdl.is i32
    irdl.operands(counters: %global, offsets: variadic %index, value: %i32)
  }

  //===--------------------------------------------------------------------===//
  // Warpgroup matrix multiply (Hopper, sm_90a; docs/hopper.md). The block's
  // warps form warpgroups of four; each multiplies its part of the
  // accumulator asynchronously, reading shared operands in place through
  // matrix descriptors. A wgmma_mma's result may only be passed on (to
  // another wgmma_mma as its accumulator, through scf.for, or to
  // wgmma_wait_group): the wait's results are the values other ops read.
  //===--------------------------------------------------------------------===//

  // WgmmaFence(): orders the block's earlier register writes (and, with the
  // proxy fences the lowering inserts at barriers, shared-memory writes)
  // before the wgmma_mma ops that follow.
  irdl.operation @wgmma_fence {
  }

  // WgmmaMma(a, b, d) -> d + a x b for a[M, K] (shared, or registers), b[K,
  // N] (shared) and d[M, N] (registers), the last two dimensions of each
  // shared tensor at `a_offsets` / `b_offsets` (one index per leading
  // dimension). Started, not finished: see wgmma_wait_group.
  irdl.operation @wgmma_mma {
    %sa = irdl.base @tilus::@shared
    %ra = irdl.base @tilus::@register
    %a = irdl.any_of(%sa, %ra)
    %b = irdl.base @tilus::@shared
    %reg = irdl.base @tilus::@register
    %index = irdl.is index
    irdl.operands(a: %a, b: %b, d: %reg, a_offsets: variadic %index,
                  b_offsets: variadic %index)
    irdl.results(result: %reg)
  }

  // WgmmaCommitGroup(): the wgmma_mma ops started since the last commit
  // form a group.
  irdl.operation @wgmma_commit_group {
  }

  // WgmmaWaitGroup([value], n) -> [result]: waits until at most `n` groups
  // are pending; the result is `value` (the accumulator of finished
  // groups), now readable.
  irdl.operation @wgmma_wait_group {
    %reg = irdl.base @tilus::@register
    %n = irdl.base "#builtin.integer"
    irdl.operands(value: optional %reg)
    irdl.results(result: optional %reg)
    irdl.attributes {"n" = %n}
  }

  //===--------------------------------------------------------------------===//
  // Barriers in shared memory (mbarrier, sm_90; docs/hopper.md). An mbarrier
  // is an element of a shared tensor of i64 or ui64; its phase completes when
  // the expected arrivals (and transaction bytes) have come, and the next
  // phase begins.
  //===--------------------------------------------------------------------===//

  // MbarrierInit(bars, offsets, count): thread 0 initializes the barrier at
  // `offsets` to expect `count` arrivals per phase, between two block
  // barriers.
  irdl.operation @mbarrier_init {
    %shared = irdl.base @tilus::@shared
    %index = irdl.is index
    %i32 = irdl.is i32
    irdl.operands(bars: %shared, offsets: variadic %index, count: %i32)
  }

  // MbarrierArrive(bars, offsets): every thread of the block arrives once.
  irdl.operation @mbarrier_arrive {
    %shared = irdl.base @tilus::@shared
    %index = irdl.is index
    irdl.operands(bars: %shared, offsets: variadic %index)
  }

  // CopyAsyncMbarrierArrive(bars, offsets): every thread arrives once, made
  // by the hardware when all the copy_async the thread issued before have
  // landed (cp.async.mbarrier.arrive.noinc); the thread goes on at once.
  irdl.operation @copy_async_mbarrier_arrive {
    %shared = irdl.base @tilus::@shared
    %index = irdl.is index
    irdl.operands(bars: %shared, offsets: variadic %index)
  }

  // MbarrierArriveExpectTx(bars, offsets, bytes): thread 0 arrives once and
  // raises the phase's expected transaction bytes by `bytes` (the bytes a
  // tensor-memory copy will deliver).
  irdl.operation @mbarrier_arrive_expect_tx {
    %shared = irdl.base @tilus::@shared
    %index = irdl.is index
    %i32 = irdl.is i32
    irdl.operands(bars: %shared, offsets: variadic %index, bytes: %i32)
  }

  // MbarrierArriveRemote(bars, offsets, cta): every thread arrives once on
  // the barrier at the same place in the shared memory of block `cta` of
  // its cluster (its rank; its own included), with the arrival's default
  // ordering (release at CTA scope). In a kernel with tilus.cluster.
  irdl.operation @mbarrier_arrive_remote {
    %shared = irdl.base @tilus::@shared
    %index = irdl.is index
    irdl.operands(bars: %shared, offsets: variadic %index, cta: %index)
  }

  // MbarrierWait(bars, offsets, phase): every thread waits until the phase
  // of parity `phase` (0 or 1) of the barrier has completed.
  irdl.operation @mbarrier_wait {
    %shared = irdl.base @tilus::@shared
    %index = irdl.is index
    %i32 = irdl.is i32
    irdl.operands(bars: %shared, offsets: variadic %index, phase: %i32)
  }

  // TmaLoad(dst, src, bars, dst_offsets, src_offsets, bar_offsets, shape):
  // thread 0 raises the expected transaction bytes of the barrier by the
  // tile's bytes and starts a tensor-memory copy (cp.async.bulk.tensor) of
  // the tile `shape` of the global tensor at `src_offsets` into the shared
  // tensor's trailing dimensions at `dst_offsets`; its bytes complete on the
  // barrier. Elements past the global tensor's edge arrive as zeros. With
  // the unit attribute `multicast` (a kernel with tilus.cluster) the tile
  // is written to the same place in every block of the cluster, its bytes
  // completing on each block's barrier; every block of the cluster is
  // expected to issue a copy of the same size for the same barrier phase,
  // so the barrier expects the tile's bytes times the cluster's size.
  irdl.operation @tma_load {
    %shared = irdl.base @tilus::@shared
    %barriers = irdl.base @tilus::@shared
    %global = irdl.base @tilus::@global
    %index = irdl.is index
    %shape = irdl.base "#builtin.dense_array"
    irdl.operands(dst: %shared, src: %global, bars: %barriers,
                  dst_offsets: variadic %index, src_offsets: variadic %index,
                  bar_offsets: variadic %index)
    irdl.attributes {"shape" = %shape}
  }

  // InThreadGroup(first, count): whether the thread is one of first ..
  // first + count - 1. The condition of an scf.if without results or else
  // branch, it makes the if's body a thread group: the ops inside run as a
  // block of `count` threads of their own (thread `first` is its thread 0,
  // register layouts span `count` threads, Synchronize waits for the group
  // only). Groups are whole warpgroups and do not nest.
  irdl.operation @in_thread_group {
    %first = irdl.base "#builtin.integer"
    %count = irdl.base "#builtin.integer"
    %i1 = irdl.is i1
    irdl.attributes {"first" = %first, "count" = %count}
    irdl.results(member: %i1)
  }

  // SetMaxRegisters(count, action): the warpgroups that run it give
  // registers back until each thread has `count` ("dec"), or wait until the
  // block has enough free to give each thread `count` ("inc"): a producer
  // group that needs few registers hands them to consumer groups that need
  // many (sm_90a). Directly in a thread group's body, or in a kernel's body
  // of whole warpgroups; count a multiple of 8 from 24 to 256.
  irdl.operation @set_max_registers {
    %count = irdl.base "#builtin.integer"
    %action = irdl.base "#builtin.string"
    irdl.attributes {"count" = %count, "action" = %action}
  }

  // TmaStore(src, dst, src_offsets, dst_offsets, shape): the tile `shape` in
  // the shared tensor's trailing dimensions at `src_offsets` is written to
  // the global tensor at `dst_offsets` by tensor-memory copies, after every
  // thread's writes to it (the block fences the async proxy and
  // synchronizes); elements past the global tensor's edge are not written.
  // When it returns the copies have completed and the shared tile may be
  // written again. With the unit attribute `async_writes`, only the copies'
  // reads of the shared tile have completed when it returns: their writes
  // land later and are visible once the kernel has finished (for outputs
  // no thread of the kernel reads back).
  irdl.operation @tma_store {
    %shared = irdl.base @tilus::@shared
    %global = irdl.base @tilus::@global
    %index = irdl.is index
    %shape = irdl.base "#builtin.dense_array"
    irdl.operands(src: %shared, dst: %global, src_offsets: variadic %index,
                  dst_offsets: variadic %index)
    irdl.attributes {"shape" = %shape}
  }
}
