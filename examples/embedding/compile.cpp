//===- compile.cpp - The whole compiler in one call, from C++ -------------===//
//
// tilus-embed-compile INPUT.mlir TARGET OUT.tilus
//
// tilusCompile (tilus-c/Target.h) from C++: no MLIR object is handled, the
// diagnostics arrive as lines. Links only libTilus.so.
//
//===----------------------------------------------------------------------===//

#include "tilus-c/Target.h"
#include "tilus-c/Version.h"

#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

static void append(MlirStringRef text, void *userData) {
  static_cast<std::string *>(userData)->append(text.data, text.length);
}

int main(int argc, char **argv) {
  if (argc != 4) {
    std::cerr << "usage: " << argv[0] << " INPUT.mlir TARGET OUT.tilus\n";
    return 2;
  }
  // A program built against one version and run with another is told so.
  if (std::strcmp(tilusGetVersion(), TILUS_VERSION_STRING) != 0) {
    std::cerr << "built with Tilus " TILUS_VERSION_STRING ", running with "
              << tilusGetVersion() << "\n";
    return 1;
  }
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) {
    std::cerr << "cannot read '" << argv[1] << "'\n";
    return 1;
  }
  std::stringstream source;
  source << in.rdbuf();
  std::string text = source.str(), artifact, diagnostics;

  TilusCompileOptions options = tilusCompileOptionsDefault();
  options.target = argv[2];
  options.sourceName = argv[1];
  MlirLogicalResult result =
      tilusCompile(mlirStringRefCreate(text.data(), text.size()), &options,
                   append, &artifact, append, &diagnostics);
  std::cerr << diagnostics;
  if (mlirLogicalResultIsFailure(result))
    return 1;
  std::ofstream out(argv[3], std::ios::binary);
  out << artifact;
  return out.good() ? 0 : 1;
}
