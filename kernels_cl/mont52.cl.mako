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
## fixtab / fixpow: one base g and one odd modulus for the batch (Diffie-Hellman, ElGamal): a
##   table T[j][d] = g^(d 2^(W j)) R mod m shared by every row (fixtab, an item per entry, from
##   G_j = g^(2^(W j)) mod m computed on the host), then each row is the product of one entry
##   per window of its exponent: ceil(bits / W) products and no squares (fixpow).
## multipow: the product of K powers b_k^e_k mod m per row by one shared chain of squares
##   (Straus): K tables of 2^W entries per instance, then per window W squares and K products.
## The multiplier's digits (the row a_i of each step) are staged in local memory, limb j of
## item t at j*WG + t so a group's items touch consecutive words; with MLOC m's digits live
## there too instead of registers (for N beyond what the registers hold beside y and the
## accumulators: mpn/mont52.py REG_MAX).
<%namespace file="blocks/mont52.mako" import="mont52_defs, digit_rt_defs, window_digit_defs, window_digit_rt_defs, load_digits, store_limbs, mont52_mul, mont52_sqr, reduce"/>
<%! from clbig.runtime.tmpl import at %>
<%
    TW = 1 << W if KERNEL != "mulmod" else 0
    NWIN = (ME * 32 + W - 1) // W if KERNEL == "powmod" else 0
    VARIANT = KERNEL in ("fixtab", "fixpow", "multipow")
    K = context.get("K", 0)          # bases per row (multipow)
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

<%def name="mtab(k, d, q)">tab[(((size_t)(${k}) * ${TW}u + (${d})) * ${N}u + ${q}u) * nt + inst]</%def>
<%def name="pick(k)">
        switch (${k}) {
% for k in range(context.get("K", 0)):
        case ${k}u: bp = b${k} + (size_t)row * sb${k}; mb = mb${k}; ep = e${k} + (size_t)row * se${k}; me = me${k}; break;
% endfor
        }
</%def>
% if VARIANT:
${window_digit_rt_defs()}
% endif
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
% elif KERNEL == "powmod":
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
% elif KERNEL == "fixtab":
## Item t = j TW + d: T[j][d] = G_j^d R mod m by square-and-multiply over the bits of d from
## x1 = G_j R (a product by r2); d = 0 gives R = mont(r2, 1). Entries leave as doubles, digits
## contiguous (tab[t * N + q]): a row reads its entry's N words from one place.
__kernel __attribute__((reqd_work_group_size(${WG}, 1, 1)))
void fixtab52(__global const uint *g, ulong sg, uint mg, __global const uint *m, ulong sm,
              __global const uint *r2, __global double *tab, uint n)
{
    ${prologue()}
    const uint j = inst / ${TW}u, d = inst % ${TW}u;
    const int top = d ? 31 - (int)clz(d) : 0;
    double x1[${N}];
    for (int st = 0; st <= 2 * top; ++st) {
        if (st == 0) {
            if (d == 0) {
                ${load_digits("@XS", glob("r2", "0", NM), NM, N)}
                ${unit("y")}
            } else {
% for q in range(N):
                XS(${q}u) = dig2d(digit_at(g + (size_t)j * sg, mg, ${q}u));
% endfor
                ${load_digits("y", glob("r2", "0", NM), NM, N)}
            }
        } else if (st & 1) {                /* square */
            ${stage("rd")}
% for q in range(N):
            y[${q}] = dig2d(rd[${q}]);
% endfor
        } else {                            /* times x1 where bit top - st/2 of d is set */
            if (!((d >> (top - st / 2)) & 1u)) continue;
            ${stage("rd")}
% for q in range(N):
            y[${q}] = x1[${q}];
% endfor
        }
        ${mont52_mul("rd", "XS", "y", MM, N)}
        if (st == 0) {
% for q in range(N):
            x1[${q}] = dig2d(rd[${q}]);
% endfor
        }
    }
% for q in range(N):
    tab[(size_t)inst * ${N}u + ${q}u] = dig2d(rd[${q}]);
% endfor
}
% elif KERNEL == "fixpow":
## x = T[0][e_0] T[1][e_1] ... / R^(nwin - 1), then x / R (leaving the Montgomery form), one
## subtraction. With MSH a zero digit multiplies by T[j][0] = R instead of skipping.
__kernel __attribute__((reqd_work_group_size(${WG}, 1, 1)))
void fixpow52(__global const double *tab, __global const uint *e, ulong se, uint me,
              __global const uint *m, ulong sm, __global uint *out, uint nwin, uint n)
{
    ${prologue()}
    __global const uint *ep = e + (size_t)row * se;
    {
        const size_t t = wdigit(ep, me, ${W}u, 0u);
% for q in range(N):
        rd[${q}] = d2dig(tab[t * ${N}u + ${q}u]);
% endfor
    }
    for (uint j = 1; j <= nwin; ++j) {
        if (j == nwin) {
            ${unit("y")}
        } else {
            const uint d = wdigit(ep, me, ${W}u, j * ${W}u);
% if not MSH:
            if (d == 0) continue;
% endif
            const size_t t = (size_t)j * ${TW}u + d;
% for q in range(N):
            y[${q}] = tab[t * ${N}u + ${q}u];
% endfor
        }
        ${stage("rd")}
        ${mont52_mul("rd", "XS", "y", MM, N)}
    }
    ${reduce("rd", MM, N, 1)}
    ${store_out()}
}
% elif KERNEL == "multipow":
## Per instance K tables T_k[d] = b_k^d R mod m (2^W entries each, in global memory as powmod's
## one), then, from the top window down, W squares and one product by T_k[digit of e_k] per k.
__kernel __attribute__((reqd_work_group_size(${WG}, 1, 1)))
void multipow52(
% for k in range(K):
                __global const uint *b${k}, ulong sb${k}, uint mb${k}, __global const uint *e${k}, ulong se${k}, uint me${k},
% endfor
                __global const uint *m, ulong sm, __global const uint *r2, ulong sr2,
                __global uint *out, __global double *tab, uint nwin, uint n)
{
    ${prologue()}
    const size_t nt = (size_t)get_num_groups(0) * ${WG}u;   /* instances the tables hold */
    __global const uint *bp = b0, *ep = e0;
    uint mb = 0u, me = 0u;
    for (uint t = 0; t < ${K * TW}u; ++t) {
        const uint k = t / ${TW}u, j = t % ${TW}u;
        if (j == 0) {               /* T_k[0] = R^2 / R = R mod m */
            ${load_digits("@XS", glob("r2", "sr2", NM), NM, N)}
            ${unit("y")}
        } else if (j == 1) {        /* T_k[1] = b_k R^2 / R */
            ${pick("k")}
% for q in range(N):
            XS(${q}u) = dig2d(digit_at(bp, mb, ${q}u));
% endfor
            ${load_digits("y", glob("r2", "sr2", NM), NM, N)}
        } else {                    /* T_k[j] = T_k[j-1] T_k[1] / R */
            ${stage("rd")}
        }
        ${mont52_mul("rd", "XS", "y", MM, N)}
        if (j == 1) {
% for q in range(N):
            y[${q}] = dig2d(rd[${q}]);
% endfor
        }
% for q in range(N):
        ${mtab("k", "j", q)} = dig2d(rd[${q}]);
% endfor
    }
    {   /* x = T_0[top digit of e_0]; the other bases' top digits are the first K - 1 steps */
        ${pick("0u")}
        const uint d = wdigit(ep, me, ${W}u, (nwin - 1u) * ${W}u);
% for q in range(N):
        rd[${q}] = d2dig(${mtab("0u", "d", q)});
% endfor
    }
    const uint steps = ${K - 1}u + (nwin - 1u) * ${W + K}u + 1u;
    for (uint st = 0; st < steps; ++st) {
        uint k = 0u, win = nwin - 1u, sq = 0u;
        if (st < ${K - 1}u) {
            k = st + 1u;
        } else if (st < steps - 1u) {
            const uint s2 = st - ${K - 1}u, ph = s2 % ${W + K}u;
            win = nwin - 2u - s2 / ${W + K}u;
            if (ph < ${W}u) sq = 1u; else k = ph - ${W}u;
        }
        if (st == steps - 1u) {             /* leave the Montgomery form: x / R */
            ${unit("y")}
        } else if (sq) {                    /* square */
% for q in range(N):
            y[${q}] = dig2d(rd[${q}]);
% endfor
% if SQR:
            ${mont52_sqr("rd", "y", MM, N)}
            continue;
% endif
        } else {                            /* times T_k[digit of e_k] */
            ${pick("k")}
            const uint d = wdigit(ep, me, ${W}u, win * ${W}u);
% if not MSH:
            if (d == 0) continue;
% endif
% for q in range(N):
            y[${q}] = ${mtab("k", "d", q)};
% endfor
        }
        ${stage("rd")}
        ${mont52_mul("rd", "XS", "y", MM, N)}
    }
    ${reduce("rd", MM, N, 1)}
    ${store_out()}
}
% endif
