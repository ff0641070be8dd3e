/* Histogram, as a C programmer would write it, computing what
 * benchmarks/programs/histogram.l0 computes: one pass over the points, each point in
 * [0, k) adding one to its bucket.
 * Build: gcc -O3 -march=native -fno-math-errno -ffp-contract=off histogram.c
 */
#include "bench.h"

int main(int argc, char **argv) {
  int runs;
  FILE *f = open_input(argc, argv, &runs);
  int64_t one, n;
  int64_t *k = read_array(f, argv[1], 0, &one, sizeof(int64_t));
  int64_t *points = read_array(f, argv[1], 1, &n, sizeof(int64_t));
  fclose(f);
  for (int run = 0; run < runs; run++) {
    double t0 = now_us();
    int64_t *counts = calloc((size_t)*k, sizeof *counts);
    if (!counts) die("out of memory", "histogram");
    for (int64_t i = 0; i < n; i++)
      if (points[i] >= 0 && points[i] < *k) counts[points[i]]++;
    double t1 = now_us();
    printf("%.3f\n", t1 - t0);
    if (run == runs - 1) write_array(argv[2], 1, k, counts, sizeof *counts);
    free(counts);
  }
  return 0;
}
