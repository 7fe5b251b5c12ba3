"""The kernel DSL: a kernel is a class (docs/python.md, "Writing kernels in
Python").

    class Axpy(tilus.Kernel):
        def __init__(self, tile=512):
            super().__init__()
            self.tile = tile

        def __call__(self, x: tilus.pointer(tilus.float32), y: tilus.pointer(tilus.float32),
                     a: tilus.float32, n: tilus.int32):
            self.attrs.blocks = [tilus.cdiv(n, self.tile)]
            self.attrs.warps = 4
            ...

Tracing `__call__` with symbolic parameters records each instruction as an
MLIR op (generic form) located at the Python line that called it, so the
compiler's diagnostics point at the .py file. `kernel.mlir()` is the module
text, `kernel.compile()` an Artifact through tilus.compile (cached). The
values the instructions take and return are in values.py.
"""

import inspect
import math
import os
import re
import copy
from contextlib import contextmanager

from .. import types as _types
from ..types import DType, IntDType, FloatDType
from . import schema as _schema
from .values import (DSLError, PointerType, TensorType, Value, Scalar, Expr, ParamScalar,
                     Pointer, GlobalTensor, SharedTensor, RegisterTensor, Tile, Attr, pointer,
                     cdiv, _attrs_text, _broadcast, _caller, _float_text, _layout_text,
                     _loc_text, _strip, _type_text)

__all__ = ["Kernel", "pointer", "PointerType", "TensorType", "Value", "Scalar",
           "RegisterTensor", "SharedTensor", "GlobalTensor", "Pointer", "Expr", "cdiv",
           "DSLError", "Attr", "Tile"]

class _Region:
    def __init__(self, indent):
        self.lines = []
        self.consts = {}
        self.indent = indent


class _Tracer:
    def __init__(self):
        self.values = []
        self.regions = [_Region(1)]
        self.counter = 0
        self.last_if = None

    def fresh(self):
        self.counter += 1
        return f"%_{self.counter}"

    @property
    def region(self):
        return self.regions[-1]

    def emit(self, text, where=None):
        where = where or _caller()
        self.region.lines.append("  " * self.region.indent + text + " " + _loc_text(where))

    def begin(self):
        snap = (len(self.values), [v.name for v in self.values])
        self.regions.append(_Region(self.region.indent + 1))
        return snap

    def end(self, snap):
        region = self.regions.pop()
        n, names = snap
        changed = [(v, names[i]) for i, v in enumerate(self.values[:n]) if v.name != names[i]]
        return region.lines, changed


def _rename(lines, old, new):
    pat = re.compile(re.escape(old) + r"(?![\w$.\-])")
    return [pat.sub(new, l) for l in lines]


class _Attrs:
    """self.attrs: `blocks` (grid: ints or Exprs of int parameters, 1 to 3),
    `warps` (block size 32 * warps), `name` (the kernel's symbol),
    `fp_contract` (True: a float multiplication whose result feeds an add or
    sub may fuse with it, one rounding instead of two: tilus.fp_contract),
    `cluster` (blocks per thread-block cluster, a list of 1 to 3 ints, at
    most 8 in all: tilus.cluster, sm_90+)."""

    def __init__(self):
        self.blocks = None
        self.warps = None
        self.name = None
        self.fp_contract = False
        self.cluster = None


def _snake(name):
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name).lower()


_ARITH = {
    # op: (integer, unsigned/index integer, float)
    "add": ("arith.addi", "arith.addi", "arith.addf"),
    "sub": ("arith.subi", "arith.subi", "arith.subf"),
    "mul": ("arith.muli", "arith.muli", "arith.mulf"),
    "floordiv": ("arith.floordivsi", "arith.divui", None),
    "div": ("arith.divsi", "arith.divui", "arith.divf"),
    "mod": ("arith.remsi", "arith.remui", "arith.remf"),
    "ceildiv": ("arith.ceildivsi", "arith.ceildivui", None),
    "min": ("arith.minsi", "arith.minui", "arith.minimumf"),
    "max": ("arith.maxsi", "arith.maxui", "arith.maximumf"),
}
_CMP = {"lt": ("slt", "ult", "olt"), "le": ("sle", "ule", "ole"),
        "gt": ("sgt", "ugt", "ogt"), "ge": ("sge", "uge", "oge"),
        "eq": ("eq", "eq", "oeq"), "ne": ("ne", "ne", "une")}

_BINARY = ("add", "sub", "mul", "div", "mod", "max", "min", "and", "or", "xor", "shl", "shr")
_UNARY = ("neg", "abs", "not", "exp", "exp2", "log", "log2", "sqrt", "rsqrt", "tanh", "sin",
          "cos")


class Kernel:
    """Base class of DSL kernels. Subclasses take compile-time parameters in
    __init__ and define `__call__(self, p: type, ...)` with annotated run-time
    parameters (`tilus.pointer(dtype)` or a scalar dtype), whose body calls
    the instruction methods below. Set `self.attrs.blocks` and
    `self.attrs.warps` while tracing."""

    @property
    def attrs(self):
        a = self.__dict__.get("_attrs")
        if a is None:
            a = self.__dict__["_attrs"] = _Attrs()
        return a

    @property
    def _tr(self):
        tr = self.__dict__.get("_tracer")
        if tr is None:
            raise DSLError("instructions can only be called while the kernel is traced "
                           "(kernel.mlir() or kernel.compile())")
        return tr

    # --- Tracing ---------------------------------------------------------

    def parameters(self):
        """The run-time parameters as [(name, type)], for a kernel whose
        parameters depend on its compile-time configuration (an optional
        operand): __call__(self, *args) then receives them in this order.
        None (the default): __call__'s annotated signature gives them."""
        return None

    def _call_function(self):
        for c in type(self).__mro__:
            if c is Kernel:
                break
            if "__call__" in c.__dict__:
                return c.__dict__["__call__"]
        raise DSLError(f"{type(self).__name__} defines no __call__(self, ...)")

    def _source_file(self):
        fn = self._call_function()
        return inspect.getsourcefile(fn) or fn.__code__.co_filename

    def mlir(self):
        """Traces __call__ and returns the module's MLIR text."""
        fn = self._call_function()
        custom = self.parameters()
        if custom is None:
            params = list(inspect.signature(fn).parameters.values())[1:]
        else:
            params = [inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                        annotation=t) for name, t in custom]
        code = fn.__code__
        fwhere = (code.co_filename, code.co_firstlineno, 1)
        # Attributes set in __init__ (ints) are the defaults of every trace.
        if "_init_attrs" not in self.__dict__:
            self.__dict__["_init_attrs"] = copy.copy(self.__dict__.get("_attrs") or _Attrs())
        self.__dict__["_attrs"] = copy.copy(self.__dict__["_init_attrs"])
        tr = self.__dict__["_tracer"] = _Tracer()
        try:
            args, decls = [], []
            for i, p in enumerate(params):
                t = p.annotation
                if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
                    raise DSLError(f"parameter '{p.name}': only plain parameters", fwhere)
                name = "%" + p.name
                if isinstance(t, PointerType):
                    v = Pointer(self, name, t)
                elif isinstance(t, IntDType) and t != _types.index:
                    v = ParamScalar(self, name, t, i)
                elif isinstance(t, DType) and t != _types.index:
                    v = Scalar(self, name, t)
                else:
                    raise DSLError(f"parameter '{p.name}' needs an annotation: tilus.pointer"
                                   f"(dtype) or a scalar dtype such as tilus.int32, not {t!r}",
                                   fwhere)
                args.append(v)
                decls.append(f"{name}: {_type_text(t)}")
            fn(self, *args)
            if len(tr.regions) != 1:
                raise DSLError("a loop or if was left open (break out of self.range?)", fwhere)
            tr.emit("return", (code.co_filename, _last_line(fn), 1))
            a = self.attrs
            if a.warps is None:
                raise DSLError("set self.attrs.warps (the block has 32 * warps threads)", fwhere)
            blocks = a.blocks if a.blocks is not None else [1]
            if not isinstance(blocks, (list, tuple)):
                blocks = [blocks]
            if not 1 <= len(blocks) <= 3:
                raise DSLError("self.attrs.blocks has 1 to 3 entries", fwhere)
            exprs = []
            for b in blocks:
                if isinstance(b, ParamScalar):
                    b = b.symbol
                if isinstance(b, Expr):
                    exprs.append(_strip(b.affine()))
                elif isinstance(b, int) and not isinstance(b, bool):
                    exprs.append(str(b))
                else:
                    raise DSLError(f"grid entry {b!r}: an int or an expression of int "
                                   f"parameters (+ - * // % tilus.cdiv)", fwhere)
            syms = ", ".join(f"s{i}" for i in range(len(params)))
            grid = f"affine_map<()[{syms}] -> ({', '.join(exprs)})>" if params else \
                f"affine_map<() -> ({', '.join(exprs)})>"
            kname = a.name or _snake(type(self).__name__)
            self.__dict__["_kernel_name"] = kname
            block_size = 32 * int(a.warps)
            out = [f"// Generated by tilus.lang from {type(self).__name__} "
                   f"({os.path.basename(code.co_filename)}).",
                   f"func.func @{kname}({', '.join(decls)})",
                   f"    attributes {{tilus.kernel, tilus.block_size = {block_size} : i64, "
                   f"tilus.grid = {grid}"
                   f"{', tilus.fp_contract' if a.fp_contract else ''}"
                   f"{self._cluster_attr(a.cluster, fwhere)}}} {{"]
            out += tr.regions[0].lines
            out.append("} " + _loc_text(fwhere))
            return "\n".join(out) + "\n"
        finally:
            self.__dict__["_tracer"] = None

    def compile(self, target="sm_90a", ptx_only=False, *, cache=True):
        """Compiles the traced module with tilus.compile: an Artifact (or the
        PTX text). Raises tilus.CompileError with diagnostics at the .py lines."""
        from ..compiler import compile as _compile
        return _compile(self.mlir(), target=target, ptx_only=ptx_only,
                        source_name=self._source_file(), cache=cache)

    def launch(self, runtime, *args, target=None, stream=None, workspace=None,
               workspace_bytes=None):
        """Compiles (once per target; tilus.compile's cache across processes)
        and launches on `runtime` (a tilus.Runtime) with `args` as the
        runtime's kernels (tilus.LoadedKernel) take them. `target` defaults to the
        device's: sm_90a for 9.x, sm_89 for 8.9, sm_80 for other 8.x."""
        if target is None:
            target = runtime.target
        cache = self.__dict__.setdefault("_artifacts", {})
        if target not in cache:
            cache[target] = (self.compile(target=target), self.__dict__["_kernel_name"])
        artifact, name = cache[target]
        return runtime.kernel(artifact, name)(*args, stream=stream, workspace=workspace,
                                              workspace_bytes=workspace_bytes)

    # --- Operands ----------------------------------------------------------

    def _own(self, v):
        if isinstance(v, Value) and v._k is not self:
            raise DSLError(f"{v!r} belongs to another kernel")
        return v

    def const(self, value, dtype=_types.index):
        """An arith.constant of `dtype` (index by default), shared within the
        current region."""
        tr = self._tr
        key = (repr(value), dtype.mlir)
        for r in reversed(tr.regions):
            if key in r.consts:
                return r.consts[key]
        if isinstance(dtype, FloatDType) or dtype in (_types.float16, _types.bfloat16,
                                                      _types.float32, _types.float64):
            if dtype.mlir.startswith("!"):
                raise DSLError(f"no arith.constant of {dtype.name}: use allocate_register(value=)")
            mtype = dtype.mlir
            text = _float_text(value, mtype)
        else:
            if isinstance(value, float) and not value.is_integer():
                raise DSLError(f"{value} is not an integer of {dtype.name}")
            text = str(int(value))
            mtype = dtype.mlir if dtype.mlir == "index" else f"i{dtype.bits}"
            if mtype == "i1":
                text = "true" if value else "false"
        v = Scalar(self, tr.fresh(), dtype if mtype == dtype.mlir else _types.int_(dtype.bits)
                   if dtype.bits > 1 else _types.boolean)
        tr.emit(f"{v.name} = arith.constant {text} : {mtype}")
        tr.region.consts[key] = v
        return v

    def _materialize(self, e):
        """An Expr of parameters as i32 (or its parameters' type) arith ops."""
        if e.op == "sym":
            return e.param
        a, b = (self._materialize(x) if isinstance(x, Expr) else x for x in e.args)
        if not isinstance(a, Scalar):
            a = self.const(a, b.dtype)
        op = {"+": "add", "-": "sub", "*": "mul", "floordiv": "floordiv", "mod": "mod",
              "ceildiv": "ceildiv"}[e.op]
        return Scalar._bin(a, b, op)

    def _scalar_operand(self, v, dtype):
        """A Scalar of `dtype` from a Python number, a Scalar or an Expr."""
        if isinstance(v, Expr):
            v = self._materialize(v)
        if isinstance(v, bool) or isinstance(v, (int, float)):
            return self.const(v, dtype)
        if isinstance(v, Scalar):
            self._own(v)
            if v.dtype != dtype:
                if dtype == _types.index and isinstance(v.dtype, IntDType):
                    return self.index(v)
                if v.dtype == _types.index and isinstance(dtype, IntDType) and \
                        not isinstance(dtype, FloatDType):
                    return self._cast_scalar(v, dtype)
                raise DSLError(f"a scalar of {v.dtype.name} where {dtype.name} is expected")
            return v
        raise DSLError(f"{v!r} is not a scalar of {dtype.name}")

    def _cast_scalar(self, v, dtype):
        r = Scalar(self, self._tr.fresh(), dtype)
        self._tr.emit(f"{r.name} = arith.index_cast {v.name} : {v.dtype.mlir} to {dtype.mlir}")
        return r

    def index(self, v):
        """`v` as an index: arith.index_cast of an integer Scalar, a constant
        of an int."""
        if isinstance(v, Expr):
            v = self._materialize(v)
        if isinstance(v, int):
            return self.const(v)
        if isinstance(v, Scalar) and v.dtype == _types.index:
            return v
        if isinstance(v, Scalar) and isinstance(v.dtype, IntDType) and \
                not isinstance(v.dtype, FloatDType):
            return self._cast_scalar(v, _types.index)
        raise DSLError(f"{v!r} cannot be an index")

    def _arith_binary(self, op, a, b):
        tr = self._tr
        dt = a.dtype
        if b.dtype != dt:
            raise DSLError(f"scalar {op} of {dt.name} and {b.dtype.name}")
        is_float = dt.mlir in ("f16", "bf16", "f32", "f64")
        unsigned = dt == _types.index or (isinstance(dt, IntDType) and not dt.signed)
        col = 2 if is_float else (1 if unsigned else 0)
        if op in _CMP:
            pred = _CMP[op][col]
            r = Scalar(self, tr.fresh(), _types.boolean)
            kind = "cmpf" if is_float else "cmpi"
            tr.emit(f"{r.name} = arith.{kind} {pred}, {a.name}, {b.name} : {dt.mlir}")
            return r
        name = _ARITH[op][col]
        if name is None:
            raise DSLError(f"no {op} of {dt.name} scalars")
        r = Scalar(self, tr.fresh(), dt)
        tr.emit(f"{r.name} = {name} {a.name}, {b.name} : {dt.mlir}")
        return r

    def _indices(self, offsets, what="offsets"):
        if not isinstance(offsets, (list, tuple)):
            offsets = [offsets]
        return [self.index(o) for o in offsets]

    # --- The generic op ---------------------------------------------------

    def op(self, name, *groups, result=None, results=None, attrs=None, **named):
        """Emits the Tilus op `name` ("tilus.load_global" or "load_global")
        with its operands given group by group, as the op schema orders
        them (positionally or by group name): a Value for a single group, a
        Value or None for an optional one, a list for a variadic one. Ints
        in operand positions become index constants. `result` (a type) or
        `results` (a list); `attrs` a dict (ints, floats, strings, int lists,
        or Attr text). operandSegmentSizes is set from the schema. Returns
        the result Value, a tuple of them, or None."""
        s = _schema.lookup(name)
        if s is None:
            raise DSLError(f"'{name}' is not a Tilus op")
        if len(groups) > len(s.operands):
            raise DSLError(f"{s.name} has {len(s.operands)} operand groups "
                           f"({', '.join(g.name for g in s.operands)}), got {len(groups)}")
        vals = list(groups) + [None] * (len(s.operands) - len(groups))
        for gname, v in named.items():
            i = s.group_index(gname)
            if i < 0:
                raise DSLError(f"{s.name} has no operand group '{gname}' (it has "
                               f"{', '.join(g.name for g in s.operands) or 'none'})")
            if i < len(groups):
                raise DSLError(f"operand group '{gname}' of {s.name} given twice")
            vals[i] = v
        operands, sizes = [], []
        for g, v in zip(s.operands, vals):
            if g.kind == "variadic":
                v = [] if v is None else (list(v) if isinstance(v, (list, tuple)) else [v])
            elif g.kind == "optional":
                v = [] if v is None else [v]
            else:
                if v is None or isinstance(v, (list, tuple)):
                    raise DSLError(f"{s.name}: operand '{g.name}' takes one value")
                v = [v]
            for x in v:
                if isinstance(x, Expr):
                    x = self._materialize(x)
                if isinstance(x, int) and not isinstance(x, bool):
                    x = self.const(x)
                if not isinstance(x, Value):
                    raise DSLError(f"{s.name}: operand '{g.name}' must be a traced value, "
                                   f"not {x!r}")
                operands.append(self._own(x))
            sizes.append(len(v))
        attrs = dict(attrs or {})
        missing = [a for a in s.attributes if a not in attrs]
        if missing:
            raise DSLError(f"{s.name} needs the attribute(s) {', '.join(missing)}")
        if "operandSegmentSizes" in attrs:
            raise DSLError("operandSegmentSizes is set from the op schema, do not pass it")
        if s.needs_segment_sizes:
            attrs["operandSegmentSizes"] = Attr("array<i32: " + ", ".join(map(str, sizes)) + ">")
        rtypes = list(results) if results is not None else ([] if result is None else [result])
        if any(g.kind == "single" for g in s.results) and not rtypes and s.results:
            raise DSLError(f"{s.name} has a result: pass result=type")
        if not s.results and rtypes:
            raise DSLError(f"{s.name} has no result")
        tr = self._tr
        outs = [self._new_value(t) for t in rtypes]
        lhs = (", ".join(o.name for o in outs) + " = ") if outs else ""
        ins = ", ".join(o.name for o in operands)
        itypes = ", ".join(_type_text(o.type) for o in operands)
        otypes = ", ".join(_type_text(t) for t in rtypes)
        otypes = otypes if len(rtypes) == 1 else f"({otypes})"
        tr.emit(f'{lhs}"{s.name}"({ins}){_attrs_text(attrs)} : ({itypes}) -> {otypes}')
        if not outs:
            return None
        return outs[0] if len(outs) == 1 else tuple(outs)

    def _new_value(self, t):
        name = self._tr.fresh()
        if isinstance(t, TensorType):
            cls = {"register": RegisterTensor, "shared": SharedTensor,
                   "global": GlobalTensor}[t.kind]
            return cls(self, name, t)
        if isinstance(t, DType):
            return Scalar(self, name, t)
        if isinstance(t, str):
            return Value(self, name, t)
        raise DSLError(f"{t!r} is not a type")

    # --- Checks --------------------------------------------------------------

    def _check_layout(self, layout, shape, threads=None, what="register tensor"):
        """Parses the layout (through libTilus.so when present) and checks its
        shape and thread count."""
        if layout is None:
            raise DSLError(f"a {what} needs a layout")
        from .. import _lib
        if not _lib.has_compiler():
            return _layout_text(layout)
        from ..layout import Layout, LayoutError
        try:
            l = layout if not isinstance(layout, str) else Layout.parse(layout)
        except LayoutError as e:
            raise DSLError(f"bad layout '{layout}': {e}") from None
        if tuple(l.shape) != tuple(shape):
            raise DSLError(f"layout '{_layout_text(layout)}' has shape {list(l.shape)}, but the "
                           f"{what} has shape {list(shape)}")
        if threads is not None and l.num_threads != threads:
            raise DSLError(f"layout '{_layout_text(layout)}' has {l.num_threads} threads, but "
                           f"the {what} needs {threads}")
        return _layout_text(layout)

    def _block_threads(self):
        """The threads a register tensor spans here: the thread group's
        (thread_group), else the block's."""
        group = getattr(self, "_group_threads", None)
        if group:
            return group
        w = self.attrs.warps
        return None if w is None else 32 * int(w)

    def _register_type(self, dtype, shape, layout):
        shape = tuple(int(d) for d in shape)
        lay = self._check_layout(layout, shape, self._block_threads())
        return TensorType("register", dtype, shape, lay)

    def _reg(self, x, what):
        if not isinstance(x, RegisterTensor):
            raise DSLError(f"{what} must be a register tensor, not {x!r}")
        return self._own(x)

    def _out(self, out, rtype, what):
        if out is None:
            return rtype
        self._reg(out, "out")
        if rtype is not None and out.type != rtype:
            raise DSLError(f"{what}: out has type {out.type.mlir}, the result is {rtype.mlir}")
        return out.type

    def _rebind(self, out, r):
        if out is not None:
            out.name = r.name
            return out
        return r

    # --- Instructions ----------------------------------------------------

    def block_indices(self, n=None):
        """The block's indices: one index Scalar, or a tuple for 2 or 3
        grid dimensions (n defaults to len(self.attrs.blocks))."""
        if n is None:
            b = self.attrs.blocks
            n = len(b) if isinstance(b, (list, tuple)) else 1
        r = self.op("tilus.block_indices", results=[_types.index] * n)
        return r

    def grouped_tile(self, pid, tiles_m, tiles_n, group):
        """(row, column) of output tile `pid` (tiles numbered in launch
        order) when tiles are swept over groups of `group` tile rows, column
        by column within a group, the last group taking the rows left: the
        blocks resident at once then share a few row blocks of one operand
        and column blocks of the other in the L2 instead of all of one."""
        per_group = tiles_n * group
        first = pid // per_group * group
        rows = self.min(tiles_m - first, group)
        within = pid % per_group
        return first + within % rows, within // rows

    @staticmethod
    def warpgroup_registers(consumers, producer=40):
        """(producer, consumer) registers per thread for set_max_registers in
        a block of one producer warpgroup and `consumers` consumer
        warpgroups: the producer keeps `producer`, the consumers share the
        rest of the 64 K, a multiple of 8 and at most 232 each."""
        free = (65536 - 128 * producer) // (128 * consumers)
        return producer, min(232, free // 8 * 8)

    def view_global(self, ptr, shape, *, dtype=None, layout=None):
        """A global tensor over a pointer parameter; `shape` entries are ints
        (static) or Scalars/Exprs (run-time sizes: -1 dims)."""
        if not isinstance(ptr, Pointer):
            raise DSLError(f"view_global takes a pointer parameter, not {ptr!r}")
        dims, sizes = [], []
        for d in shape:
            if isinstance(d, int):
                dims.append(d)
            else:
                dims.append(-1)
                sizes.append(self.index(d))
        t = TensorType("global", dtype or ptr.dtype, dims, layout)
        return self.op("tilus.view_global", ptr, sizes, result=t)

    def allocate_global(self, dtype, shape, *, layout=None):
        dims, sizes = [], []
        for d in shape:
            if isinstance(d, int):
                dims.append(d)
            else:
                dims.append(-1)
                sizes.append(self.index(d))
        return self.op("tilus.allocate_global", sizes,
                       result=TensorType("global", dtype, dims, layout))

    def allocate_shared(self, dtype, shape, layout):
        lay = self._check_layout(layout, shape, 1, "shared tensor")
        return self.op("tilus.allocate_shared", result=TensorType("shared", dtype, shape, lay))

    def allocate_register(self, dtype, shape, layout, *, init=None, value=None):
        """A register tensor: every element `init` (a Scalar or a number,
        emitted as an operand), or the constant attribute `value`, or 0."""
        t = self._register_type(dtype, shape, layout)
        if init is not None and value is not None:
            raise DSLError("allocate_register takes init= or value=, not both")
        attrs = {}
        if value is not None:
            attrs["value"] = value
        if init is not None:
            init = self._scalar_operand(init, dtype)
        return self.op("tilus.allocate_register", init, result=t, attrs=attrs)

    def _tile_type(self, mem, offsets, shape, layout, dtype, out, what):
        if not isinstance(mem, (GlobalTensor, SharedTensor)):
            raise DSLError(f"{what} reads a {'global' if 'global' in what else 'shared'} "
                           f"tensor, not {mem!r}")
        if len(offsets) != mem.rank:
            raise DSLError(f"{what}: {len(offsets)} offsets for a tensor of rank {mem.rank}")
        if out is not None and shape is None:
            return out.type
        if shape is None:
            raise DSLError(f"{what} needs shape= and layout= (or out=)")
        if len(shape) > mem.rank:
            raise DSLError(f"{what}: a tile of rank {len(shape)} from a tensor of rank {mem.rank}")
        return self._register_type(dtype or mem.dtype, shape, layout)

    @staticmethod
    def _untile(src, offsets, shape, layout):
        """(tensor, offsets, shape, layout) of load_*(tile, layout) or of the
        explicit form load_*(tensor, offsets, shape, layout)."""
        if not isinstance(src, Tile):
            return src, offsets, shape, layout
        if shape is not None or (offsets is not None and layout is not None):
            raise DSLError("a Tile gives the offsets and the shape: pass only the layout")
        return src.tensor, src.offsets, src.shape, layout if offsets is None else offsets

    def load_global(self, src, offsets=None, shape=None, layout=None, *, dtype=None,
                    fill=None, fill_value=None, out=None):
        """LoadGlobal of a tile of `shape` at `offsets` (one per dimension of
        src) in `layout`, or load_global(g[...], layout); outside the tensor
        `fill` (a scalar) or the constant `fill_value`, else 0. `out=` is the
        in-place form."""
        src, offsets, shape, layout = self._untile(src, offsets, shape, layout)
        if offsets is None:
            raise DSLError("load_global needs offsets (or a Tile: g[...])")
        offsets = self._indices(offsets)
        t = self._out(out, self._tile_type(src, offsets, shape, layout, dtype, out,
                                           "load_global"), "load_global")
        attrs = {} if fill_value is None else {"fill_value": fill_value}
        if fill is not None:
            fill = self._scalar_operand(fill, t.dtype)
        r = self.op("tilus.load_global", src, offsets, fill, out, result=t, attrs=attrs)
        return self._rebind(out, r)

    def load_shared(self, src, offsets=None, shape=None, layout=None, *, dtype=None, out=None):
        src, offsets, shape, layout = self._untile(src, offsets, shape, layout)
        if offsets is None:
            raise DSLError("load_shared needs offsets (or a Tile: s[...])")
        offsets = self._indices(offsets)
        t = self._out(out, self._tile_type(src, offsets, shape, layout, dtype, out,
                                           "load_shared"), "load_shared")
        r = self.op("tilus.load_shared", src, offsets, out, result=t)
        return self._rebind(out, r)

    def _store(self, opname, value, dst, offsets, kind):
        self._reg(value, f"the value of {opname}")
        if isinstance(dst, Tile):
            if offsets is not None:
                raise DSLError(f"{opname}: a Tile gives the offsets")
            region = list(dst.shape)
            # A lower-rank value fills the region's trailing dimensions; the
            # leading ones must then be 1.
            lead = region[:len(region) - value.rank]
            if value.rank > len(region) or any(e != 1 for e in lead) or \
                    region[len(region) - value.rank:] != list(value.shape):
                raise DSLError(f"{opname}: a tile of shape {list(value.shape)} into a region "
                               f"of shape {region}")
            dst, offsets = dst.tensor, dst.offsets
        if offsets is None:
            raise DSLError(f"{opname} needs offsets (or a Tile)")
        cls = GlobalTensor if kind == "global" else SharedTensor
        if not isinstance(dst, cls):
            raise DSLError(f"{opname} writes a {kind} tensor, not {dst!r}")
        offsets = self._indices(offsets)
        if len(offsets) != dst.rank:
            raise DSLError(f"{opname}: {len(offsets)} offsets for a tensor of rank {dst.rank}")
        if value.rank > dst.rank:
            raise DSLError(f"{opname}: a tile of rank {value.rank} into a tensor of rank "
                           f"{dst.rank}")
        return self.op(f"tilus.{opname}", value, dst, offsets)

    def store_global(self, value, dst, offsets=None):
        return self._store("store_global", value, dst, offsets, "global")

    def store_shared(self, value, dst, offsets=None):
        return self._store("store_shared", value, dst, offsets, "shared")

    def copy_async(self, dst, src, dst_offsets=None, src_offsets=None, shape=None):
        """CopyAsync of a region of static `shape` from global `src` to shared
        `dst`, or copy_async(s[...], g[...]) with the shape of the global
        tile (the shared tile's extents are not checked against it: a copy
        may fill a slice of a larger buffer)."""
        if isinstance(dst, Tile) or isinstance(src, Tile):
            if not (isinstance(dst, Tile) and isinstance(src, Tile)) or any(
                    v is not None for v in (dst_offsets, src_offsets, shape)):
                raise DSLError("copy_async takes two Tiles (s[...], g[...]) or the explicit "
                               "form (dst, src, dst_offsets, src_offsets, shape)")
            dst, dst_offsets = dst.tensor, dst.offsets
            src, src_offsets, shape = src.tensor, src.offsets, src.shape
        if shape is None:
            raise DSLError("copy_async needs a shape")
        if not isinstance(dst, SharedTensor) or not isinstance(src, GlobalTensor):
            raise DSLError("copy_async copies from a global tensor (src) to a shared one (dst)")
        return self.op("tilus.copy_async", dst, src, self._indices(dst_offsets),
                       self._indices(src_offsets), attrs={"shape": list(shape)})

    def copy_async_commit_group(self):
        return self.op("tilus.copy_async_commit_group")

    def copy_async_wait_group(self, n):
        return self.op("tilus.copy_async_wait_group", attrs={"n": int(n)})

    def synchronize(self):
        return self.op("tilus.synchronize")

    def exit(self):
        return self.op("tilus.exit")

    def print(self, x):
        return self.op("tilus.print", x)

    # Elementwise

    def _elementwise(self, name, regs, out, layout=None, result_dtype=None):
        """The result type of an elementwise op over the register operands
        `regs` (broadcast; scalars do not count)."""
        shapes = [r.shape for r in regs]
        shape = _broadcast(shapes)
        if shape is None:
            raise DSLError(f"{name}: shapes {' and '.join(str(list(s)) for s in shapes)} do not "
                           f"broadcast (same rank, extents equal or 1)")
        elem = regs[0].dtype
        if out is not None:
            t = self._out(out, None, name)
            if t.shape != shape:
                raise DSLError(f"{name}: out has shape {list(t.shape)}, the result {list(shape)}")
        elif layout is not None:
            t = self._register_type(result_dtype or elem, shape, layout)
        else:
            same = [r for r in regs if r.shape == shape]
            if not same:
                raise DSLError(f"{name}: no operand has the result's shape {list(shape)}; "
                               f"pass layout=")
            t = TensorType("register", result_dtype or elem, shape, same[0].layout)
        return t

    def _binary(self, name, lhs, rhs, out=None, layout=None, attrs=None, result_dtype=None):
        self._reg(lhs, f"the lhs of {name}")
        regs = [lhs]
        if isinstance(rhs, RegisterTensor):
            self._own(rhs)
            if rhs.dtype != lhs.dtype:
                raise DSLError(f"{name} of {lhs.dtype.name} and {rhs.dtype.name} tensors "
                               f"(cast one first)")
            regs.append(rhs)
        else:
            rhs = self._scalar_operand(rhs, self._scalar_type(lhs.dtype))
        t = self._elementwise(name, regs, out, layout=layout, result_dtype=result_dtype)
        r = self.op(f"tilus.{name}", lhs, rhs, out, result=t, attrs=attrs)
        return self._rebind(out, r)

    def _scalar_type(self, dt):
        if isinstance(dt, IntDType) and dt.mlir.startswith("ui"):
            return _types.int_(dt.bits)
        return dt

    def add(self, lhs, rhs, *, out=None, layout=None):
        """lhs + rhs (rhs a register tensor or a scalar); out= in place."""
        return self._binary("add", lhs, rhs, out, layout)

    def sub(self, lhs, rhs, *, out=None, layout=None):
        return self._binary("sub", lhs, rhs, out, layout)

    def mul(self, lhs, rhs, *, out=None, layout=None):
        return self._binary("mul", lhs, rhs, out, layout)

    def div(self, lhs, rhs, *, out=None, layout=None):
        return self._binary("div", lhs, rhs, out, layout)

    def mod(self, lhs, rhs, *, out=None, layout=None):
        return self._binary("mod", lhs, rhs, out, layout)

    def max(self, lhs, rhs, *, out=None, layout=None):
        """The larger of two register tensors (or a tensor and a scalar),
        or of two scalars (a Scalar and a Scalar or number)."""
        if isinstance(lhs, Scalar):
            return self._arith_binary("max", lhs, self._scalar_operand(rhs, lhs.dtype))
        return self._binary("max", lhs, rhs, out, layout)

    def min(self, lhs, rhs, *, out=None, layout=None):
        """As max, the smaller."""
        if isinstance(lhs, Scalar):
            return self._arith_binary("min", lhs, self._scalar_operand(rhs, lhs.dtype))
        return self._binary("min", lhs, rhs, out, layout)

    def and_(self, lhs, rhs, *, out=None, layout=None):
        return self._binary("and", lhs, rhs, out, layout)

    def or_(self, lhs, rhs, *, out=None, layout=None):
        return self._binary("or", lhs, rhs, out, layout)

    def xor(self, lhs, rhs, *, out=None, layout=None):
        return self._binary("xor", lhs, rhs, out, layout)

    def shl(self, lhs, rhs, *, out=None, layout=None):
        return self._binary("shl", lhs, rhs, out, layout)

    def shr(self, lhs, rhs, *, out=None, layout=None):
        return self._binary("shr", lhs, rhs, out, layout)

    def cmp(self, lhs, rhs, predicate, *, out=None, layout=None):
        """An i1 tensor: lhs <predicate> rhs, predicate one of eq ne lt le gt ge."""
        if predicate not in ("eq", "ne", "lt", "le", "gt", "ge"):
            raise DSLError(f"cmp predicate '{predicate}': eq, ne, lt, le, gt or ge")
        return self._binary("cmp", lhs, rhs, out, layout, attrs={"predicate": predicate},
                            result_dtype=_types.boolean)

    def where(self, cond, a, b, *, out=None, layout=None):
        """cond ? a : b (a, b register tensors or scalars)."""
        self._reg(cond, "the condition of where")
        regs = [cond] + [x for x in (a, b) if isinstance(x, RegisterTensor)]
        elem = next((x.dtype for x in (a, b) if isinstance(x, RegisterTensor)), None)
        if elem is None:
            raise DSLError("where needs a or b to be a register tensor")
        a, b = (x if isinstance(x, RegisterTensor) else
                self._scalar_operand(x, self._scalar_type(elem)) for x in (a, b))
        t = self._elementwise("where", regs, out, layout=layout, result_dtype=elem)
        if out is None and t.dtype != elem:
            t = TensorType("register", elem, t.shape, t.layout)
        r = self.op("tilus.where", cond, a, b, out, result=t)
        return self._rebind(out, r)

    def clamp(self, x, lo, hi, *, out=None, layout=None):
        self._reg(x, "the x of clamp")
        regs = [x] + [v for v in (lo, hi) if isinstance(v, RegisterTensor)]
        lo, hi = (v if isinstance(v, RegisterTensor) else
                  self._scalar_operand(v, self._scalar_type(x.dtype)) for v in (lo, hi))
        t = self._elementwise("clamp", regs, out, layout=layout)
        r = self.op("tilus.clamp", x, lo, hi, out, result=t)
        return self._rebind(out, r)

    def _unary(self, name, x, out=None, result=None):
        self._reg(x, f"the operand of {name}")
        t = self._out(out, result or x.type, name)
        r = self.op(f"tilus.{name}", x, out, result=t)
        return self._rebind(out, r)

    def neg(self, x, *, out=None): return self._unary("neg", x, out)
    def abs(self, x, *, out=None): return self._unary("abs", x, out)
    def not_(self, x, *, out=None): return self._unary("not", x, out)
    def exp(self, x, *, out=None): return self._unary("exp", x, out)
    def exp2(self, x, *, out=None): return self._unary("exp2", x, out)
    def log(self, x, *, out=None): return self._unary("log", x, out)
    def log2(self, x, *, out=None): return self._unary("log2", x, out)
    def sqrt(self, x, *, out=None): return self._unary("sqrt", x, out)
    def rsqrt(self, x, *, out=None): return self._unary("rsqrt", x, out)
    def tanh(self, x, *, out=None): return self._unary("tanh", x, out)
    def sin(self, x, *, out=None): return self._unary("sin", x, out)
    def cos(self, x, *, out=None): return self._unary("cos", x, out)

    def cast(self, x, dtype, *, layout=None, out=None):
        """Cast to `dtype`: same shape, the same layout unless given."""
        self._reg(x, "the operand of cast")
        t = None if out is not None else TensorType(
            "register", dtype, x.shape,
            x.layout if layout is None else self._check_layout(layout, x.shape,
                                                               self._block_threads()))
        return self._unary("cast", x, out, t)

    def view(self, x, dtype, shape, layout, *, out=None):
        """Reinterprets each thread's bits as `dtype` [shape] in `layout`."""
        self._reg(x, "the operand of view")
        t = None if out is not None else self._register_type(dtype, shape, layout)
        return self._unary("view", x, out, t)

    def dot(self, a, b, c, *, out=None):
        """a [M, K] x b [K, N] + c [M, N], c's type."""
        for v, n in ((a, "a"), (b, "b"), (c, "c")):
            self._reg(v, f"operand {n} of dot")
        if a.rank != 2 or b.rank != 2 or c.rank != 2 or a.shape[1] != b.shape[0] or \
                c.shape != (a.shape[0], b.shape[1]):
            raise DSLError(f"dot of {list(a.shape)} x {list(b.shape)} + {list(c.shape)}: needs "
                           f"[M, K] x [K, N] + [M, N]")
        t = self._out(out, c.type, "dot")
        r = self.op("tilus.dot", a, b, c, out, result=t)
        return self._rebind(out, r)

    # Warpgroup matrix multiply (sm_90a; docs/hopper.md)

    def transpose_shared(self, x):
        """The shared tensor x seen with its last two dimensions exchanged
        (nothing moves): how a [N, K] tile is given to wgmma_mma as b."""
        if not isinstance(x, Value) or x.type.kind != "shared" or x.rank < 2:
            raise DSLError("transpose_shared takes a shared tensor of rank >= 2")
        from ..layout import Layout
        layout = Layout.parse(x.type.layout).transpose()
        shape = list(x.type.shape)
        shape[-2], shape[-1] = shape[-1], shape[-2]
        return self.op("tilus.transpose_shared", x,
                       result=TensorType("shared", x.type.dtype, shape, str(layout)))

    def _wgmma_operand(self, x, name):
        """A shared operand of wgmma_mma: a shared tensor (rank 2) or a Tile
        s[i, ...] that fixes its leading dimensions; (tensor, offsets)."""
        if isinstance(x, Tile):
            t, lead = x.tensor, x.offsets[:-2]
            if list(x.shape) != list(t.type.shape[-2:]) or any(
                    not (isinstance(o, int) and o == 0) for o in x.offsets[-2:]):
                raise DSLError(f"wgmma_mma's {name} takes whole tiles of its last two "
                               f"dimensions (s[stage])")
            return t, list(lead)
        if isinstance(x, Value) and x.type.kind == "shared":
            return x, []
        return x, None

    def wgmma_fence(self):
        return self.op("tilus.wgmma_fence")

    def wgmma_mma(self, a, b, d):
        """Starts d + a x b on the block's warpgroups: a [M, K] (shared, a
        Tile s[stage] of a staged buffer, or registers), b [K, N] (shared or
        such a Tile), d [M, N] registers. The result may only go to another
        wgmma_mma as d, through a loop, or to wgmma_wait_group."""
        sa, a_offsets = self._wgmma_operand(a, "a")
        sb, b_offsets = self._wgmma_operand(b, "b")
        if b_offsets is None:
            raise DSLError("wgmma_mma's b is a shared tensor (or a Tile of one)")
        if a_offsets is None:
            self._reg(a, "operand a of wgmma_mma")
            a_offsets = []
        self._reg(d, "operand d of wgmma_mma")
        return self.op("tilus.wgmma_mma", sa, sb, d, a_offsets, b_offsets, result=d.type)

    def wgmma_commit_group(self):
        return self.op("tilus.wgmma_commit_group")

    def wgmma_wait_group(self, n, value=None):
        """Waits until at most n groups are pending; returns `value` (an
        accumulator), now readable."""
        if value is None:
            return self.op("tilus.wgmma_wait_group", attrs={"n": int(n)})
        self._reg(value, "the value of wgmma_wait_group")
        return self.op("tilus.wgmma_wait_group", value, attrs={"n": int(n)},
                       result=value.type)

    def reduce(self, x, dims, kind="sum", *, layout=None):
        """Reduce over `dims` (kind sum, max, min, argmax, argmin); the
        result drops them and has layout reduce(x's layout, dims)."""
        self._reg(x, "the operand of reduce")
        dims = [int(d) for d in (dims if isinstance(dims, (list, tuple)) else [dims])]
        if kind not in ("sum", "max", "min", "argmax", "argmin"):
            raise DSLError(f"reduce kind '{kind}': sum, max, min, argmax or argmin")
        if any(not 0 <= d < x.rank for d in dims) or len(set(dims)) != len(dims):
            raise DSLError(f"reduce dims {dims} of a tensor of rank {x.rank}")
        shape = [e for i, e in enumerate(x.shape) if i not in dims]
        if layout is None:
            from .. import _lib
            if not _lib.has_compiler():
                raise DSLError("reduce needs layout= without libTilus.so")
            from ..layout import Layout
            layout = str(Layout.parse(x.layout).reduce(dims))
        dt = _types.int32 if kind in ("argmax", "argmin") else x.dtype
        t = self._register_type(dt, shape, layout)
        return self.op("tilus.reduce", x, result=t, attrs={"dims": dims, "kind": kind})

    def sum(self, x, dims, *, layout=None):
        return self.reduce(x, dims, "sum", layout=layout)

    def convert_layout(self, x, layout):
        self._reg(x, "the operand of convert_layout")
        return self.op("tilus.convert_layout", x,
                       result=self._register_type(x.dtype, x.shape, layout))

    def permute(self, x, dims, layout):
        self._reg(x, "the operand of permute")
        dims = [int(d) for d in dims]
        if sorted(dims) != list(range(x.rank)):
            raise DSLError(f"permute dims {dims} are not a permutation of {x.rank} dimensions")
        shape = [x.shape[d] for d in dims]
        return self.op("tilus.permute", x, result=self._register_type(x.dtype, shape, layout),
                       attrs={"dims": dims})

    def reshape(self, x, shape, layout):
        self._reg(x, "the operand of reshape")
        if math.prod(shape) != math.prod(x.shape):
            raise DSLError(f"reshape of {list(x.shape)} to {list(shape)} changes the number "
                           f"of elements")
        return self.op("tilus.reshape", x, result=self._register_type(x.dtype, shape, layout))

    def atomic_rmw(self, mem, offsets, value, kind="add", order="relaxed"):
        """Once per block: mem[offsets] = kind(mem[offsets], value); returns the old
        value. order="acq_rel": every thread's earlier accesses precede it and its
        later ones follow it (docs/dialect.md, "Atomics")."""
        dt = self._scalar_type(mem.dtype)
        value = self._scalar_operand(value, dt)
        attrs = {"kind": kind}
        if order != "relaxed":
            attrs["order"] = order
        return self.op("tilus.atomic_rmw", mem, self._indices(offsets), value, result=dt,
                       attrs=attrs)

    def atomic_cas(self, mem, offsets, compare, value):
        dt = self._scalar_type(mem.dtype)
        return self.op("tilus.atomic_cas", mem, self._indices(offsets),
                       self._scalar_operand(compare, dt), self._scalar_operand(value, dt),
                       result=dt)

    def atomic_add_global(self, value, dst, offsets):
        self._reg(value, "the value of atomic_add_global")
        return self.op("tilus.atomic_add_global", value, dst, self._indices(offsets))

    def semaphore_wait(self, counters, offsets, value):
        return self.op("tilus.semaphore_wait", counters, self._indices(offsets),
                       self._scalar_operand(value, _types.int32))

    def semaphore_signal(self, counters, offsets, value):
        return self.op("tilus.semaphore_signal", counters, self._indices(offsets),
                       self._scalar_operand(value, _types.int32))

    # mbarriers (sm_90; docs/hopper.md): elements of a shared i64 tensor

    def mbarrier_init(self, bars, offsets, count):
        """Thread 0 sets the barrier at `offsets` to expect `count` arrivals
        per phase; then the block synchronizes."""
        return self.op("tilus.mbarrier_init", bars, self._indices(offsets),
                       self._scalar_operand(count, _types.int32))

    def mbarrier_arrive(self, bars, offsets):
        """Every thread of the block arrives once."""
        return self.op("tilus.mbarrier_arrive", bars, self._indices(offsets))

    def copy_async_mbarrier_arrive(self, bars, offsets):
        """Every thread arrives once, when all the copy_async it issued
        before have landed (the hardware makes the arrival; the thread goes
        on at once)."""
        return self.op("tilus.copy_async_mbarrier_arrive", bars, self._indices(offsets))

    def mbarrier_arrive_remote(self, bars, offsets, cta):
        """Every thread arrives once on the barrier at the same place in
        block `cta` (its rank) of the cluster, releasing at cluster scope
        (attrs.cluster)."""
        return self.op("tilus.mbarrier_arrive_remote", bars, self._indices(offsets),
                       self.index(cta))

    def mbarrier_arrive_expect_tx(self, bars, offsets, nbytes):
        """Thread 0 arrives once, expecting `nbytes` more transaction bytes."""
        return self.op("tilus.mbarrier_arrive_expect_tx", bars, self._indices(offsets),
                       self._scalar_operand(nbytes, _types.int32))

    def mbarrier_wait(self, bars, offsets, phase):
        """Every thread waits until the phase of parity `phase` completes."""
        return self.op("tilus.mbarrier_wait", bars, self._indices(offsets),
                       self._scalar_operand(phase, _types.int32))

    def tma_load(self, dst, src, bars, bar_offsets, dst_offsets, src_offsets, shape, *,
                 multicast=False):
        """Tensor-memory copy (sm_90+) of the tile `shape` of global `src` at
        `src_offsets` into the trailing dimensions of shared `dst` at
        `dst_offsets` (the trailing ones 0, except that a 2-D tile may start
        at a constant row): thread 0 adds the tile's bytes to the barrier's
        expected count and starts the copy, whose bytes complete the
        barrier's phase. `src` must be a view of kernel arguments; `dst`
        row-major or a swizzled mma_shared layout (docs/hopper.md).
        multicast=True (attrs.cluster): the tile lands in every block of the
        cluster, each of which issues a copy of the same size for the phase
        (the barrier expects the tile's bytes times the cluster's size)."""
        if not isinstance(dst, SharedTensor) or not isinstance(src, GlobalTensor) \
                or not isinstance(bars, SharedTensor):
            raise DSLError("tma_load copies from a global tensor (src) to a shared one (dst), "
                           "completing on a shared mbarrier tensor (bars)")
        attrs = {"shape": list(shape)}
        if multicast:
            attrs["multicast"] = Attr("unit")
        return self.op("tilus.tma_load", dst, src, bars, self._indices(dst_offsets),
                       self._indices(src_offsets), self._indices(bar_offsets),
                       attrs=attrs)

    def tma_store(self, src, dst, src_offsets, dst_offsets, shape, *, async_writes=False):
        """Tensor-memory copy (sm_90+) of the tile `shape` in the trailing
        dimensions of shared `src` at `src_offsets` to global `dst` at
        `dst_offsets`, after every thread's writes to the tile (the block
        fences and synchronizes); elements past dst's edges are not written.
        When it returns the tile may be written again. `dst` must be a view
        of kernel arguments; `src` row-major or a swizzled mma_shared layout
        (docs/hopper.md). async_writes=True: it returns once the tile has
        been read; the writes land later, visible after the kernel (for
        outputs the kernel does not read back)."""
        if not isinstance(src, SharedTensor) or not isinstance(dst, GlobalTensor):
            raise DSLError("tma_store copies from a shared tensor (src) to a global one (dst)")
        attrs = {"shape": list(shape)}
        if async_writes:
            attrs["async_writes"] = Attr("unit")
        return self.op("tilus.tma_store", src, dst, self._indices(src_offsets),
                       self._indices(dst_offsets), attrs=attrs)

    # --- Control flow ------------------------------------------------------

    def range(self, start, stop=None, step=1, *, unroll=None):
        """`for i in self.range(n)` / `self.range(start, stop, step)`: an
        scf.for over index values (i is an index Scalar). Handles rebound in
        the body (out=, assign) are carried through iter_args and hold the
        loop's results after it. Do not break out of it.

        unroll=True (int bounds): unrolled while tracing, i a Python int.
        unroll=k (an int > 1, int step): an scf.for of step k * step whose
        body is traced k times, for i, i + step, ...; the trip count must be
        a multiple of k (checked when the bounds are ints)."""
        where = _caller()
        if stop is None:
            start, stop = 0, start
        if unroll is True:
            if not all(isinstance(v, int) for v in (start, stop, step)):
                raise DSLError("unroll=True needs int bounds (the loop is unrolled while tracing)",
                               where)
            return iter(range(start, stop, step))
        if unroll in (None, False, 1):
            return self._for(start, stop, step, where, 1)
        if isinstance(unroll, bool) or not isinstance(unroll, int) or unroll < 1 or \
                not isinstance(step, int):
            raise DSLError(f"unroll={unroll!r}: True, or an int factor with an int step", where)
        if isinstance(start, int) and isinstance(stop, int) and \
                len(range(start, stop, step)) % unroll:
            raise DSLError(f"unroll={unroll}: the trip count {len(range(start, stop, step))} is "
                           f"not a multiple of it", where)
        return self._for(start, stop, step, where, unroll)

    def _for(self, start, stop, step, where, unroll):
        tr = self._tr
        lo, hi, st = (self.index(v) for v in (start, stop, step * unroll if unroll > 1 else step))
        iv = Scalar(self, tr.fresh(), _types.index)
        snap = tr.begin()
        yield iv
        for j in range(1, unroll):
            yield iv + j * step
        body, changed = tr.end(snap)
        if not changed:
            tr.region.lines.append("  " * tr.region.indent +
                                   f"scf.for {iv.name} = {lo.name} to {hi.name} step {st.name} {{")
            tr.region.lines += body
            tr.region.lines.append("  " * tr.region.indent + "} " + _loc_text(where))
            return
        args, inits, types, yields = [], [], [], []
        for v, old in changed:
            arg = tr.fresh()
            body = _rename(body, old, arg)
            args.append(arg)
            inits.append(old)
            types.append(_type_text(v.type))
            yields.append(v.name)
        results = [tr.fresh() for _ in changed]
        ind = "  " * tr.region.indent
        iters = ", ".join(f"{a} = {i}" for a, i in zip(args, inits))
        tr.region.lines.append(
            f"{ind}{', '.join(results)} = scf.for {iv.name} = {lo.name} to {hi.name} step "
            f"{st.name} iter_args({iters}) -> ({', '.join(types)}) {{")
        tr.region.lines += body
        tr.region.lines.append(f"{ind}  scf.yield {', '.join(yields)} : {', '.join(types)} "
                               + _loc_text(where))
        tr.region.lines.append(f"{ind}}} " + _loc_text(where))
        for (v, _), r in zip(changed, results):
            v.name = r

    @contextmanager
    def while_loop(self, cond):
        """`with self.while_loop(lambda: count < k):` an scf.while: `cond`
        (a function returning an i1 Scalar, traced once into the loop's
        condition region) is tested before each run of the body. Handles
        rebound in the body (assign, out=) are carried and hold the loop's
        results after it; the condition sees their current values."""
        where = _caller()
        tr = self._tr
        snap = tr.begin()
        c = cond()
        if not isinstance(c, Scalar) or c.dtype != _types.boolean:
            tr.end(snap)
            raise DSLError(f"while_loop's condition must return an i1 Scalar, not {c!r}", where)
        before, changed = tr.end(snap)
        if changed:
            raise DSLError("while_loop's condition must not rebind handles", where)
        snap = tr.begin()
        try:
            yield
        except BaseException:
            tr.end(snap)
            raise
        body, changed = tr.end(snap)
        ind = "  " * tr.region.indent
        loc = _loc_text(where)
        bargs, aargs, inits, types, yields = [], [], [], [], []
        for v, old in changed:
            b, a = tr.fresh(), tr.fresh()
            before = _rename(before, old, b)
            body = _rename(body, old, a)
            bargs.append(b)
            aargs.append(a)
            inits.append(old)
            types.append(_type_text(v.type))
            yields.append(v.name)
        cname = c.name
        for (v, old), b in zip(changed, bargs):
            if cname == old:
                cname = b
        results = [tr.fresh() for _ in changed]
        tl = ", ".join(types)
        lhs = f"{', '.join(results)} = " if results else ""
        iters = ", ".join(f"{b} = {i}" for b, i in zip(bargs, inits))
        out = [f"{ind}{lhs}scf.while ({iters}) : ({tl}) -> ({tl}) {{"]
        out += before
        out.append(f"{ind}  scf.condition({cname})" +
                   (f" {', '.join(bargs)} : {tl}" if bargs else "") + " " + loc)
        out.append(f"{ind}}} do {{")
        out.append(f"{ind}^bb0({', '.join(f'{a}: {t}' for a, t in zip(aargs, types))}):")
        out += body
        out.append(f"{ind}  scf.yield" + (f" {', '.join(yields)} : {tl}" if yields else "") +
                   " " + loc)
        out.append(f"{ind}}} " + loc)
        tr.region.lines += out
        for (v, _), r in zip(changed, results):
            v.name = r

    @contextmanager
    def if_then(self, cond):
        """`with self.if_then(cond):` an scf.if on an i1 Scalar. Handles
        rebound inside become the if's results (the old value otherwise).
        A `with self.otherwise():` right after it is the else branch."""
        where = _caller()
        tr = self._tr
        if not isinstance(cond, Scalar) or cond.dtype != _types.boolean:
            raise DSLError(f"if_then takes an i1 Scalar (a comparison), not {cond!r}", where)
        snap = tr.begin()
        try:
            yield
        except BaseException:
            tr.end(snap)
            raise
        body, changed = tr.end(snap)
        self._emit_if(cond, where, body, [], [(v, old, v.name) for v, old in changed])

    def in_thread_group(self, first, count):
        """The i1 condition of a thread group (thread_group is the way to
        use it)."""
        return self.op("tilus.in_thread_group", result=_types.boolean,
                       attrs={"first": int(first), "count": int(count)})

    @contextmanager
    def thread_group(self, first, count):
        """`with self.thread_group(first, count):` a thread group (warp
        specialization): the body runs on threads first .. first + count - 1
        only, as a block of `count` threads of its own (thread `first` is its
        thread 0, register layouts span `count` threads, synchronize() waits
        for the group alone). Whole warpgroups; groups do not nest."""
        if getattr(self, "_group_threads", None):
            raise DSLError("thread groups do not nest", _caller())
        member = self.in_thread_group(first, count)
        self._group_threads = int(count)
        try:
            with self.if_then(member):
                yield
        finally:
            self._group_threads = None

    @staticmethod
    def _cluster_attr(cluster, where):
        if cluster is None:
            return ""
        if not isinstance(cluster, (list, tuple)) or not 1 <= len(cluster) <= 3 or \
                not all(isinstance(c, int) and c >= 1 for c in cluster):
            raise DSLError(f"attrs.cluster is 1 to 3 positive ints, not {cluster!r}", where)
        return f", tilus.cluster = array<i64: {', '.join(str(c) for c in cluster)}>"

    def cluster_block_rank(self):
        """The block's rank in its thread-block cluster (an index Scalar);
        the kernel needs attrs.cluster."""
        return self.op("tilus.cluster_block_rank", result=_types.index)

    def cluster_synchronize(self):
        """Every thread of the cluster's blocks waits for all the others;
        memory operations before it are visible after it (not in a thread
        group)."""
        return self.op("tilus.cluster_synchronize")

    def set_max_registers(self, count, action):
        """Registers per thread for the warpgroups that run it (setmaxnreg,
        sm_90a): action "dec" gives registers back down to `count`, "inc"
        waits until `count` are free. Directly in a thread_group body (or a
        kernel of whole warpgroups); count a multiple of 8 from 24 to 256."""
        return self.op("tilus.set_max_registers",
                       attrs={"count": int(count), "action": str(action)})

    @contextmanager
    def otherwise(self):
        """`with self.otherwise():` the else branch of the if_then just
        before it (nothing may be emitted between them)."""
        where = _caller()
        tr = self._tr
        last = tr.__dict__.get("last_if")
        if last is None or last["region"] is not tr.region or \
                len(tr.region.lines) != last["end"]:
            raise DSLError("otherwise() must follow a `with self.if_then(...)` block directly",
                           where)
        tr.last_if = None
        del tr.region.lines[last["start"]:]
        then_changed = last["then"]
        for v, old, _ in then_changed:
            v.name = old
        snap = tr.begin()
        try:
            yield
        except BaseException:
            tr.end(snap)
            raise
        body, changed = tr.end(snap)
        else_changed = [(v, old, v.name) for v, old in changed]
        self._emit_if(last["cond"], last["where"], last["body"], body, then_changed,
                      else_changed)

    def _emit_if(self, cond, where, then_body, else_body, then_changed, else_changed=()):
        tr = self._tr
        region = tr.region
        start = len(region.lines)
        ind = "  " * region.indent
        handles, olds, then_vals, else_vals = [], [], {}, {}
        for v, old, new in list(then_changed) + list(else_changed):
            if id(v) not in then_vals:
                handles.append(v)
                olds.append(old)
                then_vals[id(v)] = old
                else_vals[id(v)] = old
        for v, _, new in then_changed:
            then_vals[id(v)] = new
        for v, _, new in else_changed:
            else_vals[id(v)] = new
        loc = _loc_text(where)
        if not handles:
            region.lines.append(f"{ind}scf.if {cond.name} {{")
            region.lines += then_body
            if else_body:
                region.lines.append(f"{ind}}} else {{")
                region.lines += else_body
            region.lines.append(f"{ind}}} " + loc)
        else:
            types = ", ".join(_type_text(v.type) for v in handles)
            results = [tr.fresh() for _ in handles]
            region.lines.append(f"{ind}{', '.join(results)} = scf.if {cond.name} -> ({types}) {{")
            region.lines += then_body
            region.lines.append(f"{ind}  scf.yield {', '.join(then_vals[id(v)] for v in handles)}"
                                f" : {types} " + loc)
            region.lines.append(f"{ind}}} else {{")
            region.lines += else_body
            region.lines.append(f"{ind}  scf.yield {', '.join(else_vals[id(v)] for v in handles)}"
                                f" : {types} " + loc)
            region.lines.append(f"{ind}}} " + loc)
            for v, r in zip(handles, results):
                v.name = r
        tr.last_if = {"region": region, "start": start, "end": len(region.lines), "cond": cond,
                      "where": where, "body": then_body, "then": list(then_changed)}


def _last_line(fn):
    try:
        lines, start = inspect.getsourcelines(fn)
        return start + len(lines) - 1
    except (OSError, TypeError):
        return fn.__code__.co_firstlineno
