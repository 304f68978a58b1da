"""The key and MAC that make the test runner's report unforgeable by the code it tests. Pure.

The harness draws a fresh 128-bit key per job (:func:`new_key`) and hands it to the runner only
on the runner's standard input, after the previous job ended; the runner signs each line of its
verdict-deciding report with SipHash-2-4 under that key (``java/nl2fix/runner/SipHash.java``
says why the key cannot be found in the runner's JVM). Code under test shares the runner's
standard output and can print anything there, but without the key it cannot make a line that
:func:`verify` accepts, and the key of one job is worth nothing for the next.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

_MASK = (1 << 64) - 1


@dataclass(frozen=True)
class JobKey:
    k0: int
    k1: int

    @property
    def hex(self) -> str:
        """How the runner reads it: 32 hex digits, ``k0`` then ``k1``."""
        return f"{self.k0:016x}{self.k1:016x}"


def new_key() -> JobKey:
    return JobKey(secrets.randbits(64), secrets.randbits(64))


def _rotl(x: int, b: int) -> int:
    return ((x << b) | (x >> (64 - b))) & _MASK


def _rounds(v: list[int], n: int) -> None:
    v0, v1, v2, v3 = v
    for _ in range(n):
        v0 = (v0 + v1) & _MASK
        v1 = _rotl(v1, 13)
        v1 ^= v0
        v0 = _rotl(v0, 32)
        v2 = (v2 + v3) & _MASK
        v3 = _rotl(v3, 16)
        v3 ^= v2
        v0 = (v0 + v3) & _MASK
        v3 = _rotl(v3, 21)
        v3 ^= v0
        v2 = (v2 + v1) & _MASK
        v1 = _rotl(v1, 17)
        v1 ^= v2
        v2 = _rotl(v2, 32)
    v[:] = [v0, v1, v2, v3]


def siphash24(k0: int, k1: int, message: bytes) -> int:
    """SipHash-2-4 of ``message`` under the key whose little-endian halves are ``k0``, ``k1``."""
    v = [0x736F6D6570736575 ^ k0, 0x646F72616E646F6D ^ k1, 0x6C7967656E657261 ^ k0, 0x7465646279746573 ^ k1]
    end = len(message) - len(message) % 8
    words = [int.from_bytes(message[i : i + 8], "little") for i in range(0, end, 8)]
    words.append(int.from_bytes(message[end:], "little") | ((len(message) & 0xFF) << 56))
    for m in words:
        v[3] ^= m
        _rounds(v, 2)
        v[0] ^= m
    v[2] ^= 0xFF
    _rounds(v, 4)
    return v[0] ^ v[1] ^ v[2] ^ v[3]


def mac(key: JobKey, body: str) -> str:
    return f"{siphash24(key.k0, key.k1, body.encode('utf-8')):016x}"


def verify(key: JobKey, body: str, tag: str) -> bool:
    return secrets.compare_digest(mac(key, body), tag)
