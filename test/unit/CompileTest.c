//===- CompileTest.c - tilusCompile from a plain C program ----------------===//
//
// tilus-compile-test [--threads N] FILE [TARGET]: compiles FILE with
// tilusCompile (no MLIR object in sight), writes the artifact to stdout, each
// diagnostic line to stderr, and exits 1 on failure. The lit test compares the
// artifact with tilus-opt's and checks the diagnostics of bad input. With
// --threads N, N threads compile FILE at the same time, three times each
// (the first calls race on the process-wide registrations), and every result
// must equal the others; one of them is written.
//
//===----------------------------------------------------------------------===//

#include "Utils/ReadFile.h"
#include "Utils/StringBuffer.h"
#include "tilus-c/Target.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void writeTo(MlirStringRef text, void *userData) {
  fwrite(text.data, 1, text.length, (FILE *)userData);
}

static void appendTo(MlirStringRef text, void *userData) {
  tilusStringBufferAppend(userData, text.data, text.length);
}

typedef struct {
  MlirStringRef source;
  const TilusCompileOptions *options;
  TilusStringBuffer results[3];
  bool failed;
} Job;

static void *compileThrice(void *arg) {
  Job *job = arg;
  for (int i = 0; i < 3; ++i)
    if (mlirLogicalResultIsFailure(tilusCompile(job->source, job->options,
                                                appendTo, &job->results[i],
                                                writeTo, stderr)) ||
        job->results[i].failed)
      job->failed = true;
  return NULL;
}

static bool sameText(const TilusStringBuffer *a, const TilusStringBuffer *b) {
  return a->length == b->length && memcmp(a->data, b->data, a->length) == 0;
}

// Compiles in `numThreads` threads at once; 0 when every result is the same.
static int compileInThreads(MlirStringRef source,
                            const TilusCompileOptions *options,
                            int numThreads) {
  Job *jobs = calloc((size_t)numThreads, sizeof(Job));
  pthread_t *threads = calloc((size_t)numThreads, sizeof(pthread_t));
  if (!jobs || !threads) {
    fprintf(stderr, "tilus-compile-test: out of memory\n");
    return 1;
  }
  int started = 0, status = 0;
  for (; started < numThreads; ++started) {
    jobs[started].source = source;
    jobs[started].options = options;
    if (pthread_create(&threads[started], NULL, compileThrice,
                       &jobs[started]) != 0) {
      fprintf(stderr, "tilus-compile-test: cannot start thread %d\n", started);
      status = 1;
      break;
    }
  }
  for (int t = 0; t < started; ++t)
    pthread_join(threads[t], NULL);
  for (int t = 0; t < started && status == 0; ++t) {
    for (int i = 0; i < 3 && status == 0; ++i) {
      if (jobs[t].failed) {
        fprintf(stderr, "tilus-compile-test: thread %d failed\n", t);
        status = 1;
      } else if (!sameText(&jobs[t].results[i], &jobs[0].results[0])) {
        fprintf(stderr, "tilus-compile-test: thread %d, compile %d differs\n",
                t, i);
        status = 1;
      }
    }
  }
  if (status == 0)
    fwrite(jobs[0].results[0].data, 1, jobs[0].results[0].length, stdout);
  for (int t = 0; t < numThreads; ++t)
    for (int i = 0; i < 3; ++i)
      tilusStringBufferRelease(&jobs[t].results[i]);
  free(jobs);
  free(threads);
  return status;
}

int main(int argc, char **argv) {
  int numThreads = 0, first = 1;
  if (argc > 2 && strcmp(argv[1], "--threads") == 0) {
    numThreads = atoi(argv[2]);
    first = 3;
  }
  if (argc - first < 1 || argc - first > 2 || (first == 3 && numThreads < 1)) {
    fprintf(stderr, "usage: tilus-compile-test [--threads N] FILE [TARGET]\n");
    return 2;
  }
  size_t length = 0;
  FILE *in = fopen(argv[first], "rb");
  char *source = in ? tilusReadStream(in, &length) : NULL;
  if (in)
    fclose(in);
  if (!source) {
    fprintf(stderr, "tilus-compile-test: cannot read '%s'\n", argv[first]);
    return 1;
  }
  TilusCompileOptions options = tilusCompileOptionsDefault();
  options.sourceName = argv[first];
  options.target = argc - first == 2 ? argv[first + 1] : NULL;
  MlirStringRef text = mlirStringRefCreate(source, length);
  int status;
  if (numThreads > 0)
    status = compileInThreads(text, &options, numThreads);
  else
    status = mlirLogicalResultIsSuccess(
                 tilusCompile(text, &options, writeTo, stdout, writeTo, stderr))
                 ? 0
                 : 1;
  free(source);
  return status;
}
