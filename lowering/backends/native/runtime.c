/* The runtime of executables made by `l0 compile` (lowering/backends/native/build.py).

   It reads main's arguments as text values from stdin (docs/reference.md section 6.2),
   calls the compiled entry point `l0.entry.main` (the slot convention of
   lowering/runtime/abi.py), prints the result exactly as l0-run does (section 6.3), and
   implements the functions compiled code calls (the trace callbacks of
   lowering/loop_ir/trace.py). Run-time errors print as l0-run prints them and exit with status 2.

   The program-specific tables (types of the arguments and results, error sites, trace
   sites) are generated and appended to this file by build.py. */

#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { K_INT, K_REAL, K_BOOL, K_CHAR, K_CERT };
static const char *const KIND_NAMES[] = {"int", "real", "bool", "char", "cert"};

typedef struct { int kind, rank; } l0_type;
/* One parameter of main in the IR: `input` is the index of the value read for it, or
   -1 for a certificate (always 1); arrays with `elem_size`-byte elements; `unique`
   when main may update it in place (a component of a unique array type). */
typedef struct { int input, kind, rank, elem_size, unique; int64_t offset; } l0_param;
typedef struct { int kind, rank, elem_size; } l0_result;
/* The components of one array-of-tuples parameter must agree in their outer shape. */
typedef struct { int param, first, count, rank; const char *type; } l0_group;
typedef struct { int64_t id; const char *prefix, *message, *suffix; } l0_error_site;
typedef struct { int64_t id; const char *loc; int kind, rank; } l0_trace_site;

/* Generated per program (appended below). */
extern const l0_type L0_INPUTS[];
extern const int L0_NINPUTS;
extern const l0_param L0_PARAMS[];
extern const int L0_NPARAMS;
extern const l0_result L0_RESULTS[];
extern const int L0_NRESULTS;
extern const int L0_PRINTED[];  /* result index to print, or -1 for `Checked` */
extern const int L0_NPRINTED;
extern const l0_group L0_GROUPS[];
extern const int L0_NGROUPS;
extern const l0_error_site L0_ERRORS[];
extern const int L0_NERRORS;
extern const char *const L0_OUT_OF_MEMORY, *const L0_NO_STACK_ROOM;
extern const l0_trace_site L0_TRACES[];
extern const int L0_NTRACES;
extern const int L0_CTX_SIZE;
extern int32_t l0_entry_main(int64_t *ctx, int64_t *slots) __asm__("l0.entry.main");

static const int ELEM_SIZE[] = {8, 8, 1, 4, 1};

/* ------------------------------------------------------------------ output */

static char *out_buf;
static size_t out_len, out_cap;

static void out_raw(const char *s, size_t n) {
    if (out_len + n > out_cap) {
        out_cap = (out_len + n) * 2 + 4096;
        out_buf = realloc(out_buf, out_cap);
        if (!out_buf) { fputs("error: out of memory while printing\n", stderr); exit(2); }
    }
    memcpy(out_buf + out_len, s, n);
    out_len += n;
}
static void out_str(const char *s) { out_raw(s, strlen(s)); }

/* Note [Haskell real rounding] (l0/values/printer.py): GHC's printf "%.6f" rounds the
   shortest round-trip digits half-to-even. C's %.6f agrees except for possible ties of
   the short digits and huge values, which take the exact path here too. */
static void shortest_digits(double x, char *buf, size_t n) {
    for (int p = 1; p <= 17; p++) {
        snprintf(buf, n, "%.*e", p - 1, x);
        if (strtod(buf, NULL) == x) return;
    }
}

static void format_real_exact(double x, char *out, size_t outn) {
    char e[64];
    shortest_digits(x, e, sizeof e);
    /* e = [-]d.ddddde[+-]XX : digits and a decimal exponent */
    int neg = e[0] == '-';
    const char *p = e + neg;
    char digits[40];
    int nd = 0;
    for (; *p && *p != 'e'; p++)
        if (*p != '.') digits[nd++] = *p;
    int exp10 = atoi(p + 1);
    /* value = 0.d1d2...dn * 10^(exp10+1); the point sits after `point` digits */
    int point = exp10 + 1;
    /* integer digits and 7+ fraction digits, as a plain digit string */
    char buf[400];
    int len = 0, ipart;
    if (point <= 0) {
        buf[len++] = '0';
        ipart = 1;
        for (int i = 0; i < -point; i++) buf[len++] = '0';
        for (int i = 0; i < nd; i++) buf[len++] = digits[i];
    } else {
        for (int i = 0; i < nd || i < point; i++) buf[len++] = i < nd ? digits[i] : '0';
        ipart = point;
    }
    while (len < ipart + 7) buf[len++] = '0';
    /* round half-even at 6 decimals */
    int keep = ipart + 6;
    int first = buf[keep] - '0';
    int rest_nonzero = 0;
    for (int i = keep + 1; i < len; i++) if (buf[i] != '0') rest_nonzero = 1;
    int up = first > 5 || (first == 5 && (rest_nonzero || ((buf[keep - 1] - '0') & 1)));
    char r[402];
    memcpy(r + 1, buf, keep);
    r[0] = '0';
    if (up) {
        int i = keep;
        while (i >= 1 && r[i] == '9') r[i--] = '0';
        r[i]++;
    }
    int start = r[0] == '0' ? 1 : 0;
    int all_zero = 1;
    for (int i = 1; i <= keep; i++) if (r[i] != '0') all_zero = 0;
    (void)all_zero;
    size_t o = 0;
    if (neg) out[o++] = '-';
    for (int i = start; i <= ipart; i++) out[o++] = r[i];
    out[o++] = '.';
    for (int i = ipart + 1; i <= keep; i++) out[o++] = r[i];
    out[o] = 0;
    (void)outn;
}

static void format_real(double x, char *out, size_t n) {
    if (isnan(x)) { snprintf(out, n, "NaN"); return; }
    if (isinf(x)) { snprintf(out, n, x > 0 ? "Infinity" : "-Infinity"); return; }
    if (fabs(x) < 1e8) {
        double y = x * 1e7, r = rint(y);
        int tie = fabs(y - r) <= 1e-12 * (fabs(y) + 1.0) && fabs(fmod(r, 10.0)) == 5.0;
        if (!tie) { snprintf(out, n, "%.6f", x); return; }
    }
    format_real_exact(x, out, n);
}

static void out_utf8(int64_t c) {
    char b[4];
    if (c < 0 || c > 0x10FFFF) c = 0xFFFD;
    if (c < 0x80) { b[0] = (char)c; out_raw(b, 1); }
    else if (c < 0x800) { b[0] = 0xC0 | (c >> 6); b[1] = 0x80 | (c & 63); out_raw(b, 2); }
    else if (c < 0x10000) {
        b[0] = 0xE0 | (c >> 12); b[1] = 0x80 | ((c >> 6) & 63); b[2] = 0x80 | (c & 63);
        out_raw(b, 3);
    } else {
        b[0] = 0xF0 | (c >> 18); b[1] = 0x80 | ((c >> 12) & 63);
        b[2] = 0x80 | ((c >> 6) & 63); b[3] = 0x80 | (c & 63); out_raw(b, 4);
    }
}

static const char *const ASCII_NAMES[] = {
    "NUL", "SOH", "STX", "ETX", "EOT", "ENQ", "ACK", "a", "b", "t", "n", "v",
    "f", "r", "SO", "SI", "DLE", "DC1", "DC2", "DC3", "DC4", "NAK", "SYN", "ETB",
    "CAN", "EM", "SUB", "ESC", "FS", "GS", "RS", "US"};

/* A char as Haskell's `show` writes it. */
static void out_show_char(int64_t c) {
    char b[32];
    if (c == '\'') { out_str("'\\''"); return; }
    out_str("'");
    if (c > 0x7F) { snprintf(b, sizeof b, "\\%" PRId64, c); out_str(b); }
    else if (c == 0x7F) out_str("\\DEL");
    else if (c == '\\') out_str("\\\\");
    else if (c >= 0x20) { b[0] = (char)c; out_raw(b, 1); }
    else if (c >= 0) { out_str("\\"); out_str(ASCII_NAMES[c]); }
    else { snprintf(b, sizeof b, "\\%" PRId64, c); out_str(b); }
    out_str("'");
}

static void out_scalar(int kind, const void *p) {
    char b[512];
    switch (kind) {
    case K_INT: snprintf(b, sizeof b, "%" PRId64, *(const int64_t *)p); out_str(b); break;
    case K_REAL: format_real(*(const double *)p, b, sizeof b); out_str(b); break;
    case K_BOOL: out_str(*(const uint8_t *)p ? "True" : "False"); break;
    case K_CHAR: out_show_char(*(const int32_t *)p); break;
    default: out_str("Checked");
    }
}

static void out_row_type(int kind, int rank) {
    out_str("empty(");
    for (int i = 1; i < rank; i++) out_str("[");
    out_str(KIND_NAMES[kind]);
    for (int i = 1; i < rank; i++) out_str("]");
    out_str(")");
}

/* Elements are `elem` bytes; `strides` in elements. `zero` is the first empty dimension
   (-1 if none), below which every sub-array prints as `empty(ROW)`. */
static void out_array_at(int kind, int rank, int d, int zero, const int64_t *shape,
                         const int64_t *strides, const char *p, int elem) {
    if (d == zero) { out_row_type(kind, rank - d); return; }
    if (kind == K_CHAR && d == rank - 1) {
        for (int64_t i = 0; i < shape[d]; i++)
            out_utf8(*(const int32_t *)(p + i * strides[d] * elem));
        return;
    }
    if (d == rank) {
        if (kind == K_BOOL || kind == K_CERT) {
            if (kind == K_CERT) out_str("Checked");
            else out_str(*(const uint8_t *)p ? "True" : "False");
        } else out_scalar(kind, p);
        return;
    }
    out_str("[");
    for (int64_t i = 0; i < shape[d]; i++) {
        if (i) out_str(", ");
        out_array_at(kind, rank, d + 1, zero, shape, strides, p + i * strides[d] * elem, elem);
    }
    out_str("]");
}

static void out_array(int kind, int rank, const int64_t *shape, const int64_t *strides,
                      const char *p, int elem) {
    int zero = -1;
    for (int d = 0; d < rank; d++) if (shape[d] == 0) { zero = d; break; }
    out_array_at(kind, rank, 0, zero, shape, strides, p, elem);
}

/* A value in 8-byte slots (scalar: one slot; array: the exploded descriptor). */
static void out_slots(int kind, int rank, int elem, const int64_t *s) {
    if (rank == 0) {
        int64_t v = s[0];
        switch (kind) {
        case K_REAL: out_scalar(K_REAL, &s[0]); break;
        case K_BOOL: { uint8_t b = v != 0; out_scalar(K_BOOL, &b); break; }
        case K_CHAR: { int32_t c = (int32_t)v; out_scalar(K_CHAR, &c); break; }
        default: out_scalar(kind, &v);
        }
        return;
    }
    const char *data = (const char *)(intptr_t)s[1] + s[2] * elem;
    out_array(kind, rank, s + 3, s + 3 + rank, data, elem);
}

/* ------------------------------------------------------------------ errors */

static const char *input_name = "<stdin>";
/* Input with binary values is located in bytes and shown without its line, as
   l0/values/binary.py does; text in characters, with its line. */
static int has_binary;

static void flush_out(void) {
    fwrite(out_buf, 1, out_len, stdout);
    out_len = 0;
    fflush(stdout);
}

/* The message of the run-time error in `ctx`, as l0-run prints it (without the final
   newline); NULL for an id no site has (a compiler bug). Owned by the caller. */
static char *runtime_error_text(const int64_t *ctx) {
    int64_t id = ctx[0];
    for (int i = 0; i < L0_NERRORS; i++) {
        if (L0_ERRORS[i].id != id) continue;
        const l0_error_site *e = &L0_ERRORS[i];
        char *text = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&text, &size);
        if (!f) return NULL;
        fputs(e->prefix, f);
        int heap = strcmp(e->message, L0_OUT_OF_MEMORY) == 0;
        if ((heap || strcmp(e->message, L0_NO_STACK_ROOM) == 0) && ctx[2] < 0) {
            fprintf(f, "%s: the requested array size does not fit in 64 bits",
                    heap ? "out of memory" : "stack overflow");
        } else {
            for (const char *m = e->message; *m; m++) {
                char *end;
                if (*m == '{' && m[1] >= '0' && m[1] <= '9') {
                    long k = strtol(m + 1, &end, 10);
                    if (*end == '}' && k < L0_CTX_SIZE - 2) {
                        fprintf(f, "%" PRId64, ctx[2 + k]);
                        m = end;
                        continue;
                    }
                }
                fputc(*m, f);
            }
        }
        fputs(e->suffix, f);
        fclose(f);
        return text;
    }
    return NULL;
}

#ifndef L0_LIBRARY
static _Noreturn void runtime_error(const int64_t *ctx) {
    flush_out();
    char *text = runtime_error_text(ctx);
    if (!text) {
        fprintf(stderr, "internal error: compiled code failed without reporting an error "
                "(id %" PRId64 ")\n", ctx[0]);
        exit(3);
    }
    fprintf(stderr, "%s\n", text);
    exit(2);
}
#endif

/* ------------------------------------------------------------------ trace */

static const l0_trace_site *trace_site(int64_t id) {
    for (int i = 0; i < L0_NTRACES; i++) if (L0_TRACES[i].id == id) return &L0_TRACES[i];
    return NULL;
}

static void trace_emit(void) {
    fwrite(out_buf, 1, out_len, stderr);
    out_len = 0;
}

void l0_trace_scalar(int64_t site, int64_t value) {
    const l0_trace_site *t = trace_site(site);
    if (!t) return;
    out_str(t->loc); out_str(": ");
    out_slots(t->kind, 0, 8, &value);
    out_str("\n");
    trace_emit();
}

void l0_trace_real(int64_t site, double value) {
    const l0_trace_site *t = trace_site(site);
    if (!t) return;
    out_str(t->loc); out_str(": ");
    out_scalar(K_REAL, &value);
    out_str("\n");
    trace_emit();
}

void l0_trace_array(int64_t site, int64_t data, int64_t offset, int64_t dims) {
    const l0_trace_site *t = trace_site(site);
    if (!t) return;
    const int64_t *meta = (const int64_t *)(intptr_t)dims;
    int elem = ELEM_SIZE[t->kind];
    out_str(t->loc); out_str(": ");
    out_array(t->kind, t->rank, meta, meta + t->rank,
              (const char *)(intptr_t)data + offset * elem, elem);
    out_str("\n");
    trace_emit();
}

#ifndef L0_LIBRARY
/* ------------------------------------------------------------------ input */

typedef struct {
    const char *text;
    size_t len, pos;
} reader;

typedef struct {
    char *data;
    size_t count, cap;   /* elements */
    int64_t shape[64];
    int known[64];       /* whether shape[d] has been fixed by a first row */
    int64_t scalar;      /* rank 0: the value as a slot */
} value;

static void where(const reader *r, size_t pos, int *line, int *col) {
    int l = 1;
    size_t start = 0;
    for (size_t i = 0; i < pos && i < r->len; i++)
        if (r->text[i] == '\n') { l++; start = i + 1; }
    *line = l;
    int c = 1;
    for (size_t i = start; i < pos && i < r->len; i++)
        if (has_binary || ((unsigned char)r->text[i] & 0xC0) != 0x80) c++;
    *col = c;
}

static const reader *input;  /* the input being read, for error messages */

/* A value error at `pos` of the input, as l0-run reports it: `<stdin>:L:C: error: ...`
   and the line with `^` under the `span` characters there (one if 0). */
static _Noreturn void input_error(size_t pos, size_t span, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static _Noreturn void input_error(size_t pos, size_t span, const char *fmt, ...) {
    va_list ap;
    int line, col;
    where(input, pos, &line, &col);
    flush_out();
    fprintf(stderr, "%s:%d:%d: error: ", input_name, line, col);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    if (has_binary) { fputc('\n', stderr); exit(2); }
    size_t start = pos, end;
    while (start > 0 && input->text[start - 1] != '\n') start--;
    end = start;
    while (end < input->len && input->text[end] != '\n') end++;
    size_t shown = end > start && input->text[end - 1] == '\r' ? end - 1 : end;
    char gutter[24];
    int width = snprintf(gutter, sizeof gutter, "%d", line);
    fprintf(stderr, "\n%*s |\n%d | %.*s\n%*s | ", width, "", line, (int)(shown - start),
            input->text + start, width, "");
    for (size_t i = start; i < pos; i++)
        if ((input->text[i] & 0xC0) != 0x80)
            fputc(i < shown && input->text[i] == '\t' ? '\t' : ' ', stderr);
    for (size_t i = 0; i < (span ? span : 1); i++) fputc('^', stderr);
    fputc('\n', stderr);
    exit(2);
}

static size_t token_len(const reader *r, size_t pos);

/* `found X` for the token at `pos` as l0-run shows it (`end of input`, or quoted,
   cut to 30 characters). */
static const char *shown(const reader *r, size_t pos) {
    static char buf[64];
    if (pos >= r->len) return "end of input";
    size_t n = token_len(r, pos);
    if (n <= 30) snprintf(buf, sizeof buf, "`%.*s`", (int)n, r->text + pos);
    else snprintf(buf, sizeof buf, "`%.*s...`", 27, r->text + pos);
    return buf;
}

static _Noreturn void fail_at(const reader *r, size_t pos, const char *what, int param) {
    input_error(pos, 0, "%s parameter %d, found %s", what, param, shown(r, pos));
}

static void skip_space(reader *r) {
    for (;;) {
        while (r->pos < r->len && (r->text[r->pos] == ' ' || r->text[r->pos] == '\n' ||
               r->text[r->pos] == '\t' || r->text[r->pos] == '\r' ||
               r->text[r->pos] == '\f' || r->text[r->pos] == '\v'))
            r->pos++;
        if (r->pos + 1 < r->len && r->text[r->pos] == '/' && r->text[r->pos + 1] == '/') {
            while (r->pos < r->len && r->text[r->pos] != '\n') r->pos++;
            continue;
        }
        return;
    }
}

static int is_word(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_';
}
static int is_digit(char c) { return c >= '0' && c <= '9'; }

static int accept(reader *r, const char *s) {
    size_t n = strlen(s);
    if (r->pos + n <= r->len && memcmp(r->text + r->pos, s, n) == 0 &&
        !(is_word(s[n - 1]) && r->pos + n < r->len && is_word(r->text[r->pos + n]))) {
        r->pos += n;
        return 1;
    }
    return 0;
}

static void push(value *v, const void *elem, int size) {
    if (v->count == v->cap) {
        v->cap = v->cap ? v->cap * 2 : 16;
        v->data = realloc(v->data, v->cap * size);
        if (!v->data) { fputs("error: out of memory while reading input\n", stderr); exit(2); }
    }
    memcpy(v->data + v->count * size, elem, size);
    v->count++;
}

/* The end of a number token at `pos` (the regex of l0/values/reader.py), 0 if none;
   `*real` tells whether it has a point or an exponent. */
static size_t number_end(const reader *r, size_t pos, int *real) {
    size_t p = pos;
    const char *t = r->text;
    size_t n = r->len;
    *real = 0;
    if (p < n && t[p] == '-') p++;
    size_t digits = p;
    while (p < n && is_digit(t[p])) p++;
    int whole = p > digits;
    if (p < n && t[p] == '.' && (whole || (p + 1 < n && is_digit(t[p + 1])))) {
        p++;
        *real = 1;
        while (p < n && is_digit(t[p])) p++;
    } else if (!whole) {
        return 0;
    }
    if (p < n && (t[p] == 'e' || t[p] == 'E')) {
        size_t q = p + 1;
        if (q < n && (t[q] == '+' || t[q] == '-')) q++;
        if (q < n && is_digit(t[q])) {
            while (q < n && is_digit(t[q])) q++;
            p = q;
            *real = 1;
        }
    }
    return p;
}

/* One UTF-8 character at `*p`. */
static int64_t utf8(const char *t, size_t n, size_t *p) {
    unsigned char c = (unsigned char)t[*p];
    int extra = c < 0x80 ? 0 : c < 0xE0 ? 1 : c < 0xF0 ? 2 : 3;
    int64_t v = extra == 0 ? c : extra == 1 ? c & 31 : extra == 2 ? c & 15 : c & 7;
    (*p)++;
    for (int k = 0; k < extra && *p < n; k++) v = (v << 6) | ((unsigned char)t[(*p)++] & 63);
    return v;
}

/* Haskell's escapes (l0/syntax/escapes.py): the backslash is at `*p`. Returns the code
   point, -2 for the empty escape `\&` and string gaps, or -1 with `escape_error` set;
   `*p` moves past the escape. */
static char escape_error[128];
static const char *const ESCAPE_NAMES[] = {
    "NUL", "SOH", "STX", "ETX", "EOT", "ENQ", "ACK", "BEL", "BS", "HT", "LF", "VT",
    "FF", "CR", "SO", "SI", "DLE", "DC1", "DC2", "DC3", "DC4", "NAK", "SYN", "ETB",
    "CAN", "EM", "SUB", "ESC", "FS", "GS", "RS", "US", "SP", "DEL"};

static int64_t escape(const char *t, size_t n, size_t *p, int in_string) {
    static const char *const singles = "abfnrtv\\\"'";
    static const char codes[] = {7, 8, 12, 10, 13, 9, 11, '\\', '"', '\''};
    size_t esc = *p, i = esc + 1;
    if (i >= n) { snprintf(escape_error, sizeof escape_error, "unterminated escape sequence"); return -1; }
    char c = t[i];
    const char *s = c ? strchr(singles, c) : NULL;
    if (s) { *p = i + 1; return codes[s - singles]; }
    int base = 0;
    size_t start = i;
    if (is_digit(c)) base = 10;
    else if (c == 'x') { base = 16; start = i + 1; }
    else if (c == 'o') { base = 8; start = i + 1; }
    if (base) {
        int64_t v = 0;
        size_t end = start;
        for (; end < n; end++) {
            int d = is_digit(t[end]) ? t[end] - '0'
                  : (t[end] >= 'a' && t[end] <= 'f') ? t[end] - 'a' + 10
                  : (t[end] >= 'A' && t[end] <= 'F') ? t[end] - 'A' + 10 : 99;
            if (d >= base) break;
            if (v <= 0x10FFFF) v = v * base + d;
        }
        if (end == start) {
            snprintf(escape_error, sizeof escape_error, "missing digits in numeric escape");
            return -1;
        }
        if (v > 0x10FFFF) {
            snprintf(escape_error, sizeof escape_error, "character escape '%.*s' is out of range",
                     (int)(end - esc > 60 ? 60 : end - esc), t + esc);
            return -1;
        }
        *p = end;
        return v;
    }
    if (c == '^') {
        if (i + 1 < n && t[i + 1] >= '@' && t[i + 1] <= '_') { *p = i + 2; return t[i + 1] - '@'; }
        snprintf(escape_error, sizeof escape_error, "invalid control escape: expected one of "
                 "@ A-Z [ \\ ] ^ _ after '\\^'");
        return -1;
    }
    int best = -1;
    size_t best_len = 0;
    for (int k = 0; k < 34; k++) {
        size_t l = strlen(ESCAPE_NAMES[k]);
        if (i + l <= n && memcmp(t + i, ESCAPE_NAMES[k], l) == 0 && l > best_len) {
            best = k;
            best_len = l;
        }
    }
    if (best >= 0) { *p = i + best_len; return best == 32 ? 0x20 : best == 33 ? 0x7F : best; }
    if (in_string && c == '&') { *p = i + 1; return -2; }
    if (in_string && c == ' ') {
        size_t end = i;
        while (end < n && t[end] == ' ') end++;
        if (end < n && t[end] == '\\') { *p = end + 1; return -2; }
        snprintf(escape_error, sizeof escape_error,
                 "unterminated string gap: expected '\\' after the spaces");
        return -1;
    }
    size_t q = i;
    int64_t ch = utf8(t, n, &q);
    if (ch >= 0x20 && ch != 0x7F) {
        snprintf(escape_error, sizeof escape_error, "invalid escape sequence '\\%.*s'",
                 (int)(q - i), t + i);
    } else {
        const char *named[] = {[7] = "a", [8] = "b", [9] = "t", [10] = "n", [11] = "v",
                               [12] = "f", [13] = "r"};
        if (ch < 14 && named[ch]) snprintf(escape_error, sizeof escape_error,
                                           "invalid escape sequence '\\\\%s'", named[ch]);
        else snprintf(escape_error, sizeof escape_error, "invalid escape sequence '\\\\x%02x'",
                      (unsigned)ch);
    }
    return -1;
}

/* The length of the token at `pos`, as the lexer of l0/values/reader.py sees it. */
static size_t token_len(const reader *r, size_t pos) {
    const char *t = r->text;
    size_t n = r->len, p = pos;
    int real;
    size_t end = number_end(r, pos, &real);
    if (end) return end - pos;
    if (t[p] == '-' && p + 1 < n && is_word(t[p + 1])) p++;
    if (is_word(t[p])) {
        while (p < n && is_word(t[p])) p++;
        return p - pos;
    }
    if (t[p] == '\'' || t[p] == '"') {
        char q = t[p++];
        while (p < n && t[p] != q && t[p] != '\n') p += t[p] == '\\' ? 2 : 1;
        return (p < n && t[p] == q ? p + 1 : p) - pos;
    }
    return 1;
}

static void read_scalar(reader *r, int kind, value *v, int param, int nested);

/* "expected a value of type T for" / "... in the array for" (then "parameter N"). */
static const char *expected(int kind, int rank, int nested) {
    static char buf[160];
    int n = snprintf(buf, sizeof buf, "expected a value of type ");
    for (int i = 0; i < rank; i++) n += snprintf(buf + n, sizeof buf - n, "[");
    n += snprintf(buf + n, sizeof buf - n, "%s", KIND_NAMES[kind]);
    for (int i = 0; i < rank; i++) n += snprintf(buf + n, sizeof buf - n, "]");
    snprintf(buf + n, sizeof buf - n, nested ? " in the array for" : " for");
    return buf;
}

static _Noreturn void expect_fail(const reader *r, size_t pos, const char *what) {
    input_error(pos, 0, "%s, found %s", what, shown(r, pos));
}

static void read_string(reader *r, value *v) {
    size_t start = r->pos;
    const char *t = r->text;
    r->pos++;
    for (;;) {
        if (r->pos >= r->len || t[r->pos] == '\n')
            input_error(start, 0, "unterminated string literal");
        if (t[r->pos] == '"') { r->pos++; return; }
        int32_t c;
        if (t[r->pos] == '\\') {
            size_t p = r->pos;
            int64_t e = escape(t, r->len, &p, 1);
            if (e == -1) input_error(r->pos, 0, "%s", escape_error);
            r->pos = p;
            if (e == -2) continue;
            c = (int32_t)e;
        } else {
            c = (int32_t)utf8(t, r->len, &r->pos);
        }
        push(v, &c, 4);
    }
}

/* Rows at depth `d` must agree in length; `index` is the row's place, from 0 (as the
   Python reader and run-time errors number rows). */
static void fix_dim(value *v, int d, int64_t n, size_t at, int64_t index) {
    if (!v->known[d]) { v->known[d] = 1; v->shape[d] = n; return; }
    if (v->shape[d] != n)
        input_error(at, 0, "irregular array: row %" PRId64 " has %" PRId64 " element%s, "
                    "expected %" PRId64, index, n, n == 1 ? "" : "s", v->shape[d]);
}

static void fix_empty(value *v, int d, int rank, size_t at, int64_t index) {
    fix_dim(v, d, 0, at, index);
    for (int k = d + 1; k < rank; k++) if (!v->known[k]) { v->known[k] = 1; v->shape[k] = 0; }
}

static void read_empty(reader *r, int kind, int sub_rank, size_t at, int param, int nested) {
    skip_space(r);
    if (!accept(r, "(")) expect_fail(r, r->pos, "expected `(` after `empty`");
    int depth = 0;
    for (;;) {
        skip_space(r);
        if (accept(r, "[")) depth++;
        else if (!accept(r, "*")) break;
    }
    int elem = -1;
    for (int k = 0; k < 5 && elem < 0; k++) if (accept(r, KIND_NAMES[k])) elem = k;
    if (elem < 0) expect_fail(r, r->pos, "expected a type in `empty(...)`");
    for (int i = 0; i < depth; i++) {
        skip_space(r);
        if (!accept(r, "]")) expect_fail(r, r->pos, "expected `]` in the type of `empty(...)`");
    }
    skip_space(r);
    if (!accept(r, ")")) expect_fail(r, r->pos, "expected `)` after the type in `empty(...)`");
    if (elem != kind || depth != sub_rank - 1) {
        char want[80], found[80], written[80];
        snprintf(want, sizeof want, "%s", expected(kind, sub_rank, nested));
        int n = 0, m = 0;
        for (int i = 0; i <= depth; i++) n += snprintf(found + n, sizeof found - n, "[");
        for (int i = 0; i < depth; i++) m += snprintf(written + m, sizeof written - m, "[");
        n += snprintf(found + n, sizeof found - n, "%s", KIND_NAMES[elem]);
        m += snprintf(written + m, sizeof written - m, "%s", KIND_NAMES[elem]);
        for (int i = 0; i <= depth; i++) n += snprintf(found + n, sizeof found - n, "]");
        for (int i = 0; i < depth; i++) m += snprintf(written + m, sizeof written - m, "]");
        input_error(at, 0, "%s parameter %d, found `empty(%s)` of type %s", want, param,
                    written, found);
    }
}

/* The elements of the sub-array at depth `d` (of `rank`), appended to `v`. */
static void read_array(reader *r, int kind, int rank, int d, int64_t index, value *v,
                       int param) {
    skip_space(r);
    size_t at = r->pos;
    if (kind == K_CHAR && d == rank - 1 && r->pos < r->len && r->text[r->pos] == '"') {
        size_t before = v->count;
        read_string(r, v);
        fix_dim(v, d, (int64_t)(v->count - before), at, index);
        return;
    }
    if (accept(r, "empty")) {
        read_empty(r, kind, rank - d, at, param, d > 0);
        fix_empty(v, d, rank, at, index);
        return;
    }
    if (!accept(r, "[")) {
        if (at < r->len && (r->text[at] == '(' || r->text[at] == '{'))
            input_error(at, 0, "%s parameter %d, found %s (tuples are given one component "
                        "at a time, without `(` or `{`)", expected(kind, rank - d, d > 0),
                        param, shown(r, at));
        fail_at(r, at, expected(kind, rank - d, d > 0), param);
    }
    int64_t n = 0;
    skip_space(r);
    if (accept(r, "]")) { fix_empty(v, d, rank, at, index); return; }
    for (;;) {
        n++;
        if (d + 1 == rank) read_scalar(r, kind, v, param, 1);
        else read_array(r, kind, rank, d + 1, n - 1, v, param);
        skip_space(r);
        if (accept(r, ",")) continue;
        if (accept(r, "]")) break;
        fail_at(r, r->pos, "expected `,` or `]` in the array for", param);
    }
    fix_dim(v, d, n, at, index);
}

/* A number glued to letters or a point (`1.5.3`, `2x`) is malformed. */
static void check_number_tail(const reader *r, size_t at, size_t end) {
    if (end < r->len && (is_word(r->text[end]) || r->text[end] == '.')) {
        size_t p = at;
        while (p < r->len && (is_word(r->text[p]) || strchr(".+-", r->text[p]))) p++;
        input_error(at, 0, "malformed number `%.*s`", (int)(p - at), r->text + at);
    }
}

static _Noreturn void scalar_fail(const reader *r, int kind, size_t at, int param, int nested) {
    int real;
    size_t end = number_end(r, at, &real);
    if (kind == K_REAL && end && !real)
        input_error(at, 0, "%s parameter %d, found %s (an int; write `%.*s.0` for a real)",
                    expected(kind, 0, nested), param, shown(r, at), (int)(end - at),
                    r->text + at);
    if (at < r->len && (r->text[at] == '(' || r->text[at] == '{'))
        input_error(at, 0, "%s parameter %d, found %s (tuples are given one component at a "
                    "time, without `(` or `{`)", expected(kind, 0, nested), param,
                    shown(r, at));
    fail_at(r, at, expected(kind, 0, nested), param);
}

static void read_scalar(reader *r, int kind, value *v, int param, int nested) {
    skip_space(r);
    size_t at = r->pos;
    const char *t = r->text;
    int real;
    size_t end = number_end(r, at, &real);
    if (end) check_number_tail(r, at, end);
    switch (kind) {
    case K_INT: {
        if (!end || real) scalar_fail(r, kind, at, param, nested);
        char buf[32];
        size_t digits = end - at;
        int64_t x = 0;
        errno = 0;
        if (digits < sizeof buf) {
            memcpy(buf, t + at, digits);
            buf[digits] = 0;
            x = strtoll(buf, NULL, 10);
        }
        if (digits >= sizeof buf || errno == ERANGE)
            input_error(at, end - at, "integer %s is out of the 64-bit range", shown(r, at));
        r->pos = end;
        if (nested) push(v, &x, 8); else v->scalar = x;
        return;
    }
    case K_REAL: {
        double x;
        if (accept(r, "Infinity")) x = INFINITY;
        else if (accept(r, "-Infinity")) x = -INFINITY;
        else if (accept(r, "NaN")) x = NAN;
        else {
            if (!end || !real) scalar_fail(r, kind, at, param, nested);
            char *copy = strndup(t + at, end - at);
            x = strtod(copy, NULL);
            free(copy);
            if (isinf(x))
                input_error(at, end - at, "real %s is too large for a 64-bit real",
                            shown(r, at));
            r->pos = end;
        }
        if (nested) push(v, &x, 8); else memcpy(&v->scalar, &x, 8);
        return;
    }
    case K_BOOL: {
        uint8_t b = 0;
        if (accept(r, "True")) b = 1;
        else if (!accept(r, "False")) scalar_fail(r, kind, at, param, nested);
        if (nested) push(v, &b, 1); else v->scalar = b;
        return;
    }
    case K_CHAR: {
        if (at >= r->len || t[at] != '\'') scalar_fail(r, kind, at, param, nested);
        size_t p = at + 1;
        int64_t c = -1;
        if (p < r->len && t[p] == '\\') {
            size_t esc = p;
            c = escape(t, r->len, &p, 0);
            if (c < 0) input_error(esc, 0, "%s", escape_error);
        } else if (p < r->len && t[p] != '\'' && t[p] != '\n') {
            c = utf8(t, r->len, &p);
        } else {
            input_error(at, 0, "unterminated or empty character literal");
        }
        if (p >= r->len || t[p] != '\'') {
            size_t q = p;
            while (q < r->len && t[q] != '\'' && t[q] != '\n') q++;
            if (q < r->len && t[q] == '\'')
                input_error(at, 0, "character literal `%.*s` has more than one character",
                            (int)(q + 1 - at), t + at);
            input_error(at, 0, "unterminated or empty character literal");
        }
        r->pos = p + 1;
        int32_t c32 = (int32_t)c;
        if (nested) push(v, &c32, 4); else v->scalar = c32;
        return;
    }
    default: {
        uint8_t one = 1;
        if (!accept(r, "Checked")) scalar_fail(r, kind, at, param, nested);
        if (nested) push(v, &one, 1); else v->scalar = 1;
    }
    }
}

/* ------------------------------------------------------------------ binary values */

/* Futhark's binary value format (l0/values/binary.py): `b`, version 2, rank, a 4-byte
   element type, the dimensions (u64) and the elements, little-endian. Each L0 type is
   read from the binary types l0-run accepts for it, the first being the one written. */
static const char *const BINARY_NAMES[] = {" i64", " f64", "bool", " i32"};
static const char *const KNOWN_TYPES[] = {"  i8", " i16", " i32", " i64", "  u8", " u16",
                                          " u32", " u64", " f16", " f32", " f64", "bool"};

static void type_text(char *buf, size_t n, int kind, int rank) {
    size_t k = 0;
    for (int i = 0; i < rank; i++) k += snprintf(buf + k, n - k, "[");
    k += snprintf(buf + k, n - k, "%s", KIND_NAMES[kind]);
    for (int i = 0; i < rank; i++) k += snprintf(buf + k, n - k, "]");
}

static uint64_t read_u64(const char *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | (unsigned char)p[i];
    return v;
}

static void read_binary(reader *r, int kind, int want_rank, value *v, int param) {
    const char *t = r->text;
    size_t start = r->pos;
    if (r->len < start + 7) input_error(start, 0, "truncated binary value header");
    if ((unsigned char)t[start + 1] != 2)
        input_error(start, 0, "binary value of format version %d, expected 2",
                    (unsigned char)t[start + 1]);
    int rank = (unsigned char)t[start + 2];
    const char *name = t + start + 3;
    int known = 0;
    for (int i = 0; i < 12; i++) if (!memcmp(name, KNOWN_TYPES[i], 4)) known = 1;
    if (!known) input_error(start, 0, "unknown binary element type '%.4s'", name);
    int ok = kind != K_CERT && rank == want_rank &&
             (!memcmp(name, BINARY_NAMES[kind], 4) || (kind == K_CHAR && !memcmp(name, "  u8", 4)));
    if (!ok) {
        char want[80], form[32];
        type_text(want, sizeof want, kind, want_rank);
        if (kind == K_CERT) snprintf(form, sizeof form, "none");
        else snprintf(form, sizeof form, "rank %d of '%s'", want_rank, BINARY_NAMES[kind]);
        input_error(start, 0, "expected a value of type %s for parameter %d, found a binary "
                    "value of rank %d of '%.4s' (binary form: %s)", want, param, rank, name,
                    form);
    }
    size_t dims_at = start + 7;
    if (r->len < dims_at + 8 * (size_t)rank) input_error(start, 0, "truncated binary value header");
    int size = kind == K_CHAR && name[3] == '8' ? 1 : ELEM_SIZE[kind];
    /* `span`: the bytes the array spans in memory, its empty dimensions counted as 1
       (saturating), at most 2^63 - 1 as in l0/values/binary.py: sizes are int64_t. */
    unsigned __int128 count = 1, span = ELEM_SIZE[kind] > size ? ELEM_SIZE[kind] : size;
    const unsigned __int128 cap = (unsigned __int128)1 << 64;
    char shape[400] = "";
    size_t sk = 0;
    for (int d = 0; d < rank; d++) {
        uint64_t n = read_u64(t + dims_at + 8 * d);
        v->shape[d] = (int64_t)n;
        v->known[d] = 1;
        count *= n;
        if (count > ((unsigned __int128)1 << 62)) count = (unsigned __int128)1 << 62;
        span *= n ? n : 1;
        if (span > cap) span = cap;
        sk += snprintf(shape + sk, sizeof shape - sk, d ? "x%" PRIu64 : "%" PRIu64, n);
    }
    if (span > (unsigned __int128)INT64_MAX)
        input_error(start, 0, "binary value too large: %s of '%.4s' (an array may hold at "
                    "most %" PRId64 " bytes, counting its empty dimensions as 1)", shape, name,
                    INT64_MAX);
    size_t elems_at = dims_at + 8 * (size_t)rank;
    unsigned __int128 bytes = count * (unsigned)size;
    if (bytes > r->len - elems_at)
        input_error(start, 0, "truncated binary value: %s of '%.4s' needs %llu bytes, %zu are "
                    "left", rank ? shape : "scalar", name, (unsigned long long)bytes,
                    r->len - elems_at);
    size_t n = (size_t)count;
    const char *p = t + elems_at;
    for (size_t i = 0; i < n; i++) {
        if (kind == K_BOOL && (unsigned char)p[i] > 1)
            input_error(start, 0, "binary bool value other than 0 or 1");
        if (kind == K_CHAR) {
            int64_t c;
            if (size == 1) c = (unsigned char)p[i];
            else { int32_t c32; memcpy(&c32, p + 4 * i, 4); c = c32; }
            if (c < 0 || c > 0x10FFFF)
                input_error(start, 0, "binary '%.4s' value is not a character code", name);
        }
    }
    if (rank == 0) {
        if (kind == K_CHAR) v->scalar = size == 1 ? (unsigned char)p[0] : *(const int32_t *)(const void *)p;
        else if (kind == K_BOOL) v->scalar = (unsigned char)p[0];
        else memcpy(&v->scalar, p, 8);
    } else if (kind == K_CHAR && size == 1) {
        for (size_t i = 0; i < n; i++) { int32_t c = (unsigned char)p[i]; push(v, &c, 4); }
    } else {
        v->data = malloc(n * size + 1);
        if (!v->data) { fputs("error: out of memory while reading input\n", stderr); exit(2); }
        memcpy(v->data, p, n * size);
        v->count = v->cap = n;
    }
    r->pos = elems_at + (size_t)bytes;
}

/* One flattened value in binary (`l0-run -b`): arrays copied out row-major. */
static void out_binary(int kind, int rank, int elem, const int64_t *s) {
    char header[7] = {'b', 2, (char)rank};
    memcpy(header + 3, BINARY_NAMES[kind], 4);
    out_raw(header, 7);
    if (rank == 0) {
        int64_t x = s[0];
        if (kind == K_BOOL) { uint8_t b = x != 0; out_raw((char *)&b, 1); }
        else if (kind == K_CHAR) { int32_t c = (int32_t)x; out_raw((char *)&c, 4); }
        else out_raw((const char *)&s[0], 8);
        return;
    }
    const int64_t *shape = s + 3, *strides = s + 3 + rank;
    size_t total = 1;
    for (int d = 0; d < rank; d++) {
        uint64_t n = (uint64_t)shape[d];
        out_raw((char *)&n, 8);
        total *= (size_t)shape[d];
    }
    const char *base = (const char *)(intptr_t)s[1] + s[2] * elem;
    int64_t idx[64] = {0};
    for (size_t i = 0; i < total; i++) {
        const char *p = base;
        for (int d = 0; d < rank; d++) p += idx[d] * strides[d] * elem;
        out_raw(p, elem);
        for (int d = rank - 1; d >= 0; d--) {
            if (++idx[d] < shape[d]) break;
            idx[d] = 0;
        }
    }
}

#endif /* L0_LIBRARY */

/* ------------------------------------------------------------------ running main */

#define STACK_BYTES ((size_t)1 << 29)   /* as l0.bigstack: only touched pages cost memory */
#define STACK_MARGIN ((int64_t)1 << 20) /* as l0.lowering.backends.jit: room for frames between checks */

typedef struct {
    int64_t *slots, *ctx;
    int status;
} call;

#ifdef L0_MULTICORE
/* The multicore back end: parallel loops run on the threads of libgomp, linked in. */
void omp_set_num_threads(int);

static long l0_threads = -1; /* -1: not chosen yet; 0: libgomp's default */

/* The thread count, as l0-run takes it: `--threads N`, else L0_NUM_THREADS (digits only,
   0 for libgomp's default: OMP_NUM_THREADS or all cores). */
static long env_threads(void) {
    const char *env = getenv("L0_NUM_THREADS");
    if (!env || !*env) return 0;
    for (const char *p = env; *p; p++)
        if (*p < '0' || *p > '9') return 0;
    return strtol(env, NULL, 10);
}

/* ICVs such as the thread count belong to the thread that sets them, and main runs on
   a thread of its own (run_main): set it there. */
static void set_threads(void) {
    if (l0_threads < 0) l0_threads = env_threads();
    if (l0_threads > 0) omp_set_num_threads((int)(l0_threads < 1 << 20 ? l0_threads : 1 << 20));
}
#endif

/* The lowest address compiled code may push this thread's stack to (abi.py
   CTX_STACK_FLOOR); 0 when the stack is not known. */
static int64_t stack_floor(void) {
    pthread_attr_t attr;
    void *addr;
    size_t size;
    int64_t floor = 0;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
        if (pthread_attr_getstack(&attr, &addr, &size) == 0 && addr) {
            int64_t margin = STACK_MARGIN < (int64_t)size / 4 ? STACK_MARGIN : (int64_t)size / 4;
            floor = (int64_t)(intptr_t)addr + margin;
        }
        pthread_attr_destroy(&attr);
    }
    return floor;
}

/* Run `work(arg)` on a thread with a big stack (on this one if none can be made). */
static void on_big_stack(void *(*work)(void *), void *arg) {
    pthread_attr_t attr;
    pthread_t thread;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, STACK_BYTES);
    if (pthread_create(&thread, &attr, work, arg) != 0) work(arg);
    else pthread_join(thread, NULL);
    pthread_attr_destroy(&attr);
}

#ifdef L0_LIBRARY
static void *call_main(void *arg) {
    call *c = arg;
#ifdef L0_MULTICORE
    set_threads();
#endif
    c->ctx[1] = stack_floor();
    c->status = l0_entry_main(c->ctx, c->slots);
    return NULL;
}

static int run_main(int64_t *ctx, int64_t *slots) {
    call c = {slots, ctx, 0};
    on_big_stack(call_main, &c);
    return c.status;
}
#endif

#ifndef L0_LIBRARY
static char *read_all(FILE *f, size_t *len) {
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (!buf) { fputs("error: out of memory while reading input\n", stderr); exit(2); }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
        if (n == cap) { cap *= 2; buf = realloc(buf, cap); }
    }
    *len = n;
    return buf;
}

static void usage(const char *prog) {
    fprintf(stderr, "usage: %s [-r N] [-t FILE] [-b] [-v]%s < input\n"
            "Runs the compiled L0 program's main on the values read from stdin and prints "
            "its result.\n  -r N     run main N times (the result is printed once)\n"
            "  -t FILE  write the run time of each run in microseconds to FILE\n"
            "  -b       write the result in Futhark's binary value format\n"
            "  -v       report on stderr the copies made of the arguments\n"
#ifdef L0_MULTICORE
            "  --threads N  run parallel loops on N threads (default: L0_NUM_THREADS, "
            "else all cores)\n"
#endif
            "Input values may be text or binary, mixed.\n", prog,
#ifdef L0_MULTICORE
            " [--threads N]"
#else
            ""
#endif
            );
}

#ifdef L0_MULTICORE
/* Worker threads get OMP_STACKSIZE of stack, 256 MiB unless the user chose (as under
   l0-run: l0.lowering.runtime.openmp_runtime), so that deep recursion in a parallel loop fails
   as late there. libgomp reads it when it is loaded, before main: set it, then start
   the program again (on failure, go on with libgomp's default). */
static void ensure_worker_stacks(char **argv) {
    if (getenv("OMP_STACKSIZE")) return;
    setenv("OMP_STACKSIZE", "256M", 1);
    execv("/proc/self/exe", argv);
}
#endif

static size_t array_bytes(const value *v, int rank, int elem) {
    size_t n = (size_t)elem;
    for (int d = 0; d < rank; d++) n *= (size_t)v->shape[d];
    return n;
}

/* The arrays copied for the arguments, and their bytes (reported by `-v`). */
typedef struct { long arrays; size_t bytes; } copies;

/* Fill the argument slots, each array in a buffer of its own (`owned`, NULL at first).
   Every array is copied for the first run; for a later one (`again`) only those of unique
   parameters, which the run before may have updated in place: copying the others again
   would only leave them modified in this core's cache (Note [Inputs of repeated runs]
   in l0/values/arguments.py). */
static void fill_slots(int64_t *slots, value *values, void **owned, int again,
                       copies *made) {
    int pos = 0;
    for (int i = 0; i < L0_NPARAMS; i++) {
        const l0_param *p = &L0_PARAMS[i];
        if (p->input < 0) { slots[pos++] = 1; continue; }
        value *v = &values[p->input];
        if (p->rank == 0) { slots[pos++] = v->scalar; continue; }
        size_t bytes = array_bytes(v, p->rank, p->elem_size);
        if (!owned[i] || (again && p->unique)) {
            free(owned[i]);
            char *copy = aligned_alloc(64, (bytes + 63) / 64 * 64 + 64);
            if (!copy) { fputs("error: out of memory for the arguments\n", stderr); exit(2); }
            if (bytes) memcpy(copy, v->data, bytes);
            owned[i] = copy;
            made->arrays++;
            made->bytes += bytes;
        }
        slots[pos++] = 0;  /* allocated: NULL, compiled code does not own it */
        slots[pos++] = (int64_t)(intptr_t)owned[i] - p->offset * p->elem_size;
        slots[pos++] = p->offset;
        int64_t stride = 1;
        for (int d = p->rank - 1; d >= 0; d--) {
            slots[pos + d] = v->shape[d];
            slots[pos + p->rank + d] = stride;
            stride *= v->shape[d];
        }
        pos += 2 * p->rank;
    }
}

static int slot_count(int rank) { return rank ? 3 + 2 * rank : 1; }

static void check_groups(value *values) {
    for (int g = 0; g < L0_NGROUPS; g++) {
        const l0_group *grp = &L0_GROUPS[g];
        int same = 1;
        for (int k = 1; k < grp->count; k++)
            for (int d = 0; d < grp->rank; d++)
                if (values[grp->first + k].shape[d] != values[grp->first].shape[d]) same = 0;
        if (same) continue;
        fprintf(stderr, "%s:1:1: error: the arrays of argument %d (of type %s) must have the "
                "same outer shape, found ", input_name, grp->param, grp->type);
        for (int k = 0; k < grp->count; k++) {
            const value *v = &values[grp->first + k];
            int rank = L0_INPUTS[grp->first + k].rank;
            int r = rank < grp->rank ? rank : grp->rank;
            if (k) fputs(", ", stderr);
            if (r == 0) fputs("scalar", stderr);
            for (int d = 0; d < r; d++)
                fprintf(stderr, d ? "x%" PRId64 : "%" PRId64, v->shape[d]);
        }
        fputc('\n', stderr);
        exit(2);
    }
}

/* `-r N`: every run on one big-stack thread, so that the threads of libgomp, which
   belong to the thread that starts a parallel region, are made once and reused. */
typedef struct {
    long runs, nin;
    int64_t *slots, *ctx, *times;
    value *values;
    void **owned;
    copies first, later;  /* argument copies before the first run, and the later ones */
} repeat;

static void *run_repeatedly(void *arg) {
    repeat *job = arg;
    int64_t *slots = job->slots, *ctx = job->ctx;
    long nin = job->nin;
#ifdef L0_MULTICORE
    set_threads();
#endif
    int64_t floor = stack_floor();
    for (long run = 0; run < job->runs; run++) {
        if (run > 0) {  /* free what the previous run allocated and was passed */
            int pos = nin;
            for (int i = 0; i < L0_NRESULTS; i++) {
                if (L0_RESULTS[i].rank) {
                    void *a = (void *)(intptr_t)slots[pos];
                    for (int j = 0, q = nin; j < i; q += slot_count(L0_RESULTS[j].rank), j++)
                        if (L0_RESULTS[j].rank && slots[q] == slots[pos]) a = NULL;
                    free(a);
                }
                pos += slot_count(L0_RESULTS[i].rank);
            }
        }
        fill_slots(slots, job->values, job->owned, run > 0,
                   run > 0 ? &job->later : &job->first);
        memset(ctx, 0, L0_CTX_SIZE * 8);
        ctx[1] = floor;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        int status = l0_entry_main(ctx, slots);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        if (status != 0) runtime_error(ctx);
        job->times[run] = ((int64_t)(t1.tv_sec - t0.tv_sec) * 1000000000 +
                           (t1.tv_nsec - t0.tv_nsec)) / 1000;
    }
    return NULL;
}

/* `-t FILE`: the time of each run in microseconds, one a line. */
static int write_times(const char *timing, const int64_t *times, long runs) {
    if (!timing) return 0;
    FILE *f = fopen(timing, "w");
    if (!f) {
        fprintf(stderr, "%s:1:1: error: cannot write timings: %s\n", timing, strerror(errno));
        return 2;
    }
    for (long i = 0; i < runs; i++) fprintf(f, "%" PRId64 "\n", times[i]);
    fclose(f);
    return 0;
}

int main(int argc, char **argv) {
    long runs = 1;
    const char *timing = NULL;
    int binary_output = 0, verbose = 0;
#ifdef L0_MULTICORE
    ensure_worker_stacks(argv);
#endif
    for (int i = 1; i < argc; i++) {
#ifdef L0_MULTICORE
        if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
            char *end;
            l0_threads = strtol(argv[++i], &end, 10);
            if (*end || l0_threads < 1) {
                fprintf(stderr, "%s: error: --threads needs a positive number of threads\n",
                        argv[0]);
                return 2;
            }
            continue;
        }
#endif
        if (!strcmp(argv[i], "-r") && i + 1 < argc) {
            char *end;
            runs = strtol(argv[++i], &end, 10);
            if (*end || runs < 1) {
                fprintf(stderr, "%s: error: -r needs a positive number of runs\n", argv[0]);
                return 2;
            }
        } else if (!strcmp(argv[i], "-t") && i + 1 < argc) {
            timing = argv[++i];
        } else if (!strcmp(argv[i], "-b") || !strcmp(argv[i], "--binary-output")) {
            binary_output = 1;
        } else if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose")) {
            verbose = 1;
        } else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(argv[0]);
            return 0;
        } else {
            fprintf(stderr, "%s: error: unexpected argument `%s`\n", argv[0], argv[i]);
            usage(argv[0]);
            return 2;
        }
    }

    reader r = {"", 0, 0};
    char *text = NULL;
    if (L0_NINPUTS > 0 || !isatty(0)) text = read_all(stdin, &r.len);
    r.text = text ? text : "";
    input = &r;
    value *values = calloc(L0_NINPUTS + 1, sizeof(value));
    has_binary = memmem(r.text, r.len, "b\002", 2) != NULL;
    for (int i = 0; i < L0_NINPUTS; i++) {
        const l0_type *t = &L0_INPUTS[i];
        skip_space(&r);
        if (r.pos < r.len && r.text[r.pos] == 'b')
            read_binary(&r, t->kind, t->rank, &values[i], i + 1);
        else if (t->rank == 0) read_scalar(&r, t->kind, &values[i], i + 1, 0);
        else read_array(&r, t->kind, t->rank, 0, 0, &values[i], i + 1);
    }
    skip_space(&r);
    if (r.pos < r.len && r.text[r.pos] == 'b')
        input_error(r.pos, 0, "unexpected binary value after the last argument (expected %d "
                    "value%s)", L0_NINPUTS, L0_NINPUTS == 1 ? "" : "s");
    if (r.pos < r.len)
        input_error(r.pos, token_len(&r, r.pos), "unexpected %s after the last argument "
                    "(expected %d value%s)", shown(&r, r.pos), L0_NINPUTS,
                    L0_NINPUTS == 1 ? "" : "s");
    check_groups(values);

    int nslots = 0, nin = 0;
    for (int i = 0; i < L0_NPARAMS; i++) nin += slot_count(L0_PARAMS[i].rank);
    nslots = nin;
    for (int i = 0; i < L0_NRESULTS; i++) nslots += slot_count(L0_RESULTS[i].rank);
    int64_t *slots = calloc(nslots + 1, 8);
    int64_t *ctx = calloc(L0_CTX_SIZE, 8);
    void **owned = calloc(L0_NPARAMS + 1, sizeof(void *));
    int64_t *times = calloc(runs, 8);
    repeat job = {runs, nin, slots, ctx, times, values, owned, {0, 0}, {0, 0}};
    on_big_stack(run_repeatedly, &job);
    if (verbose)
        fprintf(stderr, "arguments copied: %ld arrays (%zu bytes) before the first run, "
                "%ld (%zu bytes) before the %ld later ones\n", job.first.arrays,
                job.first.bytes, job.later.arrays, job.later.bytes, runs - 1);

    if (binary_output) {
        for (int i = 0; i < L0_NPRINTED; i++) {
            int k = L0_PRINTED[i];
            if (k < 0 || L0_RESULTS[k].kind == K_CERT) continue;
            int pos = nin;
            for (int j = 0; j < k; j++) pos += slot_count(L0_RESULTS[j].rank);
            out_binary(L0_RESULTS[k].kind, L0_RESULTS[k].rank, L0_RESULTS[k].elem_size,
                       slots + pos);
        }
        flush_out();
        return write_times(timing, times, runs);
    }
    int printed = 0;
    if (L0_NPRINTED != 1) out_str("{");
    for (int i = 0; i < L0_NPRINTED; i++) {
        if (printed++) out_str(", ");
        int k = L0_PRINTED[i];
        if (k < 0) { out_str("Checked"); continue; }
        int pos = nin;
        for (int j = 0; j < k; j++) pos += slot_count(L0_RESULTS[j].rank);
        out_slots(L0_RESULTS[k].kind, L0_RESULTS[k].rank, L0_RESULTS[k].elem_size, slots + pos);
    }
    if (L0_NPRINTED != 1) out_str("}");
    out_str("\n");
    flush_out();
    return write_times(timing, times, runs);
}
#endif /* L0_LIBRARY */

/* ------------------------------------------------------------------ the library */

#ifdef L0_LIBRARY
static __thread char *last_error;

/* Run main on `slots` (lowering/runtime/abi.py); 0 on success, else 2 with the message in
   `l0_error()`. Arrays the results hold with a non-NULL allocated pointer are the
   caller's to free with `l0_free`. */
int l0_main(int64_t *slots) {
    int64_t *ctx = calloc(L0_CTX_SIZE, 8);
    if (!ctx) return 2;
    int status = run_main(ctx, slots);
    if (status != 0) {
        free(last_error);
        last_error = runtime_error_text(ctx);
        if (!last_error) last_error = strdup("internal error: compiled code failed without "
                                             "reporting an error");
        status = 2;
    }
    free(ctx);
    return status;
}

const char *l0_error(void) { return last_error ? last_error : ""; }

void l0_free(void *allocated) { free(allocated); }
#endif
