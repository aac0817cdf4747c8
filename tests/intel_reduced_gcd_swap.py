"""Intel's CPU runtime for OpenCL miscompiles a pointer swap into a private array: the reduced
kernel of issue #33 item 2 (gcd wrong on Intel's runtime).

Not a pytest module (tests/test_vendor_quirks.py is the regression test); run it by hand:
    python tests/intel_reduced_gcd_swap.py         # every OpenCL device clbig's loader sees

Finding (Intel(R) OpenCL 3.1, build 2026.22.10.0.01_160000, on a Xeon with AVX-512): the gcd
kernel (kernels_cl/gcd.cl.mako) loaded a and b into one private array, x = buf, y = buf + M,
and swapped the pointers x and y in the work-items where y's first digit was even. The kernel
below is that alone: load, swap where b[0] is even, store x and y. It is plain, defined OpenCL
C (both pointers point into the same array, every read is in bounds and written before).
Built with optimisation and run in work-groups of 16 or more, Intel's runtime returns in
every work-item k, swapped or not, x[j] = digit 0 of the vector x points to (a, or b where k
swapped) taken from the j-th work-item of k's group of 16, and y likewise: the same values in
all work-items of a group, hence the gcd's identical wrong results ("got 0x1"), and the round
bound exceeded. Read that way, the runtime's implicit vectoriser (16 work-items per AVX-512
vector) has laid the private array out transposed, digit j of lane l at buf[16 j + l], and
addresses the loads through the swapped pointer (a select of two pointers per lane) from the
right digit but with a stride of one word and no lane offset, as though the array were not
transposed. It shows with M = 1, 3, 33, 34, ... digits when the reads run to a length known
at run time (the gcd kernel's L), and from M = 34 when the loop bound is the constant M; not
with M a power of two, not in work-groups of 8 or fewer, not with -cl-opt-disable; PoCL 3.0
(PyPI's and Debian's) and Oclgrind are exact. How it was reduced: the gcd kernel gave right
answers with -cl-opt-disable and with its global-memory storage (x and y then point into a
__global buffer), and wrong ones with the swap replaced by nothing else changed but a loop
swapping the digits' values: exact; this kernel then keeps only the load, swap and store.

The fix (kernels_cl/gcd.cl.mako) chooses which operand goes to x and which to y by selecting
the digits' values as they are stored, so no pointer chosen per work-item into a private array
is left; clbig/runtime/kernel_check.py checks each built gcd / inverse kernel on known answers.

Exit status: 0 when every device swaps right (or shows exactly this fault, with its
unoptimised build exact), 1 on any other result.
"""
from __future__ import annotations

import sys

import numpy as np
import pyopencl as cl

SOURCE = """
__kernel void swap(__global const uint *a, __global const uint *b, __global uint *out,
                   uint n, uint len)
{
    const uint i = get_global_id(0);
    if (i >= n) return;
    uint buf[2 * M];
    uint *x = buf, *y = buf + M;
    for (uint j = 0; j < M; ++j) { x[j] = a[i * M + j]; y[j] = b[i * M + j]; }
    if (!(y[0] & 1u)) { uint *t = x; x = y; y = t; }      /* per work-item: y odd */
    for (uint j = 0; j < len; ++j) {                        /* len = M, known at run time */
        out[2 * i * M + j] = x[j];
        out[(2 * i + 1) * M + j] = y[j];
    }
}
"""
M, N, WG = 3, 64, 16


def run(ctx, options: str):
    """(wrong work-items, out, want) for N work-items, half of them swapping."""
    queue = cl.CommandQueue(ctx)
    prg = cl.Program(ctx, SOURCE).build(options=f"-DM={M} {options}")
    a = (np.arange(N)[:, None] * 100 + np.arange(M)[None, :] * 2 + 1).astype(np.uint32)  # odd
    b = a + 50
    b[1::2, 0] -= 1                         # odd work-items: b[0] even, x and y swap
    mf = cl.mem_flags
    da = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=a)
    db = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=b)
    out = np.zeros((N, 2, M), np.uint32)
    do = cl.Buffer(ctx, mf.WRITE_ONLY, out.nbytes)
    prg.swap(queue, (N,), (WG,), da, db, do, np.uint32(N), np.uint32(M))
    cl.enqueue_copy(queue, out, do)
    queue.finish()
    swap = (b[:, 0] & 1) == 0
    want = np.stack([np.where(swap[:, None], b, a), np.where(swap[:, None], a, b)], axis=1)
    return int((out != want).any(axis=(1, 2)).sum()), out, want, (a, b)



def _lanes(out, a, b) -> bool:
    """The known fault's pattern: in every work-item k, x[j] (y[j]) is digit 0 of the vector x
    (y) points to, but of the j-th work-item of k's vector of 16 (lane j's buf[o], o the
    offset of k's pointer)."""
    swap = (b[:, 0] & 1) == 0
    for k in range(N):
        xs, ys = (b, a) if swap[k] else (a, b)
        lanes = slice(k - k % 16, k - k % 16 + M)
        if not ((out[k, 0] == xs[lanes, 0]).all() and (out[k, 1] == ys[lanes, 0]).all()):
            return False
    return True


def main() -> int:
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[1]))
    from clbig.runtime import icd
    icd.register()                          # Intel's runtime from PyPI (clbig/icd.py)
    ok = True
    for platform in cl.get_platforms():
        for dev in platform.get_devices():
            name = f"{platform.name.strip()}: {dev.name.strip()}"
            try:
                ctx = cl.Context([dev])
                (bad, out, want, (a, b)), (bad0, _, _, _) = run(ctx, ""), run(ctx, "-cl-opt-disable")
            except cl.Error as e:
                print(f"{name}: cannot build or run ({str(e).splitlines()[0]})")
                continue
            print(f"{name}: {bad} of {N} work-items wrong optimised, {bad0} with -cl-opt-disable")
            known = bad and not bad0 and "intel(r) opencl" in name.lower() and _lanes(out, a, b)
            if bad:
                print(f"  work-item 1: x = {out[1, 0].tolist()}, want {want[1, 0].tolist()}")
            if known:
                print("  Intel's transposed-private-array fault (see this file's docstring)")
            ok &= bool(known) or (bad == 0 and bad0 == 0)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
