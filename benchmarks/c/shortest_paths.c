/* P2, one step of all-pairs shortest paths (thesis Part IV), as a C programmer would write
 * it: out[i][j] = min(D[i][j], 1200, min_k D[i][k] + D[k][j]), where 1200 is the program's
 * infinity. D is transposed first so that the inner loop reads both operands with unit
 * stride, as the functional program does (D's rows against transpose(D)'s rows).
 * Build: gcc -O3 -march=native shortest_paths.c
 */
#include "bench.h"

static inline int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

static void shortest_paths(int64_t n, const int64_t *d, int64_t *out) {
  int64_t *dt = transposed(n, n, d);
  for (int64_t i = 0; i < n; i++) {
    const int64_t *di = d + i * n;
    for (int64_t j = 0; j < n; j++) {
      const int64_t *dtj = dt + j * n;
      int64_t best = 1200;
      for (int64_t k = 0; k < n; k++) best = min64(best, di[k] + dtj[k]);
      out[i * n + j] = min64(best, di[j]);
    }
  }
  free(dt);
}

int main(int argc, char **argv) {
  int runs;
  FILE *f = open_input(argc, argv, &runs);
  int64_t dd[2];
  int64_t *d = read_array(f, argv[1], 2, dd, sizeof(int64_t));
  fclose(f);
  if (dd[0] != dd[1]) die("a matrix that is not square in", argv[1]);
  for (int run = 0; run < runs; run++) {
    double t0 = now_us();
    int64_t *out = malloc((size_t)(dd[0] * dd[1]) * sizeof *out);
    if (out == NULL) die("out of memory", "result");
    shortest_paths(dd[0], d, out);
    double t1 = now_us();
    printf("%.3f\n", t1 - t0);
    if (run == runs - 1) write_array(argv[2], 2, dd, out, sizeof *out);
    free(out);
  }
  return 0;
}
