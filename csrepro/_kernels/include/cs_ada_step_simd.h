/* cs_ada_step_simd.h -- the C of the kernel csrepro/_kernels/cs_ada_step.pyx (declared for Cython in
   _simd_cs_ada_step.pxd): the first pass of ada_losses, each candidate's closed-form flat loss or its bounds
   without exponentials, and the candidates of least lower bound and of largest upper bound.  Branch-free, two
   candidates per register in SSE2 and four in AVX2 where the CPU has it (checked at run time): each lane the scalar
   code's IEEE operations in its order (sqrt and division are correctly rounded in SIMD too; no FMA), fmax / fmin
   as glibc's (x > y ? x : y, a quiet NaN argument ignored), x = -2 s c / q taken as 2 y, y = -s c / q, where that
   is exact (-s c, y and s away from underflow and overflow: scaling by 2 commutes with rounding there), the first
   least / largest kept per lane and the lanes merged by index: the same bits and the same indices as the scalar
   loop, which does the last n % W candidates. */
#ifndef CSREPRO_CS_ADA_STEP_SIMD_H
#define CSREPRO_CS_ADA_STEP_SIMD_H

#include <Python.h>  /* Py_ssize_t */
#include "cpu_features.h"
#include <math.h>
#include <string.h>  /* memcpy */

/* The constants of one call: T = Tp + Tm, cm = max(C1, C2), q = C1^2 Tp + C2^2 Tm, M, h = 1/cm, Mh = M h,
   q2 = 2 q, M2 = 2 M, flat = 1e-9 (C1 Tp + C2 Tm) (see ada_losses). */
typedef struct {
    double Tp, Tm, C1, C2, T, cm, q, h, Mh, q2, M2, flat;
} csrepro_ada_k;

/* The state of the first pass: the least lower bound lo at jlo, the largest upper bound hi at jhi (-1: none yet),
   the largest flat loss top. */
typedef struct {
    double lo, hi, top;
    Py_ssize_t jlo, jhi;
} csrepro_ada_best;

/* Candidate j, scalar: returns 0 and loss[j] the flat loss (L'(0) >= flat), else 1 and loss[j] <= its least loss
   <= upper[j] (the bounds without exponentials of ada_losses); updates the state. */
static inline int csrepro_ada_cheap(const csrepro_ada_k* k, double b, double d, Py_ssize_t j, double* loss,
                                    double* upper, csrepro_ada_best* st) {
    const double s = k->C1 * (2.0 * b - k->Tp) + k->C2 * (2.0 * d - k->Tm);
    double x, y, lo, hi;
    if (s >= k->flat) {
        loss[j] = (k->Tp - b) + b + (k->Tm - d) + d;
        st->top = fmax(st->top, loss[j]);
        return 0;
    }
    x = -2.0 * s * k->cm / k->q;
    y = -s * k->cm / k->q;
    lo = 2.0 * (sqrt(fmax((k->Tp - b) * b, 0.0)) + sqrt(fmax((k->Tm - d) * d, 0.0)));
    if (x <= M_LN2) lo = fmax(lo, k->T - s * s * (1.0 + x + x * x) / k->q2);
    hi = k->T - (-s <= k->Mh ? s * s / k->M2 : -0.5 * s * k->h);
    if (y <= 1.0) hi = fmin(hi, k->T - s * s / k->q2 * (1.0 - y - y * y));
    loss[j] = lo;
    upper[j] = hi;
    if (lo < st->lo) st->lo = lo, st->jlo = j;
    if (hi > st->hi) st->hi = hi, st->jhi = j;
    return 1;
}

#if defined(__SSE2__)
#include <emmintrin.h>

/* The lane selects m ? a : b, and fmax / fmin as glibc's: SSE2 (csr2_) and AVX (csr4_, where the CPU has it). */
static inline __m128d csr2_sel(__m128d m, __m128d a, __m128d b) {
    return _mm_or_pd(_mm_and_pd(m, a), _mm_andnot_pd(m, b));
}
static inline __m128d csr2_fmax(__m128d a, __m128d b) { return csr2_sel(_mm_cmpunord_pd(b, b), a, _mm_max_pd(a, b)); }
static inline __m128d csr2_fmin(__m128d a, __m128d b) { return csr2_sel(_mm_cmpunord_pd(b, b), a, _mm_min_pd(a, b)); }
/* The mask of |v| (all bits but the sign); tiny <= |v| <= huge (false for NaN). */
static inline __m128d csr2_abs(void) { return _mm_castsi128_pd(_mm_set1_epi64x(0x7fffffffffffffffLL)); }
static inline __m128d csr2_normal(__m128d v, __m128d tiny, __m128d huge) {
    v = _mm_and_pd(v, csr2_abs());
    return _mm_and_pd(_mm_cmpge_pd(v, tiny), _mm_cmple_pd(v, huge));
}

/* NAME(k, b, d, n, loss, upper, stage, st): csrepro_ada_cheap for the candidates j < n - n % (2 W), W per register
   of type V (operations SET1 ... UNPACKHI, P the prefix of the lane operations above; ATTR: more function
   attributes); stage[j] = 1 where bounded, 0 where flat.  Each step takes 2 W candidates as two registers, the even
   and the odd ones (UNPACKLO / UNPACKHI: a scan's two labellings of its splits; one is flat wherever the other
   is not, so a register of one labelling is often flat in every lane), and skips the bounds of a register flat in
   every lane.  Each lane keeps its first least / largest (its candidates come in increasing order); merged by
   index.  NAME##_vec: one register, b, d at the lanes' indices idx; returns the losses (bounds), the upper bounds
   into *up, the flat lanes' mask into *fl. */
#define CSREPRO_ADA_BOUNDS(NAME, ATTR, P, V, W, SET1, LOAD, STORE, ADD, SUB, MUL, DIV, SQRT, MAX, AND, XOR, LT, LE, \
                           GE, GT, MASK, UNPACKLO, UNPACKHI)                                                        \
static inline __attribute__((ATTR)) V NAME##_vec(const csrepro_ada_k* k, V bj, V dj, V idx, V* up, V* fl, V* topv, \
                                                 V* minv, V* mini, V* maxv, V* maxi) {                            \
    const V Tp = SET1(k->Tp), Tm = SET1(k->Tm), C1 = SET1(k->C1), C2 = SET1(k->C2), T = SET1(k->T);              \
    const V cm = SET1(k->cm), q = SET1(k->q), h = SET1(k->h), Mh = SET1(k->Mh), q2 = SET1(k->q2);               \
    const V M2 = SET1(k->M2), flat = SET1(k->flat), two = SET1(2.0), mtwo = SET1(-2.0), mhalf = SET1(-0.5);     \
    const V one = SET1(1.0), zero = SET1(0.0), ln2 = SET1(M_LN2), neg = SET1(-0.0), inf = SET1(INFINITY);       \
    const V ninf = SET1(-INFINITY), tiny = SET1(0x1p-1021), huge = SET1(0x1p1021);                               \
    V s, f, x, y, lo, hi, ex, mask, c, z;                                                                        \
    s = ADD(MUL(C1, SUB(MUL(two, bj), Tp)), MUL(C2, SUB(MUL(two, dj), Tm)));                                     \
    f = *fl = GE(s, flat);                                                                                       \
    ex = ADD(ADD(ADD(SUB(Tp, bj), bj), SUB(Tm, dj)), dj);                                                        \
    if (MASK(f) == (1 << W) - 1) {                                                                               \
        *topv = P##_fmax(*topv, ex);                                                                             \
        *up = ex;                                                                                                \
        return ex;                                                                                               \
    }                                                                                                            \
    z = MUL(XOR(s, neg), cm);                                                                                    \
    y = DIV(z, q);                                                                                               \
    mask = AND(AND(P##_normal(y, tiny, huge), P##_normal(z, tiny, huge)), LE(AND(s, P##_abs()), huge));         \
    x = MASK(mask) == (1 << W) - 1 ? ADD(y, y) : DIV(MUL(MUL(mtwo, s), cm), q);                                  \
    lo = MUL(two, ADD(SQRT(MAX(MUL(SUB(Tp, bj), bj), zero)), SQRT(MAX(MUL(SUB(Tm, dj), dj), zero))));            \
    c = SUB(T, DIV(MUL(MUL(s, s), ADD(ADD(one, x), MUL(x, x))), q2));                                            \
    lo = P##_sel(LE(x, ln2), P##_fmax(lo, c), lo);                                                               \
    hi = SUB(T, P##_sel(LE(XOR(s, neg), Mh), DIV(MUL(s, s), M2), MUL(MUL(mhalf, s), h)));                        \
    c = SUB(T, MUL(DIV(MUL(s, s), q2), SUB(SUB(one, y), MUL(y, y))));                                            \
    hi = P##_sel(LE(y, one), P##_fmin(hi, c), hi);                                                               \
    *up = hi;                                                                                                    \
    *topv = P##_fmax(*topv, P##_sel(f, ex, ninf));                                                               \
    mask = LT(P##_sel(f, inf, lo), *minv);                                                                       \
    *minv = P##_sel(mask, lo, *minv);                                                                            \
    *mini = P##_sel(mask, idx, *mini);                                                                           \
    mask = GT(P##_sel(f, ninf, hi), *maxv);                                                                      \
    *maxv = P##_sel(mask, hi, *maxv);                                                                            \
    *maxi = P##_sel(mask, idx, *maxi);                                                                           \
    return P##_sel(f, ex, lo);                                                                                   \
}                                                                                                                \
static __attribute__((ATTR)) Py_ssize_t NAME(const csrepro_ada_k* k, const double* b, const double* d,            \
                                             Py_ssize_t n, double* loss, double* upper, unsigned char* stage,     \
                                             csrepro_ada_best* st) {                                             \
    const V step = SET1(2.0 * W);                                                                                \
    V minv = SET1(INFINITY), maxv = SET1(-INFINITY), topv = SET1(-INFINITY), mini = SET1(-1.0), maxi = mini;     \
    V ie, io, b0, b1, d0, d1, re, ro, ue, uo, fe, fo;                                                            \
    double lane[2 * W], at[W], val[W];                                                                           \
    Py_ssize_t j, e = n - n % (2 * W);                                                                           \
    int i, bits;                                                                                                 \
    for (i = 0; i < 2 * W; i++) lane[i] = (double)i;                                                             \
    ie = UNPACKLO(LOAD(lane), LOAD(lane + W));                                                                   \
    io = UNPACKHI(LOAD(lane), LOAD(lane + W));                                                                   \
    for (j = 0; j < e; j += 2 * W, ie = ADD(ie, step), io = ADD(io, step)) {                                     \
        b0 = LOAD(b + j);                                                                                        \
        b1 = LOAD(b + j + W);                                                                                    \
        d0 = LOAD(d + j);                                                                                        \
        d1 = LOAD(d + j + W);                                                                                    \
        re = NAME##_vec(k, UNPACKLO(b0, b1), UNPACKLO(d0, d1), ie, &ue, &fe, &topv, &minv, &mini, &maxv, &maxi); \
        ro = NAME##_vec(k, UNPACKHI(b0, b1), UNPACKHI(d0, d1), io, &uo, &fo, &topv, &minv, &mini, &maxv, &maxi); \
        STORE(loss + j, UNPACKLO(re, ro));                                                                       \
        STORE(loss + j + W, UNPACKHI(re, ro));                                                                   \
        STORE(upper + j, UNPACKLO(ue, uo));                                                                      \
        STORE(upper + j + W, UNPACKHI(ue, uo));                                                                  \
        bits = MASK(UNPACKLO(fe, fo)) | MASK(UNPACKHI(fe, fo)) << W;                                             \
        for (i = 0; i < 2 * W; i++) stage[j + i] = !((bits >> i) & 1);                                          \
    }                                                                                                            \
    STORE(val, topv);                                                                                            \
    for (i = 0; i < W; i++) st->top = fmax(st->top, val[i]);                                                     \
    STORE(val, minv);                                                                                            \
    STORE(at, mini);                                                                                             \
    for (i = 0; i < W; i++)                                                                                      \
        if (at[i] >= 0.0 && (val[i] < st->lo || (val[i] == st->lo && (Py_ssize_t)at[i] < st->jlo)))             \
            st->lo = val[i], st->jlo = (Py_ssize_t)at[i];                                                        \
    STORE(val, maxv);                                                                                            \
    STORE(at, maxi);                                                                                             \
    for (i = 0; i < W; i++)                                                                                      \
        if (at[i] >= 0.0 && (val[i] > st->hi || (val[i] == st->hi && (Py_ssize_t)at[i] < st->jhi)))             \
            st->hi = val[i], st->jhi = (Py_ssize_t)at[i];                                                        \
    return e;                                                                                                    \
}

CSREPRO_ADA_BOUNDS(csrepro_ada_bounds2, unused, csr2, __m128d, 2, _mm_set1_pd, _mm_loadu_pd, _mm_storeu_pd, _mm_add_pd,
                   _mm_sub_pd, _mm_mul_pd, _mm_div_pd, _mm_sqrt_pd, _mm_max_pd, _mm_and_pd, _mm_xor_pd, _mm_cmplt_pd,
                   _mm_cmple_pd, _mm_cmpge_pd, _mm_cmpgt_pd, _mm_movemask_pd, _mm_unpacklo_pd, _mm_unpackhi_pd)

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#define CSREPRO_ADA_AVX2 1
#define CSR4_ATTR __attribute__((target("avx2")))
static inline CSR4_ATTR __m256d csr4_sel(__m256d m, __m256d a, __m256d b) { return _mm256_blendv_pd(b, a, m); }
static inline CSR4_ATTR __m256d csr4_fmax(__m256d a, __m256d b) {
    return csr4_sel(_mm256_cmp_pd(b, b, _CMP_UNORD_Q), a, _mm256_max_pd(a, b));
}
static inline CSR4_ATTR __m256d csr4_fmin(__m256d a, __m256d b) {
    return csr4_sel(_mm256_cmp_pd(b, b, _CMP_UNORD_Q), a, _mm256_min_pd(a, b));
}
static inline CSR4_ATTR __m256d csr4_abs(void) { return _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fffffffffffffffLL)); }
static inline CSR4_ATTR __m256d csr4_normal(__m256d v, __m256d tiny, __m256d huge) {
    v = _mm256_and_pd(v, csr4_abs());
    return _mm256_and_pd(_mm256_cmp_pd(v, tiny, _CMP_GE_OQ), _mm256_cmp_pd(v, huge, _CMP_LE_OQ));
}
#define CSR4_LT(a, b) _mm256_cmp_pd(a, b, _CMP_LT_OQ)
#define CSR4_LE(a, b) _mm256_cmp_pd(a, b, _CMP_LE_OQ)
#define CSR4_GE(a, b) _mm256_cmp_pd(a, b, _CMP_GE_OQ)
#define CSR4_GT(a, b) _mm256_cmp_pd(a, b, _CMP_GT_OQ)
CSREPRO_ADA_BOUNDS(csrepro_ada_bounds4, target("avx2"), csr4, __m256d, 4, _mm256_set1_pd, _mm256_loadu_pd,
                   _mm256_storeu_pd, _mm256_add_pd, _mm256_sub_pd, _mm256_mul_pd, _mm256_div_pd, _mm256_sqrt_pd,
                   _mm256_max_pd, _mm256_and_pd, _mm256_xor_pd, CSR4_LT, CSR4_LE, CSR4_GE, CSR4_GT, _mm256_movemask_pd,
                   _mm256_unpacklo_pd, _mm256_unpackhi_pd)
/* csrepro_ada_near's candidates j < n - n % 4, four at a time; returns the count listed. */
static __attribute__((target("avx2"))) Py_ssize_t csrepro_ada_near4(const unsigned char* stage, const double* loss,
                                                                    const double* upper, Py_ssize_t n, double cut,
                                                                    double x, Py_ssize_t* near) {
    const __m256d c = _mm256_set1_pd(cut), u = _mm256_set1_pd(x);
    const __m128i one = _mm_set1_epi8(1);
    Py_ssize_t j, m = 0, e = n - n % 4;
    int bits, i, st;
    for (j = 0; j < e; j += 4) {
        memcpy(&st, stage + j, 4);
        bits = _mm256_movemask_pd(_mm256_or_pd(_mm256_cmp_pd(_mm256_loadu_pd(loss + j), c, _CMP_NGT_UQ),
                                               _mm256_cmp_pd(_mm256_loadu_pd(upper + j), u, _CMP_NLT_UQ)));
        bits &= _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_cvtsi32_si128(st), one));
        for (i = 0; i < 4; i++) near[m] = j + i, m += (bits >> i) & 1;
    }
    return m;
}
#endif
#endif

/* The candidates j < n, in order, with stage[j] = 1 and not (loss[j] > cut and upper[j] < x): into near, without
   branches (four at a time in AVX2 where the CPU has it); returns their count. */
static inline Py_ssize_t csrepro_ada_near(const unsigned char* stage, const double* loss, const double* upper,
                                         Py_ssize_t n, double cut, double x, Py_ssize_t* near) {
    Py_ssize_t j = 0, m = 0;
#if defined(CSREPRO_ADA_AVX2)
    if (csrepro_cpu_has_avx2()) {
        m = csrepro_ada_near4(stage, loss, upper, n, cut, x, near);
        j = n - n % 4;
    }
#endif
    for (; j < n; j++) near[m] = j, m += (stage[j] == 1) & (!(loss[j] > cut) | !(upper[j] < x));
    return m;
}

/* The first pass of ada_losses over the n candidates (b, d): loss[j], upper[j] and stage[j] (1: bounded, 0: flat)
   as csrepro_ada_cheap, st the state after the last; returns st->jlo. */
static inline Py_ssize_t csrepro_ada_pass1(const csrepro_ada_k* k, const double* b, const double* d, Py_ssize_t n,
                                           double* loss, double* upper, unsigned char* stage, csrepro_ada_best* st) {
    Py_ssize_t j = 0;
    st->lo = INFINITY, st->hi = -INFINITY, st->top = -INFINITY, st->jlo = st->jhi = -1;
#if defined(CSREPRO_ADA_AVX2)
    if (csrepro_cpu_has_avx2())
        j = csrepro_ada_bounds4(k, b, d, n, loss, upper, stage, st);
    else
#endif
#if defined(__SSE2__)
        j = csrepro_ada_bounds2(k, b, d, n, loss, upper, stage, st);
#endif
    for (; j < n; j++) stage[j] = (unsigned char)csrepro_ada_cheap(k, b[j], d[j], j, loss, upper, st);
    return st->jlo;
}

#endif  /* CSREPRO_CS_ADA_STEP_SIMD_H */
