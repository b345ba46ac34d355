# The C of histogram.pyx (include/histogram_simd.h), under the names the kernel calls it by.

cdef extern from "histogram_simd.h":
    ctypedef struct _errors "csrepro_errors":  # weighted_errors' scores and their range, as they are written
        pass
    void _errors_start "csrepro_errors_start"(_errors* e, double* s, double b0, double d0) noexcept nogil
    bint _errors_end "csrepro_errors_end"(const _errors* e, Py_ssize_t C, double* every, double* lo,
                                          double* top) noexcept nogil
    void _add "csrepro_hist_add"(double* dst, const double* src, Py_ssize_t k) noexcept nogil
    bint _run "csrepro_hist_run"(double* out, const unsigned char* codes, Py_ssize_t o, const double* ch,
                                 Py_ssize_t k, const Py_ssize_t* rows, Py_ssize_t t0, Py_ssize_t t1) noexcept nogil
    bint _run32 "csrepro_hist_run32"(double* out, const unsigned char* codes, Py_ssize_t o, const double* ch,
                                     Py_ssize_t k, const int* rows, Py_ssize_t t0, Py_ssize_t t1) noexcept nogil
    void _zero_bins "csrepro_zero_bins"(double* out, Py_ssize_t V, Py_ssize_t B, Py_ssize_t k, Py_ssize_t o,
                                        Py_ssize_t m) noexcept nogil
    Py_ssize_t _sparse3 "csrepro_sparse3"(double* base, Py_ssize_t Bk, const unsigned char* codes, Py_ssize_t o,
                                          const double* ch, const int* nd, const int* indices, Py_ssize_t p,
                                          Py_ssize_t e, Py_ssize_t t1) noexcept nogil
    void _default3 "csrepro_default3"(double* base, Py_ssize_t V, Py_ssize_t Bk, Py_ssize_t o, Py_ssize_t m,
                                      Py_ssize_t df, const double* tot) noexcept nogil
    void _dense3x4 "csrepro_dense3x4"(double* base, Py_ssize_t Bk, const unsigned char* const* c, const Py_ssize_t* o,
                                      const double* ch, const int* nd, Py_ssize_t t0, Py_ssize_t t1) noexcept nogil
    void _route "csrepro_route"(const unsigned char* codes, int* node, Py_ssize_t t0, Py_ssize_t n,
                                const Py_ssize_t* off, const int* above, const int* left, const int* step) noexcept nogil
    bint _route_has_avx2 "csrepro_route_has_avx2"() noexcept nogil
    int _max_id_avx2 "csrepro_max_id_avx2"(const int* node, Py_ssize_t n) noexcept nogil
    Py_ssize_t _route_avx2 "csrepro_route_avx2"(const unsigned char* codes, int* node, Py_ssize_t n, Py_ssize_t V,
                                                const int* off32,
                                                const int* above, const int* left, const int* step) noexcept nogil
    Py_ssize_t _route_split "csrepro_route_split"(const unsigned char* codes, int* node, Py_ssize_t n, Py_ssize_t V,
                                                  int S, const int* su, const Py_ssize_t* soff, const int* sab,
                                                  const int* left, const int* step) noexcept nogil
    Py_ssize_t _node_scan "csrepro_node_scan"(Py_ssize_t k, const double* H, const Py_ssize_t* n_bins, Py_ssize_t d,
                                              int counted, int distinct, double* L, Py_ssize_t ls, double* R,
                                              Py_ssize_t rs, unsigned char* valid, Py_ssize_t* index, double* total,
                                              double* left, const double* M, double* D, _errors* E) noexcept nogil
    int SCAN_MAXK "CSREPRO_SCAN_MAXK"
    bint _score_range "csrepro_score_range"(const double* s, Py_ssize_t n, double* every, double* lo,
                                            double* top) noexcept nogil
    bint _weighted_errors "csrepro_weighted_errors"(const double* pl, const double* pr, const double* nl,
                                                    const double* nr, const unsigned char* valid, double b0, double d0,
                                                    Py_ssize_t C, double* s, double* every, double* lo,
                                                    double* top) noexcept nogil
