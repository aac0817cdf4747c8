## Montgomery multiplication with FP64 fused multiply-adds (the digit products of Emmart, Zheng &
## Weems, ARITH 2018), for one work-item per instance: digits of D = 51 bits held in doubles,
## R = 2^(51 N) > 4m, so residues stay below 2m between products and need no subtraction.
##
## A digit product p = x*y < 2^102 splits exactly in two fma: hi = fma(x, y, 2^103) rounds p
## to a multiple of 2^51 (the ulp of [2^103, 2^104)), so its bit pattern is E103 + H with
## H = round(p / 2^51); lo = fma(x, y, (2^103 + 3*2^51) - hi) = L + 3*2^51 with
## L = p - H*2^51 in [-2^50, 2^50], which lies in [2^52, 2^53) where the ulp is 1, so its bit
## pattern is E52 + 2^51 + L. Both bit patterns are summed as 64-bit integers into column
## accumulators: no carry chain inside a row, only one 64-bit add per term. Every bias (E103,
## E52 + 2^51) is a multiple of 2^51, so an accumulator's low D bits are exact at any time; its
## carry (the bits above) is exact once the known bias is subtracted: the accumulators start at
## minus the bias they will have gathered when they reach column 0, so the carry out of column
## 0 needs no correction, and the top columns' biases are subtracted once at the end.
##
## Why: an int32 CIOS pays two multiply-adds per 32x32-bit product plus a serial carry chain;
## here a 51x51-bit product costs three FP64 operations (fma, subtract, fma) on a pipe of its
## own and two 64-bit integer adds, with no chain. Double-precision hardware is required
## (cl_khr_fp64); mpn/mont52.py checks the device.
<%!
    from clbig.runtime.tmpl import at
    D = 51
    M_D = (1 << 51) - 1
    E52 = 1075 << 52                  # bit pattern of 2^52 (a digit v is as_double(E52 | v) - 2^52)
    E103 = 1126 << 52                 # bit pattern of 2^103
    LO = E52 + (1 << 51)              # bias of one lo term
    BL, BH = 2 * LO, 2 * E103         # a column's bias per row: two lo terms, two hi terms
    MASK64 = (1 << 64) - 1

    def u64(v):
        return "0x%016xul" % (v & MASK64)

    def md_read(MM, j):
        """m's digit j read once into _md where MM is an accessor of local memory (ML is a
        volatile read: each use would be a load, two per product); nothing for registers."""
        return "const double _md = %s;" % at(MM, j) if MM.startswith("@") else ""

    def md(MM, j):
        """m's digit j as md_read left it."""
        return "_md" if MM.startswith("@") else at(MM, j)

    def init(p):
        """Start of accumulator p: minus the bias it has when it is column 0 (row p, after its
        two lo terms), so its carry out is exact."""
        return u64(-(p * (BL + BH) + BL))

    def final_bias(N, p):
        """Bias of accumulator p after the last row: made by row p from two hi terms, then
        interior for rows p+1 .. N-1."""
        return u64(BH + (N - 1 - p) * (BL + BH))

    def digit_bits(j, src, M):
        """Bits [51j, 51j + 51) of a 32-bit limb vector src(w) of M limbs, a ulong expression."""
        b = D * j
        w, sh = b >> 5, b & 31
        parts = []
        for t, s in ((0, -sh), (1, 32 - sh), (2, 64 - sh)):
            if w + t >= M or s >= D or s <= -32:
                continue
            word = "(ulong)%s" % src(w + t)
            parts.append(word if s == 0 else ("(%s >> %d)" % (word, -s) if s < 0 else "(%s << %d)" % (word, s)))
        return "((%s) & %s)" % (" | ".join(parts), u64(M_D)) if parts else "0ul"

    def limb_bits(k, dig, N):
        """Bits [32k, 32k + 32) of the D-bit digit vector dig(j) (ulong) of N digits, a uint
        expression."""
        b = 32 * k
        j, off = b // D, b % D
        parts = []
        if j < N:
            parts.append("(%s >> %d)" % (dig(j), off) if off else dig(j))
        if off + 32 > D and j + 1 < N:
            parts.append("(%s << %d)" % (dig(j + 1), D - off))
        return "(uint)(%s)" % " | ".join(parts) if parts else "0u"
%>

<%def name="mont52_defs()">
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define M_D ${u64(M_D)}
#define C_HI 0x1p103                    /* 2^103 */
#define C_LO 0x1.0000000000003p103         /* 2^103 + 3*2^51 */
#define TWO52 0x1p52
/* a digit (< 2^52) as a double, and back: 2^52 + v has v as its mantissa field */
inline double dig2d(ulong v) { return as_double(v | ${u64(E52)}) - TWO52; }
inline ulong d2dig(double d) { return as_ulong(d + TWO52) & ${u64((1 << 52) - 1)}; }
/* -m0^-1 mod 2^51 for odd m0: each Newton step doubles the correct low bits (3 -> 96). */
inline ulong mont52_minv(ulong m0)
{
    ulong x = m0;
    x *= 2ul - m0 * x; x *= 2ul - m0 * x; x *= 2ul - m0 * x; x *= 2ul - m0 * x; x *= 2ul - m0 * x;
    return (0ul - x) & M_D;
}
</%def>

## digit(ep, pos): bits pos .. pos+W-1 of an exponent of ME limbs at ep (the window's digit).
<%def name="window_digit_defs(ME, W)">
inline uint digit(__global const uint *ep, uint pos)
{
    const uint w0 = pos >> 5, sh = pos & 31u;
    ulong v = w0 < ${ME}u ? ep[w0] : 0u;
    if (w0 + 1u < ${ME}u) v |= (ulong)ep[w0 + 1u] << 32;
    return (uint)(v >> sh) & ${(1 << W) - 1}u;
}
</%def>

## wdigit(ep, me, pos): the same with the exponent's limb count me and W at run time (kernels
## built once for every exponent length: fixed bases and products of powers).
<%def name="window_digit_rt_defs()">
inline uint wdigit(__global const uint *ep, uint me, uint w, uint pos)
{
    const uint w0 = pos >> 5, sh = pos & 31u;
    ulong v = w0 < me ? ep[w0] : 0u;
    if (w0 + 1u < me) v |= (ulong)ep[w0 + 1u] << 32;
    return (uint)(v >> sh) & ((1u << w) - 1u);
}
</%def>

## dst[0..N) (doubles) = the D-bit digits of the M-limb vector whose limb w is src(w) (a Python
## callable giving an expression; limbs past M read as 0).
<%def name="load_digits(dst, src, M, N)">
% for j in range(N):
    ${at(dst, j)} = dig2d(${digit_bits(j, src, M)});
% endfor
</%def>

## out limb k (k < NM) = bits [32k, 32k + 32) of the digits rd[0..N) (ulong).
<%def name="store_limbs(put, rd, N, NM)">
% for k in range(NM):
    ${put(k, limb_bits(k, lambda j: "%s[%d]" % (rd, j), N))};
% endfor
</%def>

## rd[0..N) (ulong digits) = x * y / R mod m, below 2m when x, y < 2m (below R + m when x, y < R).
## X(i): the multiplier's digit i as a double (a macro with a run-time index, e.g. local
## memory); Y: the multiplicand's digits (private doubles or "@F"); MM: m's digits (likewise);
## minv = -m^-1 mod 2^51 (ulong) in scope.
<%def name="mont52_mul(rd, X, Y, MM, N)">
    {
        ulong _A[${N}];
% for p in range(N):
        _A[${p}] = ${init(p)};
% endfor
        for (uint _i = 0; _i < ${N}u; ++_i) {
            const double _x = ${X}(_i);
            double _hx = fma(_x, ${at(Y, 0)}, C_HI);
            ulong _t = _A[0] + as_ulong(fma(_x, ${at(Y, 0)}, C_LO - _hx));
            const double _q = dig2d(((_t & M_D) * minv) & M_D);
            ${md_read(MM, 0)}   /* each digit of m read once where it lies in (volatile) local memory */
            double _hq = fma(_q, ${md(MM, 0)}, C_HI);
            _t += as_ulong(fma(_q, ${md(MM, 0)}, C_LO - _hq));
            const ulong _cy = (ulong)((long)_t >> ${D});   /* exact: _A[0] started at minus its bias */
% for p in range(N - 1):
            {
                const double _hx1 = fma(_x, ${at(Y, p + 1)}, C_HI);
                ${md_read(MM, p + 1)}
                const double _hq1 = fma(_q, ${md(MM, p + 1)}, C_HI);
                _A[${p}] = _A[${p + 1}] + as_ulong(fma(_x, ${at(Y, p + 1)}, C_LO - _hx1)) + as_ulong(_hx)
                         + as_ulong(fma(_q, ${md(MM, p + 1)}, C_LO - _hq1)) + as_ulong(_hq)${" + _cy" if p == 0 else ""};
                _hx = _hx1; _hq = _hq1;
            }
% endfor
            _A[${N - 1}] = as_ulong(_hx) + as_ulong(_hq)${" + _cy" if N == 1 else ""};
        }
        long _c = 0;   /* columns to digits: signed carries (lo terms may be negative) */
% for p in range(N):
        { const ulong _v = _A[${p}] - ${final_bias(N, p)} + (ulong)_c; ${rd}[${p}] = _v & M_D; _c = (long)_v >> ${D}; }
% endfor
    }
</%def>

## Digit P (run time) of the M-limb vector at row (0 past it): for kernels whose items own
## digits chosen at run time (mont52_coop.cl.mako).
<%def name="digit_rt_defs()">
inline ulong digit_at(__global const uint *row, uint M, uint P)
{
    const uint b = ${D}u * P, w = b >> 5, sh = b & 31u;
    ulong v = w < M ? (ulong)row[w] >> sh : 0ul;
    if (w + 1u < M) v |= (ulong)row[w + 1u] << (32u - sh);
    if (w + 2u < M) v |= ((ulong)row[w + 2u] << 1) << (63u - sh);
    return v & M_D;
}
</%def>

## The cooperative products' end: item k's columns _A[0..S) (positions kS + j) less their
## bias (a C expression of the position, ulong _P) go to XROW as 64-bit words, and item 0 turns
## the N of them into digits in one pass of carries, leaving them in XROW as doubles. Every
## read of XROW must be behind a barrier before this; every item of the group calls it.
<%def name="coop_to_digits(S, N, XROW, bias)">
        {
            __local ulong *_xu = (__local ulong *)${XROW};
% for j in range(S):
            { const ulong _P = (ulong)_kb + ${j}ul; _xu[_P] = _A[${j}] - (${bias}); }
% endfor
            barrier(CLK_LOCAL_MEM_FENCE);
            if (k == 0u) {
                long _c = 0;
                for (uint _p = 0; _p < ${N}u; ++_p) {
                    const ulong _v = _xu[_p] + (ulong)_c;
                    _c = (long)_v >> ${D};
                    ${XROW}[_p] = dig2d(_v & M_D);
                }
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
</%def>

## The cooperative mont52_mul: an instance's N = C*S columns over C items, item k holding
## positions kS .. kS+S-1 (_A[j] at kS + j). Y(j), MM(j) for j = 0..S: the multiplicand's and
## m's digits kS+j-1 (Y(0), MM(0) the digit below the item's first, 0 for k = 0). The multiplier
## is the instance's row XS(i) of local memory (all of it written before the call). Each row:
## every item adds its products, item 0 takes the carry out of column 0 and already forms the
## next row's q from its new column 0 (its own position 1), every item hands its lowest
## column down: one barrier per row, the exchange (ex) and q (qx) double-buffered by the row's
## parity. Afterwards the columns go to local memory, item 0 turns them into digits (one pass
## of N) and leaves the result, below 2m, in the instance's row XS as doubles.
## Needs: tid, s, k, minv; local ex[2*WG] (ulong), qx[2*IPB] (double); S >= 2. Every item of
## the group must call it (barriers).
<%def name="mont52_mul_coop(Y, MM, S, N, C, IPB, WG, XROW)">
    {
        const ulong _kb = (ulong)(k * ${S}u);
        ulong _A[${S}];
% for j in range(S):
        _A[${j}] = 0ul - ((_kb + ${j}ul) * ${u64(BL + BH)} + ${u64(BL)});
% endfor
        if (k == 0u) {
            const double _x0 = ${XROW}[0], _h = fma(_x0, ${at(Y, 1)}, C_HI);
            qx[${IPB}u + s] = dig2d((((_A[0] + as_ulong(fma(_x0, ${at(Y, 1)}, C_LO - _h))) & M_D) * minv) & M_D);
        }
        barrier(CLK_LOCAL_MEM_FENCE);   /* q_0, and the multiplier row of every item */
        for (uint _i = 0; _i < ${N}u; ++_i) {
            const uint _par = _i & 1u;
            const double _x = ${XROW}[_i], _q = qx[(_par ^ 1u) * ${IPB}u + s];
            const double _xn = _i + 1u < ${N}u ? ${XROW}[_i + 1u] : 0.0;
            double _hx = fma(_x, ${at(Y, 0)}, C_HI), _hq = fma(_q, ${at(MM, 0)}, C_HI);
            ulong _T;
            {
                ${md_read(MM, 1)}
                const double _hx1 = fma(_x, ${at(Y, 1)}, C_HI), _hq1 = fma(_q, ${md(MM, 1)}, C_HI);
                _T = _A[0] + as_ulong(fma(_x, ${at(Y, 1)}, C_LO - _hx1)) + as_ulong(_hx)
                   + as_ulong(fma(_q, ${md(MM, 1)}, C_LO - _hq1)) + as_ulong(_hq);
                _hx = _hx1; _hq = _hq1;
            }
            /* item 0: column 0's carry (its two hi terms of the digit below 0 are E103 each) */
            const ulong _cy = k == 0u ? (ulong)((long)(_T - ${u64(BH)}) >> ${D}) : 0ul;
% for j in range(1, S):
            {
                ${md_read(MM, j + 1)}
                const double _hx1 = fma(_x, ${at(Y, j + 1)}, C_HI), _hq1 = fma(_q, ${md(MM, j + 1)}, C_HI);
                _A[${j - 1}] = _A[${j}] + as_ulong(fma(_x, ${at(Y, j + 1)}, C_LO - _hx1)) + as_ulong(_hx)
                             + as_ulong(fma(_q, ${md(MM, j + 1)}, C_LO - _hq1)) + as_ulong(_hq)${" + _cy" if j == 1 else ""};
                _hx = _hx1; _hq = _hq1;
            }
  % if j == 1:
            {   /* q of the next row from the new column 0, as soon as it is complete: every item
                   forms it (no branch, so it overlaps the rest of the row), item 0 stores it */
                const double _h = fma(_xn, ${at(Y, 1)}, C_HI);
                const double _qn = dig2d((((_A[0] + as_ulong(fma(_xn, ${at(Y, 1)}, C_LO - _h))) & M_D) * minv) & M_D);
                if (k == 0u) qx[_par * ${IPB}u + s] = _qn;
            }
  % endif
% endfor
            ex[_par * ${WG}u + tid] = _T;
            barrier(CLK_LOCAL_MEM_FENCE);
            _A[${S - 1}] = k + 1u < ${C}u ? ex[_par * ${WG}u + tid + 1u] : as_ulong(_hx) + as_ulong(_hq);
        }
        /* every read of the row is behind the last barrier */
        ${coop_to_digits(S, N, XROW, "%s - _P * %s" % (u64(BH + (N - 1) * (BL + BH)), u64(BL + BH)))}
    }
</%def>

## The cooperative square: mont52_mul_coop's rows and window with the multiplier row XROW as its
## own multiplicand, N(N+1)/2 digit products for x*x against N^2. N = C*S is even; H = N/2.
## Only even rows r = 2t add x products (odd rows add q*m only): at window position P (column
## c = 2t + P) the pair (t, t+P) where t + P < N, else (t+H, t+P-H); each twice, but the
## diagonal (t, t) at P = 0 once. Every column c gets each pair {i, c-i} once, but for even
## c >= N the diagonal (c/2)^2, added to the columns after the last row (they never meet a q).
## So an item's multiplicand at row t is B(t + P), B(u) = x_u below N and x_(u-H) from N on:
## Y(j) = B(t + kS + j - 1), shifted down by one digit per even row, and its multiplier is
## 2 x_t or 2 x_(t+H) as t + P is below N or not. The columns' biases count what each row adds
## (odd rows: one lo and one hi term less). Y must hold the digits kS + j - 1 of XROW (0 below
## item 0) on entry, as for mont52_mul_coop.
<%def name="mont52_sqr_coop(Y, MM, S, N, C, IPB, WG, XROW)">
<%
    H = N // 2
    PAIR, HALF = BL + BH, LO + E103          # a column's bias from an even row, from an odd one
    def B(u):
        return "%s[(%s) < %du ? (%s) : (%s) - %du]" % (XROW, u, N, u, u, H)
%>
    {
        const uint _kb = k * ${S}u;
        ulong _A[${S}];
% for j in range(S):
        {   /* minus its bias when it is column 0 (row P): ceil(P/2) even rows, floor(P/2) odd ones, row P's lo terms */
            const ulong _P = (ulong)_kb + ${j}ul;
            _A[${j}] = 0ul - (((_P + 1ul) >> 1) * ${u64(PAIR)} + (_P >> 1) * ${u64(HALF)} + ((_P & 1ul) ? ${u64(LO)} : ${u64(BL)}));
        }
% endfor
        if (k == 0u) {
            const double _x0 = ${XROW}[0], _h = fma(_x0, _x0, C_HI);
            qx[${IPB}u + s] = dig2d((((_A[0] + as_ulong(fma(_x0, _x0, C_LO - _h))) & M_D) * minv) & M_D);
        }
        barrier(CLK_LOCAL_MEM_FENCE);   /* q_0, and the row of every item */
        for (uint _t = 0; _t < ${H}u; ++_t) {
            if (_t > 0u) {
% for j in range(S):
                ${at(Y, j)} = ${at(Y, j + 1)};
% endfor
                ${at(Y, S)} = ${B("_t + _kb + %du" % (S - 1))};
                if (k == 0u) ${at(Y, 0)} = 0.0;
            }
            {   /* even row 2t: x products and q*m */
                const double _a1 = ${XROW}[_t], _m1 = 2.0 * _a1, _m2 = 2.0 * ${XROW}[_t + ${H}u];
                const int _lim = ${N + 1} - (int)(_t + _kb);   /* Y(j) pairs with x_t where j < _lim */
                const double _m11 = k == 0u ? _a1 : (1 < _lim ? _m1 : _m2);   /* position 0: the diagonal, once */
                const double _q = qx[${IPB}u + s];
<%
    def mul(j):
        return "_m11" if j == 1 else "(%d < _lim ? _m1 : _m2)" % j
%>
                double _mx = ${mul(0)};
                double _hx = fma(_mx, ${at(Y, 0)}, C_HI), _hq = fma(_q, ${at(MM, 0)}, C_HI);
                ulong _T;
                {
                    _mx = ${mul(1)};
                    ${md_read(MM, 1)}
                    const double _hx1 = fma(_mx, ${at(Y, 1)}, C_HI), _hq1 = fma(_q, ${md(MM, 1)}, C_HI);
                    _T = _A[0] + as_ulong(fma(_mx, ${at(Y, 1)}, C_LO - _hx1)) + as_ulong(_hx)
                       + as_ulong(fma(_q, ${md(MM, 1)}, C_LO - _hq1)) + as_ulong(_hq);
                    _hx = _hx1; _hq = _hq1;
                }
                const ulong _cy = k == 0u ? (ulong)((long)(_T - ${u64(BH)}) >> ${D}) : 0ul;
% for j in range(1, S):
                {
                    _mx = ${mul(j + 1)};
                    ${md_read(MM, j + 1)}
                    const double _hx1 = fma(_mx, ${at(Y, j + 1)}, C_HI), _hq1 = fma(_q, ${md(MM, j + 1)}, C_HI);
                    _A[${j - 1}] = _A[${j}] + as_ulong(fma(_mx, ${at(Y, j + 1)}, C_LO - _hx1)) + as_ulong(_hx)
                                 + as_ulong(fma(_q, ${md(MM, j + 1)}, C_LO - _hq1)) + as_ulong(_hq)${" + _cy" if j == 1 else ""};
                    _hx = _hx1; _hq = _hq1;
                }
  % if j == 1:
                if (k == 0u) qx[s] = dig2d(((_A[0] & M_D) * minv) & M_D);   /* the odd row's q: no x term */
  % endif
% endfor
                ex[tid] = _T;
                barrier(CLK_LOCAL_MEM_FENCE);
                _A[${S - 1}] = k + 1u < ${C}u ? ex[tid + 1u] : as_ulong(_hx) + as_ulong(_hq);
            }
            {   /* odd row 2t+1: q*m only */
                const double _q = qx[s];
                const double _xn = _t + 1u < ${H}u ? ${XROW}[_t + 1u] : 0.0;   /* the next even row's diagonal */
                double _hq = fma(_q, ${at(MM, 0)}, C_HI);
                ulong _T;
                {
                    ${md_read(MM, 1)}
                    const double _hq1 = fma(_q, ${md(MM, 1)}, C_HI);
                    _T = _A[0] + as_ulong(fma(_q, ${md(MM, 1)}, C_LO - _hq1)) + as_ulong(_hq);
                    _hq = _hq1;
                }
                const ulong _cy = k == 0u ? (ulong)((long)(_T - ${u64(E103)}) >> ${D}) : 0ul;
% for j in range(1, S):
                {
                    ${md_read(MM, j + 1)}
                    const double _hq1 = fma(_q, ${md(MM, j + 1)}, C_HI);
                    _A[${j - 1}] = _A[${j}] + as_ulong(fma(_q, ${md(MM, j + 1)}, C_LO - _hq1)) + as_ulong(_hq)${" + _cy" if j == 1 else ""};
                    _hq = _hq1;
                }
  % if j == 1:
                {
                    const double _h = fma(_xn, _xn, C_HI);
                    const double _qn = dig2d((((_A[0] + as_ulong(fma(_xn, _xn, C_LO - _h))) & M_D) * minv) & M_D);
                    if (k == 0u) qx[${IPB}u + s] = _qn;
                }
  % endif
% endfor
                ex[${WG}u + tid] = _T;
                barrier(CLK_LOCAL_MEM_FENCE);
                _A[${S - 1}] = k + 1u < ${C}u ? ex[${WG}u + tid + 1u] : as_ulong(_hq);
            }
        }
% for j in range(S):
        {   /* the diagonal of column N + P (final position P = 2u - N, its hi at P + 1) */
            const uint _P = _kb + ${j}u;
            const double _v = ${XROW}[(_P + ${N}u) >> 1], _h = fma(_v, _v, C_HI);
            _A[${j}] += (_P & 1u) ? as_ulong(_h) : as_ulong(fma(_v, _v, C_LO - _h));
        }
% endfor
        barrier(CLK_LOCAL_MEM_FENCE);   /* every read of the row done: the columns overwrite it */
        /* less its bias: it entered at row P as the top (hi terms), rows P+1 .. N-1, its diagonal term */
        ${coop_to_digits(S, N, XROW, "((_P & 1ul) ? %s : %s) + (%dul - ((_P + 2ul) >> 1)) * %s + (%dul - ((_P + 1ul) >> 1)) * %s"
                         % (u64(2 * E103), u64(BH + LO), (N + 1) // 2, u64(PAIR), N // 2, u64(HALF)))}
    }
</%def>

## rd[0..N) = y * y / R mod m (below 2m for y < 2m), y private doubles: the rows unrolled so
## the columns have fixed places (_c[c] for column c) and each cross product is formed once,
## times 2 y_i (exact: 2 y_i < 2^52 and 2 y_i y_j < 2^103 keep hi in 2^103's binade): N(N+1)/2
## products for y*y and N^2 for q*m, against 2 N^2 in mont52_mul. Column i is complete when
## row i reads it (its products come from rows <= i/2, its q*m terms from rows < i); its bias
## is counted here, so its carry is exact. Code grows as N^2: for small N (mpn/mont52.py).
<%def name="mont52_sqr(rd, Y, MM, N)">
    {
        ulong _c[${2 * N + 1}];
<% nb = [0] * (2 * N + 1) %>
% for c in range(2 * N + 1):
        _c[${c}] = 0;
% endfor
% for i in range(N):
        {
            const double _x = ${at(Y, i)}, _x2 = 2.0 * _x;
  % for j in range(i, N):
<% nb[i + j] += LO; nb[i + j + 1] += E103 %>
            { const double _h = fma(${"_x" if j == i else "_x2"}, ${at(Y, j)}, C_HI);
              _c[${i + j}] += as_ulong(fma(${"_x" if j == i else "_x2"}, ${at(Y, j)}, C_LO - _h)); _c[${i + j + 1}] += as_ulong(_h); }
  % endfor
            const double _q = dig2d(((_c[${i}] & M_D) * minv) & M_D);
  % for j in range(N):
<% nb[i + j] += LO; nb[i + j + 1] += E103 %>
            { ${md_read(MM, j)} const double _h = fma(_q, ${md(MM, j)}, C_HI);
              _c[${i + j}] += as_ulong(fma(_q, ${md(MM, j)}, C_LO - _h)); _c[${i + j + 1}] += as_ulong(_h); }
  % endfor
            _c[${i + 1}] += (ulong)((long)(_c[${i}] - ${u64(nb[i])}) >> ${D});
        }
% endfor
        long _cc = 0;
% for p in range(N):
        { const ulong _v = _c[${N + p}] - ${u64(nb[N + p])} + (ulong)_cc; ${rd}[${p}] = _v & M_D; _cc = (long)_v >> ${D}; }
% endfor
    }
</%def>

## rd[0..N) -= m while rd >= m, TIMES times (m's digits from MM as doubles).
<%def name="reduce(rd, MM, N, TIMES)">
% for _ in range(TIMES):
    {
        ulong _d[${N}]; long _b = 0;
  % for j in range(N):
        { const long _v = (long)${rd}[${j}] - (long)d2dig(${at(MM, j)}) + _b; _d[${j}] = (ulong)_v & M_D; _b = _v >> ${D}; }
  % endfor
        if (_b == 0) {
  % for j in range(N):
            ${rd}[${j}] = _d[${j}];
  % endfor
        }
    }
% endfor
</%def>
