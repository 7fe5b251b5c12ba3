//===- RuntimeArtifactTest.c - Parsing artifacts: valid, cubin, malformed, files ---===//

#include "RuntimeTestSupport.h"

void testParseSample(void) {
  TilusRuntimeError err;
  TilusArtifact *a = parse(sampleArtifact, &err);
  CHECK(a != NULL);
  if (!a) {
    fprintf(stderr, "  %s\n", err.message);
    return;
  }
  CHECK(!strcmp(tilusArtifactGetTarget(a), "sm_90a"));
  CHECK(tilusArtifactGetImageKind(a) == TilusImagePTX);
  size_t size = 0;
  const char *ptx = tilusArtifactGetImage(a, &size);
  CHECK(!strncmp(ptx, samplePtxStart, strlen(samplePtxStart)));
  CHECK(size == strlen(ptx));
  CHECK(ptx[size - 1] == '\n');
  CHECK(!strcmp(ptx + size - 33, ".visible .entry other() { ret; }\n"));

  CHECK(tilusArtifactGetNumKernels(a) == 2);
  CHECK(tilusArtifactFindKernel(a, "matmul") == 0);
  CHECK(tilusArtifactFindKernel(a, "other") == 1);
  CHECK(tilusArtifactFindKernel(a, "nope") == -1);
  CHECK(!strcmp(tilusKernelGetName(a, 0), "matmul"));

  uint32_t block[3];
  tilusKernelGetBlock(a, 0, block);
  CHECK(block[0] == 128 && block[1] == 1 && block[2] == 1);
  tilusKernelGetBlock(a, 1, block);
  CHECK(block[0] == 32 && block[1] == 4 && block[2] == 1);
  CHECK(tilusKernelGetNumGridDims(a, 0) == 2);
  CHECK(!strcmp(tilusKernelGetGridExpr(a, 0, 0), "s3 ceildiv 16"));
  CHECK(!strcmp(tilusKernelGetGridExpr(a, 0, 1), "s4 floordiv 8"));
  CHECK(tilusKernelGetGridExpr(a, 0, 2) == NULL);
  CHECK(tilusKernelGetNumGridDims(a, 1) == 1);
  CHECK(tilusKernelGetSharedBytes(a, 0) == 0);
  CHECK(tilusKernelGetSharedBytes(a, 1) == 65536);
  CHECK(tilusKernelGetWorkspaceBytes(a, 0) == 0);
  CHECK(tilusKernelGetWorkspaceBytes(a, 1) == 1024);

  CHECK(tilusKernelGetNumParams(a, 0) == 6);
  TilusParamInfo p = tilusKernelGetParam(a, 0, 1);
  CHECK(p.kind == TilusParamPointer && p.byteSize == 8);
  CHECK(!strcmp(p.typeName, "ptr") && !strcmp(p.elementType, "ui8"));
  p = tilusKernelGetParam(a, 0, 5);
  CHECK(p.kind == TilusParamInteger && p.bitWidth == 32 && p.byteSize == 4);
  CHECK(p.signedness == TilusSignless && !strcmp(p.elementType, ""));

  CHECK(tilusKernelGetNumParams(a, 1) == 8);
  static const struct {
    TilusParamKind kind;
    int bits, bytes;
    TilusSignedness signedness;
    const char *name;
  } expected[] = {
      {TilusParamFloat, 16, 2, TilusSignless, "f16"},
      {TilusParamFloat, 16, 2, TilusSignless, "bf16"},
      {TilusParamInteger, 8, 1, TilusSigned, "si8"},
      {TilusParamInteger, 16, 2, TilusUnsigned, "ui16"},
      {TilusParamInteger, 1, 1, TilusSignless, "i1"},
      {TilusParamInteger, 64, 8, TilusSignless, "index"},
      {TilusParamFloat, 32, 4, TilusSignless, "f32"},
      {TilusParamFloat, 64, 8, TilusSignless, "f64"},
  };
  for (int i = 0; i < 8; i++) {
    p = tilusKernelGetParam(a, 1, i);
    CHECK(p.kind == expected[i].kind && p.bitWidth == expected[i].bits &&
          p.byteSize == expected[i].bytes &&
          !strcmp(p.typeName, expected[i].name));
    if (p.kind == TilusParamInteger)
      CHECK(p.signedness == expected[i].signedness);
  }
  // Out-of-range accessors answer "nothing" instead of crashing.
  CHECK(tilusKernelGetName(a, 2) == NULL);
  CHECK(tilusKernelGetParam(a, 0, 6).typeName == NULL);
  tilusArtifactDestroy(a);
  tilusArtifactDestroy(NULL);
}

void testParseCubin(void) {
  // A cubin section is binary: NUL bytes and all, up to the given length.
  static const char text[] = "tilus-artifact 1\n"
                             "target sm_90\n"
                             "kernel k\n"
                             "block 64 1 1\n"
                             "grid 1\n"
                             "end\n"
                             "cubin:\n"
                             "\x7f"
                             "ELF\0\0\x01\x02";
  TilusRuntimeError err;
  TilusArtifact *a = tilusArtifactParse(text, sizeof(text) - 1, &err);
  CHECK(a != NULL);
  if (!a)
    return;
  size_t size = 0;
  const unsigned char *image = tilusArtifactGetImage(a, &size);
  CHECK(tilusArtifactGetImageKind(a) == TilusImageCubin);
  CHECK(size == 8 && image[0] == 0x7f && image[4] == 0 && image[7] == 2);
  CHECK(tilusKernelGetNumParams(a, 0) == 0);
  tilusArtifactDestroy(a);
}

// A header prefix and a kernel body, to build malformed artifacts compactly.
// An artifact text and the parse error it must give.
typedef struct {
  const char *text;
  const char *message;
} ParseErrorCase;

// Each case's text is refused with its message (TilusStatusParseError).
static void checkParseErrors(const ParseErrorCase *cases, int n) {
  for (int i = 0; i < n; i++) {
    TilusRuntimeError err;
    memset(&err, 0, sizeof(err));
    TilusArtifact *a = parse(cases[i].text, &err);
    CHECK(a == NULL);
    tilusArtifactDestroy(a);
    CHECK_ERROR(err, TilusStatusParseError, cases[i].message);
  }
}

void testParseErrors(void) {
  static const ParseErrorCase cases[] = {
      {"", "not a Tilus artifact: the input is empty"},
      {"# only a comment\n", "not a Tilus artifact: the input is empty"},
      {"hello\n", "line 1: not a Tilus artifact: the first line must be "
                  "'tilus-artifact 1'"},
      {"tilus-artifact 2\n",
       "line 1: unsupported artifact version 2 (this runtime reads version "
       "1)"},
      {"tilus-artifact 1\ntarget sm_75\n",
       "line 2: unknown target 'sm_75' (expected sm_80, sm_89, sm_90 or "
       "sm_90a)"},
      {HEAD "target sm_90\n", "line 3: duplicate 'target' line"},
      {"tilus-artifact 1\nkernel k\nblock 1 1 1\ngrid 1\nend\n" PTX_K,
       "line 6: the artifact has no 'target' line"},
      {HEAD "ptx:\n.version 8.0\n", "line 3: the artifact declares no kernel"},
      {HEAD "kernel k\nblock 1 1 1\ngrid 1\nend\n",
       "line 6: missing the 'ptx:' line that starts the module image"},
      {HEAD "kernel k\nblock 1 1 1\ngrid 1\n" PTX_K,
       "line 6: kernel 'k' is missing its 'end' line"},
      {HEAD "kernel k\nblock 1 1 1\ngrid 1\n",
       "line 5: kernel 'k' is missing its 'end' line"},
      {HEAD "kernel k\ngrid 1\nend\n" PTX_K,
       "line 5: kernel 'k' has no 'block' line"},
      {HEAD "kernel k\nblock 1 1 1\nend\n" PTX_K,
       "line 5: kernel 'k' has no 'grid' line"},
      {HEAD "kernel k\nblock 2048 1 1\n",
       "line 4: block 2048 x 1 x 1 is not a valid block (x, y in 1..1024, z "
       "in 1..64, at most 1024 threads)"},
      {HEAD "kernel k\nblock 64 32 1\n",
       "line 4: block 64 x 32 x 1 is not a valid block (x, y in 1..1024, z in "
       "1..64, at most 1024 threads)"},
      {HEAD "kernel k\nblock 0 1 1\n",
       "line 4: block 0 x 1 x 1 is not a valid block (x, y in 1..1024, z in "
       "1..64, at most 1024 threads)"},
      {HEAD "kernel k\nblock 32 1\n",
       "line 4: expected 'block <x> <y> <z>' with three numbers"},
      {HEAD "kernel k\nblock 32 1 1\nblock 32 1 1\n",
       "line 5: duplicate 'block' line in kernel 'k'"},
      {HEAD "kernel k\nshared -1\n",
       "line 4: expected 'shared <bytes>' with a number below 2^32"},
      {HEAD "kernel k\nworkspace 12kb\n",
       "line 4: expected 'workspace <bytes>' with a number below 2^63"},
      {HEAD "kernel k\nparam i4\n",
       "line 4: unknown parameter type 'i4' (expected ptr, i1, i8, i16, i32, "
       "i64, si*, ui*, index, f16, bf16, f32 or f64)"},
      {HEAD "kernel k\nparam ptr\n",
       "line 4: expected 'param ptr <element type>'"},
      {HEAD "kernel k\nparam i32 i32\n",
       "line 4: expected 'param <type>' or 'param ptr <element type>'"},
      {HEAD "kernel k\nthreads 4\n",
       "line 4: unknown line 'threads' in kernel 'k' (expected block, grid, "
       "shared, workspace, param, tensormap, cluster or end)"},
      {HEAD "kernel k\ncluster 2 2 4\n",
       "line 4: expected 'cluster <x> <y> <z>' with at most 8 blocks in all "
       "(each at least 1)"},
      {HEAD "kernel k\ncluster 0 1 1\n",
       "line 4: expected 'cluster <x> <y> <z>' with at most 8 blocks in all "
       "(each at least 1)"},
      {HEAD "kernel k\ncluster 2 1\n",
       "line 4: expected 'cluster <x> <y> <z>' with at most 8 blocks in all "
       "(each at least 1)"},
      {HEAD "kernel k\ncluster 2 1 1\ncluster 2 1 1\n",
       "line 5: duplicate 'cluster' line in kernel 'k'"},
      {HEAD "block 1 1 1\n", "line 3: 'block' outside a kernel block"},
      {HEAD "frobnicate\n",
       "line 3: unknown line 'frobnicate' (expected target, kernel, ptx: or "
       "cubin:)"},
      {HEAD "kernel k\nblock 1 1 1\ngrid 1\nend\nkernel k\n",
       "line 7: duplicate kernel 'k'"},
      {HEAD "kernel\n", "line 3: expected 'kernel <name>'"},
      {HEAD "kernel k\ngrid s0 +\n",
       "line 4: grid expression 1 ('s0 +'): expected an operand, found the "
       "end at column 5"},
      {HEAD "kernel k\ngrid 1 ; (2\n",
       "line 4: grid expression 2 ('(2'): expected ')' at column 3"},
      {HEAD "kernel k\ngrid d0\n",
       "line 4: grid expression 1 ('d0'): unknown identifier 'd0' (only "
       "symbols s0, s1, ... may appear) at column 1"},
      {HEAD "kernel k\ngrid 1 ; 1 ; 1 ; 1\n",
       "line 4: a grid has at most 3 expressions"},
      {HEAD "kernel k\ngrid 1 ;\n",
       "line 4: grid expression 2 (''): empty expression at column 1"},
      {HEAD "kernel k\nblock 1 1 1\ngrid s1\nparam i32\nend\n",
       "line 7: the grid of kernel 'k' uses s1 but the kernel has 1 "
       "parameters"},
      {HEAD "kernel k\nblock 1 1 1\ngrid s0 + s1\nparam ptr f32\nparam "
            "i32\nend\n",
       "line 8: the grid of kernel 'k' uses s0, but parameter 0 has type "
       "'ptr' (grid symbols must be integer parameters)"},
      {HEAD "kernel k\nblock 1 1 1\ngrid s0\nparam f32\nend\n",
       "line 7: the grid of kernel 'k' uses s0, but parameter 0 has type "
       "'f32' (grid symbols must be integer parameters)"},
      {HEAD "kernel k\nblock 1 1 1\ngrid 1\nend\nptx:\n \n\t\n",
       "line 7: the PTX after 'ptx:' is empty"},
      {HEAD "kernel k\nblock 1 1 1\ngrid 1\nend\nptx: now\n",
       "line 7: nothing may follow 'ptx:' on its line"},
      {HEAD "kernel k\nblock 1 1 1\ngrid 1\nend\nptx:\n.entry kk() {}\n",
       "line 7: kernel 'k' has no '.entry k' in the PTX"},
      {HEAD "kernel k\nblock 1 1 1\ngrid 1\nend\ncubin:\nPTX?\n",
       "line 7: the bytes after 'cubin:' are not an ELF file"},
      {HEAD "kernel k\nblock 1 1 1\ngrid 1\nend x\n",
       "line 6: 'end' takes no operands"},
  };
  checkParseErrors(cases, (int)(sizeof(cases) / sizeof(cases[0])));
  // A NULL error pointer is allowed everywhere.
  CHECK(parse("garbage", NULL) == NULL);
}

void testLoadFile(void) {
  TilusRuntimeError err;
  CHECK(tilusArtifactLoadFile("/nonexistent/dir/k.tilus", &err) == NULL);
  CHECK_ERROR(err, TilusStatusIOError,
              "cannot open '/nonexistent/dir/k.tilus': No such file or "
              "directory");

  char path[] = "/tmp/tilus-runtime-test-XXXXXX";
  FILE *f = NULL;
  int fd = mkstemp(path);
  if (fd >= 0)
    f = fdopen(fd, "w");
  CHECK(f != NULL);
  if (!f)
    return;
  fputs(sampleArtifact, f);
  fclose(f);
  TilusArtifact *a = tilusArtifactLoadFile(path, &err);
  CHECK(a && tilusArtifactGetNumKernels(a) == 2);
  tilusArtifactDestroy(a);

  // Parse errors from files name the file first.
  f = fopen(path, "w");
  fputs("tilus-artifact 1\ntarget sm_80\nkernel k\nblock 0 0 0\n", f);
  fclose(f);
  CHECK(tilusArtifactLoadFile(path, &err) == NULL);
  char expected[512];
  snprintf(expected, sizeof(expected),
           "%s: line 4: block 0 x 0 x 0 is not a valid block (x, y in "
           "1..1024, z in 1..64, at most 1024 threads)",
           path);
  CHECK_ERROR(err, TilusStatusParseError, expected);
  remove(path);
}

//===----------------------------------------------------------------------===//
// Tensor maps
//===----------------------------------------------------------------------===//

void testParseTensorMaps(void) {
  // Maps may come before the parameters they name (references are checked
  // at `end`); rank 5 is the longest line there is.
  static const char *const text =
      HEAD "kernel tma\n"
           "  block 128 1 1\n"
           "  grid s3 ceildiv 64\n"
           "  param ptr f16\n"
           "  tensormap 0 2 2 s3 s4 box 64 64 swizzle 128\n"
           "  param ptr f32\n"
           "  param ptr ui8\n"
           "  param i32\n"
           "  param index\n"
           "  param i64\n"
           "  tensormap 1 4 3 s5 s3 32 box 1 16 8 swizzle 32\n"
           "  tensormap 2 1 5 2 3 4 5 s4 box 1 1 1 2 64 swizzle 64\n"
           "  tensormap 1 8 1 4294967296 box 2 swizzle 0\n"
           "  workspace 512\n"
           "  cluster 2 1 1\n"
           "end\n"
           "kernel plain\nblock 1 1 1\ngrid 1\nend\n"
           "ptx:\n.visible .entry tma() {}\n.visible .entry plain() {}\n";
  TilusRuntimeError err;
  TilusArtifact *a = parse(text, &err);
  CHECK(a != NULL);
  if (!a) {
    fprintf(stderr, "  %s\n", err.message);
    return;
  }
  CHECK(tilusKernelGetNumParams(a, 0) == 6);
  CHECK(tilusKernelGetNumTensorMaps(a, 0) == 4);
  CHECK(tilusKernelGetNumTensorMaps(a, 1) == 0);
  CHECK(tilusKernelGetWorkspaceBytes(a, 0) == 512);
  CHECK(tilusKernelGetClusterDim(a, 0, 0) == 2 &&
        tilusKernelGetClusterDim(a, 0, 1) == 1 &&
        tilusKernelGetClusterDim(a, 0, 2) == 1);
  CHECK(tilusKernelGetClusterDim(a, 1, 0) == 1);

  TilusTensorMapInfo m = tilusKernelGetTensorMap(a, 0, 0);
  CHECK(m.pointerParam == 0 && m.elementBytes == 2 && m.rank == 2);
  CHECK(m.dimParam[0] == 3 && m.dimParam[1] == 4);
  CHECK(m.box[0] == 64 && m.box[1] == 64 && m.swizzleBytes == 128);

  m = tilusKernelGetTensorMap(a, 0, 1);
  CHECK(m.pointerParam == 1 && m.elementBytes == 4 && m.rank == 3);
  CHECK(m.dimParam[0] == 5 && m.dimParam[1] == 3 && m.dimParam[2] == -1);
  CHECK(m.dimValue[2] == 32);
  CHECK(m.box[0] == 1 && m.box[1] == 16 && m.box[2] == 8);
  CHECK(m.swizzleBytes == 32);

  m = tilusKernelGetTensorMap(a, 0, 2);
  CHECK(m.pointerParam == 2 && m.elementBytes == 1 && m.rank == 5);
  static const uint64_t values[5] = {2, 3, 4, 5, 0};
  static const uint32_t box[5] = {1, 1, 1, 2, 64};
  int wrong = 0;
  for (int i = 0; i < 5; i++)
    wrong += m.dimParam[i] != (i == 4 ? 4 : -1) || m.dimValue[i] != values[i] ||
             m.box[i] != box[i];
  CHECK(wrong == 0);
  CHECK(m.swizzleBytes == 64);

  m = tilusKernelGetTensorMap(a, 0, 3);
  CHECK(m.pointerParam == 1 && m.elementBytes == 8 && m.rank == 1);
  CHECK(m.dimParam[0] == -1 && m.dimValue[0] == UINT64_C(4294967296));
  CHECK(m.box[0] == 2 && m.swizzleBytes == 0);

  // Out of range: all zero.
  CHECK(tilusKernelGetTensorMap(a, 0, 4).rank == 0);
  CHECK(tilusKernelGetTensorMap(a, 0, -1).rank == 0);
  CHECK(tilusKernelGetTensorMap(a, 1, 0).rank == 0);
  CHECK(tilusKernelGetTensorMap(NULL, 0, 0).rank == 0);
  CHECK(tilusKernelGetNumTensorMaps(NULL, 0) == 0);
  tilusArtifactDestroy(a);

  // TILUS_MAX_KERNEL_TENSOR_MAPS maps are fine.
  char many[4096];
  int used = snprintf(many, sizeof(many),
                      HEAD "kernel k\nblock 1 1 1\ngrid 1\nparam ptr f16\n");
  for (int i = 0; i < TILUS_MAX_KERNEL_TENSOR_MAPS; i++)
    used += snprintf(many + used, sizeof(many) - (size_t)used,
                     "tensormap 0 2 1 %d box 8 swizzle 0\n", 16 * (i + 1));
  snprintf(many + used, sizeof(many) - (size_t)used, "end\n" PTX_K);
  a = parse(many, &err);
  CHECK(a && tilusKernelGetNumTensorMaps(a, 0) == TILUS_MAX_KERNEL_TENSOR_MAPS);
  CHECK(a && tilusKernelGetTensorMap(a, 0, 15).dimValue[0] == 256);
  tilusArtifactDestroy(a);
}

// A kernel with a `ptr f16` and an `i32` parameter; the next line is line 8.
#define TM_KERNEL                                                              \
  HEAD "kernel k\nblock 1 1 1\ngrid 1\nparam ptr f16\nparam i32\n"

void testParseTensorMapErrors(void) {
  static const ParseErrorCase cases[] = {
      {TM_KERNEL "tensormap 0 2\n",
       "line 8: expected 'tensormap <param> <element bytes> <rank> <extents> "
       "box <sizes> swizzle <bytes>' in kernel 'k'"},
      {TM_KERNEL "tensormap p 2 1 s1 box 8 swizzle 0\n",
       "line 8: expected 'tensormap <param> <element bytes> <rank> <extents> "
       "box <sizes> swizzle <bytes>' in kernel 'k'"},
      {TM_KERNEL "tensormap 0 3 1 s1 box 16 swizzle 0\n",
       "line 8: tensor map 0 of kernel 'k': element size 3 is not 1, 2, 4 or "
       "8 bytes"},
      {TM_KERNEL "tensormap 0 2 6\n",
       "line 8: tensor map 0 of kernel 'k': rank 6 is not in 1..5"},
      {TM_KERNEL "tensormap 0 2 0 box swizzle 0\n",
       "line 8: tensor map 0 of kernel 'k': rank 0 is not in 1..5"},
      {TM_KERNEL "tensormap 0 2 2 s1 64 box 64 swizzle 0\n",
       "line 8: tensor map 0 of kernel 'k': rank 2 takes 2 extents, 'box', 2 "
       "sizes, 'swizzle' and its bytes (11 words), but the line has 10 "
       "words"},
      {TM_KERNEL "tensormap 0 2 1 s1 box 8 swizzle 0 0\n",
       "line 8: tensor map 0 of kernel 'k': rank 1 takes 1 extents, 'box', 1 "
       "sizes, 'swizzle' and its bytes (9 words), but the line has 10 words"},
      {TM_KERNEL "tensormap 0 2 2 n 64 box 64 64 swizzle 0\n",
       "line 8: tensor map 0 of kernel 'k': extent 0 is 'n', neither s<k> nor "
       "a number in 1..4294967296"},
      {TM_KERNEL "tensormap 0 2 2 64 0 box 64 64 swizzle 0\n",
       "line 8: tensor map 0 of kernel 'k': extent 1 is '0', neither s<k> nor "
       "a number in 1..4294967296"},
      {TM_KERNEL "tensormap 0 2 2 4294967297 64 box 64 64 swizzle 0\n",
       "line 8: tensor map 0 of kernel 'k': extent 0 is '4294967297', neither "
       "s<k> nor a number in 1..4294967296"},
      {TM_KERNEL "tensormap 0 2 2 s s1 box 64 64 swizzle 0\n",
       "line 8: tensor map 0 of kernel 'k': extent 0 is 's', neither s<k> nor "
       "a number in 1..4294967296"},
      {TM_KERNEL "tensormap 0 2 2 s-1 s1 box 64 64 swizzle 0\n",
       "line 8: tensor map 0 of kernel 'k': extent 0 is 's-1', neither s<k> "
       "nor a number in 1..4294967296"},
      {TM_KERNEL "tensormap 0 2 2 s1 64 bix 64 64 swizzle 0\n",
       "line 8: tensor map 0 of kernel 'k': expected 'box' after the 2 "
       "extents, found 'bix'"},
      {TM_KERNEL "tensormap 0 2 2 s1 64 box 0 64 swizzle 0\n",
       "line 8: tensor map 0 of kernel 'k': box size 0 is '0', not a number in "
       "1..256"},
      {TM_KERNEL "tensormap 0 2 2 s1 64 box 64 264 swizzle 0\n",
       "line 8: tensor map 0 of kernel 'k': box size 1 is '264', not a number "
       "in 1..256"},
      {TM_KERNEL "tensormap 0 2 2 s1 64 box 64 s1 swizzle 0\n",
       "line 8: tensor map 0 of kernel 'k': box size 1 is 's1', not a number "
       "in 1..256"},
      {TM_KERNEL "tensormap 0 2 2 s1 64 box 64 64 swizle 0\n",
       "line 8: tensor map 0 of kernel 'k': expected 'swizzle' after the 2 box "
       "sizes, found 'swizle'"},
      {TM_KERNEL "tensormap 0 2 2 s1 64 box 64 64 swizzle 16\n",
       "line 8: tensor map 0 of kernel 'k': swizzle '16' is not 0, 32, 64 or "
       "128"},
      {TM_KERNEL "tensormap 0 2 2 s1 64 box 64 64 swizzle 128B\n",
       "line 8: tensor map 0 of kernel 'k': swizzle '128B' is not 0, 32, 64 or "
       "128"},
      // cuTensorMapEncodeTiled's rules on the box's inner dimension.
      {TM_KERNEL "tensormap 0 2 2 s1 64 box 64 4 swizzle 0\n",
       "line 8: tensor map 0 of kernel 'k': the box's inner dimension is 4 "
       "elements of 2 bytes, 8 bytes, which is not a multiple of 16"},
      {TM_KERNEL "tensormap 0 2 2 s1 128 box 64 128 swizzle 128\n",
       "line 8: tensor map 0 of kernel 'k': the box's inner dimension is 128 "
       "elements of 2 bytes, 256 bytes, wider than the 128-byte swizzle"},
      {TM_KERNEL "tensormap 0 2 1 s1 box 8 swizzle 0\n"
                 "tensormap 0 4 1 s1 box 3 swizzle 0\n",
       "line 9: tensor map 1 of kernel 'k': the box's inner dimension is 3 "
       "elements of 4 bytes, 12 bytes, which is not a multiple of 16"},
      {TM_KERNEL "tensormap 0 1 1 s1 box 32 swizzle 0\n"
                 "tensormap 0 1 1 s1 box 64 swizzle 32\n",
       "line 9: tensor map 1 of kernel 'k': the box's inner dimension is 64 "
       "elements of 1 bytes, 64 bytes, wider than the 32-byte swizzle"},
      {HEAD "tensormap 0 2 1 8 box 8 swizzle 0\n",
       "line 3: 'tensormap' outside a kernel block"},
      // References to parameters, checked at `end` but reported at the
      // map's line.
      {TM_KERNEL "tensormap 2 2 1 16 box 8 swizzle 0\nend\n",
       "line 8: the base of tensor map 0 of kernel 'k' is parameter 2, but the "
       "kernel has 2 parameters"},
      {TM_KERNEL "tensormap 1 2 1 16 box 8 swizzle 0\nend\n",
       "line 8: the base of tensor map 0 of kernel 'k' is parameter 1, which "
       "has type 'i32' (it must be a 'ptr' parameter)"},
      {TM_KERNEL "tensormap 0 2 1 s1 box 8 swizzle 0\n"
                 "tensormap 0 2 2 s1 s7 box 8 8 swizzle 0\nend\n",
       "line 9: extent 1 of tensor map 1 of kernel 'k' is s7, but the kernel "
       "has 2 parameters"},
      {TM_KERNEL "tensormap 0 2 2 s0 16 box 8 8 swizzle 0\nend\n",
       "line 8: extent 0 of tensor map 0 of kernel 'k' is s0, but parameter 0 "
       "has type 'ptr' (extents must be integer parameters)"},
      {HEAD "kernel k\nblock 1 1 1\ngrid 1\n"
            "tensormap 0 2 2 s1 16 box 8 8 swizzle 0\n"
            "param ptr f16\nparam f32\nend\n",
       "line 6: extent 0 of tensor map 0 of kernel 'k' is s1, but parameter 1 "
       "has type 'f32' (extents must be integer parameters)"},
      {HEAD "kernel k\nblock 1 1 1\ngrid 1\n"
            "tensormap 0 2 1 16 box 8 swizzle 0\nparam f32\nend\n",
       "line 6: the base of tensor map 0 of kernel 'k' is parameter 0, which "
       "has type 'f32' (it must be a 'ptr' parameter)"},
      // 18 words: a rank-5 map with one word too many.
      {TM_KERNEL "tensormap 0 1 5 1 1 1 1 16 box 1 1 1 1 16 swizzle 0 0\n",
       "line 8: too many words on a line"},
  };
  checkParseErrors(cases, (int)(sizeof(cases) / sizeof(cases[0])));

  // One map more than TILUS_MAX_KERNEL_TENSOR_MAPS: refused at its line.
  char many[4096];
  int used = snprintf(many, sizeof(many), TM_KERNEL);
  for (int i = 0; i <= TILUS_MAX_KERNEL_TENSOR_MAPS; i++)
    used += snprintf(many + used, sizeof(many) - (size_t)used,
                     "tensormap 0 2 1 s1 box 8 swizzle 0\n");
  TilusRuntimeError err;
  CHECK(parse(many, &err) == NULL);
  CHECK_ERROR(err, TilusStatusParseError,
              "line 24: kernel 'k' has more than 16 tensor maps "
              "(TILUS_MAX_KERNEL_TENSOR_MAPS)");
}
