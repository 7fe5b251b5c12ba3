//===- Diagnostics.c - Reporting and checking diagnostics -----------------===//

#include "Diagnostics.h"

#include "tilus-c/Diagnostics.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

typedef TilusOptText Text;

void tilusOptAppendText(MlirStringRef piece, void *userData) {
  tilusStringBufferAppend(userData, piece.data, piece.length);
}

// Prints to stderr (tilusDiagnosticWrite's callback).
static void printToStderr(MlirStringRef line, void *userData) {
  fwrite(line.data, 1, line.length, stderr);
}

static void handleOne(MlirDiagnostic diagnostic, DiagnosticState *state) {
  MlirDiagnosticSeverity severity = mlirDiagnosticGetSeverity(diagnostic);
  if (severity == MlirDiagnosticError)
    state->numErrors++;
  if (!state->collect) {
    tilusDiagnosticWrite(diagnostic, state->fileName, printToStderr, NULL);
    return;
  }
  Text message = {0};
  mlirDiagnosticPrint(diagnostic, tilusOptAppendText, &message);
  if (!message.data)
    message.data = calloc(1, 1);
  MlirStringRef file;
  unsigned line = 0, col = 0;
  bool located = tilusLocationGetFileLineCol(
      mlirDiagnosticGetLocation(diagnostic), &file, &line, &col);
  // The IR printed with a failing op is no diagnostic of the program.
  bool isOpDump = severity == MlirDiagnosticNote &&
                  strncmp(message.data, "see current operation", 21) == 0;
  if (!isOpDump && state->numItems == state->capacity) {
    int capacity = state->capacity ? 2 * state->capacity : 16;
    CollectedDiagnostic *items =
        realloc(state->items, (size_t)capacity * sizeof(*items));
    if (items) {
      state->items = items;
      state->capacity = capacity;
    }
  }
  if (!isOpDump && state->numItems < state->capacity) {
    state->items[state->numItems++] = (CollectedDiagnostic){
        located && line <= INT_MAX ? (int)line : 0, severity, message.data};
    message.data = NULL;
  }
  free(message.data);
  intptr_t numNotes = mlirDiagnosticGetNumNotes(diagnostic);
  for (intptr_t k = 0; k < numNotes; ++k)
    handleOne(mlirDiagnosticGetNote(diagnostic, k), state);
}

MlirLogicalResult tilusOptHandleDiagnostic(MlirDiagnostic diagnostic,
                                           void *userData) {
  handleOne(diagnostic, userData);
  return mlirLogicalResultSuccess();
}

void tilusOptClearDiagnostics(DiagnosticState *state) {
  for (int k = 0; k < state->numItems; ++k)
    free(state->items[k].message);
  state->numItems = 0;
  state->numErrors = 0;
}

//===----------------------------------------------------------------------===//
// Expectations: `expected-<severity>[@<where>] {{<substring>}}` in comments,
// where <where> is +N / -N (relative line), N (absolute line), above, below.
//===----------------------------------------------------------------------===//

typedef struct {
  int line;         // the line the diagnostic must be on
  int writtenOn;    // the line of the comment, for reports
  MlirDiagnosticSeverity severity;
  char *text;
  bool matched;
} Expectation;

static bool parseSeverity(const char **p, MlirDiagnosticSeverity *severity) {
  static const struct {
    const char *word;
    MlirDiagnosticSeverity severity;
  } words[] = {{"error", MlirDiagnosticError},
               {"warning", MlirDiagnosticWarning},
               {"note", MlirDiagnosticNote},
               {"remark", MlirDiagnosticRemark}};
  for (size_t k = 0; k < sizeof(words) / sizeof(words[0]); ++k) {
    size_t n = strlen(words[k].word);
    if (strncmp(*p, words[k].word, n) == 0) {
      *p += n;
      *severity = words[k].severity;
      return true;
    }
  }
  return false;
}

// Parses one expectation starting right after "expected-"; false with a
// reason in `why` when it is malformed.
static bool parseExpectation(const char *p, const char *end, int lineNo,
                             Expectation *out, const char **why) {
  if (!parseSeverity(&p, &out->severity)) {
    *why = "unknown severity after 'expected-'";
    return false;
  }
  out->line = lineNo;
  out->writtenOn = lineNo;
  if (p < end && *p == '@') {
    ++p;
    if (strncmp(p, "above", 5) == 0) {
      out->line = lineNo - 1;
      p += 5;
    } else if (strncmp(p, "below", 5) == 0) {
      out->line = lineNo + 1;
      p += 5;
    } else {
      int sign = 0;
      if (*p == '+' || *p == '-')
        sign = *p++ == '+' ? 1 : -1;
      if (p >= end || *p < '0' || *p > '9') {
        *why = "expected a line after '@'";
        return false;
      }
      // Checked: a long number must not wrap around to some other line.
      long long n = 0;
      while (p < end && *p >= '0' && *p <= '9') {
        n = n * 10 + (*p++ - '0');
        if (n > INT_MAX) {
          *why = "the line after '@' is out of range";
          return false;
        }
      }
      long long target = sign ? lineNo + sign * n : n;
      if (target < 1 || target > INT_MAX) {
        *why = "the line after '@' is out of range";
        return false;
      }
      out->line = (int)target;
    }
  }
  while (p < end && *p == ' ')
    ++p;
  if (end - p < 2 || p[0] != '{' || p[1] != '{') {
    *why = "expected '{{' after the expectation";
    return false;
  }
  p += 2;
  const char *close = NULL;
  for (const char *q = p; q + 1 < end; ++q)
    if (q[0] == '}' && q[1] == '}') {
      close = q;
      break;
    }
  if (!close) {
    *why = "expected '}}' to close the expectation";
    return false;
  }
  size_t n = (size_t)(close - p);
  out->text = malloc(n + 1);
  memcpy(out->text, p, n);
  out->text[n] = '\0';
  out->matched = false;
  return true;
}

bool tilusOptCheckExpectations(DiagnosticState *state, const char *fileName,
                               const char *source, size_t length) {
  Expectation *expected = NULL;
  int numExpected = 0, capacity = 0;
  bool ok = true;
  int lineNo = 1;
  for (const char *line = source; line < source + length; ++lineNo) {
    const char *end = memchr(line, '\n', (size_t)(source + length - line));
    if (!end)
      end = source + length;
    for (const char *p = line; p + 9 <= end; ++p) {
      if (strncmp(p, "expected-", 9) != 0)
        continue;
      Expectation e;
      const char *why = NULL;
      if (!parseExpectation(p + 9, end, lineNo, &e, &why)) {
        fprintf(stderr, "%s:%d: error: malformed expectation: %s\n", fileName,
                lineNo, why);
        ok = false;
        break;
      }
      if (numExpected == capacity) {
        int grown = capacity ? 2 * capacity : 16;
        Expectation *more =
            realloc(expected, (size_t)grown * sizeof(*expected));
        if (!more) {
          free(e.text);
          fprintf(stderr, "%s: error: out of memory\n", fileName);
          ok = false;
          break;
        }
        expected = more;
        capacity = grown;
      }
      expected[numExpected++] = e;
      break;
    }
    line = end + 1;
  }

  for (int d = 0; d < state->numItems; ++d) {
    CollectedDiagnostic *diag = &state->items[d];
    bool found = false;
    for (int k = 0; k < numExpected && !found; ++k) {
      Expectation *e = &expected[k];
      if (!e->matched && e->line == diag->line &&
          e->severity == diag->severity && strstr(diag->message, e->text)) {
        e->matched = true;
        found = true;
      }
    }
    if (!found) {
      fprintf(stderr, "%s:%d: error: unexpected %s: %s\n", fileName, diag->line,
              tilusDiagnosticSeverityName(diag->severity), diag->message);
      ok = false;
    }
  }
  for (int k = 0; k < numExpected; ++k) {
    if (!expected[k].matched) {
      fprintf(stderr,
              "%s:%d: error: expected %s \"%s\" on line %d was not produced\n",
              fileName, expected[k].writtenOn,
              tilusDiagnosticSeverityName(expected[k].severity), expected[k].text,
              expected[k].line);
      ok = false;
    }
    free(expected[k].text);
  }
  free(expected);
  tilusOptClearDiagnostics(state);
  return ok;
}
