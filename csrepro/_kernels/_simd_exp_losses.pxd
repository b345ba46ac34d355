# The C of exp_losses.pyx (include/exp_losses_simd.h), under the names the kernel calls it by.

cdef extern from "exp_losses_simd.h":
    double csr_max "csrepro_max"(double a, double b) noexcept nogil
    const bint CSR_PAIRS "CSREPRO_EXP_PAIRS"
    bint csr_quads "csrepro_exp_quads"() noexcept nogil
    void csr_derivs4_add "csrepro_derivs4_add"(const double* A, Py_ssize_t nu, const double* X0, const double* X1,
                                               const double* X2, const double* X3, const double* uniq,
                                               const double* off, const double* g, const double* scale, bint log1p,
                                               const double* sw, double* t) noexcept nogil
    void csr_derivs4_store "csrepro_derivs4_store"(const double* A, Py_ssize_t nu, const double* X0, const double* X1,
                                                   const double* X2, const double* X3, const double* uniq,
                                                   const double* off, const double* g, const double* scale,
                                                   bint log1p, const double* sw, double* d0, double* d1,
                                                   double* d2) noexcept nogil
    void csr_moments_pair "csrepro_moments_pair"(const double* A0, const double* A1, const double* X0,
                                                 const double* X1, const double* uniq, Py_ssize_t nu, double off0,
                                                 double off1, double g0, double g1, double* s,
                                                 double* t) noexcept nogil
    void csr_log1p_pair "csrepro_log1p_pair"(const double* s, const double* t, double sc0, double sc1, double* d,
                                             double* d2) noexcept nogil
    void csr_group_sums4 "csrepro_group_sums4"(const double* col, Py_ssize_t n, const Py_ssize_t* order,
                                               const Py_ssize_t* starts, Py_ssize_t nu, bint moments,
                                               const double* uniq, double sign, const double* off, double* out,
                                               double* s) noexcept nogil
    void csr_rescale4 "csrepro_rescale4"(double* col, Py_ssize_t n, Py_ssize_t M, const double* f0, const double* f1,
                                         const double* f2, const double* f3, const Py_ssize_t* group, const double* c0,
                                         const double* c1, const double* c2, const double* c3, double floor,
                                         double* rho) noexcept nogil
    void csr_cell_sums "csrepro_cell_sums"(const double* A, const double* B, const double* scale, const double* sw,
                                           const Py_ssize_t* rows, Py_ssize_t n, Py_ssize_t nu,
                                           double* out) noexcept nogil
    void csr_cell_products4 "csrepro_cell_products4"(const double* A, const double* B, const double* scale,
                                                     const double* sw, const Py_ssize_t* rows, Py_ssize_t n,
                                                     Py_ssize_t nu, double* out) noexcept nogil
