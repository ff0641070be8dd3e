/* R1, local volatility calibration (finpar's LocVolCalib, the thesis's real-world benchmark
 * R1), as a C programmer would write it: the loops of finpar's sequential C++ reference over
 * flat arrays, the same arithmetic as benchmarks/programs/locvolcalib.l0. For each strike,
 * a Crank-Nicolson solve: back over the time steps, an explicit step in x and y, then an
 * implicit step in x and in y (a tridiagonal solve per grid row).
 * Build: gcc -O3 -march=native locvolcalib.c -lm
 */
#include <math.h>

#include "bench.h"

static inline double max(double a, double b) { return a < b ? b : a; }

/* The second-derivative stencil at each point of x: three weights, zero at the boundaries. */
static void init_operator(int64_t n, const double *x, double (*dxx)[3]) {
  for (int64_t i = 0; i < n; i++) {
    if (0 < i && i < n - 1) {
      double dxl = x[i] - x[i - 1], dxu = x[i + 1] - x[i];
      dxx[i][0] = 2.0 / dxl / (dxl + dxu);
      dxx[i][1] = -2.0 * (1.0 / dxl + 1.0 / dxu) / (dxl + dxu);
      dxx[i][2] = 2.0 / dxu / (dxl + dxu);
    } else {
      dxx[i][0] = dxx[i][1] = dxx[i][2] = 0.0;
    }
  }
}

/* Solve the tridiagonal system (a, b, c) u = r; uu is scratch space. u may be r. */
static void tridag(int64_t n, const double *a, const double *b, const double *c, const double *r,
                   double *u, double *uu) {
  u[0] = r[0];
  uu[0] = b[0];
  for (int64_t i = 1; i < n; i++) {
    double beta = a[i] / uu[i - 1];
    uu[i] = b[i] - beta * c[i - 1];
    u[i] = r[i] - beta * u[i - 1];
  }
  u[n - 1] = u[n - 1] / uu[n - 1];
  for (int64_t i = n - 2; i >= 0; i--) u[i] = (u[i] - c[i] * u[i + 1]) / uu[i];
}

typedef struct {
  int64_t numX, numY, numT;
  double *x, *y, *timeline, (*dxx)[3], (*dyy)[3];
  double *result, *varX; /* [numX][numY] */
  double *u;             /* [numY][numX] */
  double *v;             /* [numX][numY] */
  double *a, *b, *c, *r, *uu; /* [max(numX, numY)] */
} grid_t;

/* One time step back from timeline[g + 1] to timeline[g]. */
static void rollback(grid_t *gr, int64_t g, double varY) {
  const int64_t nx = gr->numX, ny = gr->numY;
  double *res = gr->result, *varX = gr->varX, *u = gr->u, *v = gr->v;
  double dtInv = 1.0 / (gr->timeline[g + 1] - gr->timeline[g]);
  /* explicit y */
  for (int64_t i = 0; i < nx; i++)
    for (int64_t j = 0; j < ny; j++) {
      double acc = 0.0;
      if (0 < j) acc += (0.5 * varY * gr->dyy[j][0]) * res[i * ny + j - 1];
      acc += (0.5 * varY * gr->dyy[j][1]) * res[i * ny + j];
      if (j < ny - 1) acc += (0.5 * varY * gr->dyy[j][2]) * res[i * ny + j + 1];
      v[i * ny + j] = acc;
    }
  /* explicit x, plus explicit y */
  for (int64_t j = 0; j < ny; j++)
    for (int64_t i = 0; i < nx; i++) {
      double var = varX[i * ny + j];
      double acc = dtInv * res[i * ny + j];
      if (0 < i) acc += 0.5 * (0.5 * var * gr->dxx[i][0]) * res[(i - 1) * ny + j];
      acc += 0.5 * (0.5 * var * gr->dxx[i][1]) * res[i * ny + j];
      if (i < nx - 1) acc += 0.5 * (0.5 * var * gr->dxx[i][2]) * res[(i + 1) * ny + j];
      u[j * nx + i] = acc + v[i * ny + j];
    }
  /* implicit x */
  for (int64_t j = 0; j < ny; j++) {
    for (int64_t i = 0; i < nx; i++) {
      double var = varX[i * ny + j];
      gr->a[i] = -0.5 * (0.5 * var * gr->dxx[i][0]);
      gr->b[i] = dtInv - 0.5 * (0.5 * var * gr->dxx[i][1]);
      gr->c[i] = -0.5 * (0.5 * var * gr->dxx[i][2]);
    }
    tridag(nx, gr->a, gr->b, gr->c, u + j * nx, u + j * nx, gr->uu);
  }
  /* implicit y */
  for (int64_t i = 0; i < nx; i++) {
    for (int64_t j = 0; j < ny; j++) {
      gr->a[j] = -0.5 * (0.5 * varY * gr->dyy[j][0]);
      gr->b[j] = dtInv - 0.5 * (0.5 * varY * gr->dyy[j][1]);
      gr->c[j] = -0.5 * (0.5 * varY * gr->dyy[j][2]);
      gr->r[j] = dtInv * u[j * nx + i] - 0.5 * v[i * ny + j];
    }
    tridag(ny, gr->a, gr->b, gr->c, gr->r, res + i * ny, gr->uu);
  }
}

static double value(grid_t *gr, double s0, double strike, double t, double alpha, double nu,
                    double beta) {
  const int64_t nx = gr->numX, ny = gr->numY, nt = gr->numT;
  for (int64_t i = 0; i < nt; i++) gr->timeline[i] = t * (double)i / (double)(nt - 1);
  double stdX = 20.0 * alpha * s0 * sqrt(t);
  double dx = stdX / (double)nx;
  int64_t xindex = (int64_t)(s0 / dx) % nx;
  for (int64_t i = 0; i < nx; i++) gr->x[i] = (double)i * dx - (double)xindex * dx + s0;
  double stdY = 10.0 * nu * sqrt(t);
  double dy = stdY / (double)ny;
  double logAlpha = log(alpha);
  int64_t yindex = ny / 2;
  for (int64_t i = 0; i < ny; i++) gr->y[i] = (double)i * dy - (double)yindex * dy + logAlpha;
  init_operator(nx, gr->x, gr->dxx);
  init_operator(ny, gr->y, gr->dyy);
  for (int64_t i = 0; i < nx; i++) {
    double payoff = max(gr->x[i] - strike, 0.0);
    for (int64_t j = 0; j < ny; j++) gr->result[i * ny + j] = payoff;
  }
  for (int64_t g = nt - 2; g >= 0; g--) {
    double tnow = gr->timeline[g];
    for (int64_t i = 0; i < nx; i++) {
      double logx = log(gr->x[i]);
      for (int64_t j = 0; j < ny; j++)
        gr->varX[i * ny + j] = exp(2.0 * (beta * logx + gr->y[j] - 0.5 * nu * nu * tnow));
    }
    rollback(gr, g, nu * nu);
  }
  return gr->result[xindex * ny + yindex];
}

static void *alloc(size_t bytes) {
  void *p = malloc(bytes);
  if (p == NULL) die("out of memory", "grid");
  return p;
}

static void locvolcalib(int64_t outer, int64_t nx, int64_t ny, int64_t nt, double s0, double t,
                        double alpha, double nu, double beta, double *out) {
  int64_t nz = nx > ny ? nx : ny;
  grid_t gr = {.numX = nx, .numY = ny, .numT = nt};
  gr.x = alloc(nx * sizeof(double));
  gr.y = alloc(ny * sizeof(double));
  gr.timeline = alloc(nt * sizeof(double));
  gr.dxx = alloc(nx * sizeof *gr.dxx);
  gr.dyy = alloc(ny * sizeof *gr.dyy);
  gr.result = alloc(nx * ny * sizeof(double));
  gr.varX = alloc(nx * ny * sizeof(double));
  gr.u = alloc(nx * ny * sizeof(double));
  gr.v = alloc(nx * ny * sizeof(double));
  gr.a = alloc(nz * sizeof(double));
  gr.b = alloc(nz * sizeof(double));
  gr.c = alloc(nz * sizeof(double));
  gr.r = alloc(nz * sizeof(double));
  gr.uu = alloc(nz * sizeof(double));
  for (int64_t i = 0; i < outer; i++)
    out[i] = value(&gr, s0, 0.001 * (double)i, t, alpha, nu, beta);
  void *bufs[] = {gr.x, gr.y, gr.timeline, gr.dxx, gr.dyy, gr.result, gr.varX,
                  gr.u, gr.v, gr.a, gr.b, gr.c, gr.r, gr.uu};
  for (size_t k = 0; k < sizeof bufs / sizeof *bufs; k++) free(bufs[k]);
}

int main(int argc, char **argv) {
  int runs;
  FILE *f = open_input(argc, argv, &runs);
  int64_t none[1], n[4];
  double real[5];
  for (int k = 0; k < 4; k++) {
    int64_t *p = read_array(f, argv[1], 0, none, sizeof(int64_t));
    n[k] = *p;
    free(p);
  }
  for (int k = 0; k < 5; k++) {
    double *p = read_array(f, argv[1], 0, none, sizeof(double));
    real[k] = *p;
    free(p);
  }
  fclose(f);
  int64_t outer = n[0];
  if (outer < 0 || n[1] < 3 || n[2] < 3 || n[3] < 2) die("grid too small in", argv[1]);
  for (int run = 0; run < runs; run++) {
    double t0 = now_us();
    double *out = malloc((size_t)outer * sizeof *out + 1);
    if (out == NULL) die("out of memory", "result");
    locvolcalib(outer, n[1], n[2], n[3], real[0], real[1], real[2], real[3], real[4], out);
    double t1 = now_us();
    printf("%.3f\n", t1 - t0);
    if (run == runs - 1) write_array(argv[2], 1, &outer, out, sizeof *out);
    free(out);
  }
  return 0;
}
