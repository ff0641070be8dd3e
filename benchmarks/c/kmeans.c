/* K-means clustering (Rodinia's kmeans with a fixed number of iterations), as a C
 * programmer would write it, computing what benchmarks/programs/kmeans.l0 computes in the
 * same order: each point's squared distance to each centre summed over the features in
 * order, the nearest centre (the first on a tie), then per centre the sum of its points
 * in point order divided by their count (a centre with no points stays put). The loop
 * over points carries `omp parallel for`: built with -fopenmp this is the OpenMP
 * version, without it the sequential one. The first k points are the initial centres.
 * Build: gcc -O3 -march=native -fno-math-errno -ffp-contract=off [-fopenmp] kmeans.c -lm
 */
#include <string.h>

#include "bench.h"

static double dist2(int64_t d, const double *p, const double *c) {
  double s = 0.0;
  for (int64_t f = 0; f < d; f++) s += (p[f] - c[f]) * (p[f] - c[f]);
  return s;
}

static void kmeans(int64_t n, int64_t d, int64_t k, int64_t iterations, const double *points,
                   double *centres, int64_t *membership, double *sums, int64_t *counts) {
  memcpy(centres, points, (size_t)(k * d) * sizeof *centres);
  for (int64_t it = 0; it < iterations; it++) {
#pragma omp parallel for
    for (int64_t i = 0; i < n; i++) {
      const double *p = points + i * d;
      double best = dist2(d, p, centres);
      int64_t bi = 0;
      for (int64_t j = 0; j < k; j++) {
        double dj = dist2(d, p, centres + j * d);
        if (dj < best || (dj == best && j < bi)) {
          best = dj;
          bi = j;
        }
      }
      membership[i] = bi;
    }
    memset(sums, 0, (size_t)(k * d) * sizeof *sums);
    memset(counts, 0, (size_t)k * sizeof *counts);
    for (int64_t i = 0; i < n; i++) {
      int64_t c = membership[i];
      for (int64_t f = 0; f < d; f++) sums[c * d + f] += points[i * d + f];
      counts[c]++;
    }
    for (int64_t c = 0; c < k; c++)
      if (counts[c] != 0)
        for (int64_t f = 0; f < d; f++) centres[c * d + f] = sums[c * d + f] / (double)counts[c];
  }
}

int main(int argc, char **argv) {
  int runs;
  FILE *f = open_input(argc, argv, &runs);
  int64_t one, dims[2];
  int64_t *k = read_array(f, argv[1], 0, &one, sizeof(int64_t));
  int64_t *iterations = read_array(f, argv[1], 0, &one, sizeof(int64_t));
  double *points = read_array(f, argv[1], 2, dims, sizeof(double));
  fclose(f);
  int64_t n = dims[0], d = dims[1];
  if (*k < 1 || *k > n) die("k must be between 1 and the number of points in", argv[1]);
  int64_t od[2] = {*k, d};
  for (int run = 0; run < runs; run++) {
    double t0 = now_us();
    double *centres = malloc((size_t)(*k * d) * sizeof *centres);
    double *sums = malloc((size_t)(*k * d) * sizeof *sums);
    int64_t *counts = malloc((size_t)*k * sizeof *counts);
    int64_t *membership = malloc((size_t)n * sizeof *membership);
    if (!centres || !sums || !counts || !membership) die("out of memory", "kmeans");
    kmeans(n, d, *k, *iterations, points, centres, membership, sums, counts);
    free(sums);
    free(counts);
    free(membership);
    double t1 = now_us();
    printf("%.3f\n", t1 - t0);
    if (run == runs - 1) write_array(argv[2], 2, od, centres, sizeof *centres);
    free(centres);
  }
  return 0;
}
