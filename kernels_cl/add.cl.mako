## a ± b for a batch, fixed width MR limbs, as map–scan–map (Oancea & Watt, section 2).
## MODE "single": IPB instances per work-group, each spanning IPI work-items.
## MODE "summary"/"apply": one instance spans G work-groups (IPB = 1); "summary" records each
## block's carry bits, "apply" folds the lower blocks' bits into its carry-in and finishes.
<%namespace file="blocks/common.mako" import="header"/>
<%namespace file="blocks/stage.mako" import="stage_in, stage_out"/>
<%namespace file="blocks/scan.mako" import="seg_scan"/>
<%namespace file="blocks/arith.mako" import="carry_op_defs, add_chunk, apply_carry"/>
<% WG = IPB * IPI; M = IPI * Q; SUB = (OP == "sub"); R = Q // 4 %>
${header()}
${carry_op_defs()}

__kernel __attribute__((reqd_work_group_size(${WG}, 1, 1)))
void add_sub(__global const limb_t *a, ulong sa, __global const limb_t *b, ulong sb,
             __global limb_t *r, __global uchar *flag, __global uchar *blk, uint n)
{
    __local uint sc[${WG}];
    const uint tid = get_local_id(0), s = tid / ${IPI}u, p = tid % ${IPI}u;
% if MODE == "rows":
    ${rows_body()}
}
<% return STOP_RENDERING %>
% endif
    __local limb_t stage[PADDED(${WG * Q})];
% if MODE == "single":
    const uint inst0 = get_group_id(0) * ${IPB}u, block = 0;
% else:
    const uint inst0 = get_group_id(0) / ${G}u, block = get_group_id(0) % ${G}u;
% endif
    const uint limb_off = block * ${M}u, inst = inst0 + s;
    limb_t x[${Q}], y[${Q}], z[${Q}];
    ${stage_in("x", "a", "sa", MA, "inst0", "n", "stage", "tid", WG, Q, M, "limb_off", VEC_A)}
    ${stage_in("y", "b", "sb", MB, "inst0", "n", "stage", "tid", WG, Q, M, "limb_off", VEC_B)}
    uint v;
    ${add_chunk("z", lambda j: "x[%d]" % j, lambda j: "y[%d]" % j, Q, "v", negate_b=SUB)}
% if MODE == "summary":
    ${seg_scan("sc", "s * %du" % IPI, [("v", "p")], IPI, "CARRY_OP", "CARRY_ID")}
    if (p == ${IPI - 1}u && inst < n) blk[(size_t)inst * ${G}u + block] = (uchar)v;
% else:
  % if MODE == "apply":
    __local uint cin_block;
    if (tid == 0) {
        uint c = ${int(SUB)}u;
        for (uint j = 0; j < block; j++) {
            uint sm = blk[(size_t)inst0 * ${G}u + j];
            c = (sm & 1u) | ((sm >> 1) & c);
        }
        cin_block = c;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint cin0 = cin_block;
  % else:
    const uint cin0 = ${int(SUB)}u;
  % endif
    if (p == 0) v = CARRY_OP(cin0, v);
    ${seg_scan("sc", "s * %du" % IPI, [("v", "p")], IPI, "CARRY_OP", "CARRY_ID")}
    uint cin = (p > 0) ? (sc[s * ${IPI}u + p - 1u] & 1u) : cin0;
    ${apply_carry("z", "cin", Q)}
  % if FLAG_LIMB is not None and FLAG_TOP:
    /* the flag bit lies just above the computed width: it is the top carry (a+b), or its
       complement (a-b: a borrow leaves no carry out of a + ~b + 1) */
    if (p == ${IPI - 1}u && inst < n ${'&& block == %du' % (G - 1) if MODE == 'apply' else ''})
        flag[inst] = (uchar)((v & 1u) ^ ${int(SUB)}u);
  % elif FLAG_LIMB is not None:
    {   /* bit `bits` of the wide result: the carry of a+b, or 1 exactly when a-b borrowed */
        uint rel = ${FLAG_LIMB}u - limb_off - p * ${Q}u;
        if (${FLAG_LIMB}u >= limb_off + p * ${Q}u && rel < ${Q}u && inst < n) {
            limb_t w = 0;
    % for j in range(Q):
            if (rel == ${j}u) w = z[${j}];
    % endfor
            flag[inst] = (uchar)((w >> ${FLAG_BIT}u) & 1u);
        }
    }
  % endif
  % if TOP_MASK != 0xFFFFFFFF:
    % for j in range(Q):
    if (limb_off + p * ${Q}u + ${j}u == ${MR - 1}u) z[${j}] &= ${TOP_MASK}u;
    % endfor
  % endif
    ${stage_out("z", "r", MR, "inst0", "n", "stage", "tid", WG, Q, M, "limb_off", VEC_R)}
% endif
}

## MODE "rows": one big instance per group (IPB = 1) seen as R = Q/4 rows of 4*IPI limbs; a
## work-item holds 4 limbs of every row, so each 16-byte load of a row is contiguous across
## work-items. The rows' carry bits are packed into one word (g in bits 0..15, p in bits
## 16..31) and scanned for all rows at once; the rows then chain through their totals.
<%def name="rows_body()">
<% RL = 4 * IPI %>
#define ROWS_OP(lo, hi) (((hi) & 0xFFFFu) | (((hi) >> 16) & (lo) & 0xFFFFu) | ((lo) & (hi) & 0xFFFF0000u))
    const uint inst = get_group_id(0);
    __global const limb_t *ap = a + (size_t)inst * sa, *bp = b + (size_t)inst * sb;
    limb_t z[${R}][4];
    uint v = 0;
% for row in range(R):
    {
        const uint l = ${row * RL}u + 4u * p;
        uint4 x = l < ${MA}u ? ((__global const uint4 *)(ap + l))[0] : (uint4)(0u);
        uint4 y = l < ${MB}u ? ((__global const uint4 *)(bp + l))[0] : (uint4)(0u);
        uint sm;
        ${add_chunk("z[%d]" % row, lambda j: "x.s%d" % j, lambda j: "y.s%d" % j, 4, "sm", negate_b=SUB)}
        v |= (sm & 1u) << ${row} | (sm >> 1) << ${16 + row};
    }
% endfor
% if R < 16:
    v |= ${hex((0xFFFF << (16 + R)) & 0xFFFFFFFF)}u;  /* unused rows propagate */
% endif
    ${seg_scan("sc", "0u", [("v", "p")], IPI, "ROWS_OP", "0xFFFF0000u")}
    const uint ex = p > 0 ? sc[p - 1u] : 0xFFFF0000u;
    const uint tot = sc[${IPI - 1}u];
    uint c = ${int(SUB)}u;   /* carry into the current row */
% for row in range(R):
    {
        uint cin = ((ex >> ${row}) & 1u) | ((ex >> ${16 + row}) & c);
        ${apply_carry("z[%d]" % row, "cin", 4)}
        c = ((tot >> ${row}) & 1u) | ((tot >> ${16 + row}) & c);
    }
% endfor
  % if FLAG_LIMB is not None and FLAG_TOP:
    if (p == 0u) flag[inst] = (uchar)(c ^ ${int(SUB)}u);
  % elif FLAG_LIMB is not None:
    if (p == ${(FLAG_LIMB % RL) // 4}u) flag[inst] = (uchar)((z[${FLAG_LIMB // RL}][${FLAG_LIMB % 4}] >> ${FLAG_BIT}u) & 1u);
  % endif
  % if TOP_MASK != 0xFFFFFFFF:
    if (p == ${((MR - 1) % RL) // 4}u) z[${(MR - 1) // RL}][${(MR - 1) % 4}] &= ${TOP_MASK}u;
  % endif
% for row in range(R):
    {
        const uint l = ${row * RL}u + 4u * p;
        if (l < ${MR}u)
            ((__global uint4 *)(r + (size_t)inst * ${MR}u + l))[0] = (uint4)(z[${row}][0], z[${row}][1], z[${row}][2], z[${row}][3]);
    }
% endfor
</%def>
