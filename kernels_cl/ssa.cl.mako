## Schönhage–Strassen kernels (clbig/mul_ssa.py drives them). Rows are residues modulo
## 2^K + 1, K = 32P, stored as P+1 limbs; a transform of N = 2^logn rows per instance.
##
## KERNEL "combine": radix-2 DIT butterflies, x ± y·2^e, one butterfly per `ipi` work-items
## of Q words each, `bpg` butterflies per group; every output is reduced back to canonical
## in the same pass (blocks/ssa.mako). DIT wants bit-reversed input, so the first stage
## reads it straight from its source at bit-reversed rows, with no separate copy:
##   MODE "fwd1":  the first forward stage; rows are M-limb pieces cut from the operand.
##   MODE "inv1":  the first inverse stage; rows are pointwise products (2P+1 limbs), each
##                 reduced on the fly as lo - hi (2^K = -1).
##   MODE "stage": any later stage of either direction, in place (half-size h, twiddle K/h).
## KERNEL "recompose": result word w = sum over the coefficients c_t = row_t · 2^-logn that
## overlap it; the low words go to lo, the 64-bit sums' high words to spill one word up, so
## lo + spill (a multi-group addition) is the product.
## KERNEL "tile": dst = copies of src (a broadcast operand's transform, a broadcast product).
<%namespace file="blocks/common.mako" import="header"/>
<%namespace file="blocks/ssa.mako" import="ssa_defs, stage_rows, add_plain, add_shifted, chunk_func, apply_carry"/>
${header()}
${ssa_defs()}
% if KERNEL == "combine":
__kernel void ssa_combine(__global const limb_t *src, ulong src_off, ulong src_stride,
                          __global limb_t *dst, uint P, uint M, uint mlen, uint logn,
                          uint h, uint kh, uint inv, ulong nbf, uint ipi, uint bpg,
                          __local limb_t *S, __local uint *sc, __local ulong *base)
{
    const uint tid = get_local_id(0), wg = get_local_size(0);
    const uint lb = tid / ipi, t = tid - lb * ipi, j0 = t * ${Q}u;
    const ulong g0 = (ulong)get_group_id(0) * bpg, gb = g0 + lb;
    const uint hn = 1u << (logn - 1u), L = P + 1u;
    const ulong R = P + 1u, N = 2ul * hn;
    /* Rows of each butterfly: base[4lb] x source, [4lb+1] y source, [4lb+2..3] outputs. */
    if (t == 0u && gb < nbf) {
        const ulong inst = gb >> (logn - 1u);
        const uint b = (uint)gb & (hn - 1u);
% if MODE == "fwd1":
        const ulong piece = brev(b, logn - 1u);
        base[4u * lb] = src_off + inst * src_stride;
        base[4u * lb + 1u] = piece * M;
        base[4u * lb + 2u] = (inst * N + 2u * b) * R;
        base[4u * lb + 3u] = (inst * N + 2u * b + 1u) * R;
% elif MODE == "inv1":
        const ulong row = inst * N + brev(b, logn - 1u);
        base[4u * lb] = row * (2u * P + 1u);
        base[4u * lb + 1u] = (row + hn) * (2u * P + 1u);
        base[4u * lb + 2u] = (inst * N + 2u * b) * R;
        base[4u * lb + 3u] = (inst * N + 2u * b + 1u) * R;
% else:
        const ulong r1 = inst * N + 2u * b - (b & (h - 1u));
        base[4u * lb] = base[4u * lb + 2u] = r1 * R;
        base[4u * lb + 1u] = base[4u * lb + 3u] = (r1 + h) * R;
% endif
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint rb = lb * L;
    long X[${Q}], Y[${Q}];
% for q in range(Q):
    X[${q}] = 0; Y[${q}] = 0;
% endfor
% if MODE == "fwd1":
  % for acc, off in (("X", ""), ("Y", " + hn * M")):
    ${stage_rows("S", "L", lambda bb, w: "((%s < M && base[4u * %s + 1u]%s + %s < mlen) ? src[base[4u * %s] + base[4u * %s + 1u]%s + %s] : 0u)" % (w, bb, off, w, bb, bb, off, w))}
    ${add_plain(acc, "S", "rb", "1", Q)}
    barrier(CLK_LOCAL_MEM_FENCE);
  % endfor
% elif MODE == "inv1":
  % for acc, k in (("X", 0), ("Y", 1)):
    ${stage_rows("S", "L", lambda bb, w: "(%s < P ? src[base[4u * %s + %du] + %s] : 0u)" % (w, bb, k, w))}
    ${add_plain(acc, "S", "rb", "1", Q)}
    barrier(CLK_LOCAL_MEM_FENCE);
    ${stage_rows("S", "L", lambda bb, w: "src[base[4u * %s + %du] + P + %s]" % (bb, k, w))}
    ${add_plain(acc, "S", "rb", "-1", Q)}
    barrier(CLK_LOCAL_MEM_FENCE);
  % endfor
% else:
    ${stage_rows("S", "L", lambda bb, w: "src[base[4u * %s] + %s]" % (bb, w))}
    ${add_plain("X", "S", "rb", "1", Q)}
    barrier(CLK_LOCAL_MEM_FENCE);
    {
        /* twiddle w^j of this stage: 2^(j·K/h), or 2^(2K - j·K/h) = -2^(K - j·K/h) inverse */
        const uint jj = (uint)gb & (h - 1u);
        uint e = jj * kh; int sg = 1;
        if (inv && jj) { e = 32u * P - e; sg = -1; }
        const uint ew = e >> 5, eb = e & 31u;
        ${stage_rows("S", "L", lambda bb, w: "src[base[4u * %s + 1u] + %s]" % (bb, w))}
        ${add_shifted("Y", "S", "rb", "sg", "ew", "eb", Q)}
        barrier(CLK_LOCAL_MEM_FENCE);
    }
% endif
    uint r1[${Q}], r2[${Q}], f1, f2;
    ${chunk_func(lambda q: "(X[%d] + Y[%d])" % (q, q), "r1", "f1", Q)}
    ${chunk_func(lambda q: "(X[%d] - Y[%d])" % (q, q), "r2", "f2", Q)}
    /* Hillis–Steele scan of the carry functions over the butterfly's ipi chunks */
    uint v = f1 | (f2 << 16);
    sc[tid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint d = 1u; d < ipi; d <<= 1) {
        const uint o = (t >= d) ? sc[tid - d] : CF_ID;
        barrier(CLK_LOCAL_MEM_FENCE);
        v = cf_compose(o, v);
        sc[tid] = v;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const uint prev = (t > 0u) ? sc[tid - 1u] : CF_ID, tot = sc[rb / L * ipi + ipi - 1u];
% for r, off, out in (("r1", 0, 2), ("r2", 16, 3)):
    {
        const int hh = cf_fixed(tot, ${off}u);
        if (hh == 3) {   /* the value is 2^K: zero words, top 1 */
  % for q in range(Q):
            ${r}[${q}] = 0u;
  % endfor
        } else {
            ${apply_carry(r, "CF_AT(prev, %du, -hh)" % off, Q)}
        }
  % for q in range(Q):
        if (j0 + ${q}u < P) S[PAD(rb + j0 + ${q}u)] = ${r}[${q}];
  % endfor
        if (t == 0u) S[PAD(rb + P)] = (hh == 3);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint _f = tid; _f < bpg * L; _f += wg) {
        const uint bb = _f / L;
        if (g0 + bb < nbf) dst[base[4u * bb + ${out}u] + (_f - bb * L)] = S[PAD(_f)];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
% endfor
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
