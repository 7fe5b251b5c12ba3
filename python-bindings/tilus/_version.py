"""The package version: equal to include/tilus-c/Version.h (CMake checks it
at configure time, and the loader compares it with tilusGetVersion())."""

__version__ = "0.2.0"
