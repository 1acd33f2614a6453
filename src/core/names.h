/* names.h: looking names up in tables, and "did you mean" for the ones not found. */
#ifndef VL_NAMES_H
#define VL_NAMES_H

#include <stddef.h>

/* Index of s in names[0..n), or -1. */
int vl_lookup(const char *const *names, int n, const char *s);

/* The closest of names[0..n) to s when it is a plausible typo, else NULL. */
const char *vl_did_you_mean(const char *s, const char *const *names, size_t n);

/* "; did you mean 'near'?" for a name among names[0..n), or "" (in buf). */
const char *vl_hint(const char *s, const char *const *names, size_t n, char *buf, size_t len);

/* qsort's order of an array of strings (char *): strcmp's. */
int vl_strcmp_ptrs(const void *a, const void *b);

/* "a, b or c" (in buf). */
const char *vl_join(const char *const *names, size_t n, char *buf, size_t len);

#endif
