#!/bin/sh
# train-numpy.sh: `vramlab probe train` on the CPU against an independent NumPy
# implementation of the same network (tests/validate/train_numpy.py): every regime
# identical step by step, with sums in fp32 and in the products' format.  Needs Debian's
# python3-numpy (./bootstrap check installs it): without it this fails, never skips.
py=/usr/bin/python3
if ! $py -c 'import numpy' 2> /dev/null; then
    echo "FAIL: $py cannot import numpy (Debian: apt-get install python3-numpy)"
    exit 1
fi
exec $py -B "$srcdir/tests/validate/train_numpy.py" "$VRAMLAB" 300
