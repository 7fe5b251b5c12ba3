//===- RuntimeLaunchCheckTest.c - Pre-launch argument checks, no driver -===//

#include "RuntimeTestSupport.h"

//===----------------------------------------------------------------------===//
// Pre-launch checks
//===----------------------------------------------------------------------===//


void testCheckLaunch(void) {
  TilusRuntimeError err;
  TilusArtifact *a = parse(sampleArtifact, &err);
  CHECK(a != NULL);
  if (!a)
    return;
  TilusArg args[8];
  TilusLaunchConfig c;

  matmulArgs(args, 100, 64, 32);
  CHECK(tilusArtifactCheckLaunch(a, "matmul", args, 6, &c, &err) ==
        TilusStatusSuccess);
  CHECK(c.kernel == 0);
  CHECK(c.grid[0] == 7 && c.grid[1] == 8 && c.grid[2] == 1);
  CHECK(c.block[0] == 128 && c.block[1] == 1 && c.block[2] == 1);
  CHECK(c.sharedBytes == 0 && c.workspaceBytes == 0);
  CHECK(tilusArtifactCheckLaunch(a, "matmul", args, 6, NULL, NULL) ==
        TilusStatusSuccess);

  CHECK(tilusArtifactCheckLaunch(a, "foo", args, 6, &c, &err) ==
        TilusStatusNoSuchKernel);
  CHECK_ERROR(err, TilusStatusNoSuchKernel,
              "no kernel 'foo' in the artifact; it has: matmul, other");

  CHECK(tilusArtifactCheckLaunch(a, "matmul", args, 5, &c, &err) ==
        TilusStatusArgumentMismatch);
  CHECK_ERROR(err, TilusStatusArgumentMismatch,
              "kernel 'matmul' takes 6 arguments, but 5 were given");

  args[0] = tilusArgPointer(0);
  CHECK(tilusArtifactCheckLaunch(a, "matmul", args, 6, &c, &err) ==
        TilusStatusArgumentMismatch);
  CHECK_ERROR(err, TilusStatusArgumentMismatch,
              "argument 0 of kernel 'matmul' is a null pointer");

  // A view 8 bytes into an allocation: kernels assume 16-byte alignment.
  matmulArgs(args, 100, 64, 32);
  args[2] = tilusArgPointer(0x7f0000001008);
  CHECK(tilusArtifactCheckLaunch(a, "matmul", args, 6, &c, &err) ==
        TilusStatusArgumentMismatch);
  CHECK_ERROR(err, TilusStatusArgumentMismatch,
              "argument 2 of kernel 'matmul' is the address 0x7f0000001008, "
              "which is not 16-byte aligned (kernels assume aligned pointers; "
              "pass the start of an allocation or an aligned view)");
  args[2] = tilusArgPointer(0x7f0000001010);
  CHECK(tilusArtifactCheckLaunch(a, "matmul", args, 6, &c, &err) ==
        TilusStatusSuccess);

  matmulArgs(args, 100, 64, 32);
  args[1] = tilusArgInteger(5);
  tilusArtifactCheckLaunch(a, "matmul", args, 6, &c, &err);
  CHECK_ERROR(err, TilusStatusArgumentMismatch,
              "argument 1 of kernel 'matmul' is an integer, but parameter 1 "
              "has type 'ptr ui8'");

  matmulArgs(args, 100, 64, 32);
  args[4] = tilusArgFloat(64.0);
  tilusArtifactCheckLaunch(a, "matmul", args, 6, &c, &err);
  CHECK_ERROR(err, TilusStatusArgumentMismatch,
              "argument 4 of kernel 'matmul' is a float, but parameter 4 has "
              "type 'i32'");

  matmulArgs(args, 100, 64, INT64_C(1) << 32);
  tilusArtifactCheckLaunch(a, "matmul", args, 6, &c, &err);
  CHECK_ERROR(err, TilusStatusArgumentMismatch,
              "argument 5 of kernel 'matmul' is 4294967296, which does not "
              "fit parameter type 'i32' (-2147483648..4294967295)");

  // Signless i32 takes both readings of 32 bits.
  matmulArgs(args, 100, 64, UINT32_MAX);
  CHECK(tilusArtifactCheckLaunch(a, "matmul", args, 6, &c, &err) ==
        TilusStatusSuccess);

  // Grid sizes: zero, negative, and past the hardware limits.
  matmulArgs(args, 0, 64, 32);
  tilusArtifactCheckLaunch(a, "matmul", args, 6, &c, &err);
  CHECK_ERROR(err, TilusStatusGridError,
              "grid dimension x of kernel 'matmul' ('s3 ceildiv 16') is 0; "
              "it must be in 1..2147483647");
  matmulArgs(args, 100, -64, 32);
  tilusArtifactCheckLaunch(a, "matmul", args, 6, &c, &err);
  CHECK_ERROR(err, TilusStatusGridError,
              "grid dimension y of kernel 'matmul' ('s4 floordiv 8') is -8; "
              "it must be in 1..65535");
  matmulArgs(args, 100, 65536 * 8, 32);
  tilusArtifactCheckLaunch(a, "matmul", args, 6, &c, &err);
  CHECK_ERROR(err, TilusStatusGridError,
              "grid dimension y of kernel 'matmul' ('s4 floordiv 8') is "
              "65536; it must be in 1..65535");
  matmulArgs(args, 100, 65535 * 8, 32);
  CHECK(tilusArtifactCheckLaunch(a, "matmul", args, 6, &c, &err) ==
            TilusStatusSuccess &&
        c.grid[1] == 65535);
  tilusArtifactDestroy(a);

  // The other kernel: floats, narrow integers, index.
  a = parse(sampleArtifact, &err);
  args[0] = tilusArgFloat(1.5);
  args[1] = tilusArgBF16Bits(0x3f80);
  args[2] = tilusArgInteger(-128);
  args[3] = tilusArgInteger(65535);
  args[4] = tilusArgInteger(1);
  args[5] = tilusArgInteger(INT64_MIN);
  args[6] = tilusArgFloat(0.25);
  args[7] = tilusArgFloat(-3.0);
  CHECK(tilusArtifactCheckLaunch(a, "other", args, 8, &c, &err) ==
        TilusStatusSuccess);
  CHECK(c.kernel == 1 && c.grid[0] == 4 && c.sharedBytes == 65536 &&
        c.workspaceBytes == 1024);

  args[0] = tilusArgBF16Bits(0x3f80); // bf16 bits for an f16 parameter
  tilusArtifactCheckLaunch(a, "other", args, 8, &c, &err);
  CHECK_ERROR(err, TilusStatusArgumentMismatch,
              "argument 0 of kernel 'other' is bf16 bits, but parameter 0 "
              "has type 'f16'");
  args[0] = tilusArgF16Bits(0x3c00);
  args[2] = tilusArgInteger(128);
  tilusArtifactCheckLaunch(a, "other", args, 8, &c, &err);
  CHECK_ERROR(err, TilusStatusArgumentMismatch,
              "argument 2 of kernel 'other' is 128, which does not fit "
              "parameter type 'si8' (-128..127)");
  args[2] = tilusArgInteger(0);
  args[3] = tilusArgInteger(-1);
  tilusArtifactCheckLaunch(a, "other", args, 8, &c, &err);
  CHECK_ERROR(err, TilusStatusArgumentMismatch,
              "argument 3 of kernel 'other' is -1, which does not fit "
              "parameter type 'ui16' (0..65535)");
  args[3] = tilusArgInteger(0);
  args[4] = tilusArgInteger(2);
  tilusArtifactCheckLaunch(a, "other", args, 8, &c, &err);
  CHECK_ERROR(err, TilusStatusArgumentMismatch,
              "argument 4 of kernel 'other' is 2, which does not fit "
              "parameter type 'i1' (-1..1)");
  args[4] = tilusArgInteger(0);
  args[6] = tilusArgPointer(0x10);
  tilusArtifactCheckLaunch(a, "other", args, 8, &c, &err);
  CHECK_ERROR(err, TilusStatusArgumentMismatch,
              "argument 6 of kernel 'other' is a pointer, but parameter 6 "
              "has type 'f32'");
  CHECK(tilusArtifactCheckLaunch(a, "other", NULL, 8, &c, &err) ==
        TilusStatusInvalidArgument);
  CHECK(tilusArtifactCheckLaunch(NULL, "other", args, 8, &c, &err) ==
        TilusStatusInvalidArgument);
  tilusArtifactDestroy(a);

  // A long grid line (more words than any other line may have).
  a = parse(HEAD "kernel k\nblock 1 1 1\n"
                 "grid ((s0 + 1) * 2 - 1) floordiv 2 ; s0 mod 3 + 1 ; "
                 "1 + 1 + 1 + 1 - -1\nparam index\nend\n" PTX_K,
            &err);
  CHECK(a != NULL);
  args[0] = tilusArgInteger(10);
  CHECK(a && tilusArtifactCheckLaunch(a, "k", args, 1, &c, &err) ==
                 TilusStatusSuccess);
  CHECK(c.grid[0] == 10 && c.grid[1] == 2 && c.grid[2] == 5);
  tilusArtifactDestroy(a);
  // 18 words: one more than the longest line (a rank-5 tensormap) has.
  CHECK(parse(HEAD "kernel k\nparam ptr f16 a b c d e f g h i j k l m n o\n",
              &err) == NULL);
  CHECK_ERROR(err, TilusStatusParseError, "line 4: too many words on a line");

  // Division by zero and limits on x, through the kernel's symbols.
  a = parse(HEAD "kernel k\nblock 1 1 1\ngrid s0 floordiv s1 ; 1 ; s2\n"
                 "param i64\nparam i64\nparam i64\nend\n" PTX_K,
            &err);
  CHECK(a != NULL);
  if (!a)
    return;
  args[0] = tilusArgInteger(10);
  args[1] = tilusArgInteger(0);
  args[2] = tilusArgInteger(1);
  tilusArtifactCheckLaunch(a, "k", args, 3, &c, &err);
  CHECK_ERROR(err, TilusStatusGridError,
              "grid dimension x of kernel 'k' ('s0 floordiv s1'): division by "
              "zero in 'floordiv' at column 4");
  args[0] = tilusArgInteger(INT64_C(1) << 31);
  args[1] = tilusArgInteger(1);
  tilusArtifactCheckLaunch(a, "k", args, 3, &c, &err);
  CHECK_ERROR(err, TilusStatusGridError,
              "grid dimension x of kernel 'k' ('s0 floordiv s1') is "
              "2147483648; it must be in 1..2147483647");
  args[0] = tilusArgInteger(INT32_MAX);
  args[2] = tilusArgInteger(65535);
  CHECK(tilusArtifactCheckLaunch(a, "k", args, 3, &c, &err) ==
        TilusStatusSuccess);
  CHECK(c.grid[0] == INT32_MAX && c.grid[1] == 1 && c.grid[2] == 65535);
  args[2] = tilusArgInteger(65536);
  tilusArtifactCheckLaunch(a, "k", args, 3, &c, &err);
  CHECK_ERROR(err, TilusStatusGridError,
              "grid dimension z of kernel 'k' ('s2') is 65536; it must be in "
              "1..65535");
  tilusArtifactDestroy(a);
}

//===----------------------------------------------------------------------===//
// Tensor maps
//===----------------------------------------------------------------------===//

void testCheckTensorMapArguments(void) {
  // Driver-free: the checks of cuTensorMapEncodeTiled's limits run in
  // tilusArtifactCheckLaunch as in every launch.
  TilusRuntimeError err;
  TilusArtifact *a = parse(tensorMapArtifact, &err);
  CHECK(a != NULL);
  if (!a)
    return;
  TilusArg args[6];
  TilusLaunchConfig c;
  tmaArgs(args, 256, 512, 384, 3);
  CHECK(tilusArtifactCheckLaunch(a, "tma", args, 6, &c, &err) ==
        TilusStatusSuccess);
  CHECK(c.grid[0] == 4 && c.grid[1] == 3 && c.workspaceBytes == 256);

  // f16 [M, K] with K = 100: rows of 200 bytes, which TMA cannot step by.
  tmaArgs(args, 256, 100, 384, 3);
  CHECK(tilusArtifactCheckLaunch(a, "tma", args, 6, &c, &err) ==
        TilusStatusArgumentMismatch);
  CHECK_ERROR(err, TilusStatusArgumentMismatch,
              "tensor map 0 of kernel 'tma' (over parameter 0): the byte "
              "stride of dimension 0 is 200, which is not a multiple of 16");
  // K = 8 gives 16-byte rows, the least TMA steps by; then every outer
  // stride is a multiple of 16 too, whatever N. Extents may be smaller than
  // the box (the rest reads as zero).
  tmaArgs(args, 256, 8, 3, 3);
  CHECK(tilusArtifactCheckLaunch(a, "tma", args, 6, &c, &err) ==
        TilusStatusSuccess);
  tmaArgs(args, 256, 20, 3, 3);
  CHECK(tilusArtifactCheckLaunch(a, "tma", args, 6, &c, &err) ==
        TilusStatusArgumentMismatch);
  CHECK_ERROR(err, TilusStatusArgumentMismatch,
              "tensor map 0 of kernel 'tma' (over parameter 0): the byte "
              "stride of dimension 0 is 40, which is not a multiple of 16");

  // Extents: 1..2^32.
  tmaArgs(args, 256, 512, 0, 3);
  CHECK(tilusArtifactCheckLaunch(a, "tma", args, 6, &c, &err) ==
        TilusStatusArgumentMismatch);
  CHECK_ERROR(err, TilusStatusArgumentMismatch,
              "tensor map 1 of kernel 'tma' (over parameter 1): extent 1 (s4) "
              "is 0; it must be in 1..4294967296");
  tmaArgs(args, 256, 512, INT64_C(4294967297), 3);
  CHECK(tilusArtifactCheckLaunch(a, "tma", args, 6, &c, &err) ==
        TilusStatusArgumentMismatch);
  CHECK_ERROR(err, TilusStatusArgumentMismatch,
              "tensor map 1 of kernel 'tma' (over parameter 1): extent 1 (s4) "
              "is 4294967297; it must be in 1..4294967296");
  tmaArgs(args, 256, -512, 384, 3);
  CHECK(tilusArtifactCheckLaunch(a, "tma", args, 6, &c, &err) ==
        TilusStatusArgumentMismatch);
  CHECK_ERROR(err, TilusStatusArgumentMismatch,
              "tensor map 0 of kernel 'tma' (over parameter 0): extent 1 (s3) "
              "is -512; it must be in 1..4294967296");

  // A base that is not 16-byte aligned is refused (by the check every
  // pointer argument gets, which comes first).
  tmaArgs(args, 256, 512, 384, 3);
  args[1] = tilusArgPointer(0x20008);
  CHECK(tilusArtifactCheckLaunch(a, "tma", args, 6, &c, &err) ==
        TilusStatusArgumentMismatch);
  CHECK_CONTAINS(err, "argument 1 of kernel 'tma' is the address 0x20008, "
                      "which is not 16-byte aligned");
  tilusArtifactDestroy(a);

  // Strides below 2^40: [s1, 256, s2] of f16 has an outer stride of
  // 512 * s2 bytes.
  a = parse(HEAD "kernel big\nblock 1 1 1\ngrid 1\nparam ptr f16\n"
                 "param index\nparam index\n"
                 "tensormap 0 2 3 s1 256 s2 box 1 1 8 swizzle 0\nend\n"
                 "ptx:\n.entry big() {}\n",
            &err);
  CHECK(a != NULL);
  if (!a)
    return;
  args[0] = tilusArgPointer(0x10000);
  args[1] = tilusArgInteger(2);
  args[2] = tilusArgInteger((INT64_C(1) << 31) - 8); // 2^40 - 4096 bytes
  CHECK(tilusArtifactCheckLaunch(a, "big", args, 3, &c, &err) ==
        TilusStatusSuccess);
  args[2] = tilusArgInteger(INT64_C(1) << 31); // exactly 2^40
  CHECK(tilusArtifactCheckLaunch(a, "big", args, 3, &c, &err) ==
        TilusStatusArgumentMismatch);
  CHECK_ERROR(err, TilusStatusArgumentMismatch,
              "tensor map 0 of kernel 'big' (over parameter 0): the byte "
              "stride of dimension 0 (256 x 4294967296 bytes) is not below "
              "2^40");
  args[2] = tilusArgInteger(INT64_C(1) << 32); // the largest extent
  CHECK(tilusArtifactCheckLaunch(a, "big", args, 3, &c, &err) ==
        TilusStatusArgumentMismatch);
  CHECK_ERROR(err, TilusStatusArgumentMismatch,
              "tensor map 0 of kernel 'big' (over parameter 0): the byte "
              "stride of dimension 0 (256 x 8589934592 bytes) is not below "
              "2^40");
  tilusArtifactDestroy(a);
}

// A kernel in clusters of 2 x 1 x 1: its grid must be a multiple of them.
void testCheckClusterGrid(void) {
  static const char *const text =
      "tilus-artifact 1\ntarget sm_90a\n"
      "kernel pairs\n  block 128 1 1\n  grid s0 ; 3\n  param i32\n"
      "  cluster 2 1 1\nend\n"
      "kernel columns\n  block 128 1 1\n  grid s0\n  param i32\n"
      "  cluster 1 2 1\nend\n"
      "ptx:\n.visible .entry pairs() {}\n.visible .entry columns() {}\n";
  TilusRuntimeError err;
  TilusArtifact *a = parse(text, &err);
  CHECK(a != NULL);
  if (!a)
    return;
  TilusArg args[1] = {tilusArgInteger(4)};
  TilusLaunchConfig c;
  CHECK(tilusArtifactCheckLaunch(a, "pairs", args, 1, &c, &err) ==
        TilusStatusSuccess);
  CHECK(c.grid[0] == 4 && c.grid[1] == 3);
  args[0] = tilusArgInteger(5);
  CHECK(tilusArtifactCheckLaunch(a, "pairs", args, 1, &c, &err) ==
        TilusStatusGridError);
  CHECK_ERROR(err, TilusStatusGridError,
              "kernel 'pairs' runs in clusters of 2 x 1 x 1 blocks: grid "
              "dimension x is 5, not a multiple of 2");
  // A cluster dimension the grid does not have is a grid of 1 there.
  CHECK(tilusArtifactCheckLaunch(a, "columns", args, 1, &c, &err) ==
        TilusStatusGridError);
  CHECK_ERROR(err, TilusStatusGridError,
              "kernel 'columns' runs in clusters of 1 x 2 x 1 blocks: grid "
              "dimension y is 1, not a multiple of 2");
  tilusArtifactDestroy(a);
}

//===----------------------------------------------------------------------===//
// No driver
//===----------------------------------------------------------------------===//

void testNoDriver(void) {
  TilusRuntimeError err;
  TilusRuntimeOptions options = tilusRuntimeOptionsDefault();
  options.driverLibrary = "libtilus-no-such-driver.so.1";
  CHECK(tilusRuntimeCreateWithOptions(&options, &err) == NULL);
  CHECK(err.code == TilusStatusDriverNotFound);
  // The reason after the colon is dlerror's text.
  CHECK_CONTAINS(err, "cannot load the CUDA driver "
                      "(libtilus-no-such-driver.so.1): ");

  // A library that loads but is not a CUDA driver.
  options.driverLibrary = "libm.so.6";
  CHECK(tilusRuntimeCreateWithOptions(&options, &err) == NULL);
  CHECK_ERROR(err, TilusStatusDriverNotFound,
              "cannot load the CUDA driver (libm.so.6): it has no symbol "
              "cuInit");

  options = tilusRuntimeOptionsDefault();
  options.device = -1;
  CHECK(tilusRuntimeCreateWithOptions(&options, &err) == NULL);
  CHECK_ERROR(err, TilusStatusInvalidArgument,
              "invalid CUDA device ordinal -1");

  // The default: on a machine without libcuda.so.1 this must fail cleanly;
  // on a GPU machine it succeeds, which is fine too.
  TilusRuntime *rt = tilusRuntimeCreate(&err);
  if (rt) {
    printf("note: a CUDA driver is present (%s)\n",
           tilusRuntimeGetDeviceName(rt));
    CHECK(tilusRuntimeGetDeviceName(rt)[0] != '\0');
    tilusRuntimeDestroy(rt);
  } else {
    CHECK(err.code == TilusStatusDriverNotFound ||
          err.code == TilusStatusNoDevice);
    if (err.code == TilusStatusDriverNotFound)
      CHECK_CONTAINS(err, "cannot load the CUDA driver (libcuda.so.1): ");
    else
      CHECK_CONTAINS(err, "no CUDA device");
    printf("note: no GPU here: %s\n", err.message);
  }
  // Without an error struct: the same outcome, and no crash.
  TilusRuntime *quiet = tilusRuntimeCreate(NULL);
  CHECK((quiet == NULL) == (rt == NULL));
  tilusRuntimeDestroy(quiet);
  tilusRuntimeDestroy(NULL);
  CHECK(!strcmp(tilusStatusGetName(TilusStatusGridError),
                "TilusStatusGridError"));
}
