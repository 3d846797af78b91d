//! The rules tests of every game and the table. Each file is a
//! module of this one binary, so the dependency graph is linked once.

mod common;
mod vamanos_support;

mod altitude;
mod altitude_properties;
mod altitude_table;
mod audit;
mod avalanche;
mod avalanche_properties;
mod chess;
mod chess_perft;
mod chess_random;
mod chess_records;
mod json_answers;
mod random_log;
mod record_notes;
mod revisions;
mod rules_pages;
mod ski_runs;
mod ski_runs_properties;
mod table;
mod table_clock;
mod table_clock_games;
mod takeback_hidden;
mod text;
mod vamanos;
mod vamanos_random;
