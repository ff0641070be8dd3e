/* P1, matrix multiplication (thesis Part IV), as a C programmer would write it: y is
 * transposed first so that every dot product reads both operands with unit stride, which
 * is also what the functional program computes (x's rows against transpose(y)'s rows).
 * 64-bit ints; the inputs are small enough that no sum overflows.
 * Build: gcc -O3 -march=native matmul.c
 */
#include "bench.h"

static void matmul(int64_t n, int64_t m, int64_t p, const int64_t *x, const int64_t *y,
                   int64_t *out) {
  int64_t *yt = transposed(p, m, y);
  for (int64_t i = 0; i < n; i++) {
    const int64_t *xi = x + i * m;
    for (int64_t j = 0; j < p; j++) {
      const int64_t *ytj = yt + j * m;
      int64_t sum = 0;
      for (int64_t k = 0; k < m; k++) sum += xi[k] * ytj[k];
      out[i * p + j] = sum;
    }
  }
  free(yt);
}

int main(int argc, char **argv) {
  int runs;
  FILE *f = open_input(argc, argv, &runs);
  int64_t xd[2], yd[2];
  int64_t *x = read_array(f, argv[1], 2, xd, sizeof(int64_t));
  int64_t *y = read_array(f, argv[1], 2, yd, sizeof(int64_t));
  fclose(f);
  if (xd[1] != yd[0]) die("matrices of incompatible shapes in", argv[1]);
  int64_t od[2] = {xd[0], yd[1]};
  for (int run = 0; run < runs; run++) {
    double t0 = now_us();
    int64_t *out = malloc((size_t)(od[0] * od[1]) * sizeof *out);
    if (out == NULL) die("out of memory", "result");
    matmul(xd[0], xd[1], yd[1], x, y, out);
    double t1 = now_us();
    printf("%.3f\n", t1 - t0);
    if (run == runs - 1) write_array(argv[2], 2, od, out, sizeof *out);
    free(out);
  }
  return 0;
}
