//===- InputCheck.c - Input the MLIR 22 parser cannot take ----------------===//
//
// A small scan over the source text, skipping `//` comments and "..."
// literals (where the same letters are harmless), so that a known parser
// crash becomes a located error instead.
//
//===----------------------------------------------------------------------===//

#include "InputCheck.h"

#include "mlir-c/Diagnostics.h"

#include <string.h>

static bool isIdentifierChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_' || c == '$' || c == '.';
}

static size_t skipSpaces(const char *text, size_t length, size_t i) {
  while (i < length && (text[i] == ' ' || text[i] == '\t' ||
                        text[i] == '\n' || text[i] == '\r'))
    ++i;
  return i;
}

// Whether `word` starts at text[i] and ends there (not inside an identifier).
static bool wordAt(const char *text, size_t length, size_t i,
                   const char *word) {
  size_t n = strlen(word);
  return i + n <= length && !memcmp(text + i, word, n) &&
         (i + n == length || !isIdentifierChar(text[i + n]));
}

// Whether an `array<index` starts at text[i].
static bool indexArrayAt(const char *text, size_t length, size_t i) {
  if ((i > 0 && isIdentifierChar(text[i - 1])) ||
      !wordAt(text, length, i, "array"))
    return false;
  size_t j = skipSpaces(text, length, i + 5);
  if (j == length || text[j] != '<')
    return false;
  return wordAt(text, length, skipSpaces(text, length, j + 1), "index");
}

bool tilusOptCheckInput(MlirContext ctx, const char *text, size_t length) {
  unsigned line = 1, column = 1;
  for (size_t i = 0; i < length; ++i, ++column) {
    char c = text[i];
    if (c == '\n') {
      ++line;
      column = 0;
    } else if (c == '/' && i + 1 < length && text[i + 1] == '/') {
      while (i + 1 < length && text[i + 1] != '\n')
        ++i;
    } else if (c == '"') {
      // On to the closing quote, over escapes; a literal never spans lines,
      // so a newline ends it too (and is counted by the loop).
      size_t j = i + 1;
      while (j < length && text[j] != '"' && text[j] != '\n')
        j += text[j] == '\\' && j + 1 < length && text[j + 1] != '\n' ? 2 : 1;
      if (j < length && text[j] == '\n')
        --j;
      column += (unsigned)(j - i);
      i = j;
    } else if (c == 'a' && indexArrayAt(text, length, i)) {
      MlirLocation loc = mlirLocationFileLineColGet(
          ctx, mlirStringRefCreateFromCString("-"), line, column);
      mlirEmitError(loc, "a dense array of 'index' (array<index: ...>) is not "
                         "valid: use array<i64: ...> (MLIR 22's parser "
                         "crashes on it, llvm/llvm-project#179045)");
      return false;
    }
  }
  return true;
}
