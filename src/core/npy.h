/* npy.h: real gradients for the underflow probe, from a NumPy .npy file or a raw file.
 *
 * A .npy file (the name ends in .npy, in any case) must be format version 1.0, 2.0 or 3.0 with a header
 * dict of exactly 'descr', 'fortran_order' and 'shape': descr '<f4' (float32) or '<f8'
 * (float64, rounded to float32 to nearest), fortran_order False, and a shape whose element
 * count matches the data that follows, byte for byte.  Any other file is read as raw
 * little-endian float32 values.  Nothing else is accepted, and every refusal says why. */
#ifndef VL_NPY_H
#define VL_NPY_H

#include <stddef.h>

#define VL_NPY_ERR_LEN 512

/* The values of a whole .npy file held in buf[0..len), in a malloc'ed array that the caller
 * frees, their count in *n.  NULL, and the reason in err, for anything malformed or not
 * float32/float64, or with no values or more than max. */
float *vl_npy_parse(const unsigned char *buf, size_t len, size_t max, size_t *n,
                    char err[VL_NPY_ERR_LEN]);

/* The values of the file at path: .npy by its name, else raw float32.  NULL, and
 * "PATH: reason" in err, when it cannot be read or is refused. */
float *vl_values_read(const char *path, size_t max, size_t *n, char err[VL_NPY_ERR_LEN]);

#endif
