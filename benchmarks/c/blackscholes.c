/* P0, Black-Scholes option pricing (thesis Part IV), as a C programmer would write it:
 * one loop over the options, the same arithmetic as benchmarks/programs/blackscholes.l0.
 * Build: gcc -O3 -march=native blackscholes.c -lm
 */
#include <math.h>

#include "bench.h"

static inline double horner(double x) {
  const double c1 = 0.31938153, c2 = -0.356563782, c3 = 1.781477937, c4 = -1.821255978,
               c5 = 1.330274429;
  return x * (c1 + x * (c2 + x * (c3 + x * (c4 + x * c5))));
}

static inline double cnd0(double d) {
  double k = 1.0 / (1.0 + 0.2316419 * fabs(d));
  double p = horner(k);
  double rsqrt2pi = 0.39894228040143267793994605993438;
  return rsqrt2pi * exp(-0.5 * d * d) * p;
}

static inline double cnd(double d) {
  double c = cnd0(d);
  return 0.0 < d ? 1.0 - c : c;
}

static void blackscholes(int64_t n, const uint8_t *calls, const double *prices,
                         const double *strikes, const double *years, double *out) {
  const double r = 0.08; /* risk-free interest rate */
  const double v = 0.30; /* volatility */
  for (int64_t i = 0; i < n; i++) {
    double price = prices[i], strike = strikes[i];
    double v_sqrtT = v * sqrt(years[i]);
    double d1 = (log(price / strike) + (r + 0.5 * v * v) * years[i]) / v_sqrtT;
    double d2 = d1 - v_sqrtT;
    double cndD1 = cnd(d1);
    double cndD2 = cnd(d2);
    double x_expRT = strike * exp(-r * years[i]);
    out[i] = calls[i] ? price * cndD1 - x_expRT * cndD2
                      : x_expRT * (1.0 - cndD2) - price * (1.0 - cndD1);
  }
}

int main(int argc, char **argv) {
  int runs;
  FILE *f = open_input(argc, argv, &runs);
  int64_t n, n1, n2, n3;
  uint8_t *calls = read_array(f, argv[1], 1, &n, 1);
  double *prices = read_array(f, argv[1], 1, &n1, sizeof(double));
  double *strikes = read_array(f, argv[1], 1, &n2, sizeof(double));
  double *years = read_array(f, argv[1], 1, &n3, sizeof(double));
  fclose(f);
  if (n1 != n || n2 != n || n3 != n) die("arrays of different lengths in", argv[1]);
  for (int run = 0; run < runs; run++) {
    double t0 = now_us();
    double *out = malloc((size_t)n * sizeof *out);
    if (out == NULL) die("out of memory", "result");
    blackscholes(n, calls, prices, strikes, years, out);
    double t1 = now_us();
    printf("%.3f\n", t1 - t0);
    if (run == runs - 1) write_array(argv[2], 1, &n, out, sizeof *out);
    free(out);
  }
  return 0;
}
