## Schönhage–Strassen kernels (clbig/mul_ssa.py drives them). Rows are residues modulo
## 2^K + 1, K = 32P, stored as P+1 limbs; a transform of N = 2^logn rows per instance.
## Butterflies are DIT, x ± y·2^e, each over `ipi` work-items of Q words; every output is
## reduced back to canonical in the same pass (blocks/ssa.mako). DIT wants bit-reversed
## input, so each direction's first pass reads its source at bit-reversed rows, no copy.
##
## KERNEL "levels": r consecutive stages s0..s0+r-1 in one pass (radix 2^r): a group loads
## G blocks of 2^r rows (the rows those stages combine) into local memory, runs the r levels
## there and stores the rows back. Items past the G blocks' butterflies only help to load
## and store, so that small butterflies share one group size (PoCL builds once per size).
## MODE "pieces": the first forward pass, rows cut as M-limb pieces from the operand;
## MODE "products": the first inverse pass, rows are pointwise products (2P+1 limbs)
## reduced as lo - hi (2^K = -1) inside the first butterflies;
## MODE "rows": later passes of either direction, in place.
## KERNEL "recompose": result word w = sum over the coefficients c_t = row_t · 2^-logn that
## overlap it; the low words go to lo, the 64-bit sums' high words to spill one word up, so
## lo + spill (a multi-group addition) is the product.
## KERNEL "tile": dst = copies of src (a broadcast operand's transform, a broadcast product).
<%namespace file="blocks/common.mako" import="header"/>
<%namespace file="blocks/ssa.mako" import="ssa_defs, add_plain, add_shifted, finish, put_row"/>
${header()}
${ssa_defs()}
% if KERNEL == "levels":
__kernel void ssa_levels(__global const limb_t *src, ulong src_off, ulong src_stride,
                         __global limb_t *dst, uint P, uint M, uint mlen, uint logn, uint s0,
                         uint r, uint inv, ulong nblk, uint ipi, uint G,
                         __local limb_t *S, __local uint *sc, __local ulong *base)
{
    const uint tid = get_local_id(0), wg = get_local_size(0);
    const uint rows = 1u << r, per = (rows >> 1) * ipi;   /* rows and items per block */
    const uint g = tid / per, act = g < G, seg = act ? ipi : 1u;
    const uint u = act ? (tid - g * per) / ipi : 0u, t = act ? tid - g * per - u * ipi : 0u;
    const uint j0 = t * ${Q}u, L = P + 1u, h0 = 1u << s0;
    const ulong g0 = (ulong)get_group_id(0) * G, N = 1ul << logn, R = P + 1u;
    /* the block's rows: index bits s0..s0+r-1 run over m, the others are fixed */
    for (uint f = tid; f < G * rows; f += wg) {
        const ulong blk = g0 + (f >> r);
        if (blk < nblk) {
            const ulong inst = blk >> (logn - r);
            const uint bl = (uint)blk & ((1u << (logn - r)) - 1u);
            const uint row = (bl & (h0 - 1u)) + ((f & (rows - 1u)) << s0) + ((bl >> s0) << (s0 + r));
            base[2u * f] = (inst * N + row) * R;
% if MODE == "pieces":
            base[2u * f + 1u] = (ulong)brev(row, logn) * M;
% elif MODE == "products":
            base[2u * f + 1u] = (inst * N + brev(row, logn)) * (2u * P + 1u);
% endif
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
% if MODE == "pieces":
    /* piece p = limbs pM..pM+M-1 of the operand (zero past mlen), top 0 */
    for (uint f = tid; f < G * rows * L; f += wg) {
        const uint b = f / L, w = f - b * L;
        const ulong blk = g0 + (b >> r);
        limb_t v = 0u;
        if (blk < nblk && w < M && base[2u * b + 1u] + w < mlen)
            v = src[src_off + (blk >> (logn - r)) * src_stride + base[2u * b + 1u] + w];
        S[PAD(f)] = v;
    }
% elif MODE == "rows":
    for (uint f = tid; f < G * rows * L; f += wg) {
        const uint b = f / L;
        S[PAD(f)] = (g0 + (b >> r) < nblk) ? src[base[2u * b] + (f - b * L)] : 0u;
    }
% endif
% if MODE == "products":
    {   /* stage 0 (twiddle 1) on x = lo - hi of products 2u, 2u+1, staged half by half */
        const uint rb1 = (g * rows + 2u * u) * L, rb2 = rb1 + L;
        long X[${Q}], Y[${Q}];
  % for q in range(Q):
        X[${q}] = 0; Y[${q}] = 0;
  % endfor
  % for half, sg in (("(w < P ? src[base[2u * b + 1u] + w] : 0u)", "1"), ("src[base[2u * b + 1u] + P + w]", "-1")):
        for (uint f = tid; f < G * rows * L; f += wg) {
            const uint b = f / L, w = f - b * L;
            S[PAD(f)] = (g0 + (b >> r) < nblk) ? ${half} : 0u;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (act) {
            ${add_plain("X", "S", "rb1", sg, Q)}
            ${add_plain("Y", "S", "rb2", sg, Q)}
        }
        barrier(CLK_LOCAL_MEM_FENCE);
  % endfor
        ${finish(Q)}
        if (act) {
            ${put_row("S", "rb1", "r1", "top1", Q)}
            ${put_row("S", "rb2", "r2", "top2", Q)}
        }
    }
% endif
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint low = (uint)(g0 + g) & ((1u << (logn - r)) - 1u) & (h0 - 1u);
    for (uint l = ${1 if MODE == "products" else 0}u; l < r; l++) {
        const uint m1 = ((u >> l) << (l + 1u)) | (u & ((1u << l) - 1u)), m2 = m1 | (1u << l);
        const uint rb1 = (g * rows + m1) * L, rb2 = (g * rows + m2) * L, s = s0 + l;
        /* twiddle of stage s for this row: 2^(j·K/h), h = 2^s, j = row mod h; inverse: -2^(K - j·K/h) */
        const uint jj = (low + (m1 << s0)) & ((1u << s) - 1u);
        uint e = jj * ((32u * P) >> s); int sg = 1;
        if (inv && jj) { e = 32u * P - e; sg = -1; }
        const uint ew = e >> 5, eb = e & 31u;
        long X[${Q}], Y[${Q}];
% for q in range(Q):
        X[${q}] = 0; Y[${q}] = 0;
% endfor
        if (act) {
            ${add_plain("X", "S", "rb1", "1", Q)}
            ${add_shifted("Y", "S", "rb2", "sg", "ew", "eb", Q)}
        }
        ${finish(Q)}
        if (act) {
            ${put_row("S", "rb1", "r1", "top1", Q)}
            ${put_row("S", "rb2", "r2", "top2", Q)}
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (uint f = tid; f < G * rows * L; f += wg) {
        const uint b = f / L;
        if (g0 + (b >> r) < nblk) dst[base[2u * b] + (f - b * L)] = S[PAD(f)];
    }
}
% elif KERNEL == "tile":
__kernel void ssa_tile(__global const limb_t *src, __global limb_t *dst, ulong len, ulong total)
{
    const ulong gid = get_global_id(0);
    if (gid < total) dst[gid] = src[gid % len];
}
% else:
__kernel void ssa_recompose(__global const limb_t *T, uint P, uint M, uint logn,
                            __global limb_t *lo, __global limb_t *spill, uint mr,
                            ulong total, ulong out_off)
{
    const ulong gid = get_global_id(0);
    if (gid >= total) return;
    const ulong inst = gid / mr;
    const uint w = (uint)(gid - inst * mr), N = 1u << logn, kmask = N - 1u;
    const uint t_hi = min(w / M, N - 1u);
    const uint t_lo = w >= P ? (w - P) / M + 1u : 0u;   /* coefficient t covers words tM..tM+P-1 */
    ulong sum = 0;
    for (uint t = t_lo; t <= t_hi; t++) {
        __global const limb_t *row = T + (inst * N + t) * (P + 1u);
        const uint i = w - t * M;
        /* c_t = row · 2^-logn = (row >> logn) + [low bits L != 0](1 + (2^logn - L)·2^(K-logn)) */
        sum += (row[i] >> logn) | (row[i + 1u] << (32u - logn));
        const uint low = row[0] & kmask;
        if (low) {
            if (i == 0u) sum += 1u;
            if (i == P - 1u) sum += (ulong)((N - low) << (32u - logn));
        }
    }
    lo[out_off + gid] = (uint)sum;
    if (w + 1u < mr) spill[out_off + gid + 1u] = (uint)(sum >> 32);
    if (w == 0u) spill[out_off + gid] = 0u;
}
% endif
