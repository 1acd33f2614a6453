/* fileio.h: a user's file read whole, never blocking on something that is not a file.
 *
 * Every file named by the user (preset files and folders, --hf-config, probe --input) is
 * read through here: opened with O_NONBLOCK, so that a FIFO without a writer cannot block
 * the open, checked with fstat, and read only when it is a regular file, or /dev/stdin
 * (whatever stdin is: the user asked for it). */
#ifndef VL_FILEIO_H
#define VL_FILEIO_H

#include <stdbool.h>
#include <stddef.h>

/* The whole file at path, at most max bytes, into *buf (NUL-terminated, the caller frees
 * it) and its length into *len.  False, and "PATH: cannot open: ...", "PATH: not a regular
 * file", "PATH: cannot read: ..." or "PATH: too large (over N KiB)" in err (err_len
 * bytes), otherwise. */
bool vl_read_file(const char *path, size_t max, char **buf, size_t *len, char *err,
                  size_t err_len);

#endif
