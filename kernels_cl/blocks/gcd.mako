## Pieces of the batched binary GCD (after Pornin, "Optimized Binary GCD for Modular Inversion",
## 2020): numbers in 30-bit digits, 30 binary steps per round decided on 64-bit approximations,
## the round's 2x2 matrix applied to the full vectors (exact division by 2^30: one digit shift).
##
## Why 30-bit digits and 30 steps: the matrix entries then satisfy |f| + |g| <= 2^30, so they are
## plain ints (31 steps could reach 2^31, which no int holds), each digit product is one
## 32x32->64 signed multiply, and x f + y g + w k + carry (the modular row) stays below 2^62 in
## one signed 64-bit accumulator; dividing by 2^30 is dropping the lowest digit.
##
## A working vector is `SP uint *p` with digit j at p[j * st]: a private array (st = 1) or an
## interleaved scratch buffer in global memory (st = the padded batch length: digit j of
## consecutive work-items adjacent, coalesced), so that the same functions serve both storage
## modes (SP is the address space).

<%def name="gcd_defs(STORE)">
#define DIG 30u
#define DMASK 0x3FFFFFFFu
% if STORE == "private":
#define SP __private
% else:
#define SP __global
% endif
#define AT(p, j) (p)[(size_t)(j) * st]

uint bitlen32(uint t) { return 32u - clz(t); }

uint ld32(__global const uint *p, uint m, uint i) { return i < m ? p[i] : 0u; }

/* The digit (30 bits) at bit position pos of a 32-bit-limb number p[0..m). */
uint get_digit(__global const uint *p, uint m, uint pos)
{
    const uint w = pos >> 5, r = pos & 31u;
    const ulong v = (ulong)ld32(p, m, w) | ((ulong)ld32(p, m, w + 1u) << 32);
    return (uint)(v >> r) & DMASK;
}

/* 32 bits at bit position pos (negative: zeros below bit 0) of a digit vector x[0..L). */
uint get32(SP const uint *x, uint st, uint L, int pos)
{
    if (pos <= -32) return 0u;
    const uint sh = pos < 0 ? (uint)(-pos) : 0u;
    const uint b = pos < 0 ? 0u : (uint)pos;
    const uint w = b / DIG, r = b % DIG;
    ulong v = 0;
    if (w < L) v = AT(x, w);
    if (w + 1u < L) v |= (ulong)AT(x, w + 1u) << 30;
    if (w + 2u < L) v |= (ulong)AT(x, w + 2u) << 60;   /* r + 32 <= 61 bits needed */
    return (uint)((v >> r) << sh);
}

/* The 64-bit approximation of x (digits [0, L); hb: the pair's bit length): x itself below
   2^64; else its low 30 bits under the 34 bits just below bit hb, so that both numbers of the
   pair are cut at the same place and their approximations compare as they do. */
ulong approx(SP const uint *x, uint st, uint L, uint hb)
{
    if (hb <= 64u) {
        ulong v = AT(x, 0);
        if (L > 1u) v |= (ulong)AT(x, 1) << 30;
        if (L > 2u) v |= (ulong)AT(x, 2) << 60;
        return v;
    }
    const uint s = hb - 34u, w = s / DIG, r = s % DIG;
    ulong t = (ulong)AT(x, w) | (w + 1u < L ? (ulong)AT(x, w + 1u) << 30 : 0UL);
    t >>= r;                                  /* 60 - r bits */
    if (r > 26u && w + 2u < L) t |= (ulong)AT(x, w + 2u) << (60u - r);
    return ((t & 0x3FFFFFFFFUL) << 30) | AT(x, 0);
}

/* 30 steps of the binary GCD on the approximations (a, b), b odd: the matrix m = [f0 g0; f1 g1]
   with a' = (a f0 + b g0) / 2^30, b' = (a f1 + b g1) / 2^30 and |f0| + |g0|, |f1| + |g1| <= 2^30.
   A step: a odd -> (swap a and b where a < b) a = (a - b) / 2; a even -> a = a / 2. Its parity
   tests see exact low bits, so the divisions by 2^30 of the full vectors are exact; only the
   swaps rely on the approximations' top bits. Branch-free (selects by masks). */
void divsteps(ulong a, ulong b, int *m)
{
    int f0 = 1, g0 = 0, f1 = 0, g1 = 1;
    for (int i = 0; i < 30; ++i) {
        const int oi = -(int)(a & 1UL);        /* -1 where a is odd, else 0 */
        const int si = oi & -(int)(a < b);     /* -1 where the pair swaps */
        const ulong odd = (ulong)(long)oi, sw = (ulong)(long)si;
        const ulong t = (a ^ b) & sw;
        a ^= t; b ^= t;
        const int tf = (f0 ^ f1) & si, tg = (g0 ^ g1) & si;
        f0 ^= tf; f1 ^= tf; g0 ^= tg; g1 ^= tg;
        a = (a - (b & odd)) >> 1;
        f0 -= f1 & oi; g0 -= g1 & oi;
        f1 <<= 1; g1 <<= 1;
    }
    m[0] = f0; m[1] = g0; m[2] = f1; m[3] = g1;
}

/* (x, y) <- ((x f0 + y g0) / 2^30, (x f1 + y g1) / 2^30) over digits [0, L), exact. The top
   digits are stored as 30-bit two's complement; returns bit 0: x' < 0, bit 1: y' < 0, bit 2:
   x' != 0 (the magnitudes stay below 2^(30 L): each is at most max(x, y)). */
uint update_pair(SP uint *x, SP uint *y, uint st, uint L, const int *m)
{
    long cx = 0, cy = 0;
    uint nz = 0u;
    for (uint j = 0; j < L; ++j) {
        const int xj = (int)AT(x, j), yj = (int)AT(y, j);
        const long tx = (long)xj * m[0] + (long)yj * m[1] + cx;
        const long ty = (long)xj * m[2] + (long)yj * m[3] + cy;
        if (j) {
            const uint dx = (uint)tx & DMASK;
            AT(x, j - 1u) = dx;
            AT(y, j - 1u) = (uint)ty & DMASK;
            nz |= dx;
        }
        cx = tx >> 30;
        cy = ty >> 30;
    }
    AT(x, L - 1u) = (uint)cx & DMASK;
    AT(y, L - 1u) = (uint)cy & DMASK;
    nz |= (uint)cx;
    return (cx < 0 ? 1u : 0u) | (cy < 0 ? 2u : 0u) | (nz ? 4u : 0u);
}

/* x <- -x over L digits (x a 30L-bit two's complement number): its magnitude. */
void negate(SP uint *x, uint st, uint L)
{
    uint br = 0u;
    for (uint j = 0; j < L; ++j) {
        const uint t = 0u - AT(x, j) - br;
        AT(x, j) = t & DMASK;
        br = t >> 31;
    }
}

/* One row of the modular update: out = (u f + v g) / 2^30 mod w, for u, v in [0, w), w odd of
   L digits, ninv = -w^-1 mod 2^30. Adding c w (c: the magnitudes of the negative coefficients)
   makes the sum non-negative, q w (q < 2^30) divisible by 2^30: the quotient lies in [0, 2w)
   and one conditional subtraction brings it below w. out may be u (digit j - 1 is written
   after digit j is read), not v. */
void mod_row(SP uint *u, SP const uint *v, SP const uint *w, SP uint *out, uint st,
             uint L, int f, int g, uint ninv)
{
    const uint c = (f < 0 ? (uint)(-f) : 0u) + (g < 0 ? (uint)(-g) : 0u);
    const uint x0 = AT(u, 0) * (uint)f + AT(v, 0) * (uint)g + c * AT(w, 0);   /* mod 2^32 */
    const uint k = c + ((x0 * ninv) & DMASK);                                  /* < 2^31 */
    long cy = 0;
    for (uint j = 0; j < L; ++j) {
        const long s = (long)(int)AT(u, j) * f + (long)(int)AT(v, j) * g
                     + (long)((ulong)AT(w, j) * k) + cy;
        if (j) AT(out, j - 1u) = (uint)s & DMASK;
        cy = s >> 30;
    }
    AT(out, L - 1u) = (uint)cy & DMASK;
    int ge = (cy >> 30) != 0;                 /* the quotient is below 2w < 2^(30L + 1) */
    if (!ge) {                                /* out >= w? from the top digit down */
        ge = 1;
        for (int j = (int)L - 1; j >= 0; --j) {
            const uint a = AT(out, j), b = AT(w, j);
            if (a != b) { ge = a > b; break; }
        }
    }
    if (ge) {
        uint br = 0u;
        for (uint j = 0; j < L; ++j) {
            const uint t = AT(out, j) - AT(w, j) - br;
            AT(out, j) = t & DMASK;
            br = t >> 31;
        }
    }
}

/* -w^-1 mod 2^30 for odd w0 (Newton: each step doubles the correct low bits, from 3). */
uint neg_inverse(uint w0)
{
    uint x = w0;                              /* w0 * w0 = 1 mod 8 */
    for (int i = 0; i < 4; ++i) x *= 2u - w0 * x;
    return (0u - x) & DMASK;
}
</%def>
