## Arithmetic modulo the prime p = 2^64 - 2^32 + 1 for number-theoretic transforms.
##
## Why this prime: p - 1 = 2^32 * (2^32 - 1), so roots of unity of every power-of-two order up
## to 2^32 exist, and since 2^64 = 2^32 - 1 (mod p) and 2^96 = -1 (mod p), a 128-bit product
## reduces with a few 64-bit adds and no division. A coefficient of a product of 16-bit digits
## is below N * 2^32 < p for every length N < 2^31, so the convolution is exact: no CRT.
<%def name="gl_defs()">
#define GL_P 0xFFFFFFFF00000001ul
#define GL_EPS 0xFFFFFFFFul   /* 2^64 mod p */

inline ulong gl_add(ulong a, ulong b)
{
    ulong s = a + b;
    if (s < a) s += GL_EPS;    /* dropped 2^64 = EPS; cannot wrap again for a, b < p */
    return s >= GL_P ? s - GL_P : s;
}

inline ulong gl_sub(ulong a, ulong b)
{
    ulong d = a - b;
    return a < b ? d - GL_EPS : d;   /* d + 2^64 - EPS = a - b + p */
}

/* lo + 2^64 (hl + 2^32 hh) = lo + EPS hl - hh (mod p) */
inline ulong gl_reduce(ulong lo, ulong hi)
{
    ulong hh = hi >> 32, hl = hi & 0xFFFFFFFFul;
    ulong t = lo - hh;
    if (lo < hh) t -= GL_EPS;
    ulong u = (hl << 32) - hl;
    ulong r = t + u;
    if (r < u) r += GL_EPS;
    return r >= GL_P ? r - GL_P : r;
}

inline ulong gl_mul(ulong a, ulong b)
{
    return gl_reduce(a * b, mul_hi(a, b));
}
</%def>

## Arithmetic modulo a prime p < 2^31 of the form k*2^n + 1, in 32-bit words (Montgomery,
## R = 2^32). Why: on GPUs a 32x32->64 multiply is one instruction where a 64x64->128 one is
## about ten, so three such primes (CRT at the end) and 32-bit digits (half the points of
## 16-bit ones) cost fewer instructions than one 64-bit prime. Twiddles and scale factors are
## stored times R, so m31_mul(x, w R) = x w with no conversion of the data.
<%def name="m31_defs(P, PINV)">
#define M_P ${P}u
/* For x < 2p < 2^32, min(x, x - p) is x mod p: x - p wraps above x exactly when x < p. One
   unsigned min instead of a compare and a select. */
inline uint m31_add(uint a, uint b) { const uint s = a + b; return min(s, s - M_P); }
inline uint m31_sub(uint a, uint b) { const uint d = a - b; return min(d, d + M_P); }
inline uint m31_mul(uint a, uint b)
{
    const ulong t = (ulong)a * b;
    const uint m = (uint)t * ${PINV}u;                 /* -p^-1 mod 2^32 */
    const uint u = (uint)((t + (ulong)m * M_P) >> 32); /* t + m p < 2^63 */
    return min(u, u - M_P);
}
</%def>

## pt_t, F_ADD, F_SUB, F_MUL for the transform stages: the 64-bit prime or a 32-bit one.
<%def name="field_defs(FIELD, P=0, PINV=0)">
% if FIELD == "gl":
${gl_defs()}
typedef ulong pt_t;
#define F_ADD gl_add
#define F_SUB gl_sub
#define F_MUL gl_mul
% else:
${m31_defs(P, PINV)}
typedef uint pt_t;
#define F_ADD m31_add
#define F_SUB m31_sub
#define F_MUL m31_mul
% endif
</%def>

## Stages over points held in local memory. The points of `G` independent groups are
## interleaved, point i of group gl at X[i*G + gl], so that a group's points, which lie `S`
## apart in the transform, load coalesced across consecutive groups. `elem(gl, i)` gives the
## C expression of the point's index in the whole transform (for its twiddle).
##
## Forward: decimation in frequency, natural order in, bit-reversed order out, levels of
## half-length 2^(H-1) down to 2^(H-RB). Inverse: decimation in time, bit-reversed in,
## natural out, 2^(H-RB) up to 2^(H-1). So neither direction needs a permutation pass.
## Levels go two at a time (radix 4: four points through registers, one local round trip and
## one barrier for two levels, three twiddles for four butterflies), an odd one alone.
<%def name="stages(X, tw, L, H, RB, G, WG, tid, elem, inverse)">
<%
    levels = list(range(H - RB, H)) if inverse else list(range(H - 1, H - RB - 1, -1))
    steps = []
    while levels:
        if len(levels) >= 2:
            steps.append(("r4", min(levels[0], levels[1])))
            levels = levels[2:]
        else:
            steps.append(("r2", levels[0]))
            levels = []
%>
% for kind, l in steps:
<%  s = l - (H - RB) %>
  % if kind == "r2":
    for (uint _t = ${tid}; _t < ${G * (1 << (RB - 1))}u; _t += ${WG}u) {
        const uint _gl = _t % ${G}u, _p = _t / ${G}u;
        const uint _i = ((_p >> ${s}) << ${s + 1}) | (_p & ${(1 << s) - 1}u), _j = _i + ${1 << s}u;
        const pt_t _w = ${tw}[(${elem("_gl", "_i")} & ${(1 << l) - 1}ul) << ${L - 1 - l}];
        const pt_t _u = ${X}[_i * ${G}u + _gl], _v = ${X}[_j * ${G}u + _gl];
    % if inverse:
        const pt_t _vw = F_MUL(_v, _w);
        ${X}[_i * ${G}u + _gl] = F_ADD(_u, _vw);
        ${X}[_j * ${G}u + _gl] = F_SUB(_u, _vw);
    % else:
        ${X}[_i * ${G}u + _gl] = F_ADD(_u, _v);
        ${X}[_j * ${G}u + _gl] = F_MUL(F_SUB(_u, _v), _w);
    % endif
    }
  % else:
## the pair's levels: half-lengths 2^lo and 2^hi = 2^(lo+1)
<%  lo, hi = l, l + 1 %>
    for (uint _t = ${tid}; _t < ${G * (1 << (RB - 2))}u; _t += ${WG}u) {
        const uint _gl = _t % ${G}u, _p = _t / ${G}u;
        const uint _i = ((_p >> ${s}) << ${s + 2}) | (_p & ${(1 << s) - 1}u);
        const uint _e = ${elem("_gl", "_i")};
        const pt_t _wlo = ${tw}[(_e & ${(1 << lo) - 1}ul) << ${L - 1 - lo}];
        const pt_t _whi0 = ${tw}[(_e & ${(1 << hi) - 1}ul) << ${L - 1 - hi}];
        const pt_t _whi1 = ${tw}[((_e + ${1 << lo}u) & ${(1 << hi) - 1}ul) << ${L - 1 - hi}];
        pt_t _p0 = ${X}[_i * ${G}u + _gl], _p1 = ${X}[(_i + ${1 << s}u) * ${G}u + _gl];
        pt_t _p2 = ${X}[(_i + ${2 << s}u) * ${G}u + _gl], _p3 = ${X}[(_i + ${3 << s}u) * ${G}u + _gl];
        pt_t _a, _b;
    % if inverse:
        _b = F_MUL(_p1, _wlo); _p1 = F_SUB(_p0, _b); _p0 = F_ADD(_p0, _b);
        _b = F_MUL(_p3, _wlo); _p3 = F_SUB(_p2, _b); _p2 = F_ADD(_p2, _b);
        _b = F_MUL(_p2, _whi0); _p2 = F_SUB(_p0, _b); _p0 = F_ADD(_p0, _b);
        _b = F_MUL(_p3, _whi1); _p3 = F_SUB(_p1, _b); _p1 = F_ADD(_p1, _b);
    % else:
        _a = F_ADD(_p0, _p2); _p2 = F_MUL(F_SUB(_p0, _p2), _whi0); _p0 = _a;
        _a = F_ADD(_p1, _p3); _p3 = F_MUL(F_SUB(_p1, _p3), _whi1); _p1 = _a;
        _a = F_ADD(_p0, _p1); _p1 = F_MUL(F_SUB(_p0, _p1), _wlo); _p0 = _a;
        _a = F_ADD(_p2, _p3); _p3 = F_MUL(F_SUB(_p2, _p3), _wlo); _p2 = _a;
    % endif
        ${X}[_i * ${G}u + _gl] = _p0; ${X}[(_i + ${1 << s}u) * ${G}u + _gl] = _p1;
        ${X}[(_i + ${2 << s}u) * ${G}u + _gl] = _p2; ${X}[(_i + ${3 << s}u) * ${G}u + _gl] = _p3;
    }
  % endif
    barrier(CLK_LOCAL_MEM_FENCE);
% endfor
</%def>
