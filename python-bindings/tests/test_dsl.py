"""tilus.lang, the kernel DSL: the op schema it reads, the IR it emits
(parsed, verified and lowered through tilus.compile), errors located at the
Python line, the examples/python programs whose artifacts are
byte-identical to their examples/*.mlir, and the generated kernels of the GPU
suite and the benchmarks (test/gpu/generate.py)."""

import importlib.util
import math
import os
import re
import subprocess
import sys

import pytest

import tilus
from tilus.lang import schema, DSLError, Attr

from conftest import REPO, requires_compiler

pytestmark = requires_compiler

F = "spatial(128).local(2)"
HERE = __file__


def line_of(marker):
    """The line of this file holding `marker` (in a comment)."""
    for i, line in enumerate(open(HERE), 1):
        if marker in line and "line_of" not in line:
            return i
    raise AssertionError(marker)


def load_example(name):
    path = REPO / "examples" / "python" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"dsl_example_{name}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# --- The op schema ------------------------------------------------------------


def test_schema_is_read_from_the_library():
    ops = schema.schemas()
    assert len(ops) >= 50
    lg = ops["tilus.load_global"]
    assert [(g.name, g.kind) for g in lg.operands] == [
        ("src", "single"), ("offsets", "variadic"), ("fill", "optional"), ("out", "optional")]
    assert lg.needs_segment_sizes
    assert not ops["tilus.dot"].needs_segment_sizes
    assert ops["tilus.copy_async_wait_group"].attributes == ("n",)
    assert schema.lookup("reduce").name == "tilus.reduce"
    assert schema.lookup("nonsense") is None
    needing = sorted(n for n, s in ops.items() if s.needs_segment_sizes)
    assert needing == ["tilus.copy_async", "tilus.load_global", "tilus.load_shared",
                       "tilus.tma_load", "tilus.tma_store", "tilus.wgmma_mma"]


def test_every_op_has_a_method():
    for name, s in schema.schemas().items():
        short = s.short_name
        assert hasattr(tilus.Kernel, short) or hasattr(tilus.Kernel, short + "_"), name


# --- Byte-identical examples ----------------------------------------------------

EXAMPLES = [
    ("axpy", "Axpy", "tutorial/axpy.mlir"),
    ("rmsnorm", "RmsNorm", "rmsnorm.mlir"),
    ("matmul_f16_i6", "Matmul", "matmul_f16_i6.mlir"),
    ("matmul_pipelined_f16", "MatmulPipelined", "matmul_pipelined_f16.mlir"),
    ("norms", "Softmax", "softmax.mlir"),
    ("norms", "LayerNorm", "layernorm.mlir"),
    ("norms", "SiluMul", "silu_mul.mlir"),
]


@pytest.mark.parametrize("module,cls,mlir", EXAMPLES, ids=[e[2].split("/")[-1][:-5] for e in EXAMPLES])
def test_example_artifact_is_byte_identical(module, cls, mlir):
    kernel = getattr(load_example(module), cls)()
    dsl = kernel.compile(target="sm_90a")
    ref = tilus.compile(REPO / "examples" / mlir, target="sm_90a")
    assert dsl.data == ref.data
    assert [k.name for k in dsl.kernels] == [k.name for k in ref.kernels]


def test_axpy_text_and_locations():
    mod = load_example("axpy")
    text = mod.Axpy().mlir()
    assert text.count('"tilus.load_global"') == 2
    assert "operandSegmentSizes = array<i32: 1, 1, 0, 0>" in text
    assert "tilus.grid = affine_map<()[s0, s1, s2, s3] -> (s3 ceildiv 512)>" in text
    assert "tilus.block_size = 128 : i64" in text
    src = open(mod.__file__).read().splitlines()
    store_line = next(i for i, l in enumerate(src, 1) if "self.store_global" in l)
    assert re.search(r'"tilus.store_global".*loc\(".*axpy.py":%d:\d+\)' % store_line, text)
    # A different compile-time parameter gives a different kernel.
    other = mod.Axpy(tile=1024, warps=8).mlir()
    assert "ceildiv 1024" in other and "tilus.block_size = 256" in other
    assert "spatial(256).local(4)" in other


# --- Every op, compiled -----------------------------------------------------------


class Zoo(tilus.Kernel):
    """Every typed instruction once (and the operators, out=, loops, ifs)."""

    def __call__(self, x: tilus.pointer(tilus.float32), o: tilus.pointer(tilus.float32),
                 q: tilus.pointer(tilus.int32), cnt: tilus.pointer(tilus.int32),
                 n: tilus.int32):
        self.attrs.blocks = [tilus.cdiv(n, 256)]
        self.attrs.warps = 4
        self.attrs.cluster = [1]        # clusters of one block: any grid
        f32, i32 = tilus.float32, tilus.int32
        N = self.index(n)
        b = self.block_indices() + self.cluster_block_rank()
        self.cluster_synchronize()
        gx = self.view_global(x, [N])
        go = self.view_global(o, [N])
        gq = self.view_global(q, [N])
        gc = self.view_global(cnt, [4])
        off = b * 256
        v = self.load_global(gx, [off], [256], F, fill_value=1.0)
        w = self.load_global(gx, [off], [256], F, fill=2.0)
        r = (v + w - 1.5) * w / 3.0
        r = -self.min(self.max(r, v), 10.0)
        for fn in (self.abs, self.exp, self.exp2, self.log, self.log2, self.sqrt, self.rsqrt,
                   self.tanh, self.sin, self.cos):
            r = fn(r)
        r = self.clamp(r, 0.0, w)
        r = self.where(self.cmp(r, v, "lt"), r, 0.5)
        self.add(r, v, out=r)
        iv = self.load_global(gq, [off], [256], F)
        iv = self.not_(self.mod(self.shr(self.shl(self.xor(self.or_(self.and_(iv, 7), 1), 3),
                                                  1), 1), 5))
        self.store_global(iv, gq, [off])
        t = self.reshape(r, [2, 128], "spatial(2,64).local(1,2)")
        s = self.reduce(t, [1], "max")
        am = self.reduce(t, [1], "argmax")
        t2 = self.convert_layout(t, "local(1,2).spatial(2,64)")
        self.permute(t2, [1, 0], "local(2,1).spatial(64,2)")
        self.store_global(self.reshape(s, [2], "reduce(spatial(2,64),dims=[1])"), go, [off])
        self.store_global(self.reshape(am, [2], "reduce(spatial(2,64),dims=[1])"), gq, [off])
        sh = self.allocate_shared(f32, [256], "local(256)")
        self.store_shared(r, sh, [0])
        self.synchronize()
        r2 = self.load_shared(sh, [0], [256], F)
        old = self.atomic_rmw(gc, [0], 1, "add")
        self.atomic_cas(gc, [1], 0, old)
        self.atomic_add_global(r2, go, [off])
        self.semaphore_wait(gc, [2], 0)
        self.semaphore_signal(gc, [2], 1)
        acc = self.allocate_register(f32, [256], F, value=0.0)
        for i in self.range(4):
            self.add(acc, r2, out=acc)
        with self.if_then(b < 3):
            acc.assign(acc * 2.0)
        self.store_global(acc + self.cast(self.cast(acc, tilus.float16), f32), go, [off])
        ws = self.allocate_global(f32, [256])
        self.store_global(r2, ws, [0])
        sa = self.allocate_shared(f32, [256], "local(256)")
        self.copy_async(sa, gx, [0], [off], [256])
        self.copy_async_commit_group()
        self.copy_async_wait_group(0)
        vv = self.view(self.load_shared(sa, [0], [256], F), i32, [256], F)
        self.store_global(vv, gq, [off])
        self.print(vv)
        # Dot in the mma.sync fragment layouts of examples/matmul_pipelined_f16.mlir.
        da = self.allocate_register(tilus.float16, [16, 16], "reduce(spatial(1,1,4), dims=[2])"
                                    ".column_local(2,2).spatial(8,4).local(1,2)", value=1.0)
        db = self.allocate_register(tilus.float16, [16, 32], "reduce(spatial(1,1,4), dims=[0])"
                                    ".local(2,1).column_spatial(4,8).local(2,1)", value=0.5)
        dc = self.allocate_register(f32, [16, 32], "spatial(1,4).local(2,1).spatial(8,4)"
                                    ".local(1,2)", value=0.0)
        self.dot(da, db, dc, out=dc)
        self.store_global(dc, self.view_global(o, [16, 32]), [0, 0])
        # wgmma: a [64, 16] and W [8, 16] in the shared layouts it reads (32-byte
        # swizzle), W read as b [16, 8]; one warpgroup's accumulator.
        ws = self.allocate_shared(tilus.float16, [64, 16], tilus.mma_shared(64, 16, 16, swizzle=32))
        ww = self.allocate_shared(tilus.float16, [8, 16], tilus.mma_shared(8, 16, 16, swizzle=32))
        wd = self.allocate_register(f32, [64, 8], "spatial(4,1).local(2,1).spatial(8,4).local(1,2)",
                                    value=0.0)
        self.wgmma_fence()
        wd = self.wgmma_mma(ws, self.transpose_shared(ww), wd)
        self.wgmma_commit_group()
        self.store_global(self.wgmma_wait_group(0, wd), self.view_global(o, [64, 8]), [0, 0])
        # mbarriers: one of two, 128 arrivals per phase.
        mb = self.allocate_shared(tilus.int64, [2], "local(2)")
        self.mbarrier_init(mb, [0], 128)
        self.mbarrier_arrive(mb, [0])
        self.copy_async_mbarrier_arrive(mb, [0])
        self.mbarrier_arrive_remote(mb, [0], 0)     # block 0 of the cluster
        self.mbarrier_arrive_expect_tx(mb, [1], 0)
        self.mbarrier_wait(mb, [0], 0)
        # A tensor-memory copy of x's 256 elements into stage 1 of a row-major
        # buffer, on barrier 1, and back out to o (a tensor map each, after
        # the kernel's parameters).
        tm = self.allocate_shared(f32, [2, 256], "local(2,256)")
        self.tma_load(tm, gx, mb, [1], [1, 0], [off], [256])
        self.tma_load(tm, gx, mb, [1], [0, 0], [off], [256], multicast=True)
        self.tma_store(tm, go, [1, 0], [off], [256])
        # A thread group of the block's one warpgroup, with its own barrier,
        # taking more registers.
        with self.thread_group(0, 128):
            self.set_max_registers(240, "inc")
            self.synchronize()
        with self.if_then(b > 1000):
            self.exit()


def test_warpgroup_registers():
    """The producer keeps 40 registers a thread; consumer warpgroups share
    the rest of the 64 K in multiples of 8, at most 232 each."""
    assert tilus.Kernel.warpgroup_registers(1) == (40, 232)
    assert tilus.Kernel.warpgroup_registers(2) == (40, 232)
    assert tilus.Kernel.warpgroup_registers(3) == (40, 152)
    assert tilus.Kernel.warpgroup_registers(3, producer=24) == (24, 160)


def test_every_instruction_compiles():
    k = Zoo()
    text = k.mlir()
    used = set(re.findall(r'"(tilus\.\w+)"', text))
    assert used == set(schema.schemas()), set(schema.schemas()) - used
    ptx = k.compile(ptx_only=True)
    assert ".entry zoo" in ptx
    art = k.compile()
    (info,) = art.kernels
    assert info.name == "zoo" and info.block == (128, 1, 1)
    assert [p.describe() for p in info.params] == ["ptr f32", "ptr f32", "ptr i32", "ptr i32",
                                                   "i32"]
    assert b"\n  tensormap 0 4 1 s4 box 256 swizzle 0\n  tensormap 1 4 1 s4 box 256 swizzle 0\n" \
        in art.data


# --- The generic op and the operand groups ----------------------------------------


class Generic(tilus.Kernel):
    def __init__(self, mode):
        super().__init__()
        self.mode = mode

    def __call__(self, x: tilus.pointer(tilus.float32), n: tilus.int32):
        self.attrs.warps = 4
        g = self.view_global(x, [self.index(n)])
        t = tilus.lang.TensorType("register", tilus.float32, [256], F)
        if self.mode == "positional":
            r = self.op("tilus.load_global", g, [0], result=t)
        elif self.mode == "named":
            r = self.op("load_global", src=g, offsets=[0], fill=None, result=t)
        elif self.mode == "bad-group":
            r = self.op("load_global", g, [0], bogus=1, result=t)
        elif self.mode == "segments":
            r = self.op("load_global", g, [0], result=t,
                        attrs={"operandSegmentSizes": Attr("array<i32: 1, 1, 0, 0>")})
        elif self.mode == "missing-attr":
            self.op("tilus.copy_async_wait_group")
            return
        elif self.mode == "unknown":
            self.op("tilus.frobnicate")
            return
        self.op("tilus.store_global", r, g, [0])


@pytest.mark.parametrize("mode", ["positional", "named"])
def test_generic_op_fills_segment_sizes(mode):
    text = Generic(mode).mlir()
    assert '"tilus.load_global"(%_2, %_3) {operandSegmentSizes = array<i32: 1, 1, 0, 0>}' in text
    assert "operandSegmentSizes" not in text.split('"tilus.store_global"')[1]
    Generic(mode).compile(ptx_only=True)


@pytest.mark.parametrize("mode,message", [
    ("bad-group", "has no operand group 'bogus' (it has src, offsets, fill, out)"),
    ("segments", "operandSegmentSizes is set from the op schema"),
    ("missing-attr", "tilus.copy_async_wait_group needs the attribute(s) n"),
    ("unknown", "'tilus.frobnicate' is not a Tilus op"),
])
def test_generic_op_misuse(mode, message):
    with pytest.raises(DSLError) as e:
        Generic(mode).mlir()
    assert message in str(e.value)
    assert e.value.file == HERE


# --- Located errors ------------------------------------------------------------------


class Broken(tilus.Kernel):
    def __init__(self, mode):
        super().__init__()
        self.mode = mode

    def __call__(self, x: tilus.pointer(tilus.float32), n: tilus.int32):
        self.attrs.warps = 4
        g = self.view_global(x, [self.index(n)])
        g2 = self.view_global(x, [2, 128])
        if self.mode == "layout-shape":
            self.allocate_register(tilus.float32, [512], F)  # MARK layout-shape
        elif self.mode == "layout-text":
            self.allocate_register(tilus.float32, [256], "spatial(128).lokal(2)")  # MARK layout-text
        elif self.mode == "threads":
            self.allocate_register(tilus.float32, [128], "spatial(64).local(2)")  # MARK threads
        elif self.mode == "broadcast":
            a = self.load_global(g2, [0, 0], [2, 128], "spatial(2,64).local(1,2)")
            b = self.load_global(g2, [0, 0], [2, 64], "spatial(2,64)")
            a + b  # MARK broadcast
        elif self.mode == "offsets":
            self.load_global(g, [0, 0], [256], F)  # MARK offsets
        elif self.mode == "dot":
            a = self.allocate_register(tilus.float32, [256], F)
            self.dot(a, a, a)  # MARK dot
        elif self.mode == "dtype":
            a = self.allocate_register(tilus.float32, [256], F)
            self.add(a, self.cast(a, tilus.float16))  # MARK dtype
        elif self.mode == "assign":
            a = self.allocate_register(tilus.float32, [256], F)
            a.assign(self.cast(a, tilus.float16))  # MARK assign
        elif self.mode == "unroll":
            for i in self.range(self.index(n), unroll=True):  # MARK unroll
                pass
        elif self.mode == "bool":
            if self.index(n) < 4:  # MARK bool
                pass
        elif self.mode == "wrong-reduce-layout":
            # Passes the DSL's checks (shape, threads), fails the verifier.
            a = self.load_global(g2, [0, 0], [2, 128], "spatial(2,64).local(1,2)")
            r = self.reduce(a, [1], layout="reduce(spatial(1,128),dims=[1]).local(2)")  # MARK wrong-reduce-layout
            self.store_global(r, g, [0])
        elif self.mode == "wrong-cast-layout":
            a = self.load_global(g, [0], [256], F)
            c = self.cast(a, tilus.float16, layout="local(2).spatial(128)")  # MARK wrong-cast-layout
            self.store_global(self.cast(c, tilus.float32), g, [0])


@pytest.mark.parametrize("mode,message", [
    ("layout-shape", "has shape [256], but the register tensor has shape [512]"),
    ("layout-text", "bad layout 'spatial(128).lokal(2)'"),
    ("threads", "has 64 threads, but the register tensor needs 128"),
    ("broadcast", "shapes [2, 128] and [2, 64] do not broadcast"),
    ("offsets", "2 offsets for a tensor of rank 1"),
    ("dot", "needs [M, K] x [K, N] + [M, N]"),
    ("dtype", "add of float32 and float16 tensors"),
    ("assign", "is not of type"),
    ("unroll", "unroll=True needs int bounds"),
    ("bool", "no truth value at trace time"),
])
def test_misuse_is_located_at_the_python_line(mode, message):
    with pytest.raises(DSLError) as e:
        Broken(mode).mlir()
    assert message in e.value.message
    assert (e.value.file, e.value.line) == (HERE, line_of(f"MARK {mode}"))
    assert str(e.value).startswith(f"{HERE}:{e.value.line}:")


@pytest.mark.parametrize("mode", ["wrong-reduce-layout", "wrong-cast-layout"])
def test_compile_error_points_at_the_python_line(mode):
    with pytest.raises(tilus.CompileError) as e:
        Broken(mode).compile(ptx_only=True, cache=False)
    errors = [d for d in e.value.diagnostics if d.severity == "error"]
    assert errors, e.value.diagnostics
    assert errors[0].file == HERE
    assert errors[0].line == line_of(f"MARK {mode}")
    assert errors[0].col > 1
    assert HERE in str(e.value)


def test_kernel_declaration_errors():
    class NoWarps(tilus.Kernel):
        def __call__(self, n: tilus.int32):
            pass

    class NoAnnotation(tilus.Kernel):
        def __call__(self, n):
            pass

    class NoCall(tilus.Kernel):
        pass

    with pytest.raises(DSLError, match="set self.attrs.warps"):
        NoWarps().mlir()
    with pytest.raises(DSLError, match="parameter 'n' needs an annotation"):
        NoAnnotation().mlir()
    with pytest.raises(DSLError, match="defines no __call__"):
        NoCall().mlir()
    with pytest.raises(DSLError, match="only be called while the kernel is traced"):
        NoWarps().synchronize()


# --- Control flow, scalars and the grid --------------------------------------------------


class Loops(tilus.Kernel):
    def __call__(self, x: tilus.pointer(tilus.float32), rows: tilus.int32, k: tilus.int32):
        self.attrs.blocks = [(rows + 15) // 16, 2, k % 4]
        self.attrs.warps = 4
        R = self.index(rows)
        g = self.view_global(x, [R, 256])
        acc = self.allocate_register(tilus.float32, [256], F, init=0.0)
        cnt = self.allocate_register(tilus.int32, [256], F, value=0)
        for i in self.range(R):
            v = self.load_global(g, [i, 0], [256], F)
            self.add(acc, v, out=acc)
            for j in self.range(0, i, 2):
                cnt.assign(cnt + 1)
        with self.if_then(self.index(k) > 3):
            acc.assign(-acc)
        for u in self.range(2, unroll=True):
            acc.assign(acc * float(u + 1))
        self.store_global(acc, g, [0, 0])
        self.store_global(self.cast(cnt, tilus.float32), g, [1, 0])
        self.store_global(acc, g, [k * 2, 0])   # an expression of a parameter as an operand


def test_loops_carry_rebound_handles():
    text = Loops().mlir()
    assert "affine_map<()[s0, s1, s2] -> ((s1 + 15) floordiv 16, 2, s2 mod 4)>" in text
    # The outer loop carries acc and cnt (rebound inside, cnt in the inner loop).
    outer = re.search(r"(%\w+), (%\w+) = scf.for (%\w+) = %\w+ to %\w+ step %\w+ "
                      r"iter_args\((%\w+) = (%\w+), (%\w+) = (%\w+)\)", text)
    assert outer, text
    inner = re.search(r"= scf.for %\w+ = %\w+ to " + re.escape(outer.group(3)) +
                      r" step %\w+ iter_args\((%\w+) = " + re.escape(outer.group(6)), text)
    assert inner, text
    assert re.search(r"= scf.if %\w+ -> \(!tilus.register<f32", text)
    assert text.count("scf.for") == 2            # the unrolled loop is not an scf.for
    assert "arith.muli %k, " in text              # k * 2 emitted as i32 ops
    Loops().compile(ptx_only=True)


class MulAdd(tilus.Kernel):
    def __init__(self, contract):
        super().__init__()
        self.contract = contract

    def __call__(self, x: tilus.pointer(tilus.float32)):
        self.attrs.blocks, self.attrs.warps = [1], 1
        self.attrs.fp_contract = self.contract
        g = self.view_global(x, [32])
        v = self.load_global(g, [0], [32], "spatial(32)")
        self.store_global(v * v + v, g, [0])


@requires_compiler
def test_fp_contract_fuses_multiply_add():
    """attrs.fp_contract marks the kernel tilus.fp_contract: one fma.rn.f32
    instead of mul.rn and add.rn."""
    fused, plain = MulAdd(True), MulAdd(False)
    assert "tilus.fp_contract" in fused.mlir() and "tilus.fp_contract" not in plain.mlir()
    ptx = [k.compile(ptx_only=True) for k in (fused, plain)]
    ptx = [p if isinstance(p, str) else p.decode() for p in ptx]
    assert "fma.rn.f32" in ptx[0] and "mul.rn.f32" not in ptx[0]
    assert "mul.rn.f32" in ptx[1] and "add.rn.f32" in ptx[1]


def test_scalar_arithmetic():
    class S(tilus.Kernel):
        def __call__(self, x: tilus.pointer(tilus.float32), n: tilus.int32, s: tilus.float32):
            self.attrs.warps = 1
            N = self.index(n)
            a = (N + 3) * 2 - 1
            b = a // 4 + a % 4 + tilus.cdiv(a, 8)
            b = self.min(b, N) + self.max(b, 7)
            f = self.max(s * 2.0 / s + 1.0, s)
            g = self.view_global(x, [b])
            r = self.allocate_register(tilus.float32, [32], "spatial(32)", init=f)
            self.store_global(r, g, [N])

    text = S().mlir()
    for op in ("arith.addi", "arith.muli", "arith.subi", "arith.divui", "arith.remui",
               "arith.ceildivui", "arith.mulf", "arith.divf", "arith.addf", "arith.minui",
               "arith.maxui", "arith.maximumf"):
        assert op in text, op
    assert text.count("arith.constant 2 : index") == 1     # constants are shared
    S().compile(ptx_only=True)


def test_partial_unroll_and_scalar_equality():
    class U(tilus.Kernel):
        def __init__(self, unroll):
            super().__init__()
            self.unroll = unroll

        def __call__(self, x: tilus.pointer(tilus.float32), n: tilus.int32):
            self.attrs.warps = 4
            g = self.view_global(x, [self.index(n), 256])
            acc = self.allocate_register(tilus.float32, [256], F, value=0.0)
            for i in self.range(0, 12, 2, unroll=self.unroll):
                acc.assign(acc + self.load_global(g, [i, 0], [256], F))
            with self.if_then(self.index(n).eq(7)):
                acc.assign(acc * 0.5)
            self.store_global(acc, g, [0, 0])

    text = U(3).mlir()
    assert re.search(r"scf.for %\w+ = %\w+ to %\w+ step %(\w+) iter_args", text)
    assert "arith.constant 6 : index" in text           # the step: 3 * 2
    assert text.count('"tilus.load_global"') == 3      # the body traced 3 times
    assert "arith.cmpi eq" in text
    U(3).compile(ptx_only=True)
    with pytest.raises(DSLError, match="trip count 6 is not a multiple"):
        U(4).mlir()
    with pytest.raises(DSLError, match="unroll=2.5"):
        U(2.5).mlir()


def test_if_then_otherwise():
    class B(tilus.Kernel):
        def __init__(self, mode):
            super().__init__()
            self.mode = mode

        def __call__(self, x: tilus.pointer(tilus.float32), n: tilus.int32):
            self.attrs.warps = 4
            g = self.view_global(x, [self.index(n)])
            a = self.load_global(g, [0], [256], F)
            b = self.load_global(g, [256], [256], F)
            c = self.index(n) < 100
            with self.if_then(c):
                a.assign(a * 2.0)
            if self.mode == "stray":
                self.synchronize()
            with self.otherwise():
                b.assign(-b)
                self.synchronize()
            self.store_global(a + b, g, [0])

    text = B("ok").mlir()
    m = re.search(r"(%\w+), (%\w+) = scf.if %\w+ -> \(!tilus.register.*, !tilus.register", text)
    assert m, text
    yields = re.findall(r"scf.yield (%\w+), (%\w+) :", text)
    assert len(yields) == 2
    (ta, tb), (ea, eb) = yields
    assert ta != ea and tb != eb      # a changes in then, b in else
    assert f'"tilus.add"({m.group(1)}, {m.group(2)})' in text
    assert text.count("scf.if") == 1
    B("ok").compile(ptx_only=True)
    with pytest.raises(DSLError, match="must follow"):
        B("stray").mlir()


def test_launch_through_the_runtime(fake_runtime, fake_driver):
    import numpy as np
    kernel = load_example("axpy").Axpy()
    x = fake_runtime.empty(1000, np.float32)
    y = fake_runtime.empty(1000, np.float32)
    kernel.launch(fake_runtime, x, y, 2.0, 1000)
    assert fake_driver.launch_count == 1
    assert fake_driver.grid == (2, 1, 1) and fake_driver.block == (128, 1, 1)
    kernel.launch(fake_runtime, x, y, 2.0, 1025, target="sm_90a")   # compiled once
    assert fake_driver.grid == (3, 1, 1)
    assert list(kernel._artifacts) == ["sm_90a"]


def test_while_loop():
    class W(tilus.Kernel):
        """acc = acc * 2, k times (test/gpu/kernels/loops_f32.mlir's scf.while)."""

        def __call__(self, x: tilus.pointer(tilus.float32), k: tilus.int32):
            self.attrs.warps = 4
            g = self.view_global(x, [256])
            acc = self.load_global(g, [0], [256], F)
            count = self.const(0, tilus.int32)
            with self.while_loop(lambda: count < k):
                count.assign(count + 1)
                acc.assign(acc * 2.0)
            self.store_global(acc, g, [0])

    text = W().mlir()
    m = re.search(r"(%\w+), (%\w+) = scf.while \((%\w+) = %\w+, (%\w+) = %\w+\) : "
                  r"\(!tilus.register.*, i32\) -> \(", text)
    assert m, text
    # count < k (Python asks the parameter's reflected k > count first)
    arg = re.escape(m.group(4))
    assert re.search(rf"arith.cmpi (slt, {arg}, %k|sgt, %k, {arg}) : i32", text), text
    assert re.search(r"scf.condition\(%\w+\) " + re.escape(m.group(3)), text)
    assert "^bb0(" in text
    W().compile(ptx_only=True)


class LoopsF32(tilus.Kernel):
    """test/gpu/kernels/loops_f32.mlir: register tensors carried through
    scf.for, scf.while and scf.if."""

    def __call__(self, src: tilus.pointer(tilus.float32), dst: tilus.pointer(tilus.float32),
                 rows: tilus.int32, k: tilus.int32):
        self.attrs.blocks = [1]
        self.attrs.warps = 4
        R = self.index(rows)
        gs = self.view_global(src, [R, 256])
        gd = self.view_global(dst, [256])
        acc = self.allocate_register(tilus.float32, [256], F, init=0.0)
        for i in self.range(R):                         # acc[j] = sum over rows of src[i, j]
            acc.assign(acc + self.load_global(gs, [i, 0], [256], F))
        count = self.const(0, tilus.int32)
        with self.while_loop(lambda: count < k):        # acc = acc * 2, k times
            count.assign(count + 1)
            acc.assign(acc * 2.0)
        with self.if_then(rows > 3):                    # rows > 3 ? -acc : acc
            acc.assign(-acc)
        self.store_global(acc, gd, [0])


def test_control_flow_is_byte_identical_to_loops_f32():
    assert tilus.lang.kernel._snake("LoopsF32") == "loops_f32"
    ref = tilus.compile(REPO / "test" / "gpu" / "kernels" / "loops_f32.mlir")
    assert LoopsF32().compile().data == ref.data


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
def test_non_finite_constants(dtype):
    class K(tilus.Kernel):
        def __call__(self, x: tilus.pointer(getattr(tilus, dtype))):
            self.attrs.warps = 4
            g = self.view_global(x, [256])
            v = self.load_global(g, [0], [256], F)
            v = self.max(self.min(v, float("inf")), float("-inf"))
            self.store_global(v, g, [0])

    text = K().mlir()
    assert text.count("arith.constant 0x") == 2
    K().compile(ptx_only=True)


def test_attrs_set_in_init_are_defaults():
    class K(tilus.Kernel):
        def __init__(self, grid_from_n):
            super().__init__()
            self.attrs.warps = 2
            self.attrs.blocks = [4, 2]
            self.grid_from_n = grid_from_n

        def __call__(self, x: tilus.pointer(tilus.float32), n: tilus.int32):
            if self.grid_from_n:
                self.attrs.blocks = [n // 64]
            g = self.view_global(x, [self.index(n)])
            self.store_global(self.load_global(g, [0], [64], "spatial(64)"), g, [0])

    k = K(False)
    assert "tilus.block_size = 64 : i64" in k.mlir()
    assert "-> (4, 2)>" in k.mlir()
    k2 = K(True)
    assert "-> (s1 floordiv 64)>" in k2.mlir() and "-> (s1 floordiv 64)>" in k2.mlir()
    k2.compile(ptx_only=True)


# --- The generated kernels (test/gpu/generate.py) -------------------------------
#
# The GPU suite (test/gpu/suite) and the benchmarks load these modules by name
# and launch their kernels by name with these parameters; the expectations are
# written out here, not taken from the generators.

P8, P16, P32, I32 = "ptr ui8", "ptr f16", "ptr f32", "i32"
LOW_PRECISION = ([f"u{b}" for b in range(1, 9)] + [f"i{b}" for b in range(2, 9)] +
                 ["e4m3", "e5m2", "e3m4", "e3m3", "e2m4", "e3m2", "e2m3", "e2m2", "e1m3",
                  "e2m1", "e1m2", "e1m1", "e6m1"])
FLOAT_FORMATS = LOW_PRECISION[15:27]                 # issue 5's 12 formats, not e6m1
MATMUL_WEIGHTS = ["u1", "u2", "u3", "u4", "i4", "u5", "f6e3m2", "u7", "u8"]
SUBBYTE = ["i4", "u3", "u1", "f6e3m2"]
DEQUANT = ["u1", "u2", "u3", "u4", "i4", "u5", "i6", "f6e3m2", "u7", "u8", "e4m3", "e2m1"]
GEMM = {"matmul_f16_decode": (16, 64, 256, 1, 8, 3),       # BM BN BK WM WN STAGES
        "matmul_f16_large": (256, 128, 32, 4, 2, 4),
        "matmul_f16_medium": (128, 128, 32, 2, 2, 4)}
WEIGHT_LAYOUT = "local(2,2).column_spatial(4,8).local(2,1)"   # LowPrecisionTests.c's


def _expected_modules():
    """Module name -> [(kernel, parameters)] in order."""
    mods = {}
    for t in FLOAT_FORMATS:
        mods[f"float_{t}"] = [("decode", [P8, P32, I32, I32]), ("encode", [P32, P8, I32, I32])]
    for t in MATMUL_WEIGHTS:
        mods[f"matmul_f16_{t}"] = [("matmul", [P16, P8, P16, I32, I32, I32])]
    for t in SUBBYTE:
        mods[f"load_{t}"] = [("load", [P8, P32, I32, I32]), ("store", [P32, P8, I32, I32]),
                             ("shared", [P8, P8, I32, I32])]
    for t in LOW_PRECISION:
        mods[f"widen_{t}"] = [("to_f16", [P8, P16, I32]), ("to_bf16", [P8, "ptr bf16", I32]),
                              ("to_f32", [P8, P32, I32])]
        if t[0] != "e":                    # integers are also widened to i8
            mods[f"widen_{t}"].append(("to_i8", [P8, "ptr i8", I32]))
        mods[f"pack_{t}"] = [("pack", [P8, P8, I32, I32]), ("unpack", [P8, P8, I32, I32])]
    for name in GEMM:
        mods[name] = [("matmul", [P16, P16, P16, I32, I32, I32])]
    for t in DEQUANT:
        mods[f"dequant_{t}"] = [("dequant", [P8, P16, I32])]
    return mods


def _type_of(suffix):
    """The element type a module name's suffix stands for (u3, i6, e2m1, f6e3m2)."""
    if suffix == "f6e3m2":
        return tilus.float6_e3m2
    if suffix[0] == "e":
        e, m = suffix[1:].split("m")
        return tilus.float_(int(e), int(m))
    return tilus.dtype(("ui" if suffix[0] == "u" else "i") + suffix[1:])


@pytest.fixture(scope="module")
def generate():
    path = REPO / "test" / "gpu" / "generate.py"
    spec = importlib.util.spec_from_file_location("tilus_gpu_generate", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def generated(generate):
    """Every generated module: name -> (MLIR text, sm_90a artifact)."""
    mods = generate.modules()
    texts = {name: generate.module_text(kernels) for name, kernels in mods.items()}
    arts = tilus.compile_many(list(texts.values()), processes=2, target="sm_90a")
    return {name: (texts[name], art) for name, art in zip(texts, arts)}


def test_generated_modules_kernels_and_parameters(generated):
    expected = _expected_modules()
    assert len(expected) == 96
    assert sorted(generated) == sorted(expected)
    for name, (_, art) in generated.items():
        got = [(k.name, [p.describe() for p in k.params]) for k in art.kernels]
        assert got == expected[name], name


def test_generated_modules_element_types(generated):
    """Each module views its bytes (ui8) as the type its name says, and as
    no other low-precision type (but i8, which integers are widened to)."""
    low = {_type_of(s).mlir for s in LOW_PRECISION}
    for name, (text, _) in generated.items():
        if name in GEMM:
            continue
        t = _type_of(name.rsplit("_", 1)[1])
        regs = set(re.findall(r"!tilus\.register<(!tilus\.float<\d+, \d+>|\w+), array", text))
        assert t.mlir in regs, (name, regs)
        allowed = {t.mlir, "ui8"} | ({"i8"} if name.startswith("widen_") else set())
        assert regs & low <= allowed, (name, regs)


def _grid(art, name, *args):
    cfg = art.check_launch(name, *args)
    return cfg.grid, cfg.block, cfg.shared_bytes


def test_generated_grids_and_blocks(generated):
    ptr = 0x10000
    for name, (_, art) in generated.items():
        suffix = name.rsplit("_", 1)[1]
        if name.startswith("float_"):
            # 768 elements: every format's blocks cover 32 threads of the
            # fewest elements of whole bytes (k), as decode and encode agree.
            bits = _type_of(suffix).bits
            per_block = 32 * (8 // math.gcd(bits, 8))
            want = ((768 // per_block, 1, 1), (32, 1, 1), 0)
            assert _grid(art, "decode", ptr, ptr, 768 * bits // 8, 768) == want, name
            assert _grid(art, "encode", ptr, ptr, 768, 768 * bits // 8) == want, name
        elif name in GEMM:
            bm, bn, bk, wm, wn, stages = GEMM[name]
            # M = 100 (edges masked), N = 8 tiles, K = 4 tiles; the shared
            # stages of A and B in f16.
            assert _grid(art, "matmul", ptr, ptr, ptr, 100, 8, 4) == (
                (-(-100 // bm), 8, 1), (32 * wm * wn, 1, 1),
                stages * (bm * bk + bk * bn) * 2), name
        elif name.startswith("matmul_f16_"):
            assert _grid(art, "matmul", ptr, ptr, ptr, 40, 48, 64) == ((3, 3, 1), (32, 1, 1), 0)
        elif name.startswith("load_"):
            bits = _type_of(suffix).bits
            assert _grid(art, "load", ptr, ptr, 40, 50) == ((3, 3, 1), (32, 1, 1), 0), name
            assert _grid(art, "store", ptr, ptr, 40, 50) == ((3, 3, 1), (32, 1, 1), 0), name
            # The shared tile is compact: 16 x 24 elements of `bits` bits.
            assert _grid(art, "shared", ptr, ptr, 40, 50) == (
                (3, 3, 1), (32, 1, 1), 16 * 24 * bits // 8), name
        elif name.startswith("widen_"):
            for k in ("to_f16", "to_bf16", "to_f32"):
                assert _grid(art, k, ptr, ptr, 3000) == ((3, 1, 1), (32, 1, 1), 0), name
        elif name.startswith("pack_"):
            for k in ("pack", "unpack"):
                assert _grid(art, k, ptr, ptr, 64, 96) == ((4, 6, 1), (32, 1, 1), 0), name
        else:
            assert name.startswith("dequant_")
            assert _grid(art, "dequant", ptr, ptr, 10000) == ((3, 1, 1), (128, 1, 1), 0), name


def test_generated_packed_tiles_are_weight_packs(generated):
    """The Figure 2 matmuls and the pre-transform read and write B's packed
    tiles in the layout of tilusWeightPack (the host's pre-transform, which
    the GPU suite packs with and compares against)."""
    checked = 0
    for name, (text, _) in generated.items():
        family, suffix = name.rsplit("_", 1)
        if family not in ("matmul_f16", "pack") or name in GEMM:
            continue
        t = _type_of(suffix)
        assert f'!tilus.register<{t.mlir}, array<i64: 16, 16>, #tilus.layout<"{WEIGHT_LAYOUT}">>' \
            in text, name
        want = tilus.weight_packed_layout(t, (16, 16), WEIGHT_LAYOUT)
        tiles = re.findall(r'!tilus\.register<ui8, array<i64: (\d+)>, #tilus\.layout<"([^"]+)">>',
                           text)
        assert tiles, name
        for size, layout in tiles:
            assert int(size) == 32 * t.bits, name
            assert tilus.Layout.parse(layout) == want, (name, layout, str(want))
        checked += 1
    assert checked == len(MATMUL_WEIGHTS) + len(LOW_PRECISION)


def test_generate_writes_the_named_modules(generate, tmp_path):
    out = tmp_path / "gen"
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    script = str(REPO / "test" / "gpu" / "generate.py")
    subprocess.run([sys.executable, script, str(out), "load_u3", "dequant_i6"], check=True, env=env)
    assert sorted(p.name for p in out.iterdir()) == ["dequant_i6.mlir", "load_u3.mlir"]
    mods = generate.modules()
    text = (out / "load_u3.mlir").read_text()
    assert text == generate.module_text(mods["load_u3"])
    assert [k for k in re.findall(r"func\.func @(\w+)\(", text)] == ["load", "store", "shared"]
    bad = subprocess.run([sys.executable, script, str(out), "load_u9"], env=env,
                         capture_output=True, text=True)
    assert bad.returncode != 0 and "no generated module load_u9" in bad.stderr


# --- Tiles: indexing global and shared tensors ----------------------------------

class AxpyTiles(tilus.Kernel):
    """The tutorial's axpy with its tiles written as slices."""

    def __call__(self, x: tilus.pointer(tilus.float32), y: tilus.pointer(tilus.float32),
                 a: tilus.float32, n: tilus.int32):
        self.attrs.name = "axpy"
        self.attrs.blocks = [tilus.cdiv(n, 512)]
        self.attrs.warps = 4
        layout = tilus.spatial(128).local(4)
        length = self.index(n)
        start = self.block_indices() * 512
        gx = self.view_global(x, [length])
        gy = self.view_global(y, [length])
        rx = self.load_global(gx[start:start + 512], layout)
        ry = self.load_global(gy[start:start + 512], layout)
        self.store_global(rx * a + ry, gy[start:start + 512])


def test_tile_indexing_gives_the_explicit_forms_artifact():
    ref = tilus.compile(REPO / "examples" / "tutorial" / "axpy.mlir")
    assert AxpyTiles().compile().data == ref.data


class SharedTiles(tilus.Kernel):
    """A global tile through two shared buffers with copy_async and slices."""

    def __init__(self, tiles):
        super().__init__()
        self.tiles = tiles

    def __call__(self, src: tilus.pointer(tilus.float16), dst: tilus.pointer(tilus.float16)):
        self.attrs.blocks = [1]
        self.attrs.warps = 1
        g = self.view_global(src, [32, 64])
        h = self.view_global(dst, [32, 64])
        s = self.allocate_shared(tilus.float16, [2, 16, 64], "local(2,16,8).local(1,1,8)")
        r = self.block_indices() * 16
        if self.tiles:
            self.copy_async(s[1, 0:16, 0:64], g[r:r + 16, 0:64])
        else:
            self.copy_async(s, g, [1, 0, 0], [r, 0], [16, 64])
        self.copy_async_commit_group()
        self.copy_async_wait_group(0)
        self.synchronize()
        layout = "local(1,4).spatial(16,2).local(1,8)"
        if self.tiles:
            t = self.load_shared(s[1, :, 0:], layout)
            self.store_global(t, h[r:r + 16, 0:64])
        else:
            t = self.load_shared(s, [1, 0, 0], [16, 64], layout)
            self.store_global(t, h, [r, 0])


def test_shared_tiles_and_copy_async_equal_the_explicit_form():
    assert SharedTiles(True).compile().data == SharedTiles(False).compile().data


@pytest.mark.parametrize("body,message", [
    (lambda k, g, r: k.load_global(g[r:r + 16:2, 0:8], F), "has a step"),
    (lambda k, g, r: k.load_global(g[r:r * 2, 0:8], F), "the extent must be static"),
    (lambda k, g, r: k.load_global(g[r:r + 16], F), "rank 2 with 1 indices"),
    (lambda k, g, r: k.load_global(g[0:0, 0:8], F), "is empty"),
    (lambda k, g, r: k.load_global(g[r:r + 16, 0:16], [0, 0], None, F), "pass only the layout"),
    (lambda k, g, r: k.load_global(g[r, 0:256], F)[0], "register tensors are not indexed"),
    (lambda k, g, r: k.load_global(g[0:1, r], F), "an integer after a slice"),
    # A rebound stop no longer spans the constant it was made with.
    (lambda k, g, r: (lambda e: (e.assign(r + 32), k.load_global(g[r:e, 0:256], F)))(r + 16),
     "the extent must be static"),
    (lambda k, g, r: k.store_global(k.load_global(g, [0, 0], [256], F), g[r:r + 1, 0:128]),
     "a tile of shape .256. into a region of shape .1, 128."),
    (lambda k, g, r: k.store_global(k.load_global(g, [0, 0], [256], F), g[r, 0:128]),
     "a tile of shape .256. into a region of shape .128."),
])
def test_tile_misuse_is_located(body, message):
    class K(tilus.Kernel):
        def __call__(self, p: tilus.pointer(tilus.float32)):
            self.attrs.warps = 4
            g = self.view_global(p, [64, 256])
            body(self, g, self.block_indices() * 16)    # TILE-MISUSE

    with pytest.raises(DSLError, match=message) as info:
        K().mlir()
    # Located at the line of the misuse (the lambda above).
    line = int(re.search(r"test_dsl.py:(\d+):", str(info.value)).group(1))
    assert "lambda k, g, r" in open(HERE).read().split("\n")[line - 1]


class OptionalBias(tilus.Kernel):
    """Run-time parameters that depend on the configuration (parameters())."""

    def __init__(self, bias, dtype=tilus.float32):
        super().__init__()
        self.bias, self.dtype = bias, dtype

    def parameters(self):
        p = tilus.pointer(self.dtype)
        return [("x", p)] + ([("b", p)] if self.bias else []) + [("n", tilus.int32)]

    def __call__(self, *args):
        x, b, n = (args if self.bias else (args[0], None, args[1]))
        self.attrs.warps = 1
        gx = self.view_global(x, [self.index(n)])
        v = self.load_global(gx, [0], [32], "spatial(32)")
        if b is not None:
            v = v + self.load_global(self.view_global(b, [self.index(n)]), [0], [32],
                                     "spatial(32)")
        self.store_global(v, gx, [0])


def test_parameters_from_the_configuration():
    with_bias = OptionalBias(True, tilus.float16).mlir()
    assert "func.func @optional_bias(%x: !tilus.ptr<f16>, %b: !tilus.ptr<f16>, %n: i32)" \
        in with_bias
    plain = OptionalBias(False).mlir()
    assert "func.func @optional_bias(%x: !tilus.ptr<f32>, %n: i32)" in plain
    assert plain.count('"tilus.load_global"') == 1 and with_bias.count('"tilus.load_global"') == 2

    class Bad(OptionalBias):
        def parameters(self):
            return [("x", int)]
    with pytest.raises(DSLError, match="parameter 'x' needs an annotation"):
        Bad(False).mlir()


def test_cluster_attribute():
    class Pairs(tilus.Kernel):
        def __init__(self, cluster):
            super().__init__()
            self.cluster = cluster

        def __call__(self, n: tilus.int32):
            self.attrs.blocks = [n]
            self.attrs.warps = 1
            self.attrs.cluster = self.cluster
            self.cluster_synchronize()

    assert "tilus.cluster = array<i64: 2>" in Pairs([2]).mlir()
    for bad in ([0], [2, 2, 2, 2], 2, [1.5]):
        with pytest.raises(tilus.DSLError, match="attrs.cluster is 1 to 3 positive ints"):
            Pairs(bad).mlir()
