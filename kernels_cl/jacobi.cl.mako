## Jacobi symbol (x / y) of a batch by the binary algorithm, one work-item per instance:
## x < y, y odd, both non-negative (clbig/mpz/numtheory.py reduces x mod y first). Each round
## strips x's factors of two (flipping the sign where y = 3, 5 mod 8 and the count is odd),
## swaps the pair where x < y (flipping where both are 3 mod 4: reciprocity) and subtracts
## y from x, so x + y loses at least a bit a round: at most 2 * 32 * M rounds. The pair lives
## in the global scratch rows wx, wy (any size fits), with the significant lengths lx, ly.
## The symbol is 0 where gcd(x, y) (y when x reaches 0) is not 1.
<%namespace file="blocks/common.mako" import="header"/>
${header()}
__kernel __attribute__((reqd_work_group_size(${WG}, 1, 1)))
void jacobi(__global const limb_t *a, ulong sa, __global const limb_t *b, ulong sb,
            __global limb_t *wx, __global limb_t *wy, __global char *out, uint n)
{
    const size_t gid = get_global_id(0);
    if (gid >= n) return;             /* no barriers below */
    __global limb_t *x = wx + gid * ${M}u, *y = wy + gid * ${M}u;
    uint lx = 0u, ly = 0u;
    for (uint j = 0; j < ${M}u; ++j) {
        const limb_t u = a[gid * sa + j], v = b[gid * sb + j];
        x[j] = u;
        y[j] = v;
        if (u) lx = j + 1u;
        if (v) ly = j + 1u;
    }
    int t = 1;
    while (lx) {
        /* x = x / 2^tz: z whole limbs, then sh bits (x != 0, so some limb below lx is set) */
        uint z = 0u;
        while (x[z] == 0u) ++z;
        const limb_t low = x[z];
        const uint sh = popcount((low & (0u - low)) - 1u);   /* trailing zeros of low */
        const uint len = lx - z;
        for (uint j = 0; j < len; ++j) {
            limb_t w = x[j + z];
            if (sh) {                 /* a shift by 32 would be undefined */
                w >>= sh;
                if (j + 1u < len) w |= x[j + z + 1u] << (32u - sh);
            }
            x[j] = w;
        }
        for (uint j = len; j < lx; ++j) x[j] = 0u;
        lx = len;
        while (lx && x[lx - 1u] == 0u) --lx;
        const uint y8 = y[0] & 7u;
        if ((sh & 1u) && (y8 == 3u || y8 == 5u)) t = -t;     /* (2 / y) = -1; 32 z is even */
        /* compare x and y (both odd now); swap so that x >= y */
        int c = (lx > ly) - (lx < ly);
        for (uint j = lx; c == 0 && j > 0u; --j) c = (x[j - 1u] > y[j - 1u]) - (x[j - 1u] < y[j - 1u]);
        if (c < 0) {
            __global limb_t *p = x; x = y; y = p;
            const uint q = lx; lx = ly; ly = q;
            if ((x[0] & 3u) == 3u && (y[0] & 3u) == 3u) t = -t;
        }
        /* x -= y (x >= y: no borrow out) */
        uint borrow = 0u;
        for (uint j = 0; j < lx; ++j) {
            const limb_t u = x[j], v = j < ly ? y[j] : 0u;
            const limb_t d = u - v - borrow;
            borrow = (u < v) || (u - v < borrow);
            x[j] = d;
        }
        while (lx && x[lx - 1u] == 0u) --lx;
    }
    out[gid] = (char)((ly == 1u && y[0] == 1u) ? t : 0);
}
