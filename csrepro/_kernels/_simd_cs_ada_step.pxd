# The C of cs_ada_step.pyx (include/cs_ada_step_simd.h), under the names the kernel calls it by.

cdef extern from "cs_ada_step_simd.h":
    ctypedef struct ada_k "csrepro_ada_k":
        double Tp, Tm, C1, C2, T, cm, q, h, Mh, q2, M2, flat
    ctypedef struct ada_best "csrepro_ada_best":
        double lo, hi, top
        Py_ssize_t jlo, jhi
    Py_ssize_t _pass1 "csrepro_ada_pass1"(const ada_k* k, const double* b, const double* d, Py_ssize_t n,
                                          double* loss, double* upper, unsigned char* stage,
                                          ada_best* st) noexcept nogil
    Py_ssize_t _near "csrepro_ada_near"(const unsigned char* stage, const double* loss, const double* upper,
                                        Py_ssize_t n, double cut, double x, Py_ssize_t* near) noexcept nogil
