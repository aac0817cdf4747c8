## Moving limbs between global memory and a work-item's private chunk.
<%! from clbig.runtime.tmpl import u %>
## Global accesses are coalesced: consecutive work-items touch consecutive limbs; local memory
## then hands each work-item its Q consecutive limbs.

## Fill buf[s*ld + l], l in [0, ld), for the IPB instances s of this group with limb l - lo of
## the source (zero outside [0, m_src) and for instances >= n): an operand with zero margins.
<%def name="load_local(buf, ld, lo, src, stride, m_src, inst0, n, tid, WG, IPB)">
    for (uint _f = ${tid}; _f < ${IPB}u * ${ld}u; _f += ${WG}u) {
        uint _s = _f / ${ld}u, _l = _f % ${ld}u;
        limb_t _v = 0;
        if (${inst0} + _s < ${n} && _l >= ${lo}u && _l - ${lo}u < ${u(m_src)})
            _v = ${src}[(size_t)(${inst0} + _s) * ${stride} + _l - ${lo}u];
        ${buf}[_f] = _v;
    }
</%def>

## Fill the private chunk dst[0..Q) with limbs [base, base+Q) of instance `inst` (count limbs
## per instance in the group's flat layout), via the padded local `stage` buffer.
## With `vec` (Q, m_src and the stride all multiples of 4) each work-item instead reads its
## chunk as 16-byte vectors: still coalesced, and no local memory or barriers. The pointer is
## cast to uint4 (buffers are 16-byte aligned and so is every offset here): vload4 on a
## uint pointer only promises 4-byte alignment and may compile to four narrow loads.
## With `shift` (not with vec) the chunk holds the source moved up by `shift` limbs (zero below).
<%def name="stage_in(dst, src, stride, m_src, inst0, n, stage, tid, WG, Q, M, limb_off='0', vec=False, shift=0)">
% if vec:
    {
        const uint _s = ${tid} / ${M // Q}u, _l = ${limb_off} + (${tid} % ${M // Q}u) * ${Q}u;
        __global const limb_t *_p = ${src} + (size_t)(${inst0} + _s) * ${stride} + _l;
  % for v in range(Q // 4):
        {
            uint4 _t = (${inst0} + _s < ${n} && _l + ${4 * v}u < ${u(m_src)}) ? ((__global const uint4 *)_p)[${v}] : (uint4)(0u);
            ${dst}[${4 * v}] = _t.s0; ${dst}[${4 * v + 1}] = _t.s1; ${dst}[${4 * v + 2}] = _t.s2; ${dst}[${4 * v + 3}] = _t.s3;
        }
  % endfor
    }
% else:
    for (uint f = ${tid}; f < ${WG}u * ${Q}u; f += ${WG}u) {
        uint s = f / ${M}u, l = f % ${M}u + ${limb_off};
        limb_t v = 0;
% if shift:
        if (${inst0} + s < ${n} && l >= ${shift}u && l - ${shift}u < ${u(m_src)})
            v = ${src}[(size_t)(${inst0} + s) * ${stride} + l - ${shift}u];
% else:
        if (${inst0} + s < ${n} && l < ${u(m_src)})
            v = ${src}[(size_t)(${inst0} + s) * ${stride} + l];
% endif
        ${stage}[PAD(f)] = v;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
% for j in range(Q):
    ${dst}[${j}] = ${stage}[PAD(${tid} * ${Q}u + ${j}u)];
% endfor
    barrier(CLK_LOCAL_MEM_FENCE);
% endif
</%def>

## Inverse of stage_in: write chunk src[0..Q) back; only limbs l < m_dst of instances < n land.
## With `shift` (not with vec): limb l of the chunks lands at l - shift; those below are dropped.
<%def name="stage_out(src, dst, m_dst, inst0, n, stage, tid, WG, Q, M, limb_off='0', vec=False, shift=0)">
% if vec:
    {
        const uint _s = ${tid} / ${M // Q}u, _l = ${limb_off} + (${tid} % ${M // Q}u) * ${Q}u;
        __global limb_t *_p = ${dst} + (size_t)(${inst0} + _s) * ${u(m_dst)} + _l;
  % for v in range(Q // 4):
        if (${inst0} + _s < ${n} && _l + ${4 * v}u < ${u(m_dst)})
            ((__global uint4 *)_p)[${v}] = (uint4)(${src}[${4 * v}], ${src}[${4 * v + 1}], ${src}[${4 * v + 2}], ${src}[${4 * v + 3}]);
  % endfor
    }
% else:
% for j in range(Q):
    ${stage}[PAD(${tid} * ${Q}u + ${j}u)] = ${src}[${j}];
% endfor
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint f = ${tid}; f < ${WG}u * ${Q}u; f += ${WG}u) {
        uint s = f / ${M}u, l = f % ${M}u + ${limb_off};
% if shift:
        if (${inst0} + s < ${n} && l >= ${shift}u && l - ${shift}u < ${u(m_dst)})
            ${dst}[(size_t)(${inst0} + s) * ${u(m_dst)} + l - ${shift}u] = ${stage}[PAD(f)];
% else:
        if (${inst0} + s < ${n} && l < ${u(m_dst)})
            ${dst}[(size_t)(${inst0} + s) * ${u(m_dst)} + l] = ${stage}[PAD(f)];
% endif
    }
    barrier(CLK_LOCAL_MEM_FENCE);
% endif
</%def>

## Store chunks (rr, cc) of Q limbs (chunk cc holds limbs cc*Q..) of the group's IPB instances,
## MR limbs each, through the local buffer D (at least IPB*MR words, free): a work-item's chunk
## is Q consecutive limbs, so stored directly a warp would write Q-strided words; staged, the
## global stores are coalesced. The top limb is masked with TOP_MASK.
<%def name="store_chunks(parts, D, dst, MR, TOP_MASK, inst0, n, s, tid, WG, IPB, Q)">
% for rr, cc in parts:
  % for j in range(Q):
    if ((${cc}) * ${Q}u + ${j}u < ${MR}u) ${D}[${s} * ${MR}u + (${cc}) * ${Q}u + ${j}u] = ${rr}[${j}];
  % endfor
% endfor
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint _f = ${tid}; _f < ${IPB}u * ${MR}u; _f += ${WG}u) {
        const uint _s = _f / ${MR}u;
        if (${inst0} + _s < ${n}) {
% if TOP_MASK != 0xFFFFFFFF:
            ${dst}[(size_t)${inst0} * ${MR}u + _f] = ${D}[_f] & (_f - _s * ${MR}u == ${MR - 1}u ? ${TOP_MASK}u : 0xFFFFFFFFu);
% else:
            ${dst}[(size_t)${inst0} * ${MR}u + _f] = ${D}[_f];
% endif
        }
    }
</%def>
