//! The storage tests: the conformance suite on every backend, opening a store, PostgreSQL. Each
//! file is a module of this one binary, so the dependency graph is linked once (the crash test,
//! which runs itself as a child process, keeps a binary of its own).
// The conformance suite's files are modules of every backend's module, on purpose: each
// backend runs the same tests.
#![allow(clippy::duplicate_mod)]

#[path = "common/cluster.rs"]
mod cluster;
mod common;

mod memory_conformance;
mod open;
mod postgres_conformance;
mod postgres_copy;
mod postgres_global_order;
mod postgres_nodes;
mod postgres_reads_together;
mod postgres_sessions_ended;
mod sled_conformance;
