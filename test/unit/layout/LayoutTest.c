/*===-- LayoutTest.c - Unit tests of the layout algebra ---------------*- C -*-===*\
|*                                                                            *|
|* Expected values are written by hand or come from a small reference model  *|
|* in this file (primitives evaluated by the paper's formulas, composition   *|
|* by its recursive definition), not from the code under test; composition   *|
|* is also checked against definition 4 applied to the operands' values.     *|
|* Prints one line per failed check and ends with                            *|
|*   layout tests: N passed, M failed                                        *|
\*===----------------------------------------------------------------------===*/

#include "LayoutTestSupport.h"

int main(void) {
  testFigure3();
  testFigure4();
  testFigure5();
  testRandomChains();
  testAssociativity();
  testDivide();
  testBroadcast();
  testReduce();
  testSwizzle();
  testPaperLayouts();
  testTextMisc();
  testQueries();
  testLimits();
  testQueriesAgainstOracle();
  testFragmentsAgainstOracle();
  testBroadcastSlots();
  testMmaShared();
  testTranspose();
  printf("layout tests: %d passed, %d failed\n", gPassed, gFailed);
  return gFailed > 0 ? 1 : 0;
}
