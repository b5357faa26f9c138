# SPDX-License-Identifier: MIT
"""A Python daemon's start: os.closerange(3, 1024), then its own file, an
open() log and a socket pair, written before and after enough allocations
for the dump to grow; one leak of LEAK_BYTES. Prints what each write did."""
import ctypes
import os
import socket

LEAK_BYTES = 7340033
lib = ctypes.CDLL("libcudart.so.13")
lib.cudaMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
lib.cudaFree.argtypes = [ctypes.c_void_p]


def pairs(n):
    p = ctypes.c_void_p()
    for i in range(n):
        if lib.cudaMalloc(ctypes.byref(p), 512 + i % 5) != 0 or lib.cudaFree(p) != 0:
            raise SystemExit(99)


def write_all(fd, log, sock, line):
    print("file", os.write(fd, line.encode()), flush=True)
    print("log", log.write(line), flush=True)
    log.flush()
    print("socket", sock.send(line.encode()), flush=True)


pairs(10)
os.closerange(3, 1024)
fd = os.open("data", os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
log = open("log", "w")
a, b = socket.socketpair()
write_all(fd, log, a, "before the allocations\n")
pairs(150000)
write_all(fd, log, a, "after the allocations\n")
leak = ctypes.c_void_p()
if lib.cudaMalloc(ctypes.byref(leak), LEAK_BYTES) != 0:
    raise SystemExit(99)
write_all(fd, log, a, "at the end\n")
print("received", len(b.recv(4096)))
os.close(fd)
log.close()
print("data size", os.stat("data").st_size)
