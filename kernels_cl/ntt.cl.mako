## Products by number-theoretic transform (see blocks/ntt.mako for the two fields: the prime
## 2^64 - 2^32 + 1 on 16-bit digits, or one of three 31-bit primes on 32-bit digits).
##
## A batch of transforms of length N = 2^L lies flat in `x`, instance after instance. One
## launch of ntt_pass runs RB levels of every transform: the points of a group lie
## S = 2^(H-RB) apart inside blocks of 2^H, a work-group holds G groups (G*R points) in local
## memory, so every pass reads and writes each point once. Several passes make a long
## transform; a short one is a single pass.
##
## What a pass does is a set of flags, in this order:
##   LOAD  points are the digits of an operand (limbs in, zero beyond `dcount`), else x
##   FWD   forward stages
##   MID   the pointwise product with a's transform (`other`) times 1/N (`scale`); SQUARE: the
##         points times themselves (a * a: a's transform is never made, a third of the work)
##   INV   inverse stages
## so b's last forward pass, the pointwise product and the first inverse pass are one launch,
## and a transform short enough for one pass is a single kernel (BOTH: a's digits through the
## forward stages into registers, then b's, the pointwise product and the inverse).
## ntt_carry turns the inverse transform's coefficients back into two limb vectors whose sum
## is the product (the caller adds them with the scan addition).
<%namespace file="blocks/ntt.mako" import="field_defs, npad_defs, stages"/>
<%
    R = 1 << RB
    S = 1 << (H - RB)
    PTS = G * R
    N = 1 << L
    # A 31-bit prime at run time (P = 0, issue 43: one build serves the three primes): the
    # prime, its Montgomery constants and the twiddles of a chunk that starts at level 0 come
    # from `fc`, the prime's table in constant memory (mul_ntt._field_table): fc[0] p, fc[1]
    # -1/p mod 2^32, fc[2] 2^32 mod p, then the powers m < 2^(FC_LEVELS-1) of the root of order
    # 2^FC_LEVELS (times 2^32 mod p) at FC_TW + m, and FC_HALF further those of its inverse:
    # twiddle j of level l is power j 2^(FC_LEVELS-1-l), so equal twiddles of two levels are
    # one word (one load).
    RUNTIME = FIELD != "gl" and not P
    FC_TW, FC_LEVELS = 4, 8
    FC_HALF = 1 << (FC_LEVELS - 1)
    def consts(inverse):
        """Twiddle j of level l as a C literal: w^(j 2^(L-1-l)), times 2^32 mod p for the
        Montgomery arithmetic of the 31-bit primes; for a prime at run time a word of fc (or
        of the level table, past FC_LEVELS)."""
        def c(l, j):
            if RUNTIME:
                if l >= FC_LEVELS:
                    return "%s[%du]" % ("iltw" if inverse else "ltw", (1 << l) - 1 + j)
                return "fc[%du]" % (FC_TW + (FC_HALF if inverse else 0) + (j << (FC_LEVELS - 1 - l)))
            p = P if FIELD != "gl" else 2**64 - 2**32 + 1
            v = pow(WI if inverse else W, j << (L - 1 - l), p)
            return "%du" % (v * 2**32 % p) if FIELD != "gl" else "%dul" % v
        return c
%>
${field_defs(FIELD, P, PINV)}
${npad_defs()}

% if KERNEL == "pass":
<%def name="elem(gl, i)">((((g0 + ${gl}) % ${S}u) + (((g0 + ${gl}) / ${S}u) % ${N // (S * R)}u) * ${S * R}u) + (${i}) * ${S}u)</%def>
## X[f] for every point f of the group: an operand's digits (LOAD) or the points in x.
## point f = i G + gl of the group in local memory (blocks/ntt.mako: one spare word every 32)
<%def name="XF(f)">X[NPAD((${f}) / ${G}u) * ${G}u + (${f}) % ${G}u]</%def>
## a limb as a digit mod the 31-bit prime
<%def name="digit(src, stride, idx)">\
% if RUNTIME:
F_MUL(${src}[(size_t)(inst0 + inst) * ${stride} + ${idx}], fc[2])\
% else:
${src}[(size_t)(inst0 + inst) * ${stride} + ${idx}] % M_P\
% endif
</%def>
<%def name="load_points(src, stride, dcount, digits)">
    for (uint f = tid; f < ${PTS}u; f += ${WG}u) {
        const uint gl = f % ${G}u, i = f / ${G}u;
        const uint inst = inst_base + (g0 + gl) / ${N // R}u;
        const uint e = ${elem("gl", "i")};
% if digits:
        pt_t v = 0;
        if (e < ${dcount} && inst0 + inst < n) {
  % if FIELD == "gl":
            const uint w = ${src}[(size_t)(inst0 + inst) * ${stride} + (e >> 1)];
            v = (e & 1u) ? (w >> 16) : (w & 0xFFFFu);
  % else:
            v = ${digit(src, stride, "e")};   /* 32-bit digits: the limbs */
  % endif
        }
  % if TWIST:
        if (e >= ${N // 2}u) {   /* the twisted half: x_e w^e (see KERNEL "last") */
            const uint de = e - ${N // 2}u;
            pt_t u = 0;
            if (de < ${dcount} && inst0 + inst < n) {
    % if FIELD == "gl":
                const uint w = ${src}[(size_t)(inst0 + inst) * ${stride} + (de >> 1)];
                u = (de & 1u) ? (w >> 16) : (w & 0xFFFFu);
    % else:
                u = ${digit(src, stride, "de")};
    % endif
            }
            v = F_MUL(u, tw[de]);
        }
  % endif
        ${XF("f")} = v;
% else:
        ${XF("f")} = x[(size_t)inst * ${N}u + e];
% endif
    }
    barrier(CLK_LOCAL_MEM_FENCE);
</%def>
__kernel __attribute__((reqd_work_group_size(${WG}, 1, 1)))
void ntt_pass(__global pt_t *x, __global const uint *limbs, ulong stride, uint dcount,
              __global const uint *limbs_b, ulong stride_b, uint dcount_b,
              __global const pt_t *other, __global const pt_t *tw, __global const pt_t *itw,
              __global const pt_t *ltw, __global const pt_t *iltw, __constant pt_t *fc, pt_t scale,
              uint inst0, uint n)
{
    __local pt_t X[${G * (R + (R - 1) // 32)}];
    const uint tid = get_local_id(0);
% if RUNTIME:
    const uint _mp = fc[0], _mpinv = fc[1];
% endif
    /* groups are numbered across the whole batch: a block of 2^H never straddles two
       instances, since 2^H divides N */
    const ulong gg0 = (ulong)get_group_id(0) * ${G}u;
    const uint inst_base = (uint)(gg0 / ${N // R}u);
    const uint g0 = (uint)(gg0 % ${N // R}u);
% if BOTH:
  % if SIDES_LOOP and not SQUARE:
    /* the whole product in one launch: a's transform waits in registers (point f = tid + k WG
       of the group in st[k]) while b's is made in local memory; one copy of the forward stages
       serves both (a loop of two rounds, not unrolled: a third less code to compile) */
    pt_t st[${PTS // WG}];
#pragma unroll 1
    for (uint _side = 0u; _side < 2u; _side++) {
        ${load_points("(_side ? limbs_b : limbs)", "(_side ? stride_b : stride)", "(_side ? dcount_b : dcount)", True)}
        ${stages("X", "tw", "ltw", L, H, RB, G, WG, "tid", elem, False, consts(False), KMAX, LT, K0)}
        if (_side == 0u) {
    % for k in range(PTS // WG):
            st[${k}] = ${XF("tid + %du" % (k * WG))};
    % endfor
            barrier(CLK_LOCAL_MEM_FENCE);
        }
    }
  % else:
    % if not SQUARE:
    /* the whole product in one launch: a's transform waits in registers (point f = tid + k WG
       of the group in st[k]) while b's is made in local memory */
    ${load_points("limbs", "stride", "dcount", True)}
    ${stages("X", "tw", "ltw", L, H, RB, G, WG, "tid", elem, False, consts(False), KMAX, LT, K0)}
    pt_t st[${PTS // WG}];
      % for k in range(PTS // WG):
    st[${k}] = ${XF("tid + %du" % (k * WG))};
      % endfor
    barrier(CLK_LOCAL_MEM_FENCE);
    % endif
    ${load_points("limbs_b", "stride_b", "dcount_b", True)}
    ${stages("X", "tw", "ltw", L, H, RB, G, WG, "tid", elem, False, consts(False), KMAX, LT, K0)}
  % endif
  % for k in range(PTS // WG):
    % if SQUARE:
    ${XF("tid + %du" % (k * WG))} = F_MUL(F_MUL(${XF("tid + %du" % (k * WG))}, ${XF("tid + %du" % (k * WG))}), scale);
    % else:
    ${XF("tid + %du" % (k * WG))} = F_MUL(F_MUL(${XF("tid + %du" % (k * WG))}, st[${k}]), scale);
    % endif
  % endfor
    barrier(CLK_LOCAL_MEM_FENCE);
% else:
    ${load_points("limbs", "stride", "dcount", LOAD)}
  % if FWD:
    ${stages("X", "tw", "ltw", L, H, RB, G, WG, "tid", elem, False, consts(False), KMAX, LT, K0)}
  % endif
  % if MID:
    for (uint f = tid; f < ${PTS}u; f += ${WG}u) {
        const uint gl = f % ${G}u, i = f / ${G}u;
        const uint inst = inst_base + (g0 + gl) / ${N // R}u;
  % if SQUARE:
        ${XF("f")} = F_MUL(F_MUL(${XF("f")}, ${XF("f")}), scale);
  % else:
        ${XF("f")} = F_MUL(F_MUL(${XF("f")}, other[(size_t)inst * ${N}u + ${elem("gl", "i")}]), scale);
  % endif
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  % endif
% endif
% if INV:
    ${stages("X", "itw", "iltw", L, H, RB, G, WG, "tid", elem, True, consts(True), KMAX, LT, K0)}
% endif
    for (uint f = tid; f < ${PTS}u; f += ${WG}u) {
        const uint gl = f % ${G}u, i = f / ${G}u;
        const uint inst = inst_base + (g0 + gl) / ${N // R}u;
        const uint e = ${elem("gl", "i")};
% if KEEP < N:
        /* the last pass keeps only the coefficients the product's limbs use (of each half
           when twisted) */
        if ((e & ${(N // 2 if TWIST else N) - 1}u) >= ${KEEP}u) continue;
% endif
        x[(size_t)inst * ${N}u + e] = ${XF("f")};
    }
}

% elif KERNEL == "last":
## The first forward level of a transform of N points whose inputs lie in its lower half is
## (x_e, x_e w^e): two independent transforms of N/2 points (TWIST), each fitting one pass.
## Their inverses meet again here, in the last inverse level: (u + v w^-e, u - v w^-e).
__kernel void ntt_last(__global pt_t *x, __global const pt_t *itw, uint count)
{
    const ulong gid = get_global_id(0);
    if (gid >= (ulong)count * ${N // 2}u) return;
    const size_t inst = gid / ${N // 2}u;
    const uint e = (uint)(gid % ${N // 2}u);
    __global pt_t *xi = x + inst * ${N}u;
    const pt_t u = xi[e], v = F_MUL(xi[e + ${N // 2}u], itw[e]);
    xi[e] = F_ADD(u, v);
    xi[e + ${N // 2}u] = F_SUB(u, v);
}

% elif KERNEL == "carry":
## Limb j of the product gathers s_k = c_2k + c_(2k+1) 2^16 (< 2^81) for k = j, j-1, j-2:
## t = bits 0..31 of s_j + bits 32..63 of s_(j-1) + bits 64..95 of s_(j-2) < 3 * 2^32.
## X gets t's low word, Y (one limb up) its carry; X + Y is the product.
inline void s_parts(__global const ulong *c, int k, ulong *lo, uint *hi)
{
    if (k < 0 || 2 * k >= ${N}) { *lo = 0; *hi = 0; return; }
    const ulong c0 = c[2 * k], c1 = (2 * k + 1 < ${N}) ? c[2 * k + 1] : 0ul;
    const ulong sh = c1 << 16;
    *lo = c0 + sh;
    *hi = (uint)(c1 >> 48) + (*lo < sh);
}

__kernel void ntt_carry(__global const ulong *c, __global uint *X, __global uint *Y, uint mr,
                        uint inst0, uint count)
{
    const ulong gid = get_global_id(0);
    if (gid >= (ulong)count * mr) return;
    const uint inst = (uint)(gid / mr), j = (uint)(gid % mr);
    __global const ulong *ci = c + (size_t)inst * ${N}u;
    ulong lo0, lo1, lo2; uint hi0, hi1, hi2;
    s_parts(ci, (int)j, &lo0, &hi0);
    s_parts(ci, (int)j - 1, &lo1, &hi1);
    s_parts(ci, (int)j - 2, &lo2, &hi2);
    const ulong t = (lo0 & 0xFFFFFFFFul) + (lo1 >> 32) + (ulong)hi2;
    const size_t row = (size_t)(inst0 + inst) * mr;
    X[row + j] = (uint)t;
    if (j + 1u < mr) Y[row + j + 1u] = (uint)(t >> 32);
    if (j == 0u) Y[row] = 0u;
}

% elif KERNEL == "crt":
## Three residues per coefficient (primes P1 < P2 < P3 < 2^31, Garner) give the coefficient
## c < 2^90 as three words; limb j of the product gathers words 0, 1, 2 of c_j, c_(j-1),
## c_(j-2), which sum below 3 * 2^32: X gets the low word, Y (one limb up) the carry.
<%
    P1, P2, P3 = PRIMES
    R = 1 << 32
    pinv = lambda q: (-pow(q, -1, R)) % R
    mont_const = lambda c, q: c * R % q          # c R: m_mul(x, c R) = x c
    C12 = mont_const(pow(P1, P2 - 2, P2), P2)
    C13 = mont_const(pow(P1, P3 - 2, P3), P3)
    C23 = mont_const(pow(P2, P3 - 2, P3), P3)
    P12 = P1 * P2
%>
/* Garner in 32-bit Montgomery arithmetic: a 64-bit % by a constant costs several times more */
inline uint crt_mul(uint a, uint b, uint q, uint qinv)
{
    const ulong t = (ulong)a * b;
    const uint m = (uint)t * qinv;
    const uint u = (uint)((t + (ulong)m * q) >> 32);
    return u >= q ? u - q : u;
}

inline uint crt_sub(uint a, uint b, uint q) { return a >= b ? a - b : a + q - b; }

% if TWIST:
/* Coefficient k of a transform made as two twisted halves (u, v): the last inverse level,
   u + v w^-k or, in the upper half, u - v w^-k (see KERNEL "last"), done here instead of in
   a pass of its own over the whole transform. */
inline uint residue(__global const uint *r, __global const uint *itw, int k, uint q, uint qinv)
{
    const int h = k & ${N // 2 - 1};
    const uint u = r[h], v = crt_mul(r[h + ${N // 2}], itw[h], q, qinv);
    if (k < ${N // 2}) { const uint s = u + v; return min(s, s - q); }
    return crt_sub(u, v, q);
}
#define RES(i, k) residue(r##i, itw##i, k, P##i, PINV##i)
% else:
#define RES(i, k) r##i[k]
% endif
#define P1 ${P1}u
#define P2 ${P2}u
#define P3 ${P3}u
#define PINV1 ${pinv(P1)}u
#define PINV2 ${pinv(P2)}u
#define PINV3 ${pinv(P3)}u

inline void coef(__global const uint *r1, __global const uint *r2, __global const uint *r3,
                 __global const uint *itw1, __global const uint *itw2, __global const uint *itw3,
                 int k, uint *w0, uint *w1, uint *w2)
{
    if (k < 0 || k >= ${N}) { *w0 = 0; *w1 = 0; *w2 = 0; return; }
    const uint t1 = RES(1, k);
    const uint t1q2 = t1 >= ${P2}u ? t1 - ${P2}u : t1;           /* P1 < 2 P2 */
    const uint t2 = crt_mul(crt_sub(RES(2, k), t1q2, ${P2}u), ${C12}u, ${P2}u, ${pinv(P2)}u);
    const uint d3 = crt_mul(crt_sub(RES(3, k), t1 % ${P3}u, ${P3}u), ${C13}u, ${P3}u, ${pinv(P3)}u);
    const uint t3 = crt_mul(crt_sub(d3, t2 % ${P3}u, ${P3}u), ${C23}u, ${P3}u, ${pinv(P3)}u);
    /* c = t1 + P1 t2 + P1 P2 t3 < 2^91, as three words */
    const ulong s = (ulong)t1 + (ulong)${P1}u * t2 + (ulong)${P12 & 0xFFFFFFFF}u * t3;   /* < 2^63 */
    const ulong b = (ulong)${P12 >> 32}u * t3;
    const ulong mid = (s >> 32) + (b & 0xFFFFFFFFul);
    *w0 = (uint)s; *w1 = (uint)mid; *w2 = (uint)(b >> 32) + (uint)(mid >> 32);
}

__kernel void ntt_crt(__global const uint *r1, __global const uint *r2, __global const uint *r3,
                      __global const uint *itw1, __global const uint *itw2, __global const uint *itw3,
                      __global uint *X, __global uint *Y, uint mr, uint inst0, uint count)
{
    const ulong gid = get_global_id(0);
    if (gid >= (ulong)count * mr) return;
    const uint inst = (uint)(gid / mr), j = (uint)(gid % mr);
    const size_t base = (size_t)inst * ${N}u;
    uint a0, a1, a2, b0, b1, b2, c0, c1, c2;
    coef(r1 + base, r2 + base, r3 + base, itw1, itw2, itw3, (int)j, &a0, &a1, &a2);
    coef(r1 + base, r2 + base, r3 + base, itw1, itw2, itw3, (int)j - 1, &b0, &b1, &b2);
    coef(r1 + base, r2 + base, r3 + base, itw1, itw2, itw3, (int)j - 2, &c0, &c1, &c2);
    const ulong t = (ulong)a0 + b1 + c2;
    const size_t row = (size_t)(inst0 + inst) * mr;
    X[row + j] = (uint)t;
    if (j + 1u < mr) Y[row + j + 1u] = (uint)(t >> 32);
    if (j == 0u) Y[row] = 0u;
}

% elif KERNEL == "level_twiddles":
## Level l's twiddles w^(k 2^(L-1-l)), k < 2^l, gathered from the half-length table into one
## run per level (at 2^l - 1), so a stage's items read consecutive words. L at run time: one
## build per field for every length (issue 43).
__kernel void ntt_level_twiddles(__global pt_t *ltw, __global const pt_t *tw, uint count, uint L)
{
    const uint x = get_global_id(0);
    if (x >= count) return;
    const uint l = 31u - clz(x + 1u);
    ltw[x] = tw[(size_t)(x + 1u - (1u << l)) << (L - 1u - l)];
}

% elif KERNEL == "twiddles" and FIELD != "gl":
## w^k R mod p for the Montgomery form (one-time tables: plain 64-bit % is fine here, and the
## prime a run-time argument: one build for the field's three primes and every length).
__kernel void ntt_twiddles(__global uint *tw, ulong w, uint count, ulong p)
{
    const uint k = get_global_id(0);
    if (k >= count) return;
    ulong r = 1, b = w;
    for (uint e = k; e; e >>= 1) {
        if (e & 1u) r = r * b % p;
        b = b * b % p;
    }
    tw[k] = (uint)((r << 32) % p);
}

% elif KERNEL == "twiddles":
__kernel void ntt_twiddles(__global ulong *tw, ulong w, uint count, ulong p)
{
    const uint k = get_global_id(0);
    if (k >= count) return;
    ulong r = 1, b = w;
    for (uint e = k; e; e >>= 1) {
        if (e & 1u) r = gl_mul(r, b);
        b = gl_mul(b, b);
    }
    tw[k] = r;
}
% endif
