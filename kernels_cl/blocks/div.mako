## Pieces of schoolbook division (Knuth's Algorithm D) on 32-bit limbs.
##
## The quotient limb comes from GMP's udiv_qr_3by2 with a precomputed reciprocal (Möller &
## Granlund, "Improved division by invariant integers", 2011): no hardware division per step,
## and the estimate is floor((n2 n1 n0) / (d1 d0)) exactly, which is never below the true
## quotient limb and at most one above it (so one add-back at most).

## C helpers: the reciprocal, the 3-by-2 quotient, a limb of a shifted operand. Plain
## functions, not C99 `inline`, which leaves no definition to link where a compiler declines
## to inline.
<%def name="div_defs()">
/* dinv = floor((B^3 - 1) / D) - B for D = d1*B + d0 with the top bit of d1 set: restoring
   division of B^3 - 1 (all ones) by D, one quotient bit per round (once per instance). */
uint div_inv(uint d1, uint d0)
{
    const ulong D = ((ulong)d1 << 32) | d0;
    ulong r = ~0UL - D;                       /* B^2 - 1 = 1*D + r, r < D */
    uint q = 0u;
    for (int k = 0; k < 32; ++k) {
        const int top = (int)(r >> 63);       /* 2r + 1 >= 2^64 > D: subtract */
        r = (r << 1) | 1UL;
        q <<= 1;
        if (top || r >= D) { r -= D; q |= 1u; }
    }
    return q;
}

/* floor((n2 n1 n0) / (d1 d0)) for (n2 n1) <= (d1 d0); the case (n2 n1) == (d1 d0) gives B - 1,
   which is then the exact quotient limb of the whole window (its remainder is below v). */
uint div_3by2(uint n2, uint n1, uint n0, uint d1, uint d0, uint dinv)
{
    if (n2 == d1 && n1 == d0) return 0xFFFFFFFFu;
    const ulong D = ((ulong)d1 << 32) | d0;
    const ulong t = (ulong)n2 * dinv + (((ulong)n2 << 32) | n1);
    uint q = (uint)(t >> 32);
    const uint q0 = (uint)t;
    const uint r1 = n1 - d1 * q;
    ulong r = ((((ulong)r1) << 32) | n0) - D;
    r -= (ulong)d0 * q;
    q += 1u;
    const uint mask = ((uint)(r >> 32) >= q0) ? 0xFFFFFFFFu : 0u;
    q += mask;
    r += D & (((ulong)mask << 32) | mask);
    if (r >= D) q += 1u;
    return q;
}

/* Limb i of x * 2^(32w + b), x of m limbs (zero outside): the normalized operands are never
   stored, each limb is made where it is read. OpenCL masks shift counts, hence b == 0 apart.
   limb_shl_l: the same from local memory (kernels that stage their rows there). */
% for fn, space in (("limb_shl", "__global"), ("limb_shl_l", "__local")):
uint ${fn}(${space} const uint *x, uint m, int i, uint w, uint b)
{
    const int k = i - (int)w;
    const uint hi = (k >= 0 && k < (int)m) ? x[k] : 0u;
    if (b == 0u) return hi;
    const uint lo = (k >= 1 && k - 1 < (int)m) ? x[k - 1] : 0u;
    return (hi << b) | (lo >> (32u - b));
}
% endfor
</%def>

## R -= q * V over Q limbs (GMP's submul_1); `cy` (ulong) gets the borrow out. With `pend`
## (ulong, at most B), R -= pend * B too, folded into the chain: its low limb at limb 1, its
## high bit and that borrow into the carry to limb 2, which stays below B + 3 there (no 64-bit
## overflow) and within B after, so cy <= B (< B without pend).
<%def name="submul(R, V, q, Q, cy, pend=None)">
    {
        ulong _c = 0;
% for k in range(Q):
        {
  % if pend is not None and k == 1:
            const uint _x1 = ${R}[1], _pl = (uint)(${pend}), _x = _x1 - _pl;
            const ulong _up = (${pend} >> 32) + (ulong)(_x1 < _pl);
  % else:
            const uint _x = ${R}[${k}];
  % endif
            const ulong _t = (ulong)(${q}) * ${V}[${k}] + _c;
            const uint _lo = (uint)_t;
            ${R}[${k}] = _x - _lo; _c = (_t >> 32) + (ulong)(_x < _lo)${" + _up" if pend is not None and k == 1 else ""};
        }
% endfor
        ${cy} = _c;
    }
</%def>

## R -= m (ulong, at most B) with the borrow rippling up; `borrow` gets the borrow out.
<%def name="sub_limb(R, m, Q, borrow)">
    {
        ulong _m = ${m};
% for k in range(Q):
        { const uint _x = ${R}[${k}], _ml = (uint)_m; ${R}[${k}] = _x - _ml; _m = (_m >> 32) + (ulong)(_x < _ml); }
% endfor
        ${borrow} = (uint)_m;
    }
</%def>

## R = R * B + low (the window moves one limb down the dividend); the top limb drops out.
<%def name="shift_in(R, low, Q)">
% for k in range(Q - 1, 0, -1):
    ${R}[${k}] = ${R}[${k - 1}];
% endfor
    ${R}[0] = ${low};
</%def>

## Store limbs R[k] (window position pos0 + k, k < Q) of the remainder shifted right by
## 32w + b bits as limbs pos0 + k - w of r (m limbs); `above` is the window limb above R.
<%def name="store_shr(R, above, pos0, Q, w, b, r, m)">
% for k in range(Q):
    {
        const int _i = (int)(${pos0}) + ${k} - (int)(${w});
        const uint _up = ${"%s[%d]" % (R, k + 1) if k + 1 < Q else above};
        if (_i >= 0 && _i < (int)(${m}))
            ${r}[_i] = ${b} ? (${R}[${k}] >> ${b}) | (_up << (32u - ${b})) : ${R}[${k}];
    }
% endfor
</%def>
