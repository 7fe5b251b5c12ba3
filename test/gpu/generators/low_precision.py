"""Every low-precision type the GPU suite covers (suite names: uN, iN, eXmY):
u1-u8, i2-i8, the 12 float formats of issue 5 and e6m1."""

import tilus

# The !tilus.float formats (exponent, mantissa) of issue 5.
FLOAT_FORMATS = [(4, 3), (5, 2), (3, 4), (3, 3), (2, 4), (3, 2), (2, 3), (2, 2), (1, 3),
                 (2, 1), (1, 2), (1, 1)]

TYPES = {f"u{b}": tilus.dtype(f"ui{b}") for b in range(1, 9)}
TYPES.update({f"i{b}": tilus.dtype(f"i{b}") for b in range(2, 9)})
TYPES.update({f"e{e}m{m}": tilus.float_(e, m) for e, m in FLOAT_FORMATS + [(6, 1)]})
