## Three-way comparison one work-item per instance, from its most significant limb down
## (mpn/compare.py, where add_n.serial chooses the one-item additions: on CPUs, and for small
## batches on GPUs). A CPU runs work-items as loop iterations, so the GPUs' kernel
## (compare.cl.mako: limbs over items, a scan through local memory) pays for parallelism a
## core does not have, and its launch plans differ by width class: gcdext built three of them
## on PoCL. Widths at run time: one build for every width. out[i] = 0 where a == b, 1 where
## a < b, 2 where a > b.
<%namespace file="blocks/common.mako" import="header"/>
${header()}

__kernel void compare_serial(__global const limb_t *a, ulong sa, __global const limb_t *b, ulong sb,
                             __global uchar *out, uint n, uint ma, uint mb)
{
    const uint i = get_global_id(0);
    if (i >= n) return;
    __global const limb_t *ra = a + (size_t)i * sa, *rb = b + (size_t)i * sb;
    uchar v = 0;
    for (uint j = max(ma, mb); j > 0u; --j) {
        const limb_t x = j <= ma ? ra[j - 1u] : 0u, y = j <= mb ? rb[j - 1u] : 0u;
        if (x != y) {
            v = x < y ? 1 : 2;
            break;
        }
    }
    out[i] = v;
}
