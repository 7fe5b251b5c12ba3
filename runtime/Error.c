//===- Error.c - Filling TilusRuntimeError --------------------------------===//
//
// Every failing entry point reports through these helpers, so that an error
// is always a code plus one complete line of text, and a NULL `err` is fine.
//
//===----------------------------------------------------------------------===//

#include "RuntimeInternal.h"

#include <stdio.h>
#include <string.h>

TilusStatus tilusSetError(TilusRuntimeError *err, TilusStatus code,
                          const char *format, ...) {
  if (!err)
    return code;
  err->code = code;
  err->cudaResult = 0;
  va_list args;
  va_start(args, format);
  vsnprintf(err->message, sizeof(err->message), format, args);
  va_end(args);
  return code;
}

void tilusPrefixError(TilusRuntimeError *err, const char *prefix) {
  if (!err)
    return;
  char old[sizeof(err->message)];
  memcpy(old, err->message, sizeof(old));
  // Truncation is acceptable (the start of the message matters most);
  // checking the result keeps -Wformat-truncation quiet about it.
  if (snprintf(err->message, sizeof(err->message), "%s: %s", prefix, old) < 0)
    memcpy(err->message, old, sizeof(old));
}

const char *tilusStatusGetName(TilusStatus status) {
  switch (status) {
  case TilusStatusSuccess:
    return "TilusStatusSuccess";
  case TilusStatusInvalidArgument:
    return "TilusStatusInvalidArgument";
  case TilusStatusIOError:
    return "TilusStatusIOError";
  case TilusStatusParseError:
    return "TilusStatusParseError";
  case TilusStatusNoSuchKernel:
    return "TilusStatusNoSuchKernel";
  case TilusStatusArgumentMismatch:
    return "TilusStatusArgumentMismatch";
  case TilusStatusGridError:
    return "TilusStatusGridError";
  case TilusStatusUnsupported:
    return "TilusStatusUnsupported";
  case TilusStatusDriverNotFound:
    return "TilusStatusDriverNotFound";
  case TilusStatusNoDevice:
    return "TilusStatusNoDevice";
  case TilusStatusCudaError:
    return "TilusStatusCudaError";
  case TilusStatusOutOfMemory:
    return "TilusStatusOutOfMemory";
  }
  return "TilusStatusUnknown";
}
