# The C of vector_scan.pyx (include/vector_scan_simd.h), under the names the kernel calls it by.

cdef extern from "vector_scan_simd.h":
    double _split_loss "csrepro_split_loss"(const double* L, const double* T, Py_ssize_t K) noexcept nogil
    bint _has_avx2 "csrepro_has_avx2"() noexcept nogil
    bint _SSE2 "CSREPRO_LSS_SSE2"
    void _lss_avx2 "csrepro_lss_avx2"(const double* hA, const double* hB, double* oA, double* oB,
                                      const Py_ssize_t* offsets, const Py_ssize_t* n_bins, Py_ssize_t d,
                                      double* low, double* top, double* fminA, double* fminB,
                                      double* buf) noexcept nogil
    void _lss1 "csrepro_lss_1"(const double* const* h, double* const* out, const Py_ssize_t* offsets,
                               const Py_ssize_t* n_bins, Py_ssize_t d, double* low, double* top,
                               double* fmin) noexcept nogil
    void _lss2 "csrepro_lss_2"(const double* const* h, double* const* out, const Py_ssize_t* offsets,
                               const Py_ssize_t* n_bins, Py_ssize_t d, double* low, double* top,
                               double* fmin) noexcept nogil
    void _layer_channels "csrepro_layer_channels"(const double* ch, Py_ssize_t K, const double* up, const double* down,
                                                  double* out, Py_ssize_t n) noexcept nogil
