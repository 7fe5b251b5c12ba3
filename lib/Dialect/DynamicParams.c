//===- DynamicParams.c - Reading parameters of IRDL types -----------------===//

#include "DynamicParams.h"

#include "mlir-c/Diagnostics.h"
#include "Utils/StringBuffer.h"

#include <stdlib.h>
#include <string.h>

// MLIR prints in pieces; they are joined in one buffer.
static void appendToBuffer(MlirStringRef piece, void *userData) {
  tilusStringBufferAppend(userData, piece.data, piece.length);
}

// The printed text, or the empty string if memory ran out (which then
// matches no type name).
static char *finishBuffer(TilusStringBuffer *buffer) {
  char *text = tilusStringBufferTake(buffer);
  return text ? text : calloc(1, 1);
}

char *tilusPrintTypeToString(MlirType type) {
  TilusStringBuffer buffer = {0};
  mlirTypePrint(type, appendToBuffer, &buffer);
  return finishBuffer(&buffer);
}

char *tilusPrintAttrToString(MlirAttribute attr) {
  TilusStringBuffer buffer = {0};
  mlirAttributePrint(attr, appendToBuffer, &buffer);
  return finishBuffer(&buffer);
}

static bool startsWithName(const char *text, const char *name) {
  size_t n = strlen(name);
  return strncmp(text, name, n) == 0 && (text[n] == '<' || text[n] == '\0');
}

// Splits the text after `name<` up to the matching `>` at top-level commas,
// skipping nested brackets and quoted strings (layout texts contain commas).
static bool splitParams(char *text, const char *name, TilusDynamicParams *out) {
  size_t n = strlen(name);
  out->text = text;
  out->numParams = 0;
  if (strncmp(text, name, n) != 0)
    return false;
  if (text[n] == '\0')
    return true;
  if (text[n] != '<')
    return false;
  const char *p = text + n + 1;
  const char *start = p;
  int depth = 0;
  for (; *p; ++p) {
    char c = *p;
    if (c == '"') {
      for (++p; *p && *p != '"'; ++p)
        if (*p == '\\' && p[1])
          ++p;
      if (!*p)
        return false;
      continue;
    }
    if (c == '<' || c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if ((c == '>' && !(p > text && p[-1] == '-')) || c == ')' ||
               c == ']' || c == '}') {
      if (depth == 0) {
        if (c != '>' || p[1] != '\0')
          return false;
        break;
      }
      --depth;
    } else if (c == ',' && depth == 0) {
      if (out->numParams == TILUS_MAX_DYNAMIC_PARAMS)
        return false;
      out->params[out->numParams++] =
          mlirStringRefCreate(start, (size_t)(p - start));
      start = p + 1;
      while (*start == ' ')
        ++start;
    }
  }
  if (*p != '>' || out->numParams == TILUS_MAX_DYNAMIC_PARAMS)
    return false;
  out->params[out->numParams++] =
      mlirStringRefCreate(start, (size_t)(p - start));
  return true;
}

bool tilusDynamicTypeParams(MlirType type, const char *name,
                            TilusDynamicParams *out) {
  char *text = tilusPrintTypeToString(type);
  if (splitParams(text, name, out))
    return true;
  free(text);
  out->text = NULL;
  return false;
}

bool tilusDynamicAttrParams(MlirAttribute attr, const char *name,
                            TilusDynamicParams *out) {
  char *text = tilusPrintAttrToString(attr);
  if (splitParams(text, name, out))
    return true;
  free(text);
  out->text = NULL;
  return false;
}

void tilusDynamicParamsRelease(TilusDynamicParams *params) {
  free(params->text);
  params->text = NULL;
  params->numParams = 0;
}

bool tilusTypeHasName(MlirType type, const char *name) {
  if (mlirTypeIsNull(type))
    return false;
  char *text = tilusPrintTypeToString(type);
  bool result = startsWithName(text, name);
  free(text);
  return result;
}

bool tilusAttrHasName(MlirAttribute attr, const char *name) {
  if (mlirAttributeIsNull(attr))
    return false;
  char *text = tilusPrintAttrToString(attr);
  bool result = startsWithName(text, name);
  free(text);
  return result;
}

static MlirLogicalResult swallow(MlirDiagnostic diagnostic, void *userData) {
  return mlirLogicalResultSuccess(); // handled: not passed to other handlers
}

MlirType tilusParseParamType(MlirContext ctx, MlirStringRef text) {
  MlirDiagnosticHandlerID id =
      mlirContextAttachDiagnosticHandler(ctx, swallow, NULL, NULL);
  MlirType type = mlirTypeParseGet(ctx, text);
  mlirContextDetachDiagnosticHandler(ctx, id);
  return type;
}

MlirAttribute tilusParseParamAttr(MlirContext ctx, MlirStringRef text) {
  MlirDiagnosticHandlerID id =
      mlirContextAttachDiagnosticHandler(ctx, swallow, NULL, NULL);
  MlirAttribute attr = mlirAttributeParseGet(ctx, text);
  mlirContextDetachDiagnosticHandler(ctx, id);
  return attr;
}
