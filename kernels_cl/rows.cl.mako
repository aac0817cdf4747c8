## Row moves and the pairwise sum of the reductions (clbig/mpz/rowops.py). Widths, batch lengths
## and row offsets are run-time arguments: one build serves every size, since gathers, sums'
## tree levels (one bit wider each) and concatenations would otherwise build a kernel per width.
<%namespace file="blocks/common.mako" import="header"/>
${header()}

/* out[row0 + i] = src[idx[i]] for i < n, zero-extended or cut to om limbs (the caller
   guarantees that cut limbs are zero and that every idx[i] names a row of src).
   A grid-stride loop over the n * om result limbs: any launch size covers any batch. */
__kernel void gather(__global limb_t *out, ulong row0, ulong om,
                     __global const limb_t *src, ulong sm,
                     __global const uint *idx, ulong n)
{
    const ulong total = n * om;
    for (ulong t = get_global_id(0); t < total; t += get_global_size(0)) {
        const ulong i = t / om, j = t - i * om;
        out[(row0 + i) * om + j] = j < sm ? src[(ulong)idx[i] * sm + j] : 0u;
    }
}

/* One level of a sum tree: out[i] = src[2i] + src[2i + 1] (src[2i] alone for the last row of
   an odd count) over om >= sm limbs, one work-item per result row. The caller sizes om so
   that the sum fits (one bit more than src's capacity): no carry leaves the row. */
__kernel void pairsum(__global limb_t *out, ulong om, __global const limb_t *src, ulong sm,
                      ulong nsrc)
{
    const ulong nout = (nsrc + 1) / 2;
    for (ulong i = get_global_id(0); i < nout; i += get_global_size(0)) {
        __global const limb_t *x = src + 2 * i * sm;
        const int two = 2 * i + 1 < nsrc;
        __global const limb_t *y = x + sm;
        limb_t carry = 0u;
        for (ulong j = 0; j < om; ++j) {
            const limb_t xa = j < sm ? x[j] : 0u;
            const limb_t ya = (two && j < sm) ? y[j] : 0u;
            const limb_t s = xa + ya;            /* unsigned: wraps, never undefined */
            const limb_t r = s + carry;
            carry = (limb_t)(s < xa) | (limb_t)(r < s);
            out[i * om + j] = r;
        }
    }
}
