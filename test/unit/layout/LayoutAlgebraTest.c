/*===-- LayoutAlgebraTest.c - Composition laws, division, broadcast ===*/

#include "LayoutTestSupport.h"

static bool composeMatchesFormula(const TilusLayout *f, const TilusLayout *g,
                                  const TilusLayout *h) {
  int64_t rf = tilusLayoutGetRank(f), rg = tilusLayoutGetRank(g);
  int64_t r = rf > rg ? rf : rg;
  if (!h || tilusLayoutGetRank(h) != r)
    return false;
  int64_t tg = tilusLayoutGetNumThreads(g), mg = tilusLayoutGetLocalSize(g);
  int64_t th = tilusLayoutGetNumThreads(f) * tg;
  int64_t mh = tilusLayoutGetLocalSize(f) * mg;
  if (tilusLayoutGetNumThreads(h) != th || tilusLayoutGetLocalSize(h) != mh)
    return false;
  int64_t sg[8];
  for (int64_t d = 0; d < r; ++d) {
    int64_t dg = d - (r - rg), df = d - (r - rf);
    sg[d] = dg >= 0 ? tilusLayoutGetDim(g, dg) : 1;
    int64_t sf = df >= 0 ? tilusLayoutGetDim(f, df) : 1;
    if (tilusLayoutGetDim(h, d) != sf * sg[d])
      return false;
  }
  for (int64_t t = 0; t < th; ++t) {
    for (int64_t i = 0; i < mh; ++i) {
      int64_t a[8], b[8], pa[8] = {0}, pb[8] = {0}, x[8];
      tilusLayoutEvaluate(f, t / tg, i / mg, a);
      tilusLayoutEvaluate(g, t % tg, i % mg, b);
      memcpy(pa + (r - rf), a, sizeof(int64_t) * (size_t)rf);
      memcpy(pb + (r - rg), b, sizeof(int64_t) * (size_t)rg);
      tilusLayoutEvaluate(h, t, i, x);
      for (int64_t d = 0; d < r; ++d)
        if (x[d] != pa[d] * sg[d] + pb[d])
          return false;
    }
  }
  return true;
}

void testRandomChains(void) {
  uint64_t rng = 0x9e3779b97f4a7c15ull;
  int modelFail = 0, textFail = 0, formulaFail = 0, identityFail = 0;
  int validFail = 0, locateFail = 0, contigFail = 0, reduceFail = 0;
  const char *local1 = "local(1)";
  TilusLayout *e = parse(local1);
  for (int iter = 0; iter < 400; ++iter) {
    Model m = randomModel(&rng, 256, 4, true);
    TilusLayout *l = buildLayout(&m);
    char *text = tilusLayoutPrint(l);
    if (!matchesModel(l, &m)) {
      ++modelFail;
      printf("  model mismatch: %s\n", text ? text : "(null)");
    }
    if (!l) {
      free(text);
      continue;
    }

    /* Text round trip. */
    TilusLayout *back = text ? parse(text) : NULL;
    char *again = tilusLayoutPrint(back);
    if (!back || !tilusLayoutEqual(back, l) || !again ||
        strcmp(again, text) != 0) {
      ++textFail;
      printf("  round trip: '%s' -> '%s'\n", text ? text : "(null)",
             again ? again : "(null)");
    }

    /* Identity on both sides. */
    TilusLayout *le = tilusLayoutCompose(l, e), *el = tilusLayoutCompose(e, l);
    if (!tilusLayoutEqual(le, l) || !tilusLayoutEqual(el, l))
      ++identityFail;

    /* Composition of the model's prefix and suffix against the formula. */
    if (m.n >= 2) {
      Model f = m, g = m;
      int cut = 1 + (int)randomBelow(&rng, m.n - 1);
      f.n = cut;
      g.n = m.n - cut;
      memmove(g.p, m.p + cut, sizeof(MPrim) * (size_t)g.n);
      TilusLayout *lf = buildLayout(&f), *lg = buildLayout(&g);
      TilusLayout *h = tilusLayoutCompose(lf, lg);
      if (!composeMatchesFormula(lf, lg, h) || !tilusLayoutEqual(h, l))
        ++formulaFail;
      tilusLayoutDestroy(lf);
      tilusLayoutDestroy(lg);
      tilusLayoutDestroy(h);
    }

    /* Locate, validity and contiguity against the model's own table. */
    int rank = modelRank(&m);
    int64_t shape[8], count = 1;
    modelShape(&m, 0, m.n, rank, shape);
    for (int d = 0; d < rank; ++d)
      count *= shape[d];
    int64_t threads = modelThreads(&m, 0, m.n), local = modelLocal(&m, 0, m.n);
    int64_t *first = malloc(sizeof(int64_t) * (size_t)count);
    int64_t *lastThread = malloc(sizeof(int64_t) * (size_t)count);
    for (int64_t k = 0; k < count; ++k)
      first[k] = lastThread[k] = -1;
    bool valid = true;
    for (int64_t t = 0; t < threads; ++t) {
      for (int64_t i = 0; i < local; ++i) {
        int64_t x[8], lin = 0;
        modelEval(&m, t, i, x);
        for (int d = 0; d < rank; ++d)
          lin = lin * shape[d] + x[d];
        if (first[lin] < 0)
          first[lin] = t * local + i;
        if (lastThread[lin] == t)
          valid = false;
        lastThread[lin] = t;
      }
    }
    for (int64_t k = 0; k < count; ++k)
      valid = valid && first[k] >= 0;
    if (tilusLayoutIsValid(l) != valid)
      ++validFail;
    for (int64_t k = 0; k < count; ++k) {
      int64_t index[8], rest = k, t = -1, i = -1;
      for (int d = rank - 1; d >= 0; --d) {
        index[d] = rest % shape[d];
        rest /= shape[d];
      }
      bool found = tilusLayoutLocate(l, index, &t, &i);
      if (found != (first[k] >= 0) || (found && t * local + i != first[k]))
        ++locateFail;
    }
    free(first);
    free(lastThread);

    int64_t contiguity = 1;
    for (int64_t v = 2; local % v == 0; v *= 2) {
      bool ok = true;
      for (int64_t t = 0; ok && t < threads; ++t) {
        for (int64_t g = 0; ok && g < local; g += v) {
          int64_t base[8], x[8];
          modelEval(&m, t, g, base);
          for (int64_t j = 1; ok && j < v; ++j) {
            modelEval(&m, t, g + j, x);
            base[rank - 1] += 1;
            ok = sameIndex(base, x, rank);
          }
        }
      }
      if (!ok)
        break;
      contiguity = v;
    }
    if (tilusLayoutGetContiguity(l) != contiguity)
      ++contigFail;

    /* Reduce distributes over the chain (only without swizzles). */
    /* Swizzles that move nothing are dropped by the library; the model
     * treats those as the local layouts they are. */
    bool hasSwizzle = text && strstr(text, "swizzle") != NULL;
    if (rank >= 2) {
      int64_t dim = randomBelow(&rng, rank);
      TilusLayoutError err = {{0}};
      TilusLayout *r = tilusLayoutReduce(l, 1, &dim, &err);
      if (hasSwizzle) {
        if (r || !strstr(err.message, "swizzle"))
          ++reduceFail;
      } else {
        Model rm = m;
        rm.minRank = rank - 1;
        for (int k = 0; k < rm.n; ++k) {
          MPrim *p = &rm.p[k];
          if (p->kind == M_SWIZZLE)
            p->kind = M_LOCAL;
          int pr = primRank(p);
          int out = (int)dim - (rank - pr); /* output dim inside p */
          if (out < 0) {
            continue; /* a broadcast dim of this factor: drop nothing */
          }
          int fd = 0, seen = -1;
          for (; fd < p->fullRank; ++fd)
            if (!p->dropped[fd] && ++seen == out)
              break;
          if (p->kind == M_SPATIAL) {
            p->dropped[fd] = true;
          } else {
            memmove(p->full + fd, p->full + fd + 1,
                    sizeof(int64_t) * (size_t)(p->fullRank - fd - 1));
            memmove(p->dropped + fd, p->dropped + fd + 1,
                    sizeof(bool) * (size_t)(p->fullRank - fd - 1));
            --p->fullRank;
          }
        }
        if (!matchesModel(r, &rm)) {
          ++reduceFail;
          char *rt = tilusLayoutPrint(r);
          printf("  reduce dim %lld of %s gave %s\n", (long long)dim, text,
                 rt ? rt : "(null)");
          free(rt);
        }
      }
      tilusLayoutDestroy(r);
    }

    free(again);
    free(text);
    tilusLayoutDestroy(back);
    tilusLayoutDestroy(le);
    tilusLayoutDestroy(el);
    tilusLayoutDestroy(l);
  }
  CHECK(modelFail == 0);
  CHECK(textFail == 0);
  CHECK(identityFail == 0);
  CHECK(formulaFail == 0);
  CHECK(validFail == 0);
  CHECK(locateFail == 0);
  CHECK(contigFail == 0);
  CHECK(reduceFail == 0);
  tilusLayoutDestroy(e);
}

void testAssociativity(void) {
  uint64_t rng = 12345;
  int failures = 0;
  for (int iter = 0; iter < 300; ++iter) {
    Model mf = randomModel(&rng, 12, 3, iter % 2 == 1);
    Model mg = randomModel(&rng, 12, 3, iter % 2 == 1);
    Model mh = randomModel(&rng, 12, 3, false);
    TilusLayout *f = buildLayout(&mf), *g = buildLayout(&mg),
                *h = buildLayout(&mh);
    TilusLayout *fg = tilusLayoutCompose(f, g), *gh = tilusLayoutCompose(g, h);
    TilusLayout *left = tilusLayoutCompose(fg, h);
    TilusLayout *right = tilusLayoutCompose(f, gh);
    if (!left || !tilusLayoutEqual(left, right) ||
        !composeMatchesFormula(fg, h, left) ||
        !composeMatchesFormula(f, gh, right))
      ++failures;
    tilusLayoutDestroy(f);
    tilusLayoutDestroy(g);
    tilusLayoutDestroy(h);
    tilusLayoutDestroy(fg);
    tilusLayoutDestroy(gh);
    tilusLayoutDestroy(left);
    tilusLayoutDestroy(right);
  }
  CHECK(failures == 0);
  /* Composition is not commutative. */
  TilusLayout *a = parse("spatial(2)"), *b = parse("local(2)");
  TilusLayout *ab = tilusLayoutCompose(a, b), *ba = tilusLayoutCompose(b, a);
  CHECK(!tilusLayoutEqual(ab, ba));
  tilusLayoutDestroy(a);
  tilusLayoutDestroy(b);
  tilusLayoutDestroy(ab);
  tilusLayoutDestroy(ba);
}

/*--- Division -----------------------------------------------------------------*/

static void checkDivide(const char *f, const char *g, const char *want) {
  TilusLayout *lf = parse(f), *lg = parse(g), *lw = want ? parse(want) : NULL;
  TilusLayoutError err = {{0}};
  TilusLayout *q = tilusLayoutDivide(lf, lg, &err);
  if (want) {
    CHECK_L(q && tilusLayoutEqual(q, lw), f);
    CHECK_L(tilusLayoutIsDivisibleBy(lf, lg), f);
  } else {
    CHECK_L(q == NULL && err.message[0] != '\0', f);
    CHECK_L(!tilusLayoutIsDivisibleBy(lf, lg), f);
  }
  tilusLayoutDestroy(lf);
  tilusLayoutDestroy(lg);
  tilusLayoutDestroy(lw);
  tilusLayoutDestroy(q);
}

void testDivide(void) {
  checkDivide("local(2,4)", "local(1,2)", "local(2,2)");
  checkDivide("local(2,1).spatial(8,4).local(1,2)", "local(1,2)",
              "local(2,1).spatial(8,4)");
  checkDivide("local(2,1).spatial(8,4).local(1,2)", "spatial(8,4).local(1,2)",
              "local(2,1)");
  checkDivide("local(2,1).spatial(8,4).local(1,2)", "local(1)",
              "local(2,1).spatial(8,4).local(1,2)");
  checkDivide("spatial(32).local(8)", "local(8)", "spatial(32)");
  checkDivide("spatial(32).local(8)", "local(4)", "spatial(32).local(2)");
  checkDivide("spatial(4,8)", "spatial(1,8)", "spatial(4,1)");
  checkDivide("local(2,1).spatial(8,4).local(1,2)", "local(2)",
              "local(2,1).spatial(8,4)"); /* the divisor is broadcast */
  checkDivide("local(1,2).swizzle(local(16,4),dim=1,log_step=1).local(1,8)",
              "local(1,8)", "local(1,2).swizzle(local(16,4),dim=1,log_step=1)");
  checkDivide("reduce(spatial(4,8),dims=[0])", "spatial(8)",
              "reduce(spatial(4,1),dims=[0])");
  checkDivide("local(2,4)", "local(2,2)", NULL); /* split not exact */
  checkDivide("local(2,4)", "local(1,3)", NULL);
  checkDivide("local(8)", "spatial(2)", NULL);
  checkDivide("local(4)", "local(2,2)", NULL); /* divisor rank too high */
  checkDivide("spatial(4).local(2)", "spatial(2).local(2)", "spatial(2)");
  checkDivide("spatial(4).local(2)", "local(2).spatial(2)", NULL);

  uint64_t rng = 777;
  int failures = 0;
  for (int iter = 0; iter < 300; ++iter) {
    Model mf = randomModel(&rng, 16, 3, iter % 3 == 2);
    Model mg = randomModel(&rng, 16, 3, iter % 3 == 2);
    TilusLayout *f = buildLayout(&mf), *g = buildLayout(&mg);
    TilusLayout *fg = tilusLayoutCompose(f, g);
    TilusLayoutError err = {{0}};
    TilusLayout *q = tilusLayoutDivide(fg, g, &err);
    TilusLayout *back = tilusLayoutCompose(q, g);
    if (!q || !tilusLayoutEqual(back, fg)) {
      ++failures;
      char *a = tilusLayoutPrint(fg), *b = tilusLayoutPrint(g);
      printf("  divide %s by %s: %s\n", a, b, err.message);
      free(a);
      free(b);
    }
    tilusLayoutDestroy(f);
    tilusLayoutDestroy(g);
    tilusLayoutDestroy(fg);
    tilusLayoutDestroy(q);
    tilusLayoutDestroy(back);
  }
  CHECK(failures == 0);
}

/*--- Broadcast, reduce, swizzle -----------------------------------------------*/
