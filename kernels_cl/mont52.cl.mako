## Modular products and powers by FP64 Montgomery multiplication (blocks/mont52.mako), one
## work-item per instance, no barriers (but MSH's one): each item reads only local-memory words
## it wrote.
##
## Residues are N digits of 51 bits (doubles), R = 2^(51 N) > 4m; a, b, m and r2 = R^2 mod m
## arrive as 32-bit limbs (MA, MB, NM limbs; strides of 0 broadcast one row) and the result
## leaves as NM limbs, fully reduced.
## SQR: squares by mont52_sqr (each cross product once, unrolled), else by mont52_mul.
## mulmod: mont(mont(a, r2), b) = a b mod m, below 3m before two conditional subtractions.
## powmod: the fixed window of mont.cl.mako (a table T[d] = a^d R mod m of 2^W entries per
##   instance in global memory, as digits), then mont(x, 1) <= m and one subtraction.
## The multiplier's digits (the row a_i of each step) are staged in local memory, limb j of
## item t at j*WG + t so a group's items touch consecutive words; with MLOC m's digits live
## there too instead of registers (for N beyond what the registers hold beside y and the
## accumulators: mpn/mont52.py REG_MAX).
<%namespace file="blocks/mont52.mako" import="mont52_defs, digit_rt_defs, window_digit_defs, load_digits, store_limbs, mont52_mul, mont52_sqr, reduce"/>
<%! from clbig.runtime.tmpl import at %>
<%
    TW = 1 << W if KERNEL == "powmod" else 0
    NWIN = (ME * 32 + W - 1) // W if KERNEL == "powmod" else 0
    MM = "@MS" if MSH else "@ML" if MLOC else "mm"
    def glob(name, stride, M):   # row `row`: the instance's, or row 0 for a padding item (MSH)
        return lambda w: "%s[(size_t)row * %s + %du]" % (name, stride, w) if w < M else "0u"
%>
${mont52_defs()}
${digit_rt_defs()}
#define XS(j) xs[(j) * ${WG}u + tid]
## m's digits are read through a volatile pointer: the compiler then reloads each at its use (one
## local load per q*m product) instead of holding all N across the row loop, which would defeat
## MLOC (H200, 2048 bits: 246 registers, no spill, 1.35 M/s; without volatile 255 registers and
## 0.95 M/s; in registers 255 and 1.00 M/s).
#define ML(j) ((volatile __local double *)ml)[(j) * ${WG}u + tid]
## MSH: one modulus for the batch, its digits copied into local memory once per group (all read
## the same word: a broadcast), volatile for the same reason. The copy's barrier is the
## kernel's only one; padding items then stay to it, and zero window digits multiply by T[0]
## rather than skip (mont.cl.mako's staged kernel: PoCL 3.1 miscompiles that divergent
## continue in a kernel with a barrier).
#define MS(j) ((volatile __local double *)msh)[j]

<%def name="prologue()">
    const uint tid = get_local_id(0);
    const uint inst = get_group_id(0) * ${WG}u + tid;
    __local double xs[${N * WG}];
% if MSH:
    __local double msh[${N}];
    const uint row = inst < n ? inst : 0u;
    for (uint j = tid; j < ${N}u; j += ${WG}u) MS(j) = dig2d(digit_at(m, ${NM}u, j));
    barrier(CLK_LOCAL_MEM_FENCE);
% else:
    const uint row = inst;
  % if MLOC:
    __local double ml[${N * WG}];
  % else:
    double mm[${N}];
  % endif
    if (inst >= n) return;   /* no barriers below: a padding item may leave */
    ${load_digits(MM, glob("m", "sm", NM), NM, N)}
% endif
    double y[${N}];
    ulong rd[${N}];
    const ulong minv = mont52_minv(d2dig(${at(MM, 0)}));
</%def>
<%def name="stage(rdv)">
% for j in range(N):
    XS(${j}u) = dig2d(${rdv}[${j}]);
% endfor
</%def>
<%def name="unit(dst)">
% for j in range(N):
    ${dst}[${j}] = ${"1.0" if j == 0 else "0.0"};
% endfor
</%def>
<%def name="store_out()">
    if (inst < n) {
    ${store_limbs(lambda k, v: "out[(size_t)inst * %du + %du] = %s" % (NM, k, v), "rd", N, NM)}
    }
</%def>

% if KERNEL == "mulmod":
__kernel __attribute__((reqd_work_group_size(${WG}, 1, 1)))
void mulmod52(__global const uint *a, ulong sa, __global const uint *b, ulong sb,
              __global const uint *m, ulong sm, __global const uint *r2, ulong sr2,
              __global uint *out, uint n)
{
    ${prologue()}
    ${load_digits("@XS", glob("a", "sa", MA), MA, N)}
    ${load_digits("y", glob("r2", "sr2", NM), NM, N)}
    ${mont52_mul("rd", "XS", "y", MM, N)}        /* a R mod m, below 2m */
    ${stage("rd")}
    ${load_digits("y", glob("b", "sb", MB), MB, N)}
    ${mont52_mul("rd", "XS", "y", MM, N)}        /* a b mod m, below 3m */
    ${reduce("rd", MM, N, 2)}
    ${store_out()}
}
% else:
${window_digit_defs(ME, W)}

<%def name="tab_at(d, j)">tab[((size_t)(${d}) * ${N}u + ${j}u) * nt + inst]</%def>
__kernel __attribute__((reqd_work_group_size(${WG}, 1, 1)))
void powmod52(__global const uint *a, ulong sa, __global const uint *e, ulong se,
              __global const uint *m, ulong sm, __global const uint *r2, ulong sr2,
              __global uint *out, __global double *tab, uint n)
{
    ${prologue()}
    const size_t nt = (size_t)get_num_groups(0) * ${WG}u;   /* instances the table holds */
    __global const uint *ep = e + (size_t)row * se;
    for (uint j = 0; j < ${TW}u; ++j) {   /* from j = 2 on the multiplicand y holds T[1] */
        if (j == 0) {               /* T[0] = R^2 / R = R mod m */
            ${load_digits("@XS", glob("r2", "sr2", NM), NM, N)}
            ${unit("y")}
        } else if (j == 1) {        /* T[1] = a R^2 / R */
            ${load_digits("@XS", glob("a", "sa", MA), MA, N)}
            ${load_digits("y", glob("r2", "sr2", NM), NM, N)}
        } else {                    /* T[j] = T[j-1] T[1] / R */
            ${stage("rd")}
        }
        ${mont52_mul("rd", "XS", "y", MM, N)}
        if (j == 1) {
% for q in range(N):
            y[${q}] = dig2d(rd[${q}]);
% endfor
        }
% for q in range(N):
        ${tab_at("j", q)} = dig2d(rd[${q}]);
% endfor
    }
    {   /* x = T[top digit] */
        const uint d = digit(ep, ${(NWIN - 1) * W}u);
% for q in range(N):
        rd[${q}] = d2dig(${tab_at("d", q)});
% endfor
    }
<% STEPS = (NWIN - 1) * (W + 1) + 1 %>
    for (uint st = 0; st < ${STEPS}u; ++st) {
        const uint ph = st % ${W + 1}u, win = ${NWIN - 2}u - st / ${W + 1}u;
        if (st == ${STEPS - 1}u) {          /* leave the Montgomery form: x / R */
            ${unit("y")}
        } else if (ph < ${W}u) {            /* square */
% for q in range(N):
            y[${q}] = dig2d(rd[${q}]);
% endfor
% if SQR:
            ${mont52_sqr("rd", "y", MM, N)}
            continue;
% endif
        } else {                            /* times T[digit] */
            const uint d = digit(ep, win * ${W}u);
% if not MSH:
            if (d == 0) continue;
% endif
% for q in range(N):
            y[${q}] = ${tab_at("d", q)};
% endfor
        }
        ${stage("rd")}
        ${mont52_mul("rd", "XS", "y", MM, N)}
    }
    ${reduce("rd", MM, N, 1)}
    ${store_out()}
}
% endif
