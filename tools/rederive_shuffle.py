#!/usr/bin/env python3
"""Re-derive a game's shuffle from its revealed seed, independently of the server's code.

Usage: rederive_shuffle.py SEED_HEX STREAM N
Prints the permutation of 0..N-1 that the server's shuffle gives (domain/src/fairness.rs).

ChaCha20 here is written from the original specification (D. J. Bernstein's variant: a
64-bit block counter in words 12-13 and a 64-bit stream number in words 14-15), the source
behind rand_chacha's ChaCha20Rng. Words are read little-endian, in order; a uniform integer
in 0..=i is drawn by rejection; Fisher-Yates runs from the back.
"""
import struct
import sys

MASK = 0xFFFFFFFF


def rotl(v, c):
    return ((v << c) & MASK) | (v >> (32 - c))


def quarter(s, a, b, c, d):
    s[a] = (s[a] + s[b]) & MASK; s[d] = rotl(s[d] ^ s[a], 16)
    s[c] = (s[c] + s[d]) & MASK; s[b] = rotl(s[b] ^ s[c], 12)
    s[a] = (s[a] + s[b]) & MASK; s[d] = rotl(s[d] ^ s[a], 8)
    s[c] = (s[c] + s[d]) & MASK; s[b] = rotl(s[b] ^ s[c], 7)


def chacha20_words(key: bytes, stream: int):
    """Yields the keystream of ChaCha20 as 32-bit little-endian words."""
    constants = [0x61707865, 0x3320646E, 0x79622D32, 0x6B206574]
    key_words = list(struct.unpack("<8I", key))
    counter = 0
    while True:
        state = constants + key_words + [
            counter & MASK, counter >> 32, stream & MASK, stream >> 32]
        working = list(state)
        for _ in range(10):
            quarter(working, 0, 4, 8, 12); quarter(working, 1, 5, 9, 13)
            quarter(working, 2, 6, 10, 14); quarter(working, 3, 7, 11, 15)
            quarter(working, 0, 5, 10, 15); quarter(working, 1, 6, 11, 12)
            quarter(working, 2, 7, 8, 13); quarter(working, 3, 4, 9, 14)
        for i in range(16):
            yield (working[i] + state[i]) & MASK
        counter += 1


def shuffle(seed: bytes, stream: int, n: int):
    words = chacha20_words(seed, stream)
    items = list(range(n))
    for i in range(n - 1, 0, -1):
        bound = i + 1
        zone = 2**32 - (2**32 % bound)
        while True:
            w = next(words)
            if w < zone:
                break
        j = w % bound
        items[i], items[j] = items[j], items[i]
    return items


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    seed = bytes.fromhex(sys.argv[1])
    if len(seed) != 32:
        sys.exit("the seed is 64 hexadecimal digits")
    print(shuffle(seed, int(sys.argv[2]), int(sys.argv[3])))
