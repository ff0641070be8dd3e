/* Value input and output for finpar's sequential C++ references, written for this
 * repository: finpar's own `ParserC.h` and `Util.h` are not part of the reference sources
 * the runner builds from, so `ParserC.h` and `Util.h` here include this file instead.
 *
 * It reads the format of finpar's `input.data` / `output.data` from stdin: numbers
 * separated by whitespace, `//` comments to the end of the line, arrays as nested
 * `[a, b, ...]`. Every reader returns 0 on success and nonzero on a syntax error. */
#ifndef FINPAR_IO_H
#define FINPAR_IO_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

static int finpar_peek(void) {
    for (;;) {
        int c = getchar();
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
        if (c == '/') {
            int d = getchar();
            if (d == '/') {
                while (c != '\n' && c != EOF) c = getchar();
                continue;
            }
            ungetc(d, stdin);
        }
        if (c != EOF) ungetc(c, stdin);
        return c;
    }
}

/* Consume the next non-blank character if it is `want`. */
static int finpar_accept(int want) {
    if (finpar_peek() != want) return 0;
    getchar();
    return 1;
}

static int finpar_token(char* buf, size_t size) {
    size_t n = 0;
    finpar_peek();
    for (int c = getchar(); c != EOF; c = getchar()) {
        if (!(c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' ||
              (c >= '0' && c <= '9'))) {
            ungetc(c, stdin);
            break;
        }
        if (n + 1 >= size) return 1;
        buf[n++] = (char)c;
    }
    buf[n] = 0;
    return n == 0;
}

static int read_int(void* dest) {
    char buf[64], *end;
    if (finpar_token(buf, sizeof buf)) return 1;
    long v = strtol(buf, &end, 10);
    if (*end) return 1;
    *(int*)dest = (int)v;
    return 0;
}

static int read_double(void* dest) {
    char buf[64], *end;
    if (finpar_token(buf, sizeof buf)) return 1;
    *(double*)dest = strtod(buf, &end);
    return *end != 0;
}

static int read_float(void* dest) {
    double d;
    if (read_double(&d)) return 1;
    *(float*)dest = (float)d;
    return 0;
}

/* One (nested) array of `dims` dimensions of elements read by `reader` into a malloc'ed
 * row-major buffer; its shape in `shape`. Rows must be of equal length. */
static int finpar_read_rows(size_t elem, int (*reader)(void*), char** buf, size_t* used,
                            size_t* cap, int64_t* shape, int dims, int depth) {
    if (!finpar_accept('[')) return 1;
    int64_t count = 0;
    if (!finpar_accept(']')) {
        do {
            if (depth + 1 == dims) {
                if (*used + elem > *cap) {
                    *cap = *cap * 2 + elem * 64;
                    *buf = (char*)realloc(*buf, *cap);
                }
                if (reader(*buf + *used)) return 1;
                *used += elem;
            } else if (finpar_read_rows(elem, reader, buf, used, cap, shape, dims, depth + 1)) {
                return 1;
            }
            count++;
        } while (finpar_accept(','));
        if (!finpar_accept(']')) return 1;
    }
    if (shape[depth] < 0) shape[depth] = count;
    return shape[depth] != count;
}

static int read_array(size_t elem, int (*reader)(void*), void** data, int64_t* shape,
                      int dims) {
    for (int i = 0; i < dims; i++) shape[i] = -1;
    char* buf = NULL;
    size_t used = 0, cap = 0;
    if (finpar_read_rows(elem, reader, &buf, &used, &cap, shape, dims, 0)) {
        free(buf);
        return 1;
    }
    for (int i = 0; i < dims; i++)
        if (shape[i] < 0) shape[i] = 0;
    *data = buf ? buf : malloc(elem);
    return 0;
}

static void write_scal(const double* x, const char* what) {
    fprintf(stdout, "%.6f \t// %s\n", *x, what);
}

static void write_scal(const float* x, const char* what) {
    double d = *x;
    write_scal(&d, what);
}

template <typename T>
static void write_1Darr(const T* a, int n, const char* what) {
    fprintf(stdout, "\n [ ");
    for (int i = 0; i < n; i++) fprintf(stdout, "%s%.6f", i ? ", " : "", (double)a[i]);
    fprintf(stdout, " ]\t//%s\n", what);
}

template <typename T>
static void write_2Darr(const T* a, int rows, int cols, const char* what) {
    fprintf(stdout, "\n[ ");
    for (int i = 0; i < rows; i++) {
        fprintf(stdout, "%s[ ", i ? ",\n  " : "");
        for (int j = 0; j < cols; j++)
            fprintf(stdout, "%s%.6f", j ? ", " : "", (double)a[i * cols + j]);
        fprintf(stdout, " ]");
    }
    fprintf(stdout, " ]\t//%s\n", what);
}

/* t1 - t0 into result; 1 if negative. */
static int timeval_subtract(struct timeval* result, struct timeval* t1, struct timeval* t0) {
    long diff = (t1->tv_usec + 1000000L * t1->tv_sec) - (t0->tv_usec + 1000000L * t0->tv_sec);
    result->tv_sec = diff / 1000000L;
    result->tv_usec = diff % 1000000L;
    return diff < 0;
}

/* InterestCalib's reference computes in float and calls std::min(1.0, a float), which
 * compilers of its time accepted and today's reject as ambiguous. */
#include <algorithm>
namespace std {
inline double min(double a, float b) { return b < a ? b : a; }
}

#endif
