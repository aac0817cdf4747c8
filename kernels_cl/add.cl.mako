## a ± b for a batch, as map–scan–map (Oancea & Watt, section 2).
## MODE "single": IPB instances per work-group, each spanning IPI work-items.
## MODE "summary"/"apply": one instance spans G work-groups (IPB = 1); "summary" records each
## block's carry bits, "apply" folds the lower blocks' bits into its carry-in and finishes.
## These modes take everything about the operation at run time (issue 43: one kernel per
## launch shape, not per width or operation): wid and op (blocks/arith.mako, add_how_defs),
## widths up to the plan's IPI*Q*G limbs.
## MODE "rows" keeps OP and the widths as template parameters (its layout places the flag and
## the top limb at build time) and ignores those arguments.
<%namespace file="blocks/common.mako" import="header"/>
<%namespace file="blocks/stage.mako" import="stage_in, stage_out"/>
<%namespace file="blocks/scan.mako" import="seg_scan"/>
<%namespace file="blocks/arith.mako" import="carry_op_defs, add_chunk, apply_carry, add_how_defs, add_how_unpack"/>
<% WG = IPB * IPI; M = IPI * Q; R = Q // 4 %>
${header()}
${carry_op_defs()}
${add_how_defs()}

__kernel __attribute__((reqd_work_group_size(${WG}, 1, 1)))
void add_sub(__global const limb_t *a, ulong sa, __global const limb_t *b, ulong sb,
             __global limb_t *r, __global uchar *flag, __global uchar *blk, uint n,
             ulong wid, ulong op)
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
    ${add_how_unpack()}
    /* The control byte: bit 3 drops b (b = 0), bit 0 then complements it, bit 1 is the
       carry-in, bit 2 complements the result: a + b, a - b = a + ~b + 1, b - a = ~(a + ~b),
       a - 1 = a + ~0, a + 1, ... */
    const uint ctl = (how & HOW_PER) ? (inst < n ? flag[inst] : 0u) : (how & 15u);
    const limb_t keep_b = (ctl & 8u) ? 0u : LIMB_MAX, flip_b = (ctl & 1u) ? LIMB_MAX : 0u;
    limb_t x[${Q}], y[${Q}], z[${Q}];
    ${stage_in("x", "a", "sa", "ma", "inst0", "n", "stage", "tid", WG, Q, M, "limb_off", VEC)}
    ${stage_in("y", "b", "sb", "mb", "inst0", "n", "stage", "tid", WG, Q, M, "limb_off", VEC)}
    uint v;
    ${add_chunk("z", lambda j: "x[%d]" % j, lambda j: "(y[%d] & keep_b) ^ flip_b" % j, Q, "v")}
% if MODE == "summary":
    ${seg_scan("sc", "s * %du" % IPI, [("v", "p")], IPI, "CARRY_OP", "CARRY_ID")}
    if (p == ${IPI - 1}u && inst < n) blk[(size_t)inst * ${G}u + block] = (uchar)v;
% else:
  % if MODE == "apply":
    __local uint cin_block;
    if (tid == 0) {
        uint c = (ctl >> 1) & 1u;
        for (uint j = 0; j < block; j++) {
            uint sm = blk[(size_t)inst0 * ${G}u + j];
            c = (sm & 1u) | ((sm >> 1) & c);
        }
        cin_block = c;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint cin0 = cin_block;
  % else:
    const uint cin0 = (ctl >> 1) & 1u;
  % endif
    if (p == 0) v = CARRY_OP(cin0, v);
    ${seg_scan("sc", "s * %du" % IPI, [("v", "p")], IPI, "CARRY_OP", "CARRY_ID")}
    uint cin = (p > 0) ? (sc[s * ${IPI}u + p - 1u] & 1u) : cin0;
    ${apply_carry("z", "cin", Q)}
    if (ctl & 4u) {
  % for j in range(Q):
        z[${j}] = ~z[${j}];
  % endfor
    }
    if (flag_limb >= ${M * G}u) {
        /* the flag bit lies above the computed width: it is the top carry (a+b), or its
           complement (a-b: a borrow leaves no carry out of a + ~b + 1) */
        if (flag_limb != NO_FLAG && p == ${IPI - 1}u && inst < n ${'&& block == %du' % (G - 1) if MODE == 'apply' else ''})
            flag[inst] = (uchar)((v & 1u) ^ (ctl & 1u));
    } else {   /* bit flag_bit of limb flag_limb of the wide result: the carry of a+b, or 1
                  exactly when a-b borrowed */
        const uint rel = flag_limb - limb_off - p * ${Q}u;
        if (flag_limb >= limb_off + p * ${Q}u && rel < ${Q}u && inst < n) {
            limb_t w = 0;
  % for j in range(Q):
            if (rel == ${j}u) w = z[${j}];
  % endfor
            flag[inst] = (uchar)((w >> flag_bit) & 1u);
        }
    }
  % for j in range(Q):
    if (limb_off + p * ${Q}u + ${j}u == mr - 1u) z[${j}] &= top_mask;
  % endfor
    ${stage_out("z", "r", "mr", "inst0", "n", "stage", "tid", WG, Q, M, "limb_off", VEC)}
% endif
}

## MODE "rows": each work-item holds 4 limbs in each of R rows, so every 16-byte load of a
## row is contiguous across the group; the rows' carry bits are packed into one word (g in bits
## 0..15, p in bits 16..31) and scanned for all rows at once. With CHAIN, the rows are
## consecutive pieces of one big instance (IPB = 1) and chain through their totals; without,
## row r holds its own IPB instances, which puts R independent loads in flight per work-item.
<%def name="rows_body()">
<% RL = 4 * IPI; SUB = (OP == "sub") %>
#define ROWS_OP(lo, hi) (((hi) & 0xFFFFu) | (((hi) >> 16) & (lo) & 0xFFFFu) | ((lo) & (hi) & 0xFFFF0000u))
    limb_t z[${R}][4];
    uint v = 0;
% for row in range(R):
  % if CHAIN:
    const uint inst${row} = get_group_id(0), l${row} = ${row * RL}u + 4u * p;
  % else:
    const uint inst${row} = (get_group_id(0) * ${R}u + ${row}u) * ${IPB}u + s, l${row} = 4u * p;
  % endif
    {
        const int ok = inst${row} < n;
        __global const limb_t *ap = a + (size_t)(ok ? inst${row} : 0u) * sa + l${row};
        __global const limb_t *bp = b + (size_t)(ok ? inst${row} : 0u) * sb + l${row};
        uint4 x = (ok && l${row} < ${MA}u) ? ((__global const uint4 *)ap)[0] : (uint4)(0u);
        uint4 y = (ok && l${row} < ${MB}u) ? ((__global const uint4 *)bp)[0] : (uint4)(0u);
        uint sm;
        ${add_chunk("z[%d]" % row, lambda j: "x.s%d" % j, lambda j: "y.s%d" % j, 4, "sm", negate_b=SUB)}
        v |= (sm & 1u) << ${row} | (sm >> 1) << ${16 + row};
    }
% endfor
% if R < 16:
    v |= ${hex((0xFFFF << (16 + R)) & 0xFFFFFFFF)}u;  /* unused rows propagate */
% endif
    ${seg_scan("sc", "s * %du" % IPI, [("v", "p")], IPI, "ROWS_OP", "0xFFFF0000u")}
    const uint ex = p > 0 ? sc[s * ${IPI}u + p - 1u] : 0xFFFF0000u;
    const uint tot = sc[s * ${IPI}u + ${IPI - 1}u];
    uint c = ${int(SUB)}u;   /* carry into the current row (CHAIN) */
% for row in range(R):
    {
        uint cin = ((ex >> ${row}) & 1u) | ((ex >> ${16 + row}) & c);
        ${apply_carry("z[%d]" % row, "cin", 4)}
        uint cout = ((tot >> ${row}) & 1u) | ((tot >> ${16 + row}) & c);
  % if CHAIN:
        c = cout;
  % endif
  % if FLAG_LIMB is not None and FLAG_TOP and (not CHAIN or row == R - 1):
        if (p == 0u && inst${row} < n) flag[inst${row}] = (uchar)(cout ^ ${int(SUB)}u);
  % elif FLAG_LIMB is not None and not FLAG_TOP and FLAG_LIMB // RL == (row if CHAIN else FLAG_LIMB // RL):
        if (p == ${(FLAG_LIMB % RL) // 4}u && inst${row} < n)
            flag[inst${row}] = (uchar)((z[${row}][${FLAG_LIMB % 4}] >> ${FLAG_BIT}u) & 1u);
  % endif
  % if TOP_MASK != 0xFFFFFFFF and (MR - 1) // RL == (row if CHAIN else (MR - 1) // RL):
        if (p == ${((MR - 1) % RL) // 4}u) z[${row}][${(MR - 1) % 4}] &= ${TOP_MASK}u;
  % endif
        if (inst${row} < n && l${row} < ${MR}u)
            ((__global uint4 *)(r + (size_t)inst${row} * ${MR}u + l${row}))[0] = (uint4)(z[${row}][0], z[${row}][1], z[${row}][2], z[${row}][3]);
    }
% endfor
</%def>
