# The C of linear_scan.pyx (include/linear_scan_simd.h), under the name the kernel calls it by.

cdef extern from "linear_scan_simd.h":
    void csr_wls_sums "csrepro_wls_sums"(const double* X, Py_ssize_t n, Py_ssize_t d, const double* w, double* ux,
                                         double* uxx, double* wx) noexcept nogil
