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

/* The cofactor update, both rows in one pass over u, v, w (w odd, M digits, 2w < 2^(30M)):
   (u, v) <- ((u F0 + v G0) / 2^60, (u F1 + v G1) / 2^60) mod w, for a matrix P = [F0 G0; F1 G1]
   with |F| + |G| <= 2^60 per row (the product of two rounds' matrices, or one round's times
   2^30). Lazy reduction: the stored U, V lie in [0, 2w) and stand for u = U - su w, v = V - sv w
   in [0, w) (su, sv: bits 0 and 1 of *s), so the conditional subtraction of the previous update
   costs no pass: it moves into the coefficient of w. Per row the sum S = U F + V G + K w, with
   K = C + Q - su F - sv G (C: the magnitudes of the negative coefficients; Q < 2^60 makes S
   divisible by 2^60), equals u F + v G + (C + Q) w, which lies in [0, 2^61 w): the quotient is
   in [0, 2w). Whether it is >= w is learnt from the borrow of (quotient - w), carried along as
   the quotient's digits come out, low to high. Bounds of one digit's sum (K in [-2^60, 3 2^60)):
   U_j F_lo + V_j G_lo + w_j K_lo below 3 2^60, |U_j-1 F_hi + V_j-1 G_hi| about 2^60, w_j-1 K_hi
   below 3 2^60, the carry below 2^33: below 2^63 in a signed 64-bit accumulator. U and V are read once and
   overwritten in place (digit j - 2 is written after digit j is read). ninv = -w^-1 mod 2^60. */
long cof_coef(long F, long G, uint sb, ulong U60, ulong V60, ulong w60, ulong ninv)
{
    const long C = (F < 0 ? -F : 0) + (G < 0 ? -G : 0);
    const long B = C - ((sb & 1u) ? F : 0) - ((sb & 2u) ? G : 0);
    const ulong T = U60 * (ulong)F + V60 * (ulong)G + w60 * (ulong)B;       /* mod 2^64 */
    return B + (long)((T * ninv) & 0xFFFFFFFFFFFFFFFUL);
}

void cof_update(SP uint *u, SP uint *v, SP const uint *w, uint st, uint M, const long *P,
                uint *s, ulong ninv)
{
    const ulong U60 = AT(u, 0) | ((ulong)AT(u, 1) << 30), V60 = AT(v, 0) | ((ulong)AT(v, 1) << 30);
    const ulong w60 = AT(w, 0) | ((ulong)AT(w, 1) << 30);
    const long K0 = cof_coef(P[0], P[1], *s, U60, V60, w60, ninv);
    const long K1 = cof_coef(P[2], P[3], *s, U60, V60, w60, ninv);
    /* each coefficient as lo (30 bits, unsigned) + hi 2^30 (signed) */
    const int fl = (int)(P[0] & DMASK), gl = (int)(P[1] & DMASK), kl = (int)(K0 & DMASK);
    const int fh = (int)(P[0] >> 30), gh = (int)(P[1] >> 30);
    const int el = (int)(P[2] & DMASK), hl = (int)(P[3] & DMASK), ml = (int)(K1 & DMASK);
    const int eh = (int)(P[2] >> 30), hh = (int)(P[3] >> 30);
    const long kh = K0 >> 30, mh = K1 >> 30;  /* K in [-2^60, 3 2^60): not an int */
    long cu = 0, cv = 0;
    int up = 0, vp = 0, wp = 0, wq = 0;       /* digits j - 1 (wq: w's digit j - 2) */
    int bu = 0, bv = 0;                       /* borrows of (U' - w), (V' - w) */
    for (uint j = 0; j <= M; ++j) {
        const int uj = j < M ? (int)AT(u, j) : 0, vj = j < M ? (int)AT(v, j) : 0;
        const int wj = j < M ? (int)AT(w, j) : 0;
        const long su = (long)uj * fl + (long)vj * gl + (long)wj * kl
                      + (long)up * fh + (long)vp * gh + (long)wp * kh + cu;
        const long sv = (long)uj * el + (long)vj * hl + (long)wj * ml
                      + (long)up * eh + (long)vp * hh + (long)wp * mh + cv;
        if (j >= 2u) {
            const int du = (int)((uint)su & DMASK), dv = (int)((uint)sv & DMASK);
            AT(u, j - 2u) = (uint)du;
            AT(v, j - 2u) = (uint)dv;
            bu = (du - wq - bu) < 0;
            bv = (dv - wq - bv) < 0;
        }
        cu = su >> 30;
        cv = sv >> 30;
        up = uj; vp = vj; wq = wp; wp = wj;
    }
    /* the top digit: the quotient is below 2w < 2^(30M), the mask a no-op (digits stay 30-bit,
       as the bounds above assume) */
    AT(u, M - 1u) = (uint)cu & DMASK;
    AT(v, M - 1u) = (uint)cv & DMASK;
    bu = ((int)cu - wq - bu) < 0;
    bv = ((int)cv - wq - bv) < 0;
    *s = (bu ? 0u : 1u) | (bv ? 0u : 2u);
}

/* x <- x - w where bit `bit` of s is set (the final reduction of a lazy cofactor). */
void cof_reduce(SP uint *x, SP const uint *w, uint st, uint M, uint bit)
{
    if (!bit) return;
    int br = 0;
    for (uint j = 0; j < M; ++j) {
        const int t = (int)AT(x, j) - (int)AT(w, j) - br;
        AT(x, j) = (uint)t & DMASK;
        br = t < 0;
    }
}

/* -w^-1 mod 2^60 for odd w (w60: its low 60 bits; Newton: each step doubles the correct low
   bits, from 3). */
ulong neg_inverse60(ulong w60)
{
    ulong x = w60;                            /* w * w = 1 mod 8 */
    for (int i = 0; i < 5; ++i) x *= 2UL - w60 * x;
    return (0UL - x) & 0xFFFFFFFFFFFFFFFUL;
}
</%def>
