/* LSD radix sort, one bit per pass, as a C programmer would write it, computing what
 * benchmarks/programs/radix_sort.l0 computes: per bit, a pass counting the keys whose bit
 * is 0, then a pass writing each key to the next free place of its class (the zeros
 * first) in a second buffer; the buffers are swapped after each pass.
 * Build: gcc -O3 -march=native -fno-math-errno -ffp-contract=off radix_sort.c
 */
#include <string.h>

#include "bench.h"

static int64_t *radix_sort(int64_t bits, int64_t n, int64_t *a, int64_t *b) {
  for (int64_t bit = 0; bit < bits; bit++) {
    int64_t zeros = 0;
    for (int64_t i = 0; i < n; i++) zeros += ((a[i] >> bit) & 1) == 0;
    int64_t j = 0, k = zeros;
    for (int64_t i = 0; i < n; i++) {
      if (((a[i] >> bit) & 1) == 0)
        b[j++] = a[i];
      else
        b[k++] = a[i];
    }
    int64_t *t = a;
    a = b;
    b = t;
  }
  return a;
}

int main(int argc, char **argv) {
  int runs;
  FILE *f = open_input(argc, argv, &runs);
  int64_t one, n;
  int64_t *bits = read_array(f, argv[1], 0, &one, sizeof(int64_t));
  int64_t *keys = read_array(f, argv[1], 1, &n, sizeof(int64_t));
  fclose(f);
  for (int run = 0; run < runs; run++) {
    double t0 = now_us();
    int64_t *a = malloc((size_t)n * sizeof *a), *b = malloc((size_t)n * sizeof *b);
    if (!a || !b) die("out of memory", "radix_sort");
    memcpy(a, keys, (size_t)n * sizeof *a);
    int64_t *sorted = radix_sort(*bits, n, a, b);
    double t1 = now_us();
    printf("%.3f\n", t1 - t0);
    if (run == runs - 1) write_array(argv[2], 1, &n, sorted, sizeof *sorted);
    free(a);
    free(b);
  }
  return 0;
}
