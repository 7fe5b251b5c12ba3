/*===-- tilus-c/Version.h - The Tilus-MLIR version ----------------*- C -*-===*\
|*                                                                            *|
|* The one place the version is written: CMake reads it from here for the    *|
|* project, the packages (TilusConfigVersion.cmake, tilus.pc) and the shared  *|
|* libraries' SONAME (libTilus.so.<major>).                                   *|
\*===----------------------------------------------------------------------===*/

#ifndef TILUS_C_VERSION_H
#define TILUS_C_VERSION_H

#define TILUS_VERSION_MAJOR 0
#define TILUS_VERSION_MINOR 2
#define TILUS_VERSION_PATCH 0
#define TILUS_VERSION_STRING "0.2.0"

#ifdef __cplusplus
extern "C" {
#endif

/* The version of the shared library loaded at run time (libTilus.so and
 * libTilusRuntime.so both define it), to compare with the
 * TILUS_VERSION_STRING a caller was built with, e.g. in a cache key. Only the
 * shared libraries define it; the static archives do not. */
const char *tilusGetVersion(void);

#ifdef __cplusplus
}
#endif

#endif /* TILUS_C_VERSION_H */
