//===- Diagnostics.c - Reporting MLIR diagnostics -------------------------===//

#include "tilus-c/Diagnostics.h"

#include "Utils/StringBuffer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool findFileLoc(MlirLocation loc, MlirLocation *found) {
  while (!mlirLocationIsNull(loc)) {
    if (mlirLocationIsAFileLineColRange(loc)) {
      *found = loc;
      return true;
    }
    if (mlirLocationIsAName(loc)) {
      loc = mlirLocationNameGetChildLoc(loc);
    } else if (mlirLocationIsACallSite(loc)) {
      if (findFileLoc(mlirLocationCallSiteGetCallee(loc), found))
        return true;
      loc = mlirLocationCallSiteGetCaller(loc);
    } else if (mlirLocationIsAFused(loc)) {
      unsigned n = mlirLocationFusedGetNumLocations(loc);
      MlirLocation *parts = n ? malloc(n * sizeof(*parts)) : NULL;
      if (!parts)
        return false;
      mlirLocationFusedGetLocations(loc, parts);
      bool ok = false;
      for (unsigned k = 0; k < n && !ok; ++k)
        ok = findFileLoc(parts[k], found);
      free(parts);
      return ok;
    } else {
      return false;
    }
  }
  return false;
}

bool tilusLocationGetFileLineCol(MlirLocation loc, MlirStringRef *file,
                                 unsigned *line, unsigned *column) {
  MlirLocation fileLoc;
  if (!findFileLoc(loc, &fileLoc))
    return false;
  *file = mlirIdentifierStr(mlirLocationFileLineColRangeGetFilename(fileLoc));
  *line = (unsigned)mlirLocationFileLineColRangeGetStartLine(fileLoc);
  *column = (unsigned)mlirLocationFileLineColRangeGetStartColumn(fileLoc);
  return true;
}

const char *tilusDiagnosticSeverityName(MlirDiagnosticSeverity severity) {
  switch (severity) {
  case MlirDiagnosticError:
    return "error";
  case MlirDiagnosticWarning:
    return "warning";
  case MlirDiagnosticNote:
    return "note";
  case MlirDiagnosticRemark:
    return "remark";
  }
  return "diagnostic";
}

static void append(MlirStringRef piece, void *userData) {
  tilusStringBufferAppend(userData, piece.data, piece.length);
}

// "file:line:col: " for `loc` (nothing without a file location).
static void appendPosition(TilusStringBuffer *line, MlirLocation loc,
                           const char *bufferName) {
  MlirStringRef file;
  unsigned lineNo, column;
  if (!tilusLocationGetFileLineCol(loc, &file, &lineNo, &column))
    return;
  if (bufferName && file.length == 1 && file.data[0] == '-')
    file = mlirStringRefCreateFromCString(bufferName);
  char position[48];
  snprintf(position, sizeof(position), ":%u:%u: ", lineNo, column);
  tilusStringBufferAppend(line, file.data, file.length);
  tilusStringBufferAppend(line, position, strlen(position));
}

void tilusRemarkWrite(MlirLocation loc, MlirStringRef message,
                      const char *bufferName, MlirStringCallback callback,
                      void *userData) {
  TilusStringBuffer line = {0};
  appendPosition(&line, loc, bufferName);
  tilusStringBufferAppend(&line, "remark: ", 8);
  tilusStringBufferAppend(&line, message.data, message.length);
  tilusStringBufferAppend(&line, "\n", 1);
  if (!line.failed)
    callback(mlirStringRefCreate(line.data, line.length), userData);
  tilusStringBufferRelease(&line);
}

void tilusDiagnosticWrite(MlirDiagnostic diagnostic, const char *bufferName,
                          MlirStringCallback callback, void *userData) {
  TilusStringBuffer line = {0};
  MlirStringRef file;
  unsigned lineNo, column;
  if (tilusLocationGetFileLineCol(mlirDiagnosticGetLocation(diagnostic), &file,
                                  &lineNo, &column)) {
    if (bufferName && file.length == 1 && file.data[0] == '-')
      file = mlirStringRefCreateFromCString(bufferName);
    char position[48];
    snprintf(position, sizeof(position), ":%u:%u: ", lineNo, column);
    tilusStringBufferAppend(&line, file.data, file.length);
    tilusStringBufferAppend(&line, position, strlen(position));
  }
  const char *severity =
      tilusDiagnosticSeverityName(mlirDiagnosticGetSeverity(diagnostic));
  tilusStringBufferAppend(&line, severity, strlen(severity));
  tilusStringBufferAppend(&line, ": ", 2);
  mlirDiagnosticPrint(diagnostic, append, &line);
  tilusStringBufferAppend(&line, "\n", 1);
  if (!line.failed)
    callback(mlirStringRefCreate(line.data, line.length), userData);
  tilusStringBufferRelease(&line);
  intptr_t numNotes = mlirDiagnosticGetNumNotes(diagnostic);
  for (intptr_t k = 0; k < numNotes; ++k)
    tilusDiagnosticWrite(mlirDiagnosticGetNote(diagnostic, k), bufferName,
                         callback, userData);
}
