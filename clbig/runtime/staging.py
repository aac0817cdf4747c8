"""Transfers from ordinary (pageable) host memory through page-locked staging buffers.

A GPU driver copies pageable memory through a small page-locked bounce buffer of its own, one
piece at a time, and the bus idles while it copies (H200, 2026-11-25, 1,048,576 products of
4096-bit numpy limbs host to host: 509 ms from ordinary memory, 43.7 ms from pinned_empty;
issue 36). Here the host copies each chunk into one of two page-locked buffers of the Context
while the other buffer's chunk crosses the bus (a non-blocking copy and its event), so the
copy into staging overlaps the transfer. Rows made on the host (ints to limbs) are written
into the staging buffers directly, and rows read are turned into ints straight from them
(upload_rows, download_rows: issue 47), so no whole-batch host array is made at all.

Settings (runtime.config):
  STAGING=auto|on|off   auto: only where the device's memory is not the host's (a GPU or
                        accelerator that does not report unified memory); on a CPU device a
                        transfer is a memcpy already, and staging would add a second.
  STAGING_CHUNK=bytes   the size of each staging buffer (default 64 MiB).
  STAGING_MIN=bytes     smaller transfers go directly (default 1 MiB): two copies and an extra
                        wait cost more than the driver's bounce buffer there.
"""
from __future__ import annotations

import concurrent.futures
import os
import threading

import numpy as np
import pyopencl as cl

from . import config

#: 64 MiB: Python ints made and read in the staging buffers (upload_rows, download_rows) wait
#: for a chunk's last range at every chunk, and 16 MiB chunks cost that 32 times for 512 MiB
#: (H200 host, 16 cores, 2026-11-29, eleven alternating rounds, list to list: 10^6 products of
#: 2048-bit ints 430 ms least, 468 median with 16 MiB, 346 and 420 with 64 MiB; divmod 4096 /
#: 2048, 262,144 rows, 308 / 335 against 243 / 328); plain copies too, whose pieces on the
#: copy threads were 1 MiB (a later call, nine rounds: 2^20 products of 4096-bit limbs numpy to
#: numpy 152 ms least with 16 MiB, 69 with 64). PoCL's copies: the same from 1 to 16 MiB.
CHUNK = 64 << 20
MIN_BYTES = 1 << 20
#: Host copies into and out of staging are split over this many threads (numpy's copy releases
#: the GIL): one thread copies at a few GB/s, a fraction of the bus (H200 host, 2026-11-27:
#: 6.7 GB/s staged against 50 GB/s from pinned_empty with one copying thread).
THREADS = max(1, min(16, os.cpu_count() or 1))
_PIECE = 1 << 20             # no thread gets less than this many bytes of a copy
_pool = None
_pool_lock = threading.Lock()


def _copy(dst: np.ndarray, src: np.ndarray) -> None:
    """dst[...] = src for flat uint8 arrays, in pieces on the copy threads when large."""
    n = dst.nbytes
    parts = min(THREADS, n // _PIECE)
    if parts < 2:
        np.copyto(dst, src)
        return
    global _pool
    if _pool is None:
        with _pool_lock:
            if _pool is None:
                _pool = concurrent.futures.ThreadPoolExecutor(THREADS, thread_name_prefix="clbig-staging")
    step = -(-n // parts)
    futs = [_pool.submit(np.copyto, dst[o:o + step], src[o:o + step]) for o in range(step, n, step)]
    np.copyto(dst[:step], src[:step])         # this thread takes the first piece
    for f in futs:
        f.result()


def mode() -> str:
    return config.value("STAGING")


def chunk_bytes() -> int:
    return config.value("STAGING_CHUNK", CHUNK)


def separate_memory(device) -> bool:
    """Whether `device` has memory of its own (a transfer crosses a bus), by its type and its
    CL_DEVICE_HOST_UNIFIED_MEMORY (deprecated in OpenCL 2.0, so its absence means separate)."""
    if device.type & cl.device_type.CPU:
        return False
    try:
        return not device.host_unified_memory
    except (cl.Error, AttributeError):
        return True


def is_pinned(host: np.ndarray) -> bool:
    """Whether `host` is (a view of) a mapped OpenCL buffer, as Context.pinned_empty makes:
    the driver copies it at the bus's speed already, so it never goes through staging."""
    b = host
    while b is not None:
        if isinstance(b, cl.MemoryMap):
            return True
        b = getattr(b, "base", None)
    return False


class Staging:
    """A Context's page-locked buffers, reused across calls. Each transfer takes two (made as
    needed, so threads transferring at once on one Context each get their own pair) and gives
    them back when its commands are done."""

    def __init__(self, ctx):
        self.ctx = ctx
        self._free: list = []          # (size, cl.Buffer, mapped uint8 array)
        self._lock = threading.Lock()

    def _take(self, size: int) -> list:
        with self._lock:
            got = [b for b in self._free if b[0] == size][:2]
            for b in got:
                self._free.remove(b)
            if len(got) < 2:           # another size than before: let the old ones go
                self._free = [b for b in self._free if b[0] == size]
        while len(got) < 2:
            buf = cl.Buffer(self.ctx.cl_context, cl.mem_flags.READ_WRITE | cl.mem_flags.ALLOC_HOST_PTR, size)
            arr, _ = cl.enqueue_map_buffer(self.ctx._plain_queue, buf, cl.map_flags.READ | cl.map_flags.WRITE,
                                           0, (size,), np.uint8, is_blocking=True)
            got.append((size, buf, arr))
        return got

    def _give(self, bufs: list) -> None:
        with self._lock:
            self._free.extend(bufs)

    def upload(self, dst: cl.Buffer, src: np.ndarray, dst_offset: int = 0) -> None:
        """Copy the C-contiguous host array `src` into `dst` (from byte dst_offset) and wait
        until it is there: chunk i is copied into staging buffer i % 2 while chunk i - 1
        crosses the bus."""
        raw = src.reshape(-1).view(np.uint8)
        self.upload_rows(dst, raw.nbytes, 1, lambda stage, a, b: _copy(stage, raw[a:b]), dst_offset)

    def upload_rows(self, dst: cl.Buffer, nrows: int, row_bytes: int, fill, dst_offset: int = 0) -> None:
        """Rows made on the host straight into the staging buffers, then into `dst` (from byte
        dst_offset), and wait until they are there: fill(stage, a, b) writes rows a..b-1 into
        stage (a uint8 array of (b - a) * row_bytes bytes), whole rows a chunk, chunk i while
        chunk i - 1 crosses the bus. So a batch made on the host (ints to limbs) never lies
        whole in a fresh array, whose page faults cost as much as the copy (issue 47)."""
        bufs = self._take(self._size(row_bytes))
        per = len(bufs[0][2]) // row_bytes          # whole rows a chunk
        events = [None, None]
        try:
            for i, a in enumerate(range(0, nrows, per)):
                k = i % 2
                if events[k] is not None:
                    events[k].wait()          # its buffer's previous chunk has left
                b = min(nrows, a + per)
                stage = bufs[k][2][:(b - a) * row_bytes]
                fill(stage, a, b)
                with self.ctx.enqueuing() as q:
                    events[k] = cl.enqueue_copy(q, dst, stage, dst_offset=dst_offset + a * row_bytes,
                                                is_blocking=False)
        finally:
            for e in events:                   # even on an error: the buffers go back idle
                if e is not None:
                    e.wait()
            self._give(bufs)

    def download(self, src: cl.Buffer, dst: np.ndarray, src_offset: int = 0, wait_for=None) -> None:
        """Copy len(dst) bytes of `src` (from byte src_offset) into the C-contiguous host array
        `dst`: the reads of chunks i + 1 (and i + 2 once its buffer is free) are queued while
        the host copies chunk i out of staging."""
        raw = dst.reshape(-1).view(np.uint8)
        self.download_rows(src, raw.nbytes, 1, lambda stage, a, b: _copy(raw[a:b], stage), src_offset, wait_for)

    def download_rows(self, src: cl.Buffer, nrows: int, row_bytes: int, drain, src_offset: int = 0,
                      wait_for=None) -> None:
        """nrows rows of row_bytes bytes of `src` (from byte src_offset) to the host through the
        staging buffers: drain(stage, a, b) takes rows a..b-1 from stage (a uint8 array of
        (b - a) * row_bytes bytes, valid only during the call) while the reads of the next
        chunks are queued, so the host's work on a chunk (limbs to ints) overlaps the bus."""
        bufs = self._take(self._size(row_bytes))
        per = len(bufs[0][2]) // row_bytes
        starts = list(range(0, nrows, per))
        events = [None, None]

        def read(i):
            a = starts[i]
            n = (min(nrows, a + per) - a) * row_bytes
            with self.ctx.enqueuing() as q:
                events[i % 2] = cl.enqueue_copy(q, bufs[i % 2][2][:n], src, src_offset=src_offset + a * row_bytes,
                                                is_blocking=False, wait_for=wait_for if i == 0 else None)
        try:
            for i in range(min(2, len(starts))):
                read(i)
            for i, a in enumerate(starts):
                k = i % 2
                events[k].wait()
                b = min(nrows, a + per)
                drain(bufs[k][2][:(b - a) * row_bytes], a, b)
                events[k] = None
                if i + 2 < len(starts):
                    read(i + 2)
        finally:
            for e in events:
                if e is not None:
                    e.wait()
            self._give(bufs)

    @staticmethod
    def _size(row_bytes: int) -> int:
        """Staging buffers' size: the chunk setting, or one row where a row is larger (the
        buffers are kept by size: transfers of the usual size reuse them)."""
        return max(chunk_bytes(), row_bytes)
