/*===-- LayoutText.c - Canonical printer and parser -------------------*- C -*-===*\
|*                                                                            *|
|* Canonical text: the factors of the (canonical) chain joined by '.', each  *|
|* printed at the full rank of the layout, with no spaces:                   *|
|*   local(2,1)  spatial(8,4)  column_local(2,2)  column_spatial(4,8)        *|
|*   reduce(spatial(1,1,4),dims=[2])       a spatial factor with replication *|
|*   swizzle(local(16,32),dim=1,log_step=0)                                  *|
|* The parser also accepts spaces between tokens, swizzle without log_step,  *|
|* reduce/swizzle around any chain, chains of mixed rank (broadcast), and    *|
|* repeat/column_repeat as old spellings of local/column_local.              *|
\*===----------------------------------------------------------------------===*/

#include "LayoutInternal.h"
#include "Utils/StringBuffer.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*--- Printer ------------------------------------------------------------------*/

typedef TilusStringBuffer Buffer;

static void put(Buffer *buffer, const char *text) {
  tilusStringBufferPut(buffer, text);
}

static void putInt(Buffer *buffer, int64_t value) {
  char text[32];
  snprintf(text, sizeof(text), "%" PRId64, value);
  put(buffer, text);
}

static void putList(Buffer *buffer, const int64_t *values, int64_t n) {
  for (int64_t k = 0; k < n; ++k) {
    if (k)
      put(buffer, ",");
    putInt(buffer, values[k]);
  }
}

static const char *primitiveName(const TilusFactor *factor) {
  if (factor->kind == TILUS_FACTOR_LOCAL)
    return factor->column ? "column_local" : "local";
  return factor->column ? "column_spatial" : "spatial";
}

static void printLayout(Buffer *buffer, const TilusLayout *layout);

static void printFactor(Buffer *buffer, const TilusFactor *factor,
                        int64_t rank) {
  if (factor->kind == TILUS_FACTOR_SWIZZLE) {
    put(buffer, "swizzle(");
    printLayout(buffer, factor->inner);
    put(buffer, ",dim=");
    putInt(buffer, factor->dim);
    put(buffer, ",log_step=");
    putInt(buffer, factor->logStep);
    put(buffer, ")");
    return;
  }
  /* Interleave the replication groups back into a full shape and name
   * their positions as the reduced dims. */
  int64_t full[2 * TILUS_LAYOUT_RANK_CAP + 1], dropped[TILUS_LAYOUT_RANK_CAP + 1];
  int64_t numFull = 0, numDropped = 0;
  for (int64_t d = 0; d <= rank; ++d) {
    if (factor->rep[d] > 1) {
      dropped[numDropped++] = numFull;
      full[numFull++] = factor->rep[d];
    }
    if (d < rank)
      full[numFull++] = factor->shape[d];
  }
  if (numDropped)
    put(buffer, "reduce(");
  put(buffer, primitiveName(factor));
  put(buffer, "(");
  putList(buffer, full, numFull);
  put(buffer, ")");
  if (numDropped) {
    put(buffer, ",dims=[");
    putList(buffer, dropped, numDropped);
    put(buffer, "])");
  }
}

static void printLayout(Buffer *buffer, const TilusLayout *layout) {
  for (int64_t k = 0; k < layout->numFactors; ++k) {
    if (k)
      put(buffer, ".");
    printFactor(buffer, &layout->factors[k], layout->rank);
  }
}

char *tilusLayoutPrint(const TilusLayout *layout) {
  if (!layout)
    return NULL;
  Buffer buffer = {NULL, 0, 0, false};
  printLayout(&buffer, layout);
  return tilusStringBufferTake(&buffer);
}

/*--- Parser -------------------------------------------------------------------*/

/* Recursive descent over
 *   chain := term ('.' term)*
 *   term  := NAME '(' int (',' int)* ')'
 *          | 'reduce' '(' chain ',' 'dims' '=' '[' [int (',' int)*] ']' ')'
 *          | 'swizzle' '(' chain ',' 'dim' '=' int
 *                          [',' 'log_step' '=' int] ')'
 * The first error wins; later calls return early once `failed` is set. */
typedef struct {
  const char *text;
  size_t length;
  size_t pos;
  TilusLayoutError *err;
  bool failed;
  int depth; /* reduce/swizzle nesting, bounded to keep the stack small */
} Parser;

enum { MAX_NESTING = 64 };

static void fail(Parser *p, size_t offset, const char *what) {
  if (p->failed)
    return;
  p->failed = true;
  tilusLayoutSetError(p->err, "%s at offset %zu", what, offset);
}

static void skipSpace(Parser *p) {
  while (p->pos < p->length &&
         (p->text[p->pos] == ' ' || p->text[p->pos] == '\t' ||
          p->text[p->pos] == '\n' || p->text[p->pos] == '\r'))
    ++p->pos;
}

/* Consumes `c` (after spaces) if it is next. */
static bool accept(Parser *p, char c) {
  skipSpace(p);
  if (p->pos < p->length && p->text[p->pos] == c) {
    ++p->pos;
    return true;
  }
  return false;
}

static bool expect(Parser *p, char c) {
  if (accept(p, c))
    return true;
  char what[32];
  snprintf(what, sizeof(what), "expected '%c'", c);
  fail(p, p->pos, what);
  return false;
}

static bool isIdentChar(char c, bool first) {
  return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (!first && c >= '0' && c <= '9');
}

/* Reads an identifier into name (truncated); returns its length, 0 if none. */
static size_t parseIdent(Parser *p, char *name, size_t size) {
  skipSpace(p);
  size_t start = p->pos;
  while (p->pos < p->length && isIdentChar(p->text[p->pos], p->pos == start))
    ++p->pos;
  size_t n = p->pos - start;
  size_t copy = n < size - 1 ? n : size - 1;
  memcpy(name, p->text + start, copy);
  name[copy] = '\0';
  return n;
}

static bool expectKeyword(Parser *p, const char *keyword) {
  skipSpace(p);
  size_t start = p->pos;
  char name[32];
  size_t n = parseIdent(p, name, sizeof(name));
  if (n != strlen(keyword) || strcmp(name, keyword) != 0) {
    char what[64];
    snprintf(what, sizeof(what), "expected '%s'", keyword);
    fail(p, start, what);
    return false;
  }
  return true;
}

static bool parseInt(Parser *p, int64_t *value) {
  skipSpace(p);
  size_t start = p->pos;
  int64_t v = 0;
  while (p->pos < p->length && p->text[p->pos] >= '0' &&
         p->text[p->pos] <= '9') {
    v = v * 10 + (p->text[p->pos] - '0');
    ++p->pos;
    if (v > TILUS_LAYOUT_SIZE_LIMIT) {
      fail(p, start, "integer too large");
      return false;
    }
  }
  if (p->pos == start) {
    fail(p, start, "expected an integer");
    return false;
  }
  *value = v;
  return true;
}

/* int (',' int)* up to `close`, at most `max` entries; `allowEmpty` admits
 * an immediate `close`. */
static bool parseIntList(Parser *p, int64_t *values, int64_t *n, int64_t max,
                         char close, bool allowEmpty) {
  *n = 0;
  if (allowEmpty && accept(p, close))
    return true;
  do {
    skipSpace(p);
    if (*n == max) {
      fail(p, p->pos, "too many entries");
      return false;
    }
    if (!parseInt(p, &values[(*n)++]))
      return false;
  } while (accept(p, ','));
  return expect(p, close);
}

/* Turns a semantic error of a term starting at `offset` into a parse error. */
static TilusLayout *checked(Parser *p, TilusLayout *layout, size_t offset,
                            const TilusLayoutError *inner, int64_t maxRank) {
  if (!layout) {
    char what[sizeof(inner->message) + 16];
    snprintf(what, sizeof(what), "%s in the term", inner->message);
    fail(p, offset, what);
    return NULL;
  }
  if (layout->rank > maxRank) {
    tilusLayoutDestroy(layout);
    fail(p, offset, "rank exceeds the maximum in the term");
    return NULL;
  }
  return layout;
}

static TilusLayout *parseChain(Parser *p, int64_t maxRank);

static TilusLayout *parseReduce(Parser *p, size_t start, int64_t maxRank) {
  /* The argument may be wider than maxRank: the canonical text of a
   * replicated factor lists its replication dims too. */
  TilusLayout *arg = parseChain(p, TILUS_LAYOUT_RANK_CAP);
  int64_t dims[TILUS_LAYOUT_RANK_CAP], numDims = 0;
  bool ok = arg && expect(p, ',') && expectKeyword(p, "dims") &&
            expect(p, '=') && expect(p, '[') &&
            parseIntList(p, dims, &numDims, TILUS_LAYOUT_RANK_CAP, ']', true) &&
            expect(p, ')');
  TilusLayout *result = NULL;
  if (ok) {
    TilusLayoutError inner = {{0}};
    result = checked(p, tilusLayoutReduce(arg, numDims, dims, &inner), start,
                     &inner, maxRank);
  }
  tilusLayoutDestroy(arg);
  return result;
}

static TilusLayout *parseSwizzle(Parser *p, size_t start, int64_t maxRank) {
  TilusLayout *arg = parseChain(p, maxRank);
  int64_t dim = 0, logStep = 0;
  bool ok = arg && expect(p, ',') && expectKeyword(p, "dim") &&
            expect(p, '=') && parseInt(p, &dim);
  if (ok && accept(p, ','))
    ok = expectKeyword(p, "log_step") && expect(p, '=') &&
         parseInt(p, &logStep);
  ok = ok && expect(p, ')');
  TilusLayout *result = NULL;
  if (ok) {
    TilusLayoutError inner = {{0}};
    result = checked(p, tilusLayoutSwizzle(arg, dim, logStep, &inner), start,
                     &inner, maxRank);
  }
  tilusLayoutDestroy(arg);
  return result;
}

static TilusLayout *parseTerm(Parser *p, int64_t maxRank) {
  skipSpace(p);
  size_t start = p->pos;
  char name[32];
  size_t n = parseIdent(p, name, sizeof(name));
  if (n == 0) {
    fail(p, start, "expected a layout");
    return NULL;
  }
  static const struct {
    const char *name;
    TilusFactorKind kind;
    bool column;
  } primitives[] = {
      {"local", TILUS_FACTOR_LOCAL, false},
      {"spatial", TILUS_FACTOR_SPATIAL, false},
      {"column_local", TILUS_FACTOR_LOCAL, true},
      {"column_spatial", TILUS_FACTOR_SPATIAL, true},
      {"repeat", TILUS_FACTOR_LOCAL, false},
      {"column_repeat", TILUS_FACTOR_LOCAL, true},
  };
  bool isReduce = strcmp(name, "reduce") == 0;
  bool isSwizzle = strcmp(name, "swizzle") == 0;
  int primitive = -1;
  for (int k = 0; k < (int)(sizeof(primitives) / sizeof(primitives[0])); ++k)
    if (n < sizeof(name) && strcmp(name, primitives[k].name) == 0)
      primitive = k;
  if (n >= sizeof(name) || (!isReduce && !isSwizzle && primitive < 0)) {
    char what[64];
    snprintf(what, sizeof(what), "unknown layout '%s'", name);
    fail(p, start, what);
    return NULL;
  }
  if (!expect(p, '('))
    return NULL;
  if (isReduce || isSwizzle) {
    if (p->depth == MAX_NESTING) {
      fail(p, start, "layout nested too deeply");
      return NULL;
    }
    ++p->depth;
    TilusLayout *result = isReduce ? parseReduce(p, start, maxRank)
                                   : parseSwizzle(p, start, maxRank);
    --p->depth;
    return result;
  }
  int64_t shape[TILUS_LAYOUT_RANK_CAP], rank = 0;
  if (!parseIntList(p, shape, &rank, maxRank, ')', false))
    return NULL;
  TilusLayoutError inner = {{0}};
  TilusLayout *layout = tilusLayoutCreatePrimitive(
      primitives[primitive].kind, primitives[primitive].column, rank, shape,
      maxRank, &inner);
  return checked(p, layout, start, &inner, maxRank);
}

static TilusLayout *parseChain(Parser *p, int64_t maxRank) {
  TilusLayout *layout = parseTerm(p, maxRank);
  while (layout && accept(p, '.')) {
    size_t start = p->pos;
    TilusLayout *next = parseTerm(p, maxRank);
    if (!next) {
      tilusLayoutDestroy(layout);
      return NULL;
    }
    TilusLayoutError inner = {{0}};
    TilusLayout *composed = tilusLayoutComposeChecked(layout, next, &inner);
    tilusLayoutDestroy(layout);
    tilusLayoutDestroy(next);
    layout = checked(p, composed, start, &inner, maxRank);
  }
  return layout;
}

TilusLayout *tilusLayoutParse(const char *text, size_t length,
                              TilusLayoutError *err) {
  Parser p = {text ? text : "", text ? length : 0, 0, err, false, 0};
  TilusLayout *layout = parseChain(&p, TILUS_LAYOUT_MAX_RANK);
  if (layout) {
    skipSpace(&p);
    if (p.pos != p.length) {
      fail(&p, p.pos, "expected '.' or the end of the layout");
      tilusLayoutDestroy(layout);
      layout = NULL;
    }
  }
  return layout;
}
