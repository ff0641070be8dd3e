/* N-body, direct summation with a leapfrog step, as a C programmer would write it: the
 * arithmetic and its order are those of benchmarks/programs/nbody.l0 (each body's pull
 * summed over all bodies in order, the softening 0.01 added last), so the results agree
 * to the last bit. The loops over bodies carry `omp parallel for`: built with -fopenmp
 * this is the OpenMP version, without it the sequential one.
 * Build: gcc -O3 -march=native -fno-math-errno -ffp-contract=off [-fopenmp] nbody.c -lm
 */
#include <math.h>
#include <string.h>

#include "bench.h"

static void step(int64_t n, double dt, const double *m, double *x, double *y, double *z,
                 double *vx, double *vy, double *vz) {
#pragma omp parallel for
  for (int64_t i = 0; i < n; i++) {
    double ax = 0.0, ay = 0.0, az = 0.0;
    for (int64_t j = 0; j < n; j++) {
      double dx = x[j] - x[i], dy = y[j] - y[i], dz = z[j] - z[i];
      double d2 = 0.01 + (dx * dx + dy * dy + dz * dz);
      double inv = 1.0 / sqrt(d2);
      double s = m[j] * inv * inv * inv;
      ax += dx * s;
      ay += dy * s;
      az += dz * s;
    }
    vx[i] += dt * ax;
    vy[i] += dt * ay;
    vz[i] += dt * az;
  }
#pragma omp parallel for
  for (int64_t i = 0; i < n; i++) {
    x[i] += dt * vx[i];
    y[i] += dt * vy[i];
    z[i] += dt * vz[i];
  }
}

int main(int argc, char **argv) {
  int runs;
  FILE *f = open_input(argc, argv, &runs);
  int64_t one, n, dims[7];
  int64_t *steps = read_array(f, argv[1], 0, &one, sizeof(int64_t));
  double *dt = read_array(f, argv[1], 0, &one, sizeof(double));
  double *in[7];
  for (int k = 0; k < 7; k++) {
    in[k] = read_array(f, argv[1], 1, &dims[k], sizeof(double));
    if (dims[k] != dims[0]) die("arrays of different lengths in", argv[1]);
  }
  fclose(f);
  n = dims[0];
  int64_t out_n = 6 * n;
  for (int run = 0; run < runs; run++) {
    double t0 = now_us();
    /* The state lives in the result: positions then velocities, as main returns them. */
    double *out = malloc((size_t)out_n * sizeof *out);
    if (out == NULL) die("out of memory", "result");
    for (int k = 0; k < 6; k++) memcpy(out + k * n, in[k + 1], (size_t)n * sizeof *out);
    for (int64_t s = 0; s < *steps; s++)
      step(n, *dt, in[0], out, out + n, out + 2 * n, out + 3 * n, out + 4 * n, out + 5 * n);
    double t1 = now_us();
    printf("%.3f\n", t1 - t0);
    if (run == runs - 1) write_array(argv[2], 1, &out_n, out, sizeof *out);
    free(out);
  }
  return 0;
}
