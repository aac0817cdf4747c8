## Products by number-theoretic transform over p = 2^64 - 2^32 + 1 (see blocks/ntt.mako).
##
## A batch of transforms of length N = 2^L lies flat in `x`, instance after instance. One
## launch of ntt_pass runs RB radix-2 stages of every transform: the points of a group lie
## S = 2^(H-RB) apart inside blocks of 2^H, a work-group holds G groups (G*R points) in local
## memory, so every pass reads and writes each point once. Several passes make a long
## transform; a short one is a single pass.
##
## What a pass does is a set of flags, in this order:
##   LOAD  points are the 16-bit digits of an operand (limbs in, zero beyond `dcount`), else x
##   FWD   forward stages
##   MID   the pointwise product with a's transform (`other`) times 1/N (`scale`)
##   INV   inverse stages
## so b's last forward pass, the pointwise product and the first inverse pass are one launch,
## and a transform short enough for one pass is a single kernel (LOAD FWD MID INV).
## ntt_carry turns the inverse transform's coefficients back into two limb vectors whose sum
## is the product (the caller adds them with the scan addition).
<%namespace file="blocks/ntt.mako" import="gl_defs, stages"/>
<%
    R = 1 << RB
    S = 1 << (H - RB)
    PTS = G * R
    N = 1 << L
%>
${gl_defs()}

% if KERNEL == "pass":
<%def name="elem(gl, i)">((((g0 + ${gl}) % ${S}u) + (((g0 + ${gl}) / ${S}u) % ${N // (S * R)}u) * ${S * R}u) + (${i}) * ${S}u)</%def>
__kernel __attribute__((reqd_work_group_size(${WG}, 1, 1)))
void ntt_pass(__global ulong *x, __global const uint *limbs, ulong stride, uint m, uint dcount,
              __global const ulong *other, __global const ulong *tw, __global const ulong *itw,
              ulong scale, uint inst0, uint n)
{
    __local ulong X[${PTS}];
    const uint tid = get_local_id(0);
    /* groups are numbered across the whole batch: a block of 2^H never straddles two
       instances, since 2^H divides N */
    const ulong gg0 = (ulong)get_group_id(0) * ${G}u;
    const uint inst_base = (uint)(gg0 / ${N // R}u);
    const uint g0 = (uint)(gg0 % ${N // R}u);
    for (uint f = tid; f < ${PTS}u; f += ${WG}u) {
        const uint gl = f % ${G}u, i = f / ${G}u;
        const uint inst = inst_base + (g0 + gl) / ${N // R}u;
        const uint e = ${elem("gl", "i")};
% if LOAD:
        ulong v = 0;
        if (e < dcount && inst0 + inst < n) {
            const uint w = limbs[(size_t)(inst0 + inst) * stride + (e >> 1)];
            v = (e & 1u) ? (w >> 16) : (w & 0xFFFFu);
        }
        X[f] = v;
% else:
        X[f] = x[(size_t)inst * ${N}u + e];
% endif
    }
    barrier(CLK_LOCAL_MEM_FENCE);
% if FWD:
    ${stages("X", "tw", L, H, RB, G, WG, "tid", elem, False)}
% endif
% if MID:
    for (uint f = tid; f < ${PTS}u; f += ${WG}u) {
        const uint gl = f % ${G}u, i = f / ${G}u;
        const uint inst = inst_base + (g0 + gl) / ${N // R}u;
        X[f] = gl_mul(gl_mul(X[f], other[(size_t)inst * ${N}u + ${elem("gl", "i")}]), scale);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
% endif
% if INV:
    ${stages("X", "itw", L, H, RB, G, WG, "tid", elem, True)}
% endif
    for (uint f = tid; f < ${PTS}u; f += ${WG}u) {
        const uint gl = f % ${G}u, i = f / ${G}u;
        const uint inst = inst_base + (g0 + gl) / ${N // R}u;
        x[(size_t)inst * ${N}u + ${elem("gl", "i")}] = X[f];
    }
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

% elif KERNEL == "twiddles":
__kernel void ntt_twiddles(__global ulong *tw, ulong w, uint count)
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
