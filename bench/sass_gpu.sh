#!/bin/bash
# Dump NVIDIA's PTX for clbig's mul kernel and assemble it to SASS, for reading off-device.
# Run on the GPU machine after `source .gpu/device-env.sh`; writes into $OUT.
set -u
python3 - <<'PY'
import os, pyopencl as cl, clbig
from clbig.runtime.render import kernel
ctx = clbig.Context()
out = os.environ["OUT"]
for name, params in [
        ("mul_2p13", dict(MODE="single", Q=8, C=32, IPI=16, IPB=4, REGIONS=1, B_GLOBAL=False, SQUARE=False, MA=256, MB=256, MR=256, TOP_MASK=0xFFFFFFFF)),
        ("mul_2p11", dict(MODE="single", Q=8, C=8, IPI=4, IPB=16, REGIONS=1, B_GLOBAL=False, SQUARE=False, MA=64, MB=64, MR=64, TOP_MASK=0xFFFFFFFF))]:
    k = kernel(ctx, "mul.cl.mako", "mul", None, **params)
    ptx = k.program.get_info(cl.program_info.BINARIES)[0]
    open(f"{out}/{name}.ptx", "wb").write(ptx.rstrip(b"\0"))  # NVIDIA ends it with a NUL: ptxas refuses that
PY
for f in $OUT/*.ptx; do
  ptxas -arch=sm_90 -v -o ${f%.ptx}.cubin $f 2> ${f%.ptx}.ptxas.txt
  cuobjdump -sass ${f%.ptx}.cubin > ${f%.ptx}.sass
  rm -f ${f%.ptx}.cubin
done
ls -la $OUT
