## The tail of a Newton step of the division (clbig/div_q.py, step 2) in one scan:
##   r = limbs [D, D + MR) of (T + w * B^SJ - w) mod B^ML,  T = limbs [OFF, OFF + ML) of z,
## where it took two limb shifts, an add, a sub and a third shift. a + b - c = a + b + ~c + 1
## (mod B^ML): three operands and a carry-in of 1, so the carry between chunks is 0, 1 or 2
## and is scanned as a map (blocks/arith.mako: carry3). w has MW limbs, z and w their own
## instance strides (sz, sw).
## MODE "single": IPB instances per work-group, each spanning IPI work-items of Q limbs.
## MODE "summary"/"apply": one instance spans G work-groups (IPB = 1); "summary" records each
## block's carry map, "apply" folds the lower blocks' maps into its carry-in and finishes.
<%namespace file="blocks/common.mako" import="header"/>
<%namespace file="blocks/stage.mako" import="stage_in, stage_out"/>
<%namespace file="blocks/scan.mako" import="seg_scan"/>
<%namespace file="blocks/arith.mako" import="carry3_defs, add3_chunk, apply_carry3"/>
<% WG = IPB * IPI; M = IPI * Q %>
${header()}
${carry3_defs()}

__kernel __attribute__((reqd_work_group_size(${WG}, 1, 1)))
void newton_tail(__global const limb_t *z, ulong sz, __global const limb_t *w, ulong sw,
                 __global limb_t *r, __global uchar *blk, uint n)
{
    __local uint sc[${WG}];
    __local limb_t stage[PADDED(${WG * Q})];
    const uint tid = get_local_id(0), s = tid / ${IPI}u, p = tid % ${IPI}u;
% if MODE == "single":
    const uint inst0 = get_group_id(0) * ${IPB}u, block = 0;
% else:
    const uint inst0 = get_group_id(0) / ${G}u, block = get_group_id(0) % ${G}u;
% endif
    const uint limb_off = block * ${M}u, inst = inst0 + s;
    limb_t x[${Q}], y[${Q}], c[${Q}], t[${Q}];
    ${stage_in("x", "(z + %du)" % OFF, "sz", ML, "inst0", "n", "stage", "tid", WG, Q, M, "limb_off")}
    ${stage_in("y", "w", "sw", MW, "inst0", "n", "stage", "tid", WG, Q, M, "limb_off", shift=SJ)}
    ${stage_in("c", "w", "sw", MW, "inst0", "n", "stage", "tid", WG, Q, M, "limb_off")}
    uint f;
    ${add3_chunk("t", "x", "y", "c", Q, "f")}
% if MODE == "summary":
    ${seg_scan("sc", "s * %du" % IPI, [("f", "p")], IPI, "CARRY3_OP", "CARRY3_ID")}
    if (p == ${IPI - 1}u && inst < n) blk[(size_t)inst * ${G}u + block] = (uchar)f;
% else:
  % if MODE == "apply":
    __local uint cin_block;
    if (tid == 0) {
        uint cb = 1u;
        for (uint j = 0; j < block; j++) cb = CARRY3_AT((uint)blk[(size_t)inst0 * ${G}u + j], cb);
        cin_block = cb;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint cin0 = cin_block;
  % else:
    const uint cin0 = 1u;
  % endif
    ${seg_scan("sc", "s * %du" % IPI, [("f", "p")], IPI, "CARRY3_OP", "CARRY3_ID")}
    const uint cin = (p > 0) ? CARRY3_AT(sc[s * ${IPI}u + p - 1u], cin0) : cin0;
    ${apply_carry3("t", "cin", Q)}
    ${stage_out("t", "r", MR, "inst0", "n", "stage", "tid", WG, Q, M, "limb_off", shift=D)}
% endif
}
