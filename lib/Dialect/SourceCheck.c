//===- SourceCheck.c - Text MLIR 22's parser cannot take ------------------===//
//
// A small scan over source text that skips `//` comments and "..." literals
// (where the same letters are harmless) and finds what would crash MLIR 22's
// parser, so that callers report it instead. The MLIR lexer takes a NUL
// inside the buffer as white space and skips comments between tokens, so the
// scan does too.
//
//===----------------------------------------------------------------------===//

#include "tilus-c/Dialect.h"

#include "mlir-c/Diagnostics.h"

#include <string.h>

static bool isIdentifierChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_' || c == '$' || c == '.';
}

static bool isSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\0';
}

// Past white space and `//` comments, which the lexer skips between tokens.
static size_t skipSpaces(const char *text, size_t length, size_t i) {
  while (i < length) {
    if (isSpace(text[i])) {
      ++i;
    } else if (text[i] == '/' && i + 1 < length && text[i + 1] == '/') {
      while (i < length && text[i] != '\n')
        ++i;
    } else {
      break;
    }
  }
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

bool tilusSourceIsSafeToParse(MlirStringRef source, size_t *offset) {
  const char *text = source.data;
  size_t length = source.length;
  for (size_t i = 0; i < length; ++i) {
    char c = text[i];
    if (c == '/' && i + 1 < length && text[i + 1] == '/') {
      while (i + 1 < length && text[i + 1] != '\n')
        ++i;
    } else if (c == '"') {
      // On to the closing quote, over escapes; a literal never spans lines,
      // so a newline ends it too.
      ++i;
      while (i < length && text[i] != '"' && text[i] != '\n')
        i += text[i] == '\\' && i + 1 < length && text[i + 1] != '\n' ? 2 : 1;
    } else if (c == 'a' && indexArrayAt(text, length, i)) {
      if (offset)
        *offset = i;
      return false;
    }
  }
  return true;
}

MlirLogicalResult tilusSourceCheck(MlirContext ctx, MlirStringRef text) {
  size_t bad = 0;
  if (tilusSourceIsSafeToParse(text, &bad))
    return mlirLogicalResultSuccess();
  unsigned line = 1, column = 1;
  for (size_t i = 0; i < bad; ++i, ++column)
    if (text.data[i] == '\n')
      line++, column = 0;
  mlirEmitError(mlirLocationFileLineColGet(
                    ctx, mlirStringRefCreateFromCString("-"), line, column),
                "a dense array of 'index' (array<index: ...>) is not valid: "
                "use array<i64: ...> (MLIR 22's parser crashes on it, "
                "llvm/llvm-project#179045)");
  return mlirLogicalResultFailure();
}
