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

## The same with the prime a run-time value (issue 43: one build serves the three primes).
## F_ADD, F_SUB and F_MUL read `_mp` and `_mpinv`, which the kernel takes from its table of the
## prime's constants (`fc`, see ntt.cl.mako) before its first stage. m31r_mul(a, b) is exact for
## any 32-bit a and b < p: t + m p < 2^64 and u < a b / 2^32 + p < 2p, so m31r_mul(x, R mod p)
## reduces a limb x mod p (no division by a run-time value).
<%def name="m31r_defs()">
inline uint m31r_add(uint a, uint b, uint p) { const uint s = a + b; return min(s, s - p); }
inline uint m31r_sub(uint a, uint b, uint p) { const uint d = a - b; return min(d, d + p); }
inline uint m31r_mul(uint a, uint b, uint p, uint pinv)
{
    const ulong t = (ulong)a * b;
    const uint m = (uint)t * pinv;
    const uint u = (uint)((t + (ulong)m * p) >> 32);
    return min(u, u - p);
}
</%def>

## pt_t, F_ADD, F_SUB, F_MUL for the transform stages: the 64-bit prime, a 32-bit one written
## into the kernel (P), or a 32-bit one given at run time (P = 0).
<%def name="field_defs(FIELD, P=0, PINV=0)">
% if FIELD == "gl":
${gl_defs()}
typedef ulong pt_t;
#define F_ADD gl_add
#define F_SUB gl_sub
#define F_MUL gl_mul
% elif P:
${m31_defs(P, PINV)}
typedef uint pt_t;
#define F_ADD m31_add
#define F_SUB m31_sub
#define F_MUL m31_mul
% else:
${m31r_defs()}
typedef uint pt_t;
#define F_ADD(a, b) m31r_add((a), (b), _mp)
#define F_SUB(a, b) m31r_sub((a), (b), _mp)
#define F_MUL(a, b) m31r_mul((a), (b), _mp, _mpinv)
% endif
</%def>

## Stages over points held in local memory. The points of `G` independent groups are
## interleaved, point i of group gl at X[NPAD(i)*G + gl], so that a group's points, which lie
## `S` apart in the transform, load coalesced across consecutive groups. `elem(gl, i)` gives
## the C expression of the point's index in the whole transform (for its twiddle).
##
## Forward: decimation in frequency, natural order in, bit-reversed order out, levels of
## half-length 2^(H-1) down to 2^(H-RB). Inverse: decimation in time, bit-reversed in,
## natural out, 2^(H-RB) up to 2^(H-1). So neither direction needs a permutation pass.
##
## Levels go in chunks through registers: a work-item loads the 2^k points of one chunk's
## butterflies (2^s apart), runs its k levels, and stores them: one local round trip and one
## barrier per chunk. The lowest chunk takes K0 = 5 levels (or all), each item holding 32
## consecutive points: with one spare word every 32 (NPAD) those loads hit 32 distinct banks,
## and the chunks above start at stride 2^5, where consecutive items read consecutive words.
## (Radix-4 chunks at strides 1..16 hit the same bank up to 4 times.) The other chunks take up
## to KMAX levels. Twiddles: level l's from a table of its own (`ltw`, w^(k 2^(L-1-l)) at
## 2^l - 1 + k), so that consecutive items read consecutive words; where the chunk starts at
## level 0 of the transform they are the same for every item: `consts(l, j)` gives them, as
## constants written into the kernel or, for a prime given at run time, words of its small
## table in constant memory (w^0 = 1 needs no product at all). Levels from LT up (only in the
## strided passes of long transforms) read the half-length table `tw` as before.
<%def name="npad_defs()">
#define NPAD(i) ((i) + ((i) >> 5))
</%def>

<%def name="stages(X, tw, ltw, L, H, RB, G, WG, tid, elem, inverse, consts, KMAX, LT, K0)">
<%
    k0 = min(K0, RB)
    rest = RB - k0
    chunks = [(0, k0)]
    if rest:
        parts = -(-rest // KMAX)
        s0 = k0
        for c in range(parts):
            k = -(-(RB - s0) // (parts - c))
            chunks.append((s0, k))
            s0 += k
    if not inverse:
        chunks = chunks[::-1]
%>
% for s, k in chunks:
<%
    l0 = s + H - RB
    K = 1 << k
    bits = list(range(k)) if inverse else list(range(k - 1, -1, -1))
%>
    for (uint _t = ${tid}; _t < ${G * (1 << (RB - k))}u; _t += ${WG}u) {
        const uint _gl = _t % ${G}u, _p = _t / ${G}u;
        const uint _i = ((_p >> ${s}) << ${s + k}) | (_p & ${(1 << s) - 1}u);
  % if l0 > 0:
        const uint _el = (uint)((${elem("_gl", "_i")}) & ${(1 << l0) - 1}u);
  % endif
        pt_t _v[${K}];
  % for r in range(K):
        _v[${r}] = ${X}[NPAD(_i + ${r << s}u) * ${G}u + _gl];
  % endfor
  % for b in bits:
<%
    l = l0 + b
%>
    % for j in range(1 << b):
<%
    if l0 == 0:
        w = consts(l, j) if j else None          # a constant, or 1
    elif l < LT:
        w = "%s[%du + _el + %du]" % (ltw, (1 << l) - 1, j << l0)
    else:
        w = "%s[(_el + %du) << %d]" % (tw, j << l0, L - 1 - l)
%>
      % if w is not None:
        const pt_t _w${b}_${j} = ${w};
      % endif
    % endfor
    % for r in range(K):
      % if not (r >> b) & 1:
<%
    r2 = r | (1 << b)
    j = r & ((1 << b) - 1)
    one = l0 == 0 and j == 0
%>
        % if inverse:
        { const pt_t _b = ${"_v[%d]" % r2 if one else "F_MUL(_v[%d], _w%d_%d)" % (r2, b, j)};
          _v[${r2}] = F_SUB(_v[${r}], _b); _v[${r}] = F_ADD(_v[${r}], _b); }
        % else:
        { const pt_t _a = F_ADD(_v[${r}], _v[${r2}]), _d = F_SUB(_v[${r}], _v[${r2}]);
          _v[${r2}] = ${"_d" if one else "F_MUL(_d, _w%d_%d)" % (b, j)}; _v[${r}] = _a; }
        % endif
      % endif
    % endfor
  % endfor
  % for r in range(K):
        ${X}[NPAD(_i + ${r << s}u) * ${G}u + _gl] = _v[${r}];
  % endfor
    }
    barrier(CLK_LOCAL_MEM_FENCE);
% endfor
</%def>
