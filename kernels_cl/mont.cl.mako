## Modular products and powers of a batch by Montgomery multiplication (blocks/mont.mako).
##
## Every instance has NP = C*Q limbs on C work-items (IPB instances per group); m may have
## fewer limbs (NM <= NP): R = B^NP only has to exceed it. m odd; r2 = R^2 mod m (from the
## host, by a division on the device). Strides of 0 broadcast one operand (one modulus, one
## exponent for the whole batch).
##
## mulmod: out = a*b mod m = mont(mont(a, b), R^2), for a, b < R.
## powmod: out = a^e mod m by a fixed window of W bits: a table T[d] = (a^d) R mod m of 2^W
##   entries per instance in global memory (each item reads back only what it wrote), built
##   from T[0] = mont(R^2, 1) = R mod m and T[1] = mont(a, R^2); then per window W squarings
##   and one product by T[digit]; then mont(x, 1) leaves the Montgomery form. A zero digit
##   skips its product where that cannot split a group's barriers (one item per instance
##   without the shared modulus's barrier, or one exponent for all: SHARED_E); elsewhere it
##   multiplies by T[0] = R mod m (x R / R = x). The window loop runs over the exponent's
##   capacity (ME limbs): leading zero windows multiply T[0] by itself.
##   POW2: the modulus is R itself (a^e mod B^NP, no reduction), for the power-of-two part of
##   an even modulus; m and r2 are not read.
## multipow: out = a_0^e_0 ... a_{K-1}^e_{K-1} mod m (Straus): K tables as powmod's, one chain of
##   squares for all, per window W squarings and K products by T_k[digit of e_k]. Each base and
##   exponent has its own stride and length (run-time arguments, so one build serves every
##   width of them), the windows' count nwin too; exponents are read from global memory.
##
## Operands staged once per work-group (clbig/mont.py decides, the local memory permitting):
##   MM == "@MS": one modulus for the batch (sm == 0). The group copies m's limbs into msh once
##     (coalesced: item t copies limbs t, t + WG, ...), and every item reads its chunk's limb j
##     there (MS(j)): the items of one chunk read the same word (a broadcast), and chunks
##     start QP words apart (QP odd) so the C chunks' words sit on distinct banks. The Q
##     registers of mm are free (one 64-limb item otherwise holds 3 x 64 limbs and spills).
##   ESH (powmod): where digit() reads the exponent. "one": one exponent for the batch
##     (se == 0), its ME words copied into esh once per group; "each": each instance's ME words
##     in esh (rows EP words apart, EP odd) for C > 1, whose C items all read the same words;
##     "global": straight from global memory (C = 1 with per-instance exponents: every item
##     reads only its own words, once per window, so a copy would only add a pass).
##   Both copies end in one barrier, which every item reaches (it comes before any branch;
##   padding instances copy too, zeros for exponent rows past n).
<%namespace file="blocks/common.mako" import="header"/>
<%namespace file="blocks/arith.mako" import="carry_op_defs"/>
<%namespace file="blocks/mont.mako" import="mont_defs, mont_mul, mont_sqr"/>
<%! from clbig.runtime.tmpl import at %>
<%
    assert NP == C * Q and XLD == NP + 1   # XLD: one spare word per row, so the items of C = 1 read distinct banks
    assert not SQR or (C == 1 and not POW2 and KERNEL != "mulmod")   # mont_sqr: one item, a modulus
    assert MM in ("mm", "@MV", "@MS") and B in ("b", "@BV")
    assert ESH in ("global", "one", "each") and (ESH == "global" or KERNEL == "powmod")
    assert not (POW2 and MM == "@MS")
    WG = IPB * C
    QP = Q | 1        # msh: chunk k at k*QP (odd: the C chunks' limb j on distinct banks)
    EP = ME | 1       # esh ("each"): instance s's words at s*EP
    TW = 1 << W if KERNEL != "mulmod" else 0
    NWIN = (ME * 32 + W - 1) // W if KERNEL == "powmod" else 0
%>
<%def name="locals()">
    __local uint xs[${IPB * XLD}];
% if C > 1:
    __local uint ex[${2 * IPB * C}], cyx[${IPB * C}], sc[${IPB * C}];
  % if not POW2:
    __local uint qx[${2 * IPB}];
  % endif
% endif
% if POW2:
    __local uint lo[${IPB * XLD}];
% endif
% if MM != "mm":
    __local uint ml[${Q * WG}];
% endif
% if B != "b":
    __local uint bl[${Q * WG}];
% endif
% if MM == "@MS":
    __local uint msh[${C * QP}];
% endif
% if ESH == "one":
    __local uint esh[${ME}];
% elif ESH == "each":
    __local uint esh[${IPB * EP}];
% endif
</%def>
## MLOC / BLOC: m's chunk / the multiplicand kept in local memory instead of registers (fewer
## registers for the 64-limb item, whose 3 x 64 private limbs spill), limb j of work-item tid
## at j*WG + tid: consecutive items on consecutive banks; each item reads only its own limbs.
#define MV(j) ml[(j) * ${WG}u + tid]
#define BV(j) bl[(j) * ${WG}u + tid]
## MS: the shared modulus staged once per group (see the top)
#define MS(j) msh[k * ${QP}u + (j)]
## dst[j] = limb k*Q + j of src's row (zero past M limbs and for padding instances)
<%def name="load(dst, src, stride, M)">
% for j in range(Q):
    ${at(dst, j)} = (live && k * ${Q}u + ${j}u < ${M}u) ? ${src}[(size_t)inst * ${stride} + k * ${Q}u + ${j}u] : 0u;
% endfor
</%def>
## The group's copies of the shared modulus and the exponent words (see the top), then the
## barrier after which every item reads them; called before any branch.
<%def name="stage()">
% if MM == "@MS":
    for (uint t = tid; t < ${NP}u; t += ${WG}u)   /* m's limb t, zero past NM */
        msh[t / ${Q}u * ${QP}u + t % ${Q}u] = t < ${NM}u ? m[t] : 0u;
% endif
% if ESH == "one":
    for (uint t = tid; t < ${ME}u; t += ${WG}u)
        esh[t] = e[t];
% elif ESH == "each":
    for (uint t = tid; t < ${IPB * ME}u; t += ${WG}u) {   /* consecutive items, consecutive words */
        const uint _s = t / ${ME}u, _w = t % ${ME}u, _i = get_group_id(0) * ${IPB}u + _s;
        esh[_s * ${EP}u + _w] = _i < n ? e[(size_t)_i * se + _w] : 0u;
    }
% endif
% if MM == "@MS" or ESH != "global":
    barrier(CLK_LOCAL_MEM_FENCE);
% endif
</%def>
<%def name="put(src)">
% for j in range(Q):
    xs[s * ${XLD}u + k * ${Q}u + ${j}u] = ${src}[${j}];
% endfor
</%def>
## M: the row's limbs, a constant (an int) or a run-time value (its name)
<%def name="put_global(src, stride, M)">
<% lim = "%du" % M if isinstance(M, int) else M %>
% for j in range(Q):
    xs[s * ${XLD}u + k * ${Q}u + ${j}u] = (live && k * ${Q}u + ${j}u < ${lim}) ? ${src}[(size_t)inst * ${stride} + k * ${Q}u + ${j}u] : 0u;
% endfor
</%def>
## bits pos .. pos+W-1 of the exponent of me words at ep (in the address space EQ)
<%def name="digit_fn(EQ)">
inline uint digit(${EQ} const uint *ep, uint me, uint pos)
{
    const uint w0 = pos >> 5, sh = pos & 31u;
    ulong v = w0 < me ? ep[w0] : 0u;
    if (w0 + 1u < me) v |= (ulong)ep[w0 + 1u] << 32;
    return (uint)(v >> sh) & ${(1 << W) - 1}u;
}
</%def>
<%def name="unit(dst)">
% for j in range(Q):
    ${at(dst, j)} = ${"k == 0 ? 1u : 0u" if j == 0 else "0u"};
% endfor
</%def>
<%def name="store_out()">
    if (live) {
% for j in range(Q):
        if (k * ${Q}u + ${j}u < ${NM}u) out[(size_t)inst * ${NM}u + k * ${Q}u + ${j}u] = r[${j}];
% endfor
    }
</%def>
## table entry d of this item: limb j at ((d*Q + j)*nt + inst)*C + k, consecutive items on
## consecutive words
<%def name="tab_at(d, j)">tab[(((size_t)(${d}) * ${Q}u + ${j}u) * nt + inst) * ${C}u + k]</%def>
<%def name="prologue()">
    const uint tid = get_local_id(0), s = tid / ${C}u, k = tid % ${C}u;
    const uint inst = get_group_id(0) * ${IPB}u + s;
    const int live = inst < n;
    ${locals()}
    uint r[${Q}];
% if MM == "mm" and not POW2:
    uint mm[${Q}];
% endif
% if B == "b":
    uint b[${Q}];
% endif
    ${stage()}
% if MM == "@MS":
    const uint minv = mont_minv(msh[0]);
% elif not POW2:
    ${load(MM, "m", "sm", NM)}
    const uint minv = mont_minv(${at(MM, 0)});   /* item 0's is m's limb 0; only item 0 uses it */
% endif
</%def>
${header()}
${carry_op_defs()}
${mont_defs()}

% if KERNEL == "mulmod":
__kernel __attribute__((reqd_work_group_size(${WG}, 1, 1)))
void mulmod(__global const uint *a, ulong sa, __global const uint *bv, ulong sb,
            __global const uint *m, ulong sm, __global const uint *r2, ulong sr2,
            __global uint *out, uint n)
{
    ${prologue()}
    ${put_global("a", "sa", MA)}
    ${load(B, "bv", "sb", MB)}
    ${mont_mul("r", B)}          /* a b / R, below R */
    ${put("r")}
    ${load(B, "r2", "sr2", NM)}
    ${mont_mul("r", B)}          /* a b mod m */
    ${store_out()}
}
% elif KERNEL == "multipow":
<%
    assert ESH == "global" and not POW2
    def sel(x):   # base kk's argument x, chosen at run time
        return "(" + "".join(f"kk == {i}u ? {x}{i} : " for i in range(K - 1)) + f"{x}{K - 1})"
%>
${digit_fn("__global")}

__kernel __attribute__((reqd_work_group_size(${WG}, 1, 1)))
void multipow(
% for i in range(K):
              __global const uint *a${i}, ulong sa${i}, uint ma${i}, __global const uint *e${i}, ulong se${i}, uint me${i},
% endfor
              __global const uint *m, ulong sm, __global const uint *r2, ulong sr2,
              __global uint *out, __global uint *tab, uint nwin, uint n)
{
    ${prologue()}
    const size_t nt = (size_t)get_num_groups(0) * ${IPB}u;   /* instances the table holds */
    const uint row = live ? inst : 0u;   /* padding instances read row 0 */
    for (uint t = 0; t < ${K * TW}u; ++t) {   /* T_kk[j] at entry t = kk TW + j */
        const uint kk = t / ${TW}u, j = t % ${TW}u;
        if (j == 0) {               /* T_kk[0] = R mod m */
            ${put_global("r2", "sr2", NM)}
            ${unit(B)}
        } else if (j == 1) {        /* T_kk[1] = a_kk R^2 / R */
            __global const uint *ap = ${sel("a")};
            const ulong sa = ${sel("sa")};
            const uint ma = ${sel("ma")};
            ${put_global("ap", "sa", "ma")}
            ${load(B, "r2", "sr2", NM)}
        } else {                    /* T_kk[j] = T_kk[j-1] T_kk[1] / R */
            ${put("r")}
        }
        ${mont_mul("r", B)}
        if (j == 1) {
% for q in range(Q):
            ${at(B, q)} = r[${q}];
% endfor
        }
% for q in range(Q):
        ${tab_at("t", q)} = r[${q}];
% endfor
    }
    {   /* x = T_0[top digit of e_0] */
        const uint d = digit(e0 + (size_t)row * se0, me0, (nwin - 1u) * ${W}u);
% for q in range(Q):
        r[${q}] = ${tab_at("d", q)};
% endfor
    }
    /* K - 1 products by the other tables' top entries; then per lower window W squares and K
       products; then x / R */
    const uint steps = ${K - 1}u + (nwin - 1u) * ${W + K}u + 1u;
    for (uint st = 0; st < steps; ++st) {
        const uint t = st - ${K - 1}u, ph = st < ${K - 1}u ? ${W}u + 1u + st : t % ${W + K}u;
        const uint win = st < ${K - 1}u ? nwin - 1u : nwin - 2u - t / ${W + K}u;
% if SQR:
        if (st >= ${K - 1}u && ph < ${W}u && st != steps - 1u) {   /* square: each cross product once */
            ${mont_sqr("r")}
            continue;
        }
% endif
        if (st == steps - 1u) {             /* leave the Montgomery form: x / R */
            ${unit(B)}
        } else if (ph < ${W}u) {            /* square */
% for q in range(Q):
            ${at(B, q)} = r[${q}];
% endfor
        } else {                            /* times T_kk[digit of e_kk] */
            const uint kk = ph - ${W}u;
            const uint d = digit(${sel("e")} + (size_t)row * ${sel("se")}, ${sel("me")}, win * ${W}u);
% if C == 1 and MM != "@MS":
            if (d == 0) continue;
% endif
            const uint te = kk * ${TW}u + d;
% for q in range(Q):
            ${at(B, q)} = ${tab_at("te", q)};
% endfor
        }
        ${put("r")}
        ${mont_mul("r", B)}
    }
    ${store_out()}
}
% else:
${digit_fn("__global" if ESH == "global" else "__local")}

__kernel __attribute__((reqd_work_group_size(${WG}, 1, 1)))
void powmod(__global const uint *a, ulong sa, __global const uint *e, ulong se,
            __global const uint *m, ulong sm, __global const uint *r2, ulong sr2,
            __global uint *out, __global uint *tab, uint n)
{
    ${prologue()}
    const size_t nt = (size_t)get_num_groups(0) * ${IPB}u;   /* instances the table holds */
% if ESH == "global":
    __global const uint *ep = e + (size_t)(live ? inst : 0u) * se;
% elif ESH == "one":
    __local const uint *ep = esh;
% else:
    __local const uint *ep = esh + s * ${EP}u;
% endif
    for (uint j = 0; j < ${TW}u; ++j) {   /* from j = 2 on the multiplicand holds T[1] */
% if POW2:
        if (j == 0) {
            ${unit("r")}
        } else if (j == 1) {
            ${load("r", "a", "sa", MA)}
  % for q in range(Q):
            ${at(B, q)} = r[${q}];
  % endfor
        } else {
            ${put("r")}
            ${mont_mul("r", B)}
        }
% else:
        if (j == 0) {               /* T[0] = R^2 / R = R mod m */
            ${put_global("r2", "sr2", NM)}
            ${unit(B)}
        } else if (j == 1) {        /* T[1] = a R^2 / R */
            ${put_global("a", "sa", MA)}
            ${load(B, "r2", "sr2", NM)}
        } else {                    /* T[j] = T[j-1] T[1] / R */
            ${put("r")}
        }
        ${mont_mul("r", B)}
        if (j == 1) {
  % for q in range(Q):
            ${at(B, q)} = r[${q}];
  % endfor
        }
% endif
% for q in range(Q):
        ${tab_at("j", q)} = r[${q}];
% endfor
    }
    {   /* x = T[top digit] */
        const uint d = digit(ep, ${ME}u, ${(NWIN - 1) * W}u);
% for q in range(Q):
        r[${q}] = ${tab_at("d", q)};
% endfor
    }
<% STEPS = (NWIN - 1) * (W + 1) + (0 if POW2 else 1) %>
    for (uint st = 0; st < ${STEPS}u; ++st) {
        const uint ph = st % ${W + 1}u, win = ${NWIN - 2}u - st / ${W + 1}u;
% if SQR:
        if (ph < ${W}u && st != ${STEPS - 1}u) {   /* square: each cross product once */
            ${mont_sqr("r")}
            continue;
        }
% endif
% if not POW2:
        if (st == ${STEPS - 1}u) {          /* leave the Montgomery form: x / R */
            ${unit(B)}
        } else
% endif
        if (ph < ${W}u) {                   /* square */
% for q in range(Q):
            ${at(B, q)} = r[${q}];
% endfor
        } else {                            /* times T[digit] */
            const uint d = digit(ep, ${ME}u, win * ${W}u);
% if SHARED_E or (C == 1 and MM != "@MS"):
            if (d == 0) continue;
% endif
## Not with one item per instance behind the staging barrier: PoCL 3.1 (Debian 12) runs a
## divergent `continue` in this loop wrongly once the kernel has a barrier (results as if
## every item took item 0's branch; Oclgrind runs the same source right). The skip saves
## nothing on a GPU anyway unless every item of a warp has a zero digit at once.
% for q in range(Q):
            ${at(B, q)} = ${tab_at("d", q)};
% endfor
        }
        ${put("r")}
        ${mont_mul("r", B)}
    }
    ${store_out()}
}
% endif
