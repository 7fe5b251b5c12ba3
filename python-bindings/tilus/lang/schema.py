"""The op schema of the Tilus dialect, read from libTilus.so through ctypes
(include/tilus-c/Ops.h: tilusOpSchemaGetNumOps, tilusOpSchemaGetAt).

Each op's operand groups (name and kind: "single", "optional", "variadic"),
result groups and required attributes, as dialect/tilus.irdl.mlir declares
them. The DSL builds every op from it: operands are given group by group and
`operandSegmentSizes` is set exactly when the schema needs it.
"""

import ctypes
import threading
from dataclasses import dataclass

from .. import _lib

KINDS = ("single", "optional", "variadic")


class _Group(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("variadicity", ctypes.c_int)]


class _Schema(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p),
                ("numOperandGroups", ctypes.c_ssize_t),
                ("operandGroups", ctypes.POINTER(_Group)),
                ("numResultGroups", ctypes.c_ssize_t),
                ("resultGroups", ctypes.POINTER(_Group)),
                ("numAttributes", ctypes.c_ssize_t),
                ("attributeNames", ctypes.POINTER(ctypes.c_char_p))]


@dataclass(frozen=True)
class Group:
    name: str
    kind: str  # "single", "optional" or "variadic"


@dataclass(frozen=True)
class OpSchema:
    name: str                 # "tilus.load_global"
    operands: tuple           # of Group, in order
    results: tuple            # of Group
    attributes: tuple         # required attribute names

    @property
    def short_name(self):
        return self.name.split(".", 1)[1]

    @property
    def needs_segment_sizes(self):
        """More than one optional or variadic operand group (as in IRDL)."""
        return sum(g.kind != "single" for g in self.operands) > 1

    def group_index(self, name):
        for i, g in enumerate(self.operands):
            if g.name == name:
                return i
        return -1


_lock = threading.Lock()
_table = None


def _groups(n, ptr):
    return tuple(Group(ptr[i].name.decode(), KINDS[ptr[i].variadicity]) for i in range(n))


def schemas():
    """{op name: OpSchema} of every Tilus op, in the table's order (loads
    libTilus.so on first use)."""
    global _table
    with _lock:
        if _table is None:
            lib = _lib.compiler_lib()
            table = {}
            for i in range(int(lib.tilusOpSchemaGetNumOps())):
                p = ctypes.cast(lib.tilusOpSchemaGetAt(i), ctypes.POINTER(_Schema)).contents
                s = OpSchema(p.name.decode(),
                             _groups(p.numOperandGroups, p.operandGroups),
                             _groups(p.numResultGroups, p.resultGroups),
                             tuple(p.attributeNames[k].decode()
                                   for k in range(p.numAttributes)))
                table[s.name] = s
            _table = table
        return _table


def lookup(name):
    """The OpSchema of `name` ("tilus.dot" or "dot"), or None."""
    if not name.startswith("tilus."):
        name = "tilus." + name
    return schemas().get(name)
