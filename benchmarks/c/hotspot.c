/* Hotspot (Rodinia's hotspot: a 2-D stencil in a time loop), as a C programmer would
 * write it, computing what benchmarks/programs/hotspot.l0 computes in the same order
 * (a cell on the edge takes itself for its missing neighbour): two grids swapped after
 * each step. The loop over rows carries `omp parallel for`: built with -fopenmp this is
 * the OpenMP version, without it the sequential one.
 * Build: gcc -O3 -march=native -fno-math-errno -ffp-contract=off [-fopenmp] hotspot.c
 */
#include <string.h>

#include "bench.h"

static void step(int64_t rows, int64_t cols, const double *t, const double *p, double *out) {
  const double k = 0.5, ry = 0.1, rx = 0.1, rz = 0.0125, amb = 80.0;
#pragma omp parallel for
  for (int64_t i = 0; i < rows; i++)
    for (int64_t j = 0; j < cols; j++) {
      double c = t[i * cols + j];
      double n = i > 0 ? t[(i - 1) * cols + j] : c;
      double s = i < rows - 1 ? t[(i + 1) * cols + j] : c;
      double w = j > 0 ? t[i * cols + j - 1] : c;
      double e = j < cols - 1 ? t[i * cols + j + 1] : c;
      out[i * cols + j] =
          c + k * (p[i * cols + j] + (s + n - 2.0 * c) * ry + (e + w - 2.0 * c) * rx +
                   (amb - c) * rz);
    }
}

int main(int argc, char **argv) {
  int runs;
  FILE *f = open_input(argc, argv, &runs);
  int64_t one, td[2], pd[2];
  int64_t *steps = read_array(f, argv[1], 0, &one, sizeof(int64_t));
  double *temp = read_array(f, argv[1], 2, td, sizeof(double));
  double *power = read_array(f, argv[1], 2, pd, sizeof(double));
  fclose(f);
  if (td[0] != pd[0] || td[1] != pd[1]) die("grids of different shapes in", argv[1]);
  size_t cells = (size_t)(td[0] * td[1]);
  for (int run = 0; run < runs; run++) {
    double t0 = now_us();
    double *a = malloc(cells * sizeof *a), *b = malloc(cells * sizeof *b);
    if (a == NULL || b == NULL) die("out of memory", "grids");
    memcpy(a, temp, cells * sizeof *a);
    for (int64_t s = 0; s < *steps; s++) {
      step(td[0], td[1], a, power, b);
      double *swap = a;
      a = b;
      b = swap;
    }
    free(b);
    double t1 = now_us();
    printf("%.3f\n", t1 - t0);
    if (run == runs - 1) write_array(argv[2], 2, td, a, sizeof *a);
    free(a);
  }
  return 0;
}
