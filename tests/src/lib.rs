//! Black-box tests of the `avalanche` server live in `tests/`; this crate has no code of its own.
