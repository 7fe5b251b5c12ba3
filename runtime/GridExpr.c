//===- GridExpr.c - The grid-expression language -------------------------===//
//
// A kernel's grid is 1 to 3 MLIR affine expressions over symbols s0..sN,
// where s_k is the value of kernel argument k. This file parses one
// expression into a small tree and evaluates it in int64.
//
// Grammar, with MLIR's precedence and left associativity:
//   expr    := term (('+' | '-') term)*
//   term    := operand (('*' | 'floordiv' | 'ceildiv' | 'mod') operand)*
//   operand := '-' operand | integer | 's' digits | '(' expr ')'
// Unary minus applies to the operand right after it, as in MLIR's parser, so
// `-7 floordiv 2` is (-7) floordiv 2 = -4, not -(7 floordiv 2) = -3.
//
// floordiv, ceildiv and mod round toward minus / plus infinity, and
// a mod b = a - b * (a floordiv b), so mod has the divisor's sign (MLIR's
// semantics for positive divisors, extended the natural way). Every overflow
// is an error rather than a wrapped grid size.
//
//===----------------------------------------------------------------------===//

#include "RuntimeInternal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Grid expressions are a handful of tokens; a bound keeps both the recursive
// parser and the recursive evaluator far from the stack limit on hostile
// input.
enum { MaxNodes = 512 };

typedef enum {
  NodeConstant,
  NodeSymbol,
  NodeNegate,
  NodeAdd,
  NodeSub,
  NodeMul,
  NodeFloorDiv,
  NodeCeilDiv,
  NodeMod,
} NodeKind;

typedef struct {
  NodeKind kind;
  int64_t value; // the constant, or k of s<k>
  int lhs, rhs;  // children (NodeNegate uses lhs only)
  int column;    // 1-based column of the operator, for error messages
} Node;

struct TilusGridExpr {
  Node nodes[MaxNodes];
  int numNodes;
  int root;
  int maxSymbol;
};

//===----------------------------------------------------------------------===//
// Lexer
//===----------------------------------------------------------------------===//

typedef enum {
  TokInteger,
  TokSymbol,
  TokPlus,
  TokMinus,
  TokStar,
  TokFloorDiv,
  TokCeilDiv,
  TokMod,
  TokLParen,
  TokRParen,
  TokEnd,
} TokenKind;

typedef struct {
  TokenKind kind;
  int64_t value; // integer value, or k of s<k>
  size_t start;  // offset in the text
  size_t length;
} Token;

typedef struct {
  const char *text;
  size_t length;
  size_t pos;
  Token token; // the current (not yet consumed) token
  TilusGridExpr *expr;
  TilusRuntimeError *err;
  bool failed;
} Parser;

static int columnOf(size_t offset) { return (int)offset + 1; }

static void fail(Parser *p, const char *what, size_t offset) {
  if (p->failed)
    return;
  p->failed = true;
  tilusSetError(p->err, TilusStatusParseError, "%s at column %d", what,
                columnOf(offset));
}

// Reads a non-negative decimal number at `pos`; false on int64 overflow.
static bool readNumber(const char *text, size_t length, size_t *pos,
                       int64_t *value) {
  int64_t v = 0;
  bool ok = true;
  while (*pos < length && isdigit((unsigned char)text[*pos])) {
    int digit = text[*pos] - '0';
    if (v > (INT64_MAX - digit) / 10)
      ok = false;
    else
      v = v * 10 + digit;
    (*pos)++;
  }
  *value = v;
  return ok;
}

static bool isWordChar(char c) { return isalnum((unsigned char)c) || c == '_'; }

static void lex(Parser *p) {
  while (p->pos < p->length && isspace((unsigned char)p->text[p->pos]))
    p->pos++;
  Token *t = &p->token;
  t->start = p->pos;
  t->value = 0;
  if (p->pos == p->length) {
    t->kind = TokEnd;
    t->length = 0;
    return;
  }
  char c = p->text[p->pos];
  const char *punct = "+-*()";
  const TokenKind punctKinds[] = {TokPlus, TokMinus, TokStar, TokLParen,
                                  TokRParen};
  const char *found = strchr(punct, c);
  if (found && c != '\0') {
    t->kind = punctKinds[found - punct];
    t->length = 1;
    p->pos++;
    return;
  }
  if (isdigit((unsigned char)c)) {
    t->kind = TokInteger;
    if (!readNumber(p->text, p->length, &p->pos, &t->value))
      fail(p, "integer literal does not fit in int64", t->start);
    t->length = p->pos - t->start;
    return;
  }
  if (isWordChar(c)) {
    size_t end = p->pos;
    while (end < p->length && isWordChar(p->text[end]))
      end++;
    const char *word = p->text + p->pos;
    size_t n = end - p->pos;
    t->length = n;
    p->pos = end;
    if (n == 8 && !memcmp(word, "floordiv", 8)) {
      t->kind = TokFloorDiv;
      return;
    }
    if (n == 7 && !memcmp(word, "ceildiv", 7)) {
      t->kind = TokCeilDiv;
      return;
    }
    if (n == 3 && !memcmp(word, "mod", 3)) {
      t->kind = TokMod;
      return;
    }
    bool digitsOnly = n > 1;
    for (size_t i = 1; i < n; i++)
      digitsOnly = digitsOnly && isdigit((unsigned char)word[i]);
    if (word[0] == 's' && digitsOnly) {
      size_t at = 1;
      int64_t k = 0;
      if (!readNumber(word, n, &at, &k) || k > 1000000)
        fail(p, "symbol index is too large", t->start);
      t->kind = TokSymbol;
      t->value = k;
      return;
    }
    char message[96];
    snprintf(message, sizeof(message),
             "unknown identifier '%.*s' (only symbols s0, s1, ... may appear)",
             (int)(n > 32 ? 32 : n), word);
    fail(p, message, t->start);
    t->kind = TokEnd;
    return;
  }
  char message[64];
  snprintf(message, sizeof(message), "unexpected character '%c'",
           isprint((unsigned char)c) ? c : '?');
  fail(p, message, t->start);
  t->kind = TokEnd;
  t->length = 0;
}

//===----------------------------------------------------------------------===//
// Parser
//===----------------------------------------------------------------------===//

static int addNode(Parser *p, NodeKind kind, int64_t value, int lhs, int rhs,
                   size_t offset) {
  if (p->failed)
    return -1;
  if (p->expr->numNodes == MaxNodes) {
    fail(p, "expression is too long", offset);
    return -1;
  }
  Node *n = &p->expr->nodes[p->expr->numNodes];
  n->kind = kind;
  n->value = value;
  n->lhs = lhs;
  n->rhs = rhs;
  n->column = columnOf(offset);
  return p->expr->numNodes++;
}

static int parseExpr(Parser *p, int depth);

static int parseOperand(Parser *p, int depth) {
  if (p->failed)
    return -1;
  if (depth > 100) {
    fail(p, "expression is nested too deeply", p->token.start);
    return -1;
  }
  Token t = p->token;
  switch (t.kind) {
  case TokMinus: {
    lex(p);
    int operand = parseOperand(p, depth + 1);
    return addNode(p, NodeNegate, 0, operand, -1, t.start);
  }
  case TokInteger:
    lex(p);
    return addNode(p, NodeConstant, t.value, -1, -1, t.start);
  case TokSymbol:
    lex(p);
    if (t.value > p->expr->maxSymbol)
      p->expr->maxSymbol = (int)t.value;
    return addNode(p, NodeSymbol, t.value, -1, -1, t.start);
  case TokLParen: {
    lex(p);
    int inner = parseExpr(p, depth + 1);
    if (!p->failed && p->token.kind != TokRParen)
      fail(p, "expected ')'", p->token.start);
    lex(p);
    return inner;
  }
  default:
    fail(p,
         t.kind == TokEnd ? "expected an operand, found the end"
                          : "expected an operand",
         t.start);
    return -1;
  }
}

static int parseTerm(Parser *p, int depth) {
  int lhs = parseOperand(p, depth);
  for (;;) {
    NodeKind kind;
    switch (p->token.kind) {
    case TokStar:
      kind = NodeMul;
      break;
    case TokFloorDiv:
      kind = NodeFloorDiv;
      break;
    case TokCeilDiv:
      kind = NodeCeilDiv;
      break;
    case TokMod:
      kind = NodeMod;
      break;
    default:
      return lhs;
    }
    if (p->failed)
      return -1;
    size_t at = p->token.start;
    lex(p);
    int rhs = parseOperand(p, depth);
    lhs = addNode(p, kind, 0, lhs, rhs, at);
  }
}

static int parseExpr(Parser *p, int depth) {
  int lhs = parseTerm(p, depth);
  while (!p->failed &&
         (p->token.kind == TokPlus || p->token.kind == TokMinus)) {
    NodeKind kind = p->token.kind == TokPlus ? NodeAdd : NodeSub;
    size_t at = p->token.start;
    lex(p);
    int rhs = parseTerm(p, depth);
    lhs = addNode(p, kind, 0, lhs, rhs, at);
  }
  return lhs;
}

TilusGridExpr *tilusGridExprParse(const char *text, size_t length,
                                  TilusRuntimeError *err) {
  TilusGridExpr *expr = malloc(sizeof(*expr));
  if (!expr) {
    tilusSetError(err, TilusStatusOutOfMemory, "out of memory");
    return NULL;
  }
  expr->numNodes = 0;
  expr->maxSymbol = -1;
  Parser p = {text, length, 0, {TokEnd, 0, 0, 0}, expr, err, false};
  lex(&p);
  if (p.token.kind == TokEnd && !p.failed)
    fail(&p, "empty expression", 0);
  expr->root = parseExpr(&p, 0);
  if (!p.failed && p.token.kind != TokEnd) {
    if (p.token.kind == TokRParen)
      fail(&p, "unbalanced ')'", p.token.start);
    else
      fail(&p, "expected an operator", p.token.start);
  }
  if (p.failed) {
    free(expr);
    return NULL;
  }
  return expr;
}

void tilusGridExprDestroy(TilusGridExpr *expr) { free(expr); }

TilusGridExpr *tilusGridExprClone(const TilusGridExpr *expr) {
  // The tree is one block with no pointers (children are node indices).
  TilusGridExpr *copy = malloc(sizeof(*copy));
  if (copy)
    *copy = *expr;
  return copy;
}

int tilusGridExprGetMaxSymbol(const TilusGridExpr *expr) {
  return expr->maxSymbol;
}

bool tilusGridExprUsesSymbol(const TilusGridExpr *expr, int k) {
  for (int i = 0; i < expr->numNodes; i++)
    if (expr->nodes[i].kind == NodeSymbol && expr->nodes[i].value == k)
      return true;
  return false;
}

//===----------------------------------------------------------------------===//
// Evaluation
//===----------------------------------------------------------------------===//

static bool addOverflows(int64_t a, int64_t b) {
  return (b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b);
}

static bool subOverflows(int64_t a, int64_t b) {
  return (b < 0 && a > INT64_MAX + b) || (b > 0 && a < INT64_MIN + b);
}

static bool mulOverflows(int64_t a, int64_t b) {
  if (a == 0 || b == 0)
    return false;
  if (a > 0)
    return b > 0 ? a > INT64_MAX / b : b < INT64_MIN / a;
  return b > 0 ? a < INT64_MIN / b : b < INT64_MAX / a;
}

// Floor and ceiling division and floor modulo; b != 0, and the one
// overflowing case (INT64_MIN by -1) is rejected by the caller.
static int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b, r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? q - 1 : q;
}

static int64_t ceilDiv(int64_t a, int64_t b) {
  int64_t q = a / b, r = a % b;
  return (r != 0 && ((r < 0) == (b < 0))) ? q + 1 : q;
}

static int64_t floorMod(int64_t a, int64_t b) {
  int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

static const char *opName(NodeKind kind) {
  switch (kind) {
  case NodeNegate:
  case NodeSub:
    return "-";
  case NodeAdd:
    return "+";
  case NodeMul:
    return "*";
  case NodeFloorDiv:
    return "floordiv";
  case NodeCeilDiv:
    return "ceildiv";
  case NodeMod:
    return "mod";
  default:
    return "?";
  }
}

static TilusStatus evaluate(const TilusGridExpr *expr, int index,
                            const int64_t *symbols, int numSymbols,
                            int64_t *result, TilusRuntimeError *err) {
  const Node *n = &expr->nodes[index];
  if (n->kind == NodeConstant) {
    *result = n->value;
    return TilusStatusSuccess;
  }
  if (n->kind == NodeSymbol) {
    if (n->value >= numSymbols)
      return tilusSetError(err, TilusStatusGridError,
                           "s%lld has no value (only %d symbols)",
                           (long long)n->value, numSymbols);
    *result = symbols[n->value];
    return TilusStatusSuccess;
  }
  int64_t a = 0, b = 0;
  TilusStatus s = evaluate(expr, n->lhs, symbols, numSymbols, &a, err);
  if (s != TilusStatusSuccess)
    return s;
  if (n->kind == NodeNegate) {
    if (a == INT64_MIN)
      return tilusSetError(err, TilusStatusGridError,
                           "int64 overflow in unary '-' at column %d",
                           n->column);
    *result = -a;
    return TilusStatusSuccess;
  }
  s = evaluate(expr, n->rhs, symbols, numSymbols, &b, err);
  if (s != TilusStatusSuccess)
    return s;

  bool overflow = false;
  switch (n->kind) {
  case NodeAdd:
    overflow = addOverflows(a, b);
    break;
  case NodeSub:
    overflow = subOverflows(a, b);
    break;
  case NodeMul:
    overflow = mulOverflows(a, b);
    break;
  default: // the divisions
    if (b == 0)
      return tilusSetError(err, TilusStatusGridError,
                           "division by zero in '%s' at column %d",
                           opName(n->kind), n->column);
    overflow = a == INT64_MIN && b == -1 && n->kind != NodeMod;
    break;
  }
  if (overflow)
    return tilusSetError(err, TilusStatusGridError,
                         "int64 overflow in '%s' at column %d", opName(n->kind),
                         n->column);
  switch (n->kind) {
  case NodeAdd:
    *result = a + b;
    break;
  case NodeSub:
    *result = a - b;
    break;
  case NodeMul:
    *result = a * b;
    break;
  case NodeFloorDiv:
    *result = b == -1 ? -a : floorDiv(a, b);
    break;
  case NodeCeilDiv:
    *result = b == -1 ? -a : ceilDiv(a, b);
    break;
  default: // NodeMod; x mod -1 is 0, and C's INT64_MIN % -1 is undefined
    *result = b == -1 ? 0 : floorMod(a, b);
    break;
  }
  return TilusStatusSuccess;
}

TilusStatus tilusGridExprEvaluate(const TilusGridExpr *expr,
                                  const int64_t *symbols, int numSymbols,
                                  int64_t *result, TilusRuntimeError *err) {
  return evaluate(expr, expr->root, symbols, numSymbols, result, err);
}

TilusStatus tilusAffineExprEvaluate(const char *text, const int64_t *symbols,
                                    int numSymbols, int64_t *result,
                                    TilusRuntimeError *err) {
  if (!text || !result || (numSymbols > 0 && !symbols) || numSymbols < 0)
    return tilusSetError(err, TilusStatusInvalidArgument,
                         "tilusAffineExprEvaluate: NULL text, result or "
                         "symbols, or a negative symbol count");
  TilusGridExpr *expr = tilusGridExprParse(text, strlen(text), err);
  if (!expr)
    return TilusStatusParseError;
  TilusStatus s = tilusGridExprEvaluate(expr, symbols, numSymbols, result, err);
  tilusGridExprDestroy(expr);
  return s;
}
