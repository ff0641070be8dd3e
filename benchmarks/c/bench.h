/* bench.h: what the C versions of the benchmarks share: reading their input, writing their
 * result, and the clock.
 *
 * A C version is run as `PROG INPUT.bin OUTPUT RUNS`: it reads the arrays that
 * `benchmarks/datagen.py` wrote to INPUT.bin (per array an int64 rank, the int64 dimensions,
 * then the elements: int64, double, or one byte per bool), computes its result RUNS times,
 * printing the time of each computation in microseconds on its own line, and writes the
 * last result to OUTPUT in the same layout. Only the computation is timed: allocating the
 * result is part of it (the L0 program allocates its result too), reading and writing
 * files are not.
 */
#ifndef BENCH_H
#define BENCH_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define MAX_RANK 4

static void die(const char *what, const char *path) {
  fprintf(stderr, "error: %s: %s\n", what, path);
  exit(2);
}

/* Read the next array of rank `rank` from `f` into a fresh buffer; its dimensions go to `dims`. */
/* A fresh rows x cols array holding the transpose of the cols x rows array `a`, so that
 * an inner loop over a column of `a` runs with unit stride (matmul, shortest_paths). */
static inline int64_t *transposed(int64_t rows, int64_t cols, const int64_t *a) {
  int64_t *t = malloc((size_t)(rows * cols) * sizeof *t);
  if (t == NULL) die("out of memory", "transpose");
  for (int64_t k = 0; k < cols; k++)
    for (int64_t j = 0; j < rows; j++) t[j * cols + k] = a[k * rows + j];
  return t;
}

static void *read_array(FILE *f, const char *path, int64_t rank, int64_t *dims, size_t elem_size) {
  int64_t r;
  if (fread(&r, sizeof r, 1, f) != 1 || r != rank) die("unexpected array rank in", path);
  if (fread(dims, sizeof *dims, (size_t)rank, f) != (size_t)rank) die("truncated header in", path);
  size_t count = 1;
  for (int64_t i = 0; i < rank; i++) count *= (size_t)dims[i];
  void *data = malloc(count * elem_size + 1);
  if (data == NULL) die("out of memory reading", path);
  if (fread(data, elem_size, count, f) != count) die("truncated data in", path);
  return data;
}

static void write_array(const char *path, int64_t rank, const int64_t *dims, const void *data,
                        size_t elem_size) {
  FILE *f = fopen(path, "wb");
  if (f == NULL) die("cannot write", path);
  size_t count = 1;
  for (int64_t i = 0; i < rank; i++) count *= (size_t)dims[i];
  fwrite(&rank, sizeof rank, 1, f);
  fwrite(dims, sizeof *dims, (size_t)rank, f);
  if (fwrite(data, elem_size, count, f) != count) die("cannot write", path);
  fclose(f);
}

static FILE *open_input(int argc, char **argv, int *runs) {
  if (argc != 4 || (*runs = atoi(argv[3])) < 1) {
    fprintf(stderr, "usage: %s INPUT.bin OUTPUT RUNS\n", argv[0]);
    exit(2);
  }
  FILE *f = fopen(argv[1], "rb");
  if (f == NULL) die("cannot open", argv[1]);
  return f;
}

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

#endif
